#include "analysis/summary_table.hpp"

#include "sim/core/units.hpp"
#include "sim/core/version.hpp"
#include "sim/metrics/energy_cost.hpp"
#include "sim/metrics/prediction_interval.hpp"
#include "sim/scenario/named_values.hpp"
#include "sim/metrics/projection.hpp"
#include "sim/metrics/throughput.hpp"
#include "sim/metrics/unmet_failures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace dtsim::analysis {

namespace {

/// "batch 32 per worker", or, where a replica spans several workers (tensor or pipeline parallel), "batch 128
/// per replica of 32 workers (4096 in all)": the samples a worker sees are its replica's.
std::string describe_batch(const scenario::Scenario& s) {
  const auto& p = s.training.parallelism;
  const std::int64_t global = static_cast<std::int64_t>(s.training.batch_per_worker) * p.data;
  if (p.tensor * p.pipeline == 1) {
    return s.training.batch_declared_global
               ? fmt::format("batch {} per worker ({} in all)", s.training.batch_per_worker, global)
               : fmt::format("batch {} per worker", s.training.batch_per_worker);
  }
  return fmt::format("batch {} per replica of {} workers ({} in all)", s.training.batch_per_worker,
                     p.tensor * p.pipeline, global);
}

std::string host_row(const std::string& name, double compute_s, double communication_s, double wait_s, double sent) {
  return fmt::format("  {:<12} {:>12.6f} {:>14.6f} {:>12.6f} {:>12}\n", name, compute_s, communication_s, wait_s,
                     core::format_size(core::Bytes(sent)));
}

/// The value at quantile `q` (0 min, 0.5 median, 1 max) of `values`, which it sorts; the lower middle for
/// an even count, so that the median is a host's own number.
double quantile(std::vector<double>& values, double q) {
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(q * static_cast<double>(values.size() - 1))];
}

/// One line per host up to kHostRows; beyond, min / median / max of each column and the slowest hosts (the
/// most compute, which the others wait for), so that a thousand hosts still fit on a screen.
std::string host_table(const std::vector<metrics::HostActivity>& hosts) {
  constexpr std::size_t kHostRows = 32;
  constexpr std::size_t kSlowest = 5;
  std::string out =
      fmt::format("  {:<12} {:>12} {:>14} {:>12} {:>12}\n", "host", "compute_s", "communication_s", "wait_s", "sent");
  if (hosts.size() <= kHostRows) {
    for (const auto& h : hosts) out += host_row(h.name, h.compute_s, h.communication_s, h.wait_s, h.bytes_sent);
    return out;
  }
  std::vector<double> compute;
  std::vector<double> communication;
  std::vector<double> wait;
  std::vector<double> sent;
  for (const auto& h : hosts) {
    compute.push_back(h.compute_s);
    communication.push_back(h.communication_s);
    wait.push_back(h.wait_s);
    sent.push_back(h.bytes_sent);
  }
  for (const auto& [label, q] : {std::pair{"min", 0.0}, std::pair{"median", 0.5}, std::pair{"max", 1.0}}) {
    out += host_row(fmt::format("({})", label), quantile(compute, q), quantile(communication, q), quantile(wait, q),
                    quantile(sent, q));
  }
  std::vector<const metrics::HostActivity*> slowest;
  for (const auto& h : hosts) slowest.push_back(&h);
  std::stable_sort(slowest.begin(), slowest.end(),
                   [](const auto* a, const auto* b) { return a->compute_s > b->compute_s; });
  out += fmt::format("  slowest {} of {} hosts (most compute):\n", kSlowest, hosts.size());
  for (std::size_t i = 0; i < kSlowest; ++i) {
    const auto& h = *slowest[i];
    out += host_row(h.name, h.compute_s, h.communication_s, h.wait_s, h.bytes_sent);
  }
  out += "  every host: hosts[] in summary.json\n";
  return out;
}

