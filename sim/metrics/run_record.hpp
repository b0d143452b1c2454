#pragma once
// What a run measured, as plain data: the runtime fills it, writers and reports read it.

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::metrics {

/// Where one host's simulated time went, and what it sent.
struct HostActivity {
  std::string name;
  std::string role;             ///< "worker" or "server"
  double compute_s = 0.0;       ///< executing FLOPs
  double communication_s = 0.0; ///< moving bytes (from the moment a transfer starts to its end)
  double wait_s = 0.0;          ///< blocked in a send or receive before the transfer could start
  double bytes_sent = 0.0;
  std::int64_t messages_sent = 0;
  /// Overlapped runs: the gradient stream's transfers, beside the compute. The part the host waited for
  /// after its backward pass is in communication_s too.
  double overlapped_communication_s = 0.0;
  /// communication_s by what it carried: the data-parallel exchange of gradients or parameters, a tensor
  /// group's sums, a pipeline's activations and their gradients, ZeRO's gathers of partitioned parameters.
  double data_communication_s = 0.0;
  double tensor_communication_s = 0.0;
  double pipeline_communication_s = 0.0;
  double zero_communication_s = 0.0;
  double expert_communication_s = 0.0;
  /// Context parallelism: the time this host waited for keys and values (the ring's transfers it could not
  /// hide behind attention, or the all-gathers and reduce-scatters, none hidden), and their bytes.
  double context_communication_s = 0.0;
  double context_bytes_sent = 0.0;
  /// Bytes of the expert group's all-to-alls among bytes_sent (the routed tokens this host sent away).
  double expert_bytes_sent = 0.0;
  std::int64_t expert_messages_sent = 0;
  /// Energy runs: what the host's device drew while computing (at busy power), while its messages moved
  /// (idle power), and the rest of the run (idle power: blocked at a barrier, or done before the others).
  double compute_j = 0.0;
  double communication_j = 0.0;
  double waiting_j = 0.0;
  int site = 0;  ///< a worker's datacenter, an index into RunRecord::site_names
};

/// Uneven routing under expert parallelism: what the draws gave, over every mixture block, micro-batch, step
/// and expert group of the run.
struct RoutingRecord {
  std::vector<double> tokens_per_expert;  ///< routed copies a draw sends each expert, mean, most loaded first
  double mean_max_load = 1.0;             ///< mean over the draws of the busiest device's load over the mean
  double busiest_load = 1.0;              ///< the largest such ratio of any draw
  /// Mean over the draws of the busiest device's work over even routing's (its load: kept share x group size,
  /// which paces the step; below the ratio above where a capacity drops tokens), and the largest of any draw.
  double mean_max_work = 1.0;
  double busiest_work = 1.0;
  double routed_tokens = 0.0;             ///< routed copies (tokens x top_k) over the run
  double dropped_tokens = 0.0;            ///< of them, dropped at experts already full
  bool learned = false;                   ///< routed by a model's own gate (real math), not drawn
};

/// Where an energy run's joules went, over the whole run.
struct EnergyTotals {
  double devices_j = 0.0;  ///< every worker and server device (SimGrid's host energy plugin)
  double compute_j = 0.0;  ///< the devices' share while computing
  double communication_j = 0.0;
  double waiting_j = 0.0;
  double static_j = 0.0;  ///< nodes' static power over the run
  double links_j = 0.0;   ///< SimGrid's link energy plugin, where link power is declared
  [[nodiscard]] double total_j() const { return devices_j + static_j + links_j; }
};

/// One evaluation of the model (costs no simulated time).
struct EvaluationRow {
  double sim_time_s = 0.0;
  std::int64_t iteration = 0;
  double epoch = 0.0;
  double train_loss = 0.0;
  double train_accuracy = 0.0;
  double val_loss = 0.0;
  double val_accuracy = 0.0;
  double bytes_sent = 0.0;  ///< by all hosts since the start
  double energy_j = 0.0;    ///< energy runs: joules drawn since the start (devices, static, links)
};

/// Bytes one link carried in one direction.
struct LinkLoad {
  std::string name;
  std::string link_class;
  std::string from;
  std::string to;
  double bandwidth_bytes_per_s = 0.0;
  double bytes = 0.0;
};

/// One worker (or server shard) failure and what it cost.
struct FailureRecord {
  int worker = 0;           ///< the worker's rank, or the shard's index when `server`
  double at_s = 0.0;       ///< when it failed
  double noticed_s = 0.0;  ///< the end of the step it failed in, when the job reacted
  std::int64_t lost_steps = 0;  ///< steps computed again (rolled back, or the step it died in)
  double lost_s = 0.0;     ///< simulated time of the work lost: from the restored checkpoint (or the step's start)
  double downtime_s = 0.0; ///< repair, restart and reading the checkpoint back
  bool left = false;       ///< it never came back (parameter server, no repair)
  bool server = false;     ///< a parameter-server shard failed (lost_steps counts its updates lost)
};

/// A link going down or coming back.
struct LinkEvent {
  std::string link;
  double at_s = 0.0;
  bool down = true;
};

/// A failed link that left two hosts without a route: the job stopped there.
struct Partition {
  double at_s = 0.0;
  std::string link;
  std::string from;  ///< a host that cannot reach `to` (or be reached from it)
  std::string to;
  std::vector<std::string> cut_off;  ///< hosts left without a route to the most of the others, links taken both ways
};

/// What each worker on one kind of device holds (bytes): its share of the parameters, gradients, optimizer
/// state and activations, and the device's memory where its profile gives one.
struct DeviceMemory {
  std::string device;
  std::string precision;
  int workers = 0;  ///< workers on this device
  int stage = -1;   ///< the pipeline stage they run; -1 without a pipeline
  double parameters = 0.0;
  double gradients = 0.0;
  double optimizer = 0.0;
  double activations = 0.0;
  std::optional<double> capacity;

  [[nodiscard]] double total() const { return parameters + gradients + optimizer + activations; }
  [[nodiscard]] bool fits() const { return !capacity || total() <= *capacity; }
};

struct RunRecord {
  double simulated_s = 0.0;
  std::int64_t iterations = 0;
  std::int64_t iterations_per_epoch = 0;
  std::size_t parameter_count = 0;
  /// The parameters one token passes through (a mixture of experts: all but the routed experts it is not
  /// sent to); parameter_count for any other model, 0 in a record built by hand.
  std::size_t active_parameter_count = 0;
  /// Expert parallelism: the all-to-alls each worker ran (by rank), which its expert bytes and time are spread
  /// over; empty without.
  std::vector<std::int64_t> all_to_alls;
  std::optional<RoutingRecord> routing;  ///< uneven routing only
  /// A mixture of experts: fewer parameters pass each token than the model holds.
  [[nodiscard]] bool fewer_active_parameters() const {
    return active_parameter_count > 0 && active_parameter_count < parameter_count;
  }
  std::string simgrid_version;
  /// How many workers were simulated when some stood for others, behaving alike (worker 0 for all, or
  /// replica 0's ranks for every replica: see runtime/mirrored_ranks.hpp); 0 when each was. Said on stdout
  /// only: the result files are the same either way.
  int simulated_workers = 0;
  std::vector<HostActivity> hosts;  ///< workers by rank, then servers
  /// The datacenters of a `sites` topology, by index; empty elsewhere.
  std::vector<std::string> site_names;

  /// Whether any host's communication carried more than the data-parallel exchange (tensor sums, pipeline
  /// activations, ZeRO gathers): then results report communication by kind.
  [[nodiscard]] bool model_parallel_traffic() const {
    return std::any_of(hosts.begin(), hosts.end(), [](const HostActivity& h) {
      return h.tensor_communication_s > 0.0 || h.pipeline_communication_s > 0.0 || h.zero_communication_s > 0.0 ||
             h.expert_communication_s > 0.0 || h.context_bytes_sent > 0.0;
    });
  }
  /// Every link direction traffic may take, in link order (forward, then backward).
  std::vector<LinkLoad> links;
  std::vector<EvaluationRow> evaluations;
  /// Timing-only runs: when worker 0 finished each iteration (simulated seconds), first to last.
  std::vector<double> iteration_ends;
  /// Runs with failures: each one, in the order the job met them; checkpoints written and their time.
  std::vector<FailureRecord> failures;
  std::int64_t checkpoints = 0;
  double checkpoint_s = 0.0;
  /// Links that went down or came back, in time order; and the partition that stopped the job, if one did.
  std::vector<LinkEvent> link_events;
  std::optional<Partition> partition;
  /// When every worker had failed for good (an elastic job), and the job stopped.
  std::optional<double> job_lost_s;
  /// A run with training.stop.target_loss or target_accuracy that reached it: `iterations` is where it stopped.
  bool stopped_at_target = false;
  /// Parameter-server runs with failures: gradients the first shard received from each worker.
  std::vector<std::int64_t> gradients_by_worker;
  /// Set in energy runs.
  std::optional<EnergyTotals> energy;
  /// Timing-only runs: what a device holds, per kind of device.
  std::vector<DeviceMemory> memory;
  /// Timing-only runs: the model's training FLOPs per sample and the samples of one iteration (all
  /// replicas), for throughput and model FLOPs utilization; 0 otherwise.
  double model_flops_per_sample = 0.0;
  /// Pipelines: the bubble over a stage's compute with equal stages and free communication.
  double bubble_closed_form = 0.0;
  /// Transformer profiles: tokens in a sample (its sequence); 0 otherwise.
  std::int64_t tokens_per_sample = 0;
  std::int64_t samples_per_iteration = 0;
  /// A run with a budget (training.stop.tokens or samples): the whole run's iterations, of which `iterations`
  /// were simulated (metrics/projection.hpp); 0 without one.
  std::int64_t projected_iterations = 0;
  /// The optimizer's values per parameter (Adam: 2): a projected checkpoint holds them beside the parameters.
  int optimizer_values = 0;
  /// Updates the parameter server applied (one per clock under bsp and ssp, one per gradient under async);
  /// 0 for allreduce runs.
  std::int64_t updates_applied = 0;
  /// How stale each gradient the server received was, counted: staleness -> gradients. By clock (bsp,
  /// ssp), the clocks between the parameters it was computed on and its own clock; on arrival (async), the
  /// updates applied since the worker read its parameters.
  std::map<std::int64_t, std::int64_t> staleness;
  [[nodiscard]] double total_bytes_sent() const;
  /// The first evaluation whose validation loss is at or below `target`, if any.
  [[nodiscard]] const EvaluationRow* first_reaching(double target) const;
  /// The first evaluation whose validation accuracy is at or above `target`; null when none is.
  [[nodiscard]] const EvaluationRow* first_reaching_accuracy(double target) const;
  /// The first evaluation whose training or validation loss is not a finite number: the run diverged by then.
  [[nodiscard]] const EvaluationRow* first_diverged() const;
};

}  // namespace dtsim::metrics
