#pragma once
// Synchronization strategies decide when updates happen and how an arriving gradient is applied; they
// never move bytes themselves. The runtime asks them; the parameter server and the workers obey.

#include "sim/core/diagnostic.hpp"
#include "sim/core/parameter_values.hpp"
#include "sim/core/registry.hpp"
#include "sim/core/schema.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace dtsim::sync {

/// How a parameter server turns arriving gradients into updates.
enum class Apply {
  ByClock,    ///< once every worker's gradient of a clock has arrived: their mean, in worker order
  OnArrival,  ///< each gradient on its own, as it arrives
};

/// DiLoCo's outer optimizer: SGD with momentum (Nesterov's or heavy-ball) on the averaged outer gradient. As
/// PyTorch's SGD: v = momentum v + g; the step is g + momentum v with Nesterov, v without; x -= learning_rate
/// step.
struct OuterOptimizer {
  double learning_rate = 0.7;
  double momentum = 0.9;
  bool nesterov = true;
};

/// How an outer gradient travels: `automatic` as DiLoCo's (32-bit floats when trained for real, the parameters'
/// wire precision on a timing-only profile), or rounded to a narrower float before it is sent.
enum class OuterPrecision { automatic, fp32, bf16, fp8, int8, fp4 };

/// Streaming DiLoCo's settings beside its outer optimizer: the fragments' schedule is FragmentSchedule's.
struct StreamingSettings {
  int inner_steps = 1;  ///< H
  int fragments = 1;    ///< P
  int overlap = 1;      ///< tau: inner steps between a fragment's send and its merge
  double mixing = 0.5;  ///< alpha: the weight of the worker's own parameters at a merge
  OuterPrecision precision = OuterPrecision::automatic;
};

/// The steps the allreduce runtime offers a lock-step strategy once a worker's gradient is computed; the
/// strategy's after_gradient() says which to take, in order.
class LockStepActions {
 public:
  virtual ~LockStepActions() = default;
  /// Averages the gradient over the workers by allreduce, then applies it (one update from every gradient).
  virtual void apply_averaged_gradient() = 0;
  /// Applies the worker's own gradient to its own parameters (a local step).
  virtual void apply_own_gradient() = 0;
  /// Averages the parameters themselves over the workers by allreduce.
  virtual void average_parameters() = 0;
  /// Averages the parameters with the worker's topology neighbours: all of them, or the one a seeded
  /// random matching pairs it with this round.
  virtual void gossip(bool with_all) = 0;
  /// Averages the gradient over the worker's site (its datacenter's workers under `topology.kind: sites`) by
  /// allreduce, then applies it: a bulk-synchronous step inside the site.
  virtual void apply_site_averaged_gradient() = 0;
  /// DiLoCo's outer step: averages the outer gradient (the global parameters of the last outer step less the
  /// worker's own) by allreduce, steps the global parameters with `outer`, and goes on from them.
  virtual void outer_step(const OuterOptimizer& outer) = 0;
  /// Streaming DiLoCo: starts the allreduce of fragment `fragment`'s outer gradient (its global parameters less
  /// the worker's own), which runs beside the next inner steps.
  virtual void send_fragment(int fragment) = 0;
  /// Streaming DiLoCo: waits for the fragment's averaged outer gradient, steps its global parameters with the
  /// outer optimizer, and mixes them into the worker's own.
  virtual void merge_fragment(int fragment) = 0;
};

/// What a parameter-server worker holds between pushes when it steps on its own parameters.
struct Held {
  double relative = 0.0;   ///< the held update's norm (at the learning rate) over the parameters' norm
  std::int64_t steps = 0;  ///< local steps since the last push
};

/// The steps the parameter-server runtime offers a worker once its gradient is computed; the strategy's
/// after_gradient_with_servers() says which to take.
class PushActions {
 public:
  virtual ~PushActions() = default;
  /// Pushes the gradient to the servers and goes on from the parameters they reply with.
  virtual void push_gradient() = 0;
  /// Applies the gradient to the worker's own parameters and adds it to what is held since the last push.
  virtual Held step_locally() = 0;
  /// Pushes what is held (shaped by on_push(), the reply taken by on_pull()); `forced` when it goes only
  /// because training ends.
  virtual void push_held(bool forced) = 0;
};