/// The cluster, topology and training lines.
std::string setup_lines(const scenario::Scenario& s, const metrics::RunRecord& record) {
  std::string out;
  std::string devices = fmt::format("{} at {:.0f}% efficiency", s.cluster.device.name,
                                    100.0 * s.cluster.device.efficiency_of(models::OpClass::Gemm));
  if (!s.cluster.uniform_devices()) {
    // Mixed: how many workers run on each device, in rank order of first appearance.
    std::vector<std::pair<std::string, int>> counts;
    for (const auto& d : s.cluster.worker_devices) {
      auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == d.name; });
      if (it == counts.end()) {
        counts.emplace_back(d.name, 1);
      } else {
        ++it->second;
      }
    }
    devices.clear();
    for (const auto& [name, count] : counts) devices += fmt::format("{}{} x {}", devices.empty() ? "" : " + ", count, name);
  }
  out += fmt::format("  cluster    {} workers, {}\n", s.cluster.workers, devices);
  out += fmt::format("  topology   {}, links {} / {}, {} network model\n", s.topology.kind.value,
                     core::format_bandwidth(s.topology.link.bandwidth), core::format_duration(s.topology.link.latency),
                     scenario::to_string(s.topology.network_model));
  std::string architecture(scenario::to_string(s.training.architecture));
  if (s.training.architecture == scenario::Architecture::Allreduce) {
    architecture = s.training.allreduce_algorithm.value + " allreduce";
  } else if (s.training.architecture == scenario::Architecture::Hybrid) {
    architecture = fmt::format("hybrid ({} allreduce, {} server{})", s.training.allreduce_algorithm.value,
                               s.training.shards, s.training.shards == 1 ? "" : "s");
  }
  const std::string active = record.fewer_active_parameters()
                                 ? fmt::format(", {} active", record.active_parameter_count)
                                 : std::string();
  out += fmt::format("  training   {} ({} parameters{}), {} over {}, {}, lr {}\n", s.model.kind.value,
                     record.parameter_count, active, s.training.sync_strategy.value, architecture, describe_batch(s),
                     s.training.optimizer.learning_rate);
  return out;
}

/// Young/Daly's interval is for failures far apart against a recovery. Where a recovery outlasts the time between
/// the job's failures, most failures strike one and checkpointing more often saves little: what to shorten is the
/// recovery. Empty where Young/Daly's interval holds.
std::string recovery_outlasting_failures(const metrics::FailureCosts& costs) {
  const double recovery_s = costs.interruption_s();
  if (!(recovery_s >= costs.job_mtbf_s)) return {};
  // Name what takes most of the recovery: reading the checkpoint back, or the rest.
  const std::string shorten = 2.0 * costs.read_s() > recovery_s
                                  ? fmt::format("reading the checkpoint back takes {:.4g} s of it: raise "
                                                "failures.checkpoint.storage_bandwidth",
                                                costs.read_s())
                                  : std::string("shorten failures.detection_time or restart_time");
  return fmt::format("a recovery takes {:.4g} s, longer than the {:.4g} s between the job's failures, where "
                     "Young/Daly's interval does not hold: {}, or raise the mtbf",
                     recovery_s, costs.job_mtbf_s, shorten);
}

/// What would let a run that never finishes finish: a shorter recovery where it outlasts the failures, checkpoints
/// where there are none or they are further apart than Young/Daly's interval, else a faster checkpoint.
std::string unfinished_advice(const metrics::Projection::Failures& f, const std::string& outlasting) {
  if (!outlasting.empty()) return outlasting;
  if (!(f.costs.checkpoint_s > 0.0)) return "declare failures.checkpoint";
  if (static_cast<double>(f.costs.checkpoint_every) * f.costs.iteration_s > f.young_daly_interval_s) {
    return fmt::format("checkpoint more often (Young/Daly: every {:.4g} s of work)", f.young_daly_interval_s);
  }
  return fmt::format("a checkpoint takes {:.4g} s to write or read: raise failures.checkpoint.storage_bandwidth, or the "
                     "mtbf",
                     f.costs.checkpoint_s);
}

