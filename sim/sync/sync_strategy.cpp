#include "sim/sync/sync_strategy.hpp"

#include <fmt/format.h>

#include <limits>

namespace dtsim::sync {
namespace {

constexpr std::int64_t kMaxCount = 1'000'000'000;
constexpr std::int64_t kMaxStaleness = 1'000'000;

core::SchemaNode lock_parameter() {
  return core::boolean("lock", "the server applies each update under a lock, and replies once it is applied; lock-free by "
                               "default (the update's time overlaps the reply and other updates)")
      .fallback("false");
}

/// Bulk- and stale-synchronous updates.
void register_synchronous(SyncRegistry& registry) {
  registry.add("bsp", "bulk-synchronous: a barrier every iteration, every worker's gradient in each update",
               {.parameters = {},
                .make = [](const core::ParameterValues&) { return std::make_unique<Bsp>(); },
                .check = {},
                .example = "{strategy: bsp}"});
  registry.add("ssp", "stale-synchronous: a worker may run `staleness` clocks ahead of the last complete update",
               {.parameters = {core::integer("staleness", 0, kMaxStaleness,
                                             "clocks a worker may run ahead of the last complete update (0 is "
                                             "bsp; no default, so that ssp never silently runs as bsp)")
                                   .require()},
                .make = [](const core::ParameterValues& p) { return std::make_unique<Ssp>(static_cast<int>(p.integer("staleness"))); },
                .check = {},
                .example = "{strategy: ssp, staleness: 3}"});
  registry.add(
      "adaptive_ssp", "staleness bound moving within [staleness_min, staleness_max] with observed waiting (parameter server)",
      {.parameters = {core::integer("staleness_min", 0, kMaxStaleness, "lowest staleness bound, where it starts").fallback("0"),
                      core::integer("staleness_max", 0, kMaxStaleness, "highest staleness bound").require()},
       .make =
           [](const core::ParameterValues& p) {
             return std::make_unique<AdaptiveSsp>(static_cast<int>(p.integer("staleness_min")),
                                                  static_cast<int>(p.integer("staleness_max")));
           },
       .check =
           [](const core::ParameterValues& p, const StrategyContext&, core::DiagnosticSink& sink) {
             if (p.integer("staleness_min") > p.integer("staleness_max")) {
               sink.error(p.where("staleness_min"), "training.sync.staleness_min",
                          fmt::format("is greater than staleness_max ({})", p.integer("staleness_max")));
             }
           },
       .example = "{strategy: adaptive_ssp, staleness_min: 1, staleness_max: 4}"});
}

/// Updates applied as they arrive at a parameter server.
void register_asynchronous(SyncRegistry& registry) {
  registry.add("approximate",
               "send an update only when it is significant, or after max_delay steps (parameter server)",
               {.parameters = {core::number("threshold", 0.0, std::numeric_limits<double>::infinity(),
                                            "relative update magnitude worth sending")
                                   .require()
                                   .exclusive_min(),
                               core::integer("max_delay", 1, kMaxCount, "iterations after which an update is sent anyway")
                                   .fallback("10"),
                               lock_parameter()},
                .make =
                    [](const core::ParameterValues& p) {
                      return std::make_unique<Approximate>(p.number("threshold"), p.integer("max_delay"), p.boolean("lock"));
                    },
                .check = {},
                .example = "{strategy: approximate, threshold: 0.01, max_delay: 10}"});
  registry.add("async", "barrierless asynchronous updates, each gradient applied as it arrives (parameter server)",
               {.parameters = {lock_parameter()},
                .make = [](const core::ParameterValues& p) { return std::make_unique<Async>(p.boolean("lock")); },
                .check = {},
                .example = "{strategy: async}"});
  registry.add("staleness_aware",
               "asynchronous, learning rate divided by each gradient's staleness, `accumulate` at a time (parameter "
               "server)",
               {.parameters = {lock_parameter(),
                               core::integer("accumulate", 1, kMaxCount, "gradients the server gathers into one update")
                                   .fallback("1")},
                .make =
                    [](const core::ParameterValues& p) {
                      return std::make_unique<StalenessAware>(static_cast<int>(p.integer("accumulate")), p.boolean("lock"));
                    },
                .check = {},
                .example = "{strategy: staleness_aware, accumulate: 2}"});
}

/// Local steps, then averaging of the models.
void register_model_averaging(SyncRegistry& registry) {
  registry.add("local_sgd", "`local_steps` local SGD steps on every worker, then the parameters averaged by allreduce",
               {.parameters = {core::integer("local_steps", 1, kMaxCount,
                                                             "local steps between averagings (no default: one step "
                                                             "between averagings is bsp's arithmetic)")
                                                   .require()},
                .make = [](const core::ParameterValues& p) { return std::make_unique<LocalSgd>(static_cast<int>(p.integer("local_steps"))); },
                .check = {},
                .example = "{strategy: local_sgd, local_steps: 4}"});
  registry.add("gossip", "a local step, then averaging with neighbours on a peer-to-peer graph (allreduce architecture)",
               {.parameters = {core::choice_of("peers", "gossip peers", "whom a worker averages with",
                                               {{"random", "one neighbour, by a seeded random matching each step"},
                                                {"all", "every neighbour"}})
                                   .fallback("random")},
                .make = [](const core::ParameterValues& p) { return std::make_unique<Gossip>(p.text("peers") == "all"); },
                .check = {},
                .example = "{strategy: gossip, peers: all}",
                .exchange = "peer to peer"});  // averages with neighbours; no allreduce runs
}

}  // namespace

/// The strategies that came first: bsp, ssp, adaptive_ssp, approximate, async, staleness_aware, local_sgd and
/// gossip. Later ones have a file each.
void register_sync_strategy(SyncRegistry& registry) {
  register_synchronous(registry);
  register_asynchronous(registry);
  register_model_averaging(registry);
}

}  // namespace dtsim::sync