class SyncStrategy {
 public:
  virtual ~SyncStrategy() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// True when all workers advance together, one step at a time (required by allreduce architectures).
  [[nodiscard]] virtual bool lock_step() const = 0;
  /// Whether it runs without a server: lock-step strategies do, and so does a fixed staleness bound (the
  /// allreduces of successive clocks run in the background while workers compute ahead).
  [[nodiscard]] virtual bool runs_on_allreduce() const { return lock_step(); }
  [[nodiscard]] virtual Apply apply() const = 0;
  /// How many clocks a worker may run ahead of the updates applied: a worker that has pushed c gradients
  /// may compute its next one once the updates of every clock up to c - bound are applied. Negative: no
  /// bound (the worker goes on with whatever the server has).
  [[nodiscard]] virtual int staleness_bound() const = 0;
  /// The bound after a clock completes, given the bound so far and whether a worker had to wait for it
  /// since the last clock completed. Fixed unless the strategy adapts it.
  [[nodiscard]] virtual int next_staleness_bound(int current, bool someone_waited) const {
    static_cast<void>(someone_waited);
    return current;
  }
  /// Allreduce: 0 to average gradients every step; H > 0 to take H local SGD steps, then average the
  /// parameters themselves.
  [[nodiscard]] virtual int local_steps() const { return 0; }
  /// Whether the averaging every local_steps() steps is an outer optimizer's step (DiLoCo), and its settings;
  /// null: the parameters themselves are averaged (local SGD).
  [[nodiscard]] virtual const OuterOptimizer* outer_optimizer() const { return nullptr; }
  /// Whether the outer steps go fragment by fragment, overlapped with the inner steps (Streaming DiLoCo), and
  /// how; null: every outer step takes the whole model at once.
  [[nodiscard]] virtual const StreamingSettings* streaming() const { return nullptr; }
  /// Whether a site's workers average their gradients every step between the outer steps (hierarchical: each
  /// datacenter one replica of the outer optimization), rather than each worker stepping alone.
  [[nodiscard]] virtual bool steps_with_its_site() const { return false; }
  /// Peer to peer: after each local step a worker averages its parameters with its topology neighbours
  /// (all of them, or the one a seeded random matching pairs it with) instead of any allreduce.
  [[nodiscard]] virtual bool gossip() const { return false; }
  [[nodiscard]] virtual bool gossip_with_all() const { return false; }

  /// Lock step, every worker averaging over all the others (bsp, local SGD): not gossip, which averages with
  /// neighbours. What timing-only runs and failure rollbacks on an allreduce need.
  [[nodiscard]] bool averages_in_lock_step() const { return lock_step() && !gossip(); }
  /// Every step's gradients averaged over all workers before it is applied (bsp): what model parallelism,
  /// ZeRO and overlapped buckets need.
  [[nodiscard]] bool bulk_synchronous() const { return averages_in_lock_step() && local_steps() == 0; }
  /// Parameter server: whether workers keep their own parameters between pushes, so that a push carries
  /// the count of local steps it holds (approximate synchronous, elastic averaging).
  [[nodiscard]] virtual bool accumulates_locally() const { return false; }
  /// Whether a worker whose accumulated update has magnitude `relative` (its norm over the parameters'
  /// norm) and holds `delay` steps sends it now.
  [[nodiscard]] virtual bool send_now(double relative, std::int64_t delay) const {
    static_cast<void>(relative);
    static_cast<void>(delay);
    return true;
  }
  /// On arrival: how many gradients the server gathers before it applies them as one update.
  [[nodiscard]] virtual int accumulate() const { return 1; }
  /// On arrival: whether the server applies each update under a lock, replying once it is applied, rather
  /// than lock-free (Hogwild): the update's values at once, its time in the background.
  [[nodiscard]] virtual bool locked() const { return false; }
  /// On arrival: the factor on the learning rate for a gradient `staleness` updates old.
  [[nodiscard]] virtual double learning_rate_scale(std::int64_t /*staleness*/) const { return 1.0; }

  /// Allreduce, lock step: what a worker does with its gradient of `iteration` (1-based, of `last`).
  /// Gradient averaging by default.
  virtual void after_gradient(std::int64_t iteration, std::int64_t last, LockStepActions& actions) const {
    static_cast<void>(iteration);
    static_cast<void>(last);
    actions.apply_averaged_gradient();
  }

  /// Parameter server: what a worker does with its gradient of `iteration` (1-based, of `last`). Pushing it by
  /// default; strategies that step locally override it with push_when_due().
  virtual void after_gradient_with_servers(std::int64_t iteration, std::int64_t last, PushActions& actions) const {
    static_cast<void>(iteration);
    static_cast<void>(last);
    actions.push_gradient();
  }

  // Hooks the parameter-server runtime calls around a push of a worker that steps locally
  // (accumulates_locally()), each on one shard's slice of the values. The defaults push the accumulated
  // gradients, let the server's optimizer apply them, and continue from the server's parameters.