/// What a budget's failures add, expected, and beside it one run drawn and Young/Daly's checkpoint interval.
std::string projected_failures_line(const metrics::Projection::Failures& f, std::uint64_t seed) {
  const metrics::FailureTotals& e = f.expected;
  const std::string outlasting = recovery_outlasting_failures(f.costs);
  if (!std::isfinite(e.total_s)) {
    return fmt::format("  failures   a failure every {:.4g} s of the job: {:.3g} interruptions expected, the run would not "
                       "finish; {}\n",
                       f.costs.job_mtbf_s, e.interruptions, unfinished_advice(f, outlasting));
  }
  std::string out = fmt::format("  failures   a failure every {:.4g} h of the job: {:.4g} interruptions expected, {:.4g} h of work lost, "
                                "{:.4g} h recovering, {:.4g} h writing checkpoints; goodput {:.1f}%\n",
                                f.costs.job_mtbf_s / 3600.0, e.interruptions, e.lost_work_s / 3600.0, e.recovery_s / 3600.0,
                                e.checkpoint_s / 3600.0, 100.0 * e.goodput());
  if (f.costs.causes.size() >= 2) {
    std::string causes;
    for (std::size_t c = 0; c < f.costs.causes.size(); ++c) {
      causes += fmt::format("{}{} {:.4g}", c == 0 ? "" : ", ", f.costs.causes[c].name, e.interruptions_by_cause[c]);
    }
    out += fmt::format("             interruptions by cause, expected: {}\n", causes);
  }
  if (f.drawn) {
    std::string spares;
    if (f.costs.spares > 0 || f.costs.shrink) {
      spares = fmt::format("; {} spares used, {:.4g} h shrunk, {} regrowths", f.drawn->spares_used, f.drawn->shrunk_s / 3600.0,
                           f.drawn->regrowths);
    }
    out += fmt::format("             one run drawn from the seed: {} interruptions, goodput {:.1f}%{}\n",
                       static_cast<std::int64_t>(f.drawn->interruptions), 100.0 * f.drawn->goodput(), spares);
  } else if (!(e.interruptions <= metrics::kDrawnInterruptionLimit)) {
    out += fmt::format("             no run drawn: its {:.3g} interruptions expected are more than a drawn run walks "
                       "(10^6)\n",
                       e.interruptions);
  } else if (const auto checkpoints = metrics::checkpoints_written(f.costs);
             static_cast<double>(checkpoints) > metrics::kDrawnCheckpointLimit) {
    out += fmt::format("             no run drawn: its {:.3g} checkpoints are more than a drawn run walks (10^8)\n",
                       static_cast<double>(checkpoints));
  }
  if (f.spread) {
    const metrics::DrawSpread& d = *f.spread;
    out += fmt::format("             {} runs drawn (seeds {} on): goodput {:.1f}% on average, {:.1f}% to {:.1f}% in 90% of them; "
                       "{:.4g} to {:.4g} interruptions, {:.4g} to {:.4g} days\n",
                       d.draws, seed, 100.0 * d.goodput.mean, 100.0 * d.goodput.p5, 100.0 * d.goodput.p95, d.interruptions.p5,
                       d.interruptions.p95, d.total_s.p5 / 86'400.0, d.total_s.p95 / 86'400.0);
  }
  if (f.costs.checkpoint_s > 0.0) {
    const std::string interval = outlasting.empty() ? fmt::format("Young/Daly's interval: {:.4g} s ({:.0f} iterations)",
                                                                  f.young_daly_interval_s,
                                                                  f.young_daly_interval_s / f.costs.iteration_s)
                                                    : outlasting;
    out += fmt::format("             checkpoints every {} iterations ({:.4g} s of work); {}\n",
                       f.costs.checkpoint_every, static_cast<double>(f.costs.checkpoint_every) * f.costs.iteration_s,
                       interval);
  }
  if (f.best_interval) {
    out += fmt::format("             the best interval expected: every {} iterations, goodput {:.1f}%\n", f.best_interval->every,
                       100.0 * e.work_s / f.best_interval->total_s);
  }
  return out;
}

/// A budget's whole run: how long, and what it costs where the scenario declares its rates.
std::string projection_line(const scenario::Scenario& s, const metrics::Projection& p) {
  std::string costs;
  if (p.kwh) costs += fmt::format(", {:.4g} MWh", *p.kwh / 1000.0);
  if (p.co2_kg) costs += fmt::format(", {:.4g} t CO2", *p.co2_kg / 1000.0);
  if (p.cost) costs += fmt::format(", {:.4g} {}", *p.cost, s.energy.currency);
  std::string trained = p.tokens > 0.0 ? fmt::format("{:.4g} tokens", p.tokens) : fmt::format("{:.4g} samples", p.samples);
  if (p.epochs) trained = fmt::format("{} epochs, {}", *p.epochs, trained);
  std::string out = fmt::format("  projected  {} in {} iterations of {:.6g} s (the mean of {} simulated): {:.4g} days, "
                                "{:.4g} device-hours{}\n",
                                trained, p.iterations, p.iteration_s, p.simulated_iterations, p.days, p.device_hours, costs);
  // A budget simulates a few iterations because they are alike; random stragglers make each a draw of its own.
  // Traces change speeds along simulated time, of which the budget simulates only the start.
  const bool traced = !s.link_traces.empty() ||
                      std::any_of(s.cluster.speed_traces.begin(), s.cluster.speed_traces.end(),
                                  [](const scenario::Trace& trace) { return !trace.empty(); });
  if (traced) {
    out += fmt::format("             the {} simulated iterations ran the traces (stragglers[].trace, link_traces) "
                       "up to {:.4g} s: the projection repeats those iterations, not what the traces change later\n",
                       p.simulated_iterations, p.iteration_s * static_cast<double>(p.simulated_iterations));
  }
  if (!s.cluster.random_slowdowns.empty()) {
    out += fmt::format("             the {} simulated iterations drew the stragglers' random factors once each "
                       "(stragglers[].distribution): the projection follows those draws, not the distributions' "
                       "means\n",
                       p.simulated_iterations);
  }
  if (p.failures) out += projected_failures_line(*p.failures, s.seed);
  return out;
}