  /// Worker, before a push: turns `message` (the gradients accumulated since the last push) into what is
  /// sent, given the worker's own `parameters`.
  virtual void on_push(std::span<const float> parameters, std::span<float> message) const {
    static_cast<void>(parameters);
    static_cast<void>(message);
  }
  /// Server, when a push arrives: whether the strategy updates `shard` itself with `message` (then `reply`,
  /// resized by it, is what goes back to the worker) rather than the optimizer applying it as a gradient.
  /// Returns the floating-point operations the update costs, or nullopt to leave it to the optimizer.
  [[nodiscard]] virtual std::optional<double> on_server_receive(std::span<float> shard, std::span<const float> message,
                                                                std::vector<float>& reply, double learning_rate) const {
    static_cast<void>(shard);
    static_cast<void>(message);
    static_cast<void>(reply);
    static_cast<void>(learning_rate);
    return std::nullopt;
  }
  /// Worker, when the server's reply arrives: its parameters from now on. Those of the server by default.
  virtual void on_pull(std::span<float> parameters, std::span<const float> reply, double learning_rate) const {
    static_cast<void>(learning_rate);
    std::copy(reply.begin(), reply.end(), parameters.begin());
  }

 protected:
  /// A local step, and a push of what is held when send_now() says so, or after the last step.
  void push_when_due(std::int64_t iteration, std::int64_t last, PushActions& actions) const {
    const Held held = actions.step_locally();
    const bool due = send_now(held.relative, held.steps);
    if (due || iteration == last) actions.push_held(!due);
  }
};

/// Bulk synchronous parallel: every step, every worker's gradient goes into one update, and no worker
/// starts the next step before that update is done.
class Bsp final : public SyncStrategy {
 public:
  [[nodiscard]] std::string_view name() const override { return "bsp"; }
  [[nodiscard]] bool lock_step() const override { return true; }
  [[nodiscard]] Apply apply() const override { return Apply::ByClock; }
  [[nodiscard]] int staleness_bound() const override { return 0; }
};

/// Stale-synchronous parallel with bound s: updates as BSP's, but a worker may compute up to s clocks
/// ahead of the last complete update. s = 0 is BSP.
class Ssp final : public SyncStrategy {
 public:
  explicit Ssp(int staleness) : staleness_(staleness) {}
  [[nodiscard]] std::string_view name() const override { return "ssp"; }
  [[nodiscard]] bool lock_step() const override { return false; }
  [[nodiscard]] bool runs_on_allreduce() const override { return true; }
  [[nodiscard]] Apply apply() const override { return Apply::ByClock; }
  [[nodiscard]] int staleness_bound() const override { return staleness_; }

 private:
  int staleness_;
};

/// Approximate synchronous parallel: a worker applies its gradients to its own parameters and accumulates
/// them; it pushes the sum only when the update it makes is significant (its norm over the parameters'
/// norm above `threshold`) or `max_delay` steps have passed, and then continues from the server's
/// parameters. The server applies each push as it arrives.
class Approximate final : public SyncStrategy {
 public:
  Approximate(double threshold, std::int64_t max_delay, bool lock = false)
      : threshold_(threshold), max_delay_(max_delay), lock_(lock) {}
  [[nodiscard]] std::string_view name() const override { return "approximate"; }
  [[nodiscard]] bool lock_step() const override { return false; }
  [[nodiscard]] Apply apply() const override { return Apply::OnArrival; }
  [[nodiscard]] int staleness_bound() const override { return -1; }
  [[nodiscard]] bool accumulates_locally() const override { return true; }
  [[nodiscard]] bool send_now(double relative, std::int64_t delay) const override {
    return relative > threshold_ || delay >= max_delay_;
  }
  [[nodiscard]] bool locked() const override { return lock_; }
  void after_gradient_with_servers(std::int64_t iteration, std::int64_t last, PushActions& actions) const override {
    push_when_due(iteration, last, actions);
  }

 private:
  double threshold_;
  std::int64_t max_delay_;
  bool lock_;
};

/// Adaptive SSP: as SSP, with a bound that starts at `lowest` and moves with observed progress: after each
/// complete clock it grows by one (up to `highest`) if a worker had to wait for the bound since the last
/// clock, and shrinks by one (down to `lowest`) if none had.
class AdaptiveSsp final : public SyncStrategy {
 public:
  AdaptiveSsp(int lowest, int highest) : lowest_(lowest), highest_(highest) {}
  [[nodiscard]] std::string_view name() const override { return "adaptive_ssp"; }
  [[nodiscard]] bool lock_step() const override { return false; }
  [[nodiscard]] Apply apply() const override { return Apply::ByClock; }
  [[nodiscard]] int staleness_bound() const override { return lowest_; }
  [[nodiscard]] int next_staleness_bound(int current, bool someone_waited) const override {
    return someone_waited ? std::min(current + 1, highest_) : std::max(current - 1, lowest_);
  }

 private:
  int lowest_;
  int highest_;
};