/// What the run did: its time, loss, accuracy, divergence, target, traffic, throughput, interval and projection.
std::string outcome_lines(const scenario::Scenario& s, const metrics::RunRecord& record, double wall_s) {
  std::string out;
  const std::string per_epoch = record.iterations_per_epoch > 0
                                    ? fmt::format("{} per epoch", record.iterations_per_epoch)
                                    : std::string("timing only, no data");
  out += fmt::format("  simulated  {:.6f} s for {} iterations ({}); wall time {:.2f} s\n", record.simulated_s,
                     record.iterations, per_epoch, wall_s);
  if (!record.evaluations.empty()) {
    const auto& first = record.evaluations.front();
    const auto& last = record.evaluations.back();
    out += fmt::format("  loss       validation {:.4f} -> {:.4f}, training {:.4f} -> {:.4f}\n", first.val_loss,
                       last.val_loss, first.train_loss, last.train_loss);
    out += fmt::format("  accuracy   validation {:.4f} -> {:.4f}\n", first.val_accuracy, last.val_accuracy);
  }
  if (const metrics::EvaluationRow* diverged = record.first_diverged()) {
    out += fmt::format("  diverged   the loss is not a number from iteration {} (simulated {:.6f} s): lower the learning "
                       "rate\n",
                       diverged->iteration, diverged->sim_time_s);
  }
  if (s.target_loss) {
    const metrics::EvaluationRow* reached = record.first_reaching(*s.target_loss);
    out += reached != nullptr ? fmt::format("  target     validation loss {} reached at {:.6f} s (iteration {})\n",
                                            *s.target_loss, reached->sim_time_s, reached->iteration)
                              : fmt::format("  target     validation loss {} not reached\n", *s.target_loss);
  }
  if (s.target_accuracy) {
    const metrics::EvaluationRow* reached = record.first_reaching_accuracy(*s.target_accuracy);
    out += reached != nullptr ? fmt::format("  target     validation accuracy {} reached at {:.6f} s (iteration {})\n",
                                            *s.target_accuracy, reached->sim_time_s, reached->iteration)
                              : fmt::format("  target     validation accuracy {} not reached\n", *s.target_accuracy);
  }
  if (s.training.stops_at_target()) {
    const std::string what = s.training.stop_loss ? fmt::format("validation loss {}", *s.training.stop_loss)
                                                  : fmt::format("validation accuracy {}", *s.training.stop_accuracy);
    out += record.stopped_at_target && !record.evaluations.empty()
               ? fmt::format("  stopped    {} reached at iteration {} ({:.6f} s): the run stopped there\n", what,
                             record.evaluations.back().iteration, record.evaluations.back().sim_time_s)
               : fmt::format("  stopped    {} not reached: the run went to its end\n", what);
  }
  out += fmt::format("  traffic    {} sent in total\n", core::format_size(core::Bytes(record.total_bytes_sent())));
  if (const std::optional<metrics::Throughput> rate = metrics::throughput(s, record)) {
    out += fmt::format("  throughput {:.6g} samples/s{}; model FLOPs utilization {:.1f}% of the workers' peak\n",
                       rate->samples_per_s,
                       rate->tokens_per_s ? fmt::format(" ({:.6g} tokens/s)", *rate->tokens_per_s) : "",
                       100.0 * rate->model_flops_utilization);
  }
  if (const std::optional<metrics::PredictionInterval> interval = metrics::prediction_interval(s, record)) {
    out += fmt::format("  interval   {}\n", metrics::interval_line(*interval));
  } else if (const std::string why = metrics::missing_interval_reason(s, record); !why.empty()) {
    out += fmt::format("  interval   none: {} (docs/validation.md)\n", why);
  }
  if (const std::optional<metrics::Projection> p = metrics::projection(s, record)) out += projection_line(s, *p);
  return out;
}

/// How the run was laid out: stand-in ranks, overlap, what the communication carried, the parallel split, the pipeline's idle time, memory.
std::string layout_lines(const scenario::Scenario& s, const metrics::RunRecord& record) {
  std::string out;
  // Only the networks that time phases at once let ranks stand for each other.
  const std::string_view network = scenario::traits_of(s.topology.network_model).network_name;
  if (record.simulated_workers == 1) {
    out += fmt::format("  simulated  worker 0 for all {} workers: they behave alike under the {} network "
                       "(--every-rank simulates each, with the same results)\n",
                       s.cluster.workers, network);
  } else if (record.simulated_workers > 1) {
    out += fmt::format("  simulated  replica 0's {} ranks for all {} workers: the replicas behave alike under the "
                       "{} network (--every-rank simulates each)\n",
                       record.simulated_workers, s.cluster.workers, network);
  }
  if (!record.hosts.empty() && record.hosts.front().overlapped_communication_s > 0.0) {
    const metrics::HostActivity& first = record.hosts.front();
    if (s.training.sync_strategy.value == "streaming_diloco") {
      out += fmt::format(
          "  overlap    {}'s outer-gradient exchanges moved data for {:.6f} s beside its inner steps; "
          "it waited {:.6f} s for them after (training.sync.overlap_steps)\n",
          first.name, first.overlapped_communication_s, first.data_communication_s);
    } else {
      out += fmt::format(
          "  overlap    {}'s gradient allreduces moved data for {:.6f} s beside its backward passes; "
          "it waited {:.6f} s for them after (training.overlap)\n",
          first.name, first.overlapped_communication_s, first.data_communication_s);
    }
  }
  if (record.model_parallel_traffic() && !record.hosts.empty()) {
    const metrics::HostActivity& first = record.hosts.front();
    out += fmt::format("  carried    {}'s communication: tensor-parallel sums {:.6f} s, pipeline activations {:.6f} s, "
                       "data-parallel gradients {:.6f} s, ZeRO parameter gathers {:.6f} s\n",
                       first.name, first.tensor_communication_s, first.pipeline_communication_s,
                       first.data_communication_s, first.zero_communication_s);
    if (first.context_bytes_sent > 0.0) {
      out += fmt::format("  context    {}'s keys and values ({}): waited {:.6f} s for them, {} sent\n", first.name,
                         scenario::to_string(s.training.parallelism.context_attention), first.context_communication_s,
                         core::format_size(core::Bytes(first.context_bytes_sent)));
    }
    if (first.expert_bytes_sent > 0.0) {
      out += fmt::format("  experts    {}'s expert all-to-alls ({}): {:.6f} s, {} sent\n", first.name,
                         s.training.parallelism.all_to_all.value, first.expert_communication_s,
                         core::format_size(core::Bytes(first.expert_bytes_sent)));
    }
  }
  // Whenever a routing was drawn or learned: worker 0's expert bytes, which round to none when its experts keep
  // next to nothing, do not decide whether there is one to report.
  if (record.routing) {
    out += fmt::format(
        "  routing    {}: the busiest device of an expert group {:.3f} x the mean load on average "
        "(at most {:.3f}), {:.3f} x even routing's work (at most {:.3f}), {:.2f}% of the routed tokens dropped\n",
        record.routing->learned ? "the gate" : scenario::to_string(s.training.routing.distribution),
        record.routing->mean_max_load, record.routing->busiest_load, record.routing->mean_max_work,
        record.routing->busiest_work,
        100.0 * record.routing->dropped_tokens / std::max(1.0, record.routing->routed_tokens));
  }
  if (const scenario::ParallelismSpec& plan = s.training.parallelism; plan.is_model_parallel()) {
    out += fmt::format("  parallel   data {}{} x tensor {} x pipeline {}{}{}{}\n", plan.data,
                       plan.expert > 1 ? fmt::format(" (expert groups of {})", plan.expert) : "", plan.tensor,
                       plan.pipeline,
                       plan.context > 1 ? fmt::format(" x context {} ({})", plan.context,
                                                      scenario::to_string(plan.context_attention))
                                        : "",
                       plan.sequence_parallel ? ", sequence parallel" : "",
                       s.training.recomputation != models::Recomputation::None
                           ? fmt::format(", {} recomputation", scenario::to_string(s.training.recomputation))
                           : "");
  }
  if (s.training.parallelism.pipeline > 1) {
    double busiest = 0.0;
    for (const metrics::HostActivity& host : record.hosts) busiest = std::max(busiest, host.compute_s);
    const scenario::ParallelismSpec& plan = s.training.parallelism;
    out += fmt::format("  pipeline   {} stages, {} micro-batches, {}: not computing {:.1f}% of the busiest stage's "
                       "compute, the bubble and communication it does not hide (the bubble alone, in closed form: "
                       "{:.1f}%)\n",
                       plan.pipeline, plan.microbatches, scenario::to_string(plan.schedule),
                       busiest > 0.0 ? 100.0 * (record.simulated_s / busiest - 1.0) : 0.0,
                       100.0 * record.bubble_closed_form);
  }
  for (const metrics::DeviceMemory& m : record.memory) {
    const std::string where = m.device.empty() ? "its device" : m.device;
    out += fmt::format("  memory     {} per worker{} on {}{}\n", core::format_size(core::Bytes(m.total())),
                       m.stage >= 0 ? fmt::format(" of stage {}", m.stage) : "", where,
                       !m.capacity   ? ""
                       : m.fits()    ? fmt::format(" (of {})", core::format_size(core::Bytes(*m.capacity)))
                                     : fmt::format(": DOES NOT FIT its {}", core::format_size(core::Bytes(*m.capacity))));
  }
  return out;
}