/// Asynchronous: the server applies each gradient as it arrives, and a worker goes on at once with the
/// parameters the server has then.
class Async final : public SyncStrategy {
 public:
  explicit Async(bool lock = false) : lock_(lock) {}
  [[nodiscard]] std::string_view name() const override { return "async"; }
  [[nodiscard]] bool lock_step() const override { return false; }
  [[nodiscard]] Apply apply() const override { return Apply::OnArrival; }
  [[nodiscard]] int staleness_bound() const override { return -1; }
  [[nodiscard]] bool locked() const override { return lock_; }

 private:
  bool lock_;
};

/// Staleness-aware asynchronous SGD: as async, but a gradient `tau` updates old is applied with the
/// learning rate divided by tau (by 1 when tau is 0), and the server applies `accumulate` gradients at a
/// time, as their mean.
class StalenessAware final : public SyncStrategy {
 public:
  explicit StalenessAware(int accumulate, bool lock = false) : accumulate_(accumulate), lock_(lock) {}
  [[nodiscard]] std::string_view name() const override { return "staleness_aware"; }
  [[nodiscard]] bool lock_step() const override { return false; }
  [[nodiscard]] Apply apply() const override { return Apply::OnArrival; }
  [[nodiscard]] int staleness_bound() const override { return -1; }
  [[nodiscard]] int accumulate() const override { return accumulate_; }
  [[nodiscard]] double learning_rate_scale(std::int64_t staleness) const override {
    return staleness <= 1 ? 1.0 : 1.0 / static_cast<double>(staleness);
  }
  [[nodiscard]] bool locked() const override { return lock_; }

 private:
  int accumulate_;
  bool lock_;
};

/// Local SGD (periodic model averaging): every worker takes `local_steps` SGD steps on its own copy of
/// the parameters, then all average their parameters by allreduce.
class LocalSgd final : public SyncStrategy {
 public:
  explicit LocalSgd(int local_steps) : local_steps_(local_steps) {}
  [[nodiscard]] std::string_view name() const override { return "local_sgd"; }
  [[nodiscard]] bool lock_step() const override { return true; }
  [[nodiscard]] Apply apply() const override { return Apply::ByClock; }
  [[nodiscard]] int staleness_bound() const override { return 0; }
  [[nodiscard]] int local_steps() const override { return local_steps_; }
  /// A local step, and every local_steps steps (and after the last) the models averaged.
  void after_gradient(std::int64_t iteration, std::int64_t last, LockStepActions& actions) const override {
    actions.apply_own_gradient();
    if (iteration % local_steps_ == 0 || iteration == last) actions.average_parameters();
  }

 private:
  int local_steps_;
};

/// Gossip (decentralized SGD): every worker takes an SGD step on its own parameters, then averages them
/// with all its neighbours on the topology, or with the one neighbour a seeded random matching gives it.
class Gossip final : public SyncStrategy {
 public:
  explicit Gossip(bool with_all) : with_all_(with_all) {}
  [[nodiscard]] std::string_view name() const override { return "gossip"; }
  [[nodiscard]] bool lock_step() const override { return true; }
  [[nodiscard]] Apply apply() const override { return Apply::ByClock; }
  [[nodiscard]] int staleness_bound() const override { return 0; }
  [[nodiscard]] bool gossip() const override { return true; }
  [[nodiscard]] bool gossip_with_all() const override { return with_all_; }
  void after_gradient(std::int64_t /*iteration*/, std::int64_t /*last*/, LockStepActions& actions) const override {
    actions.apply_own_gradient();
    actions.gossip(with_all_);
  }

 private:
  bool with_all_;
};

/// A strategy as a plug-in, the whole of it in its registry entry: its parameters (under `training.sync`,
/// each declared once with its type, default, range and doc; the scenario schema, the JSON Schema and the
/// reference are generated from them), a factory reading their values, its own consistency rules, and an
/// example `training.sync` that the reference shows and the tests check.
/// What a strategy's values are checked against besides each other.
struct StrategyContext {
  double learning_rate = 0.0;  ///< training.optimizer.learning_rate
  int workers = 0;
};

struct StrategyPlugin {
  std::vector<core::SchemaNode> parameters;
  std::function<std::unique_ptr<SyncStrategy>(const core::ParameterValues&)> make;
  /// Reports values that pass each parameter's own range but not together (or not with the learning rate);
  /// empty when there are none.
  std::function<void(const core::ParameterValues&, const StrategyContext&, core::DiagnosticSink&)> check;
  std::string example;
  /// How workers exchange under this strategy when it is not the architecture's way (gossip: "peer to
  /// peer"); empty otherwise. Reports name the run's exchange with it.
  std::string exchange = {};
};

using SyncRegistry = core::Registry<StrategyPlugin>;

/// Adds every built-in strategy, each plug-in file's (the list is in sim/sync/CMakeLists.txt).
void register_builtin_strategies(SyncRegistry& registry);

}  // namespace dtsim::sync