/// Energy, and its CO2 and cost: the simulated run's, which for a budget are its few simulated iterations'.
std::string energy_lines(const scenario::Scenario& s, const metrics::RunRecord& record) {
  std::string out;
  if (record.energy) {
    // A budget's figures are those of the iterations it simulated, not of the run it projects (as
    // metrics::projection decides): said so, since the projected line above gives the whole run's.
    const std::string simulated = record.projected_iterations > 0 && record.iterations > 0
                                      ? fmt::format(" in the {} simulated iterations", record.iterations)
                                      : std::string();
    const metrics::EnergyTotals& e = *record.energy;
    out += fmt::format("  energy     {:.6g} J ({:.4g} kWh){}; devices {:.0f}% computing, {:.0f}% communicating, "
                       "{:.0f}% waiting\n",
                       e.total_j(), e.total_j() / 3.6e6, simulated,
                       e.devices_j > 0 ? 100.0 * e.compute_j / e.devices_j : 0.0,
                       e.devices_j > 0 ? 100.0 * e.communication_j / e.devices_j : 0.0,
                       e.devices_j > 0 ? 100.0 * e.waiting_j / e.devices_j : 0.0);
    const metrics::EnergyCost cost = *metrics::energy_cost(s, record);
    if (cost.co2_kg || cost.cost) {
      std::string line;
      if (cost.co2_kg) line = fmt::format("{:.6g} kg CO2", *cost.co2_kg);
      if (cost.cost) {
        line += fmt::format("{}{:.6g} {}", line.empty() ? "" : ", ", *cost.cost, s.energy.currency);
      }
      out += fmt::format("  cost       {}{}{}\n", line, simulated,
                         simulated.empty() ? "" : " (the whole run's: on the projected line)");
    }
  }
  return out;
}

/// Failures, link events and what stopped the job.
std::string failure_lines(const scenario::Scenario& s, const metrics::RunRecord& record) {
  std::string out;
  if (s.failures.enabled && !s.failures_projected()) {
    std::int64_t lost_steps = 0;
    double lost_s = 0.0;
    double downtime_s = 0.0;
    int left = 0;
    for (const metrics::FailureRecord& f : record.failures) {
      lost_steps += f.lost_steps;
      lost_s += f.lost_s;
      downtime_s += f.downtime_s;
      left += f.left ? 1 : 0;
    }
    out += fmt::format("  failures   {} ({} left for good): {} steps lost ({:.6f} s), {:.6f} s down; {} checkpoints "
                       "({:.6f} s)\n",
                       record.failures.size(), left, lost_steps, lost_s, downtime_s, record.checkpoints,
                       record.checkpoint_s);
    for (const metrics::LinkEvent& e : record.link_events) {
      out += fmt::format("  link       {} {} at {:.6f} s{}\n", e.link, e.down ? "down" : "back up", e.at_s,
                         e.down && !record.partition ? ", routed around" : "");
    }
    for (const metrics::UnmetFailure& f : metrics::unmet_failures(s.failures, record)) {
      out += fmt::format("  not met    {} at {:.6f} s: the run ended (at {:.6f} s) before a step noticed it\n", f.what,
                         f.at_s, record.simulated_s);
    }
    if (record.job_lost_s) {
      out += fmt::format("  JOB LOST   at {:.6f} s every worker had failed for good: the job stopped\n",
                         *record.job_lost_s);
    }
    if (record.partition) {
      out += fmt::format("  PARTITION  at {:.6f} s the loss of {} cut {} off from {} (no route left): the job stopped\n",
                         record.partition->at_s, record.partition->link, record.partition->from, record.partition->to);
    }
  }
  return out;
}

}  // namespace

std::string summary_table(const scenario::Scenario& scenario, const metrics::RunRecord& record, double wall_s) {
  const auto& s = scenario;
  std::string out = fmt::format("dtsim {} | scenario {} | seed {} | SimGrid {}\n", core::kDtsimVersion, s.name, s.seed,
                                record.simgrid_version);
  out += setup_lines(s, record);
  out += outcome_lines(s, record, wall_s);
  out += layout_lines(s, record);
  out += energy_lines(s, record);
  out += failure_lines(s, record);
  out += "\n";
  out += host_table(record.hosts);
  return out;
}

}  // namespace dtsim::analysis
