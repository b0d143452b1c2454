#include "sim/metrics/run_writers.hpp"

#include "sim/metrics/energy_cost.hpp"
#include "sim/metrics/projection.hpp"
#include "sim/metrics/prediction_interval.hpp"
#include "sim/metrics/throughput.hpp"
#include "sim/metrics/trace_json.hpp"

#include "sim/metrics/unmet_failures.hpp"

#include "sim/core/csv.hpp"
#include "sim/core/result_folder.hpp"
#include "sim/core/version.hpp"
#include "sim/scenario/parallel_axes.hpp"
#include "sim/scenario/parallel_layout.hpp"
#include "sim/scenario/resolved_json.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>

namespace dtsim::metrics {
namespace {

nlohmann::ordered_json evaluation_json(const EvaluationRow& row) {
  return {{"sim_time_s", row.sim_time_s}, {"iteration", row.iteration},
          {"epoch", row.epoch},           {"train_loss", row.train_loss},
          {"train_accuracy", row.train_accuracy}, {"val_loss", row.val_loss},
          {"val_accuracy", row.val_accuracy}};
}

/// The scenario file by its canonical absolute name, however it was named on the command line ("./x.yaml",
/// "/home/u/x.yaml"): the same file gives the same bytes.
std::string origin_file(const std::filesystem::path& source) {
  if (source.empty()) return {};
  std::error_code ignored;
  return std::filesystem::weakly_canonical(std::filesystem::absolute(source), ignored).string();
}

/// A loss for metrics.csv: "nan" or "inf" once a run has diverged (never the platform's "-nan").
std::string loss_cell(double loss) {
  if (std::isnan(loss)) return "nan";
  if (std::isinf(loss)) return loss > 0 ? "inf" : "-inf";
  return fmt::format("{:.9g}", loss);
}

double utilization(const LinkLoad& link, double simulated_s) {
  const double capacity = link.bandwidth_bytes_per_s * simulated_s;
  return capacity > 0.0 ? link.bytes / capacity : 0.0;
}

/// Bytes per link class (sorted by class), and the link direction that carried the most.
void add_traffic(const RunRecord& record, nlohmann::ordered_json& result) {
  if (record.links.empty()) return;
  std::map<std::string, double> by_class;
  // By utilization, not bytes: a fast link that carried the most bytes may still have idled most of the run.
  const LinkLoad* busiest = &record.links.front();
  for (const LinkLoad& link : record.links) {
    by_class[link.link_class] += link.bytes;
    if (utilization(link, record.simulated_s) > utilization(*busiest, record.simulated_s)) busiest = &link;
  }
  nlohmann::ordered_json classes = nlohmann::ordered_json::object();
  for (const auto& [name, bytes] : by_class) classes[name] = bytes;
  result["bytes_by_link_class"] = classes;
  result["busiest_link"] = {{"link", busiest->name},
                            {"from", busiest->from},
                            {"to", busiest->to},
                            {"bytes", busiest->bytes},
                            {"utilization", utilization(*busiest, record.simulated_s)}};
}

/// The first evaluation at or below the target validation loss.
/// When the evaluation `row` (null: none) first reached `target`, named `key` (target_loss, target_accuracy).
nlohmann::ordered_json time_to(const char* key, double target, const EvaluationRow* row) {
  if (row == nullptr) return {{key, target}, {"reached", false}};
  return {{key, target},
          {"reached", true},
          {"sim_time_s", row->sim_time_s},
          {"iteration", row->iteration},
          {"epoch", row->epoch},
          {"bytes_sent", row->bytes_sent}};
}

/// Joules by where they went, kWh, and what they cost: CO2 and money where the scenario gives the rates.
/// The degrees of a model-parallel run and how its ranks are placed.
nlohmann::ordered_json parallelism_json(const scenario::Scenario& scenario) {
  const scenario::ParallelismSpec& plan = scenario.training.parallelism;
  nlohmann::ordered_json placement = nlohmann::ordered_json::array();
  for (const scenario::ParallelAxis axis : plan.placement) {
    placement.push_back(scenario::axis_entry(axis).name);
  }
  nlohmann::ordered_json out{{"data", plan.data},
                             {"tensor", plan.tensor},
                             {"pipeline", plan.pipeline},
                             {"sequence_parallel", plan.sequence_parallel},
                             {"recomputation", std::string(scenario::to_string(scenario.training.recomputation))},
                             {"placement", std::move(placement)}};
  // The axes listed only above 1, in the order they came to dtsim (expert, context): each degree and its groups'
  // choice.
  for (const scenario::ParallelAxis axis : scenario::declaration_order()) {
    const scenario::AxisEntry& entry = scenario::axis_entry(axis);
    if (entry.always_listed || scenario::declared_degree(plan, axis) < 2) continue;
    out[std::string(entry.name)] = scenario::declared_degree(plan, axis);
    if (entry.setting_of != nullptr) out[std::string(entry.setting)] = entry.setting_of(plan);
  }
  return out;
}

/// Context parallelism: the keys' and values' exchanges, mean per worker over the run: the time a worker waited
/// for them (the exposed time), and their bytes.
nlohmann::ordered_json context_json(const scenario::Scenario& scenario, const RunRecord& record) {
  double exposed = 0.0;
  double bytes = 0.0;
  const auto workers = static_cast<std::size_t>(scenario.cluster.workers);
  for (std::size_t rank = 0; rank < workers && rank < record.hosts.size(); ++rank) {
    exposed += record.hosts[rank].context_communication_s;
    bytes += record.hosts[rank].context_bytes_sent;
  }
  const double n = std::max<double>(1.0, static_cast<double>(workers));
  return {{"context", scenario.training.parallelism.context},
          {"attention", std::string(scenario::to_string(scenario.training.parallelism.context_attention))},
          {"exposed_s", exposed / n},
          {"bytes_sent", bytes / n}};
}

/// Uneven routing: the distribution and what its draws gave; a model trained for real: what its gate did.
nlohmann::ordered_json routing_json(const models::RoutingSpec& spec, const RoutingRecord& routing) {
  nlohmann::ordered_json out{{"distribution", routing.learned ? "gate" : std::string(scenario::to_string(spec.distribution))}};
  if (!routing.learned) {
    if (spec.distribution == models::RoutingDistribution::Zipf) out["exponent"] = spec.exponent;
    if (spec.distribution == models::RoutingDistribution::Dirichlet) out["alpha"] = spec.alpha;
    out["capacity_factor"] = spec.capacity_factor ? nlohmann::ordered_json(*spec.capacity_factor) : nlohmann::ordered_json();
  }
  out["tokens_per_expert"] = routing.tokens_per_expert;
  out["mean_max_load"] = routing.mean_max_load;
  out["busiest_load"] = routing.busiest_load;
  out["mean_max_work"] = routing.mean_max_work;
  out["busiest_work"] = routing.busiest_work;
  out["routed_tokens"] = routing.routed_tokens;
  out["dropped_tokens"] = routing.dropped_tokens;
  out["dropped_fraction"] = routing.routed_tokens > 0.0 ? routing.dropped_tokens / routing.routed_tokens : 0.0;
  return out;
}

/// Expert parallelism: the expert groups' all-to-alls, per worker over the run and per all-to-all (one
/// direction of one mixture block's exchange for one micro-batch), mean and busiest over the workers.
nlohmann::ordered_json experts_json(const scenario::Scenario& scenario, const RunRecord& record) {
  double seconds = 0.0;
  double bytes = 0.0;
  double busiest_bytes = 0.0;
  double per_seconds = 0.0;
  double per_bytes = 0.0;
  std::int64_t all_to_alls = 0;
  const std::size_t workers = std::min(record.all_to_alls.size(), record.hosts.size());
  for (std::size_t rank = 0; rank < workers; ++rank) {
    const HostActivity& host = record.hosts[rank];
    seconds += host.expert_communication_s;
    bytes += host.expert_bytes_sent;
    all_to_alls += record.all_to_alls[rank];
    if (record.all_to_alls[rank] == 0) continue;
    const auto count = static_cast<double>(record.all_to_alls[rank]);
    per_seconds += host.expert_communication_s / count;
    per_bytes += host.expert_bytes_sent / count;
    busiest_bytes = std::max(busiest_bytes, host.expert_bytes_sent / count);
  }
  const double n = std::max<double>(1.0, static_cast<double>(workers));
  nlohmann::ordered_json out{{"expert", scenario.training.parallelism.expert},
                             {"all_to_all", scenario.training.parallelism.all_to_all.value},
                             {"all_to_alls_per_worker", static_cast<double>(all_to_alls) / n},
                             {"communication_s", seconds / n},
                             {"bytes_sent", bytes / n},
                             {"per_all_to_all",
                              {{"communication_s", per_seconds / n},
                               {"bytes_sent", per_bytes / n},
                               {"busiest_bytes_sent", busiest_bytes}}}};
  if (record.routing) out["routing"] = routing_json(scenario.training.routing, *record.routing);
  return out;
}

/// A pipeline's shape and its idle time: the run's time beyond the busiest stage's compute, as a fraction of
/// that compute. With equal stages and free communication that is the bubble, (p - 1)/m, given beside it;
/// communication that compute does not hide (activations, tensor sums, the stages' allreduces) adds to it.
/// Per stage, the mean over its workers of their compute, communication and waiting.
nlohmann::ordered_json pipeline_json(const scenario::Scenario& scenario, const RunRecord& record) {
  const scenario::ParallelismSpec& plan = scenario.training.parallelism;
  double busiest = 0.0;
  for (const HostActivity& host : record.hosts) busiest = std::max(busiest, host.compute_s);
  std::vector<HostActivity> stages(static_cast<std::size_t>(plan.pipeline));
  const int workers = scenario.cluster.workers;
  for (int rank = 0; rank < workers && static_cast<std::size_t>(rank) < record.hosts.size(); ++rank) {
    HostActivity& stage = stages[static_cast<std::size_t>(scenario::coordinates_of(plan, rank)[scenario::ParallelAxis::Pipeline])];
    const HostActivity& host = record.hosts[static_cast<std::size_t>(rank)];
    stage.compute_s += host.compute_s;
    stage.communication_s += host.communication_s;
    stage.wait_s += host.wait_s;
  }
  const double per_stage = static_cast<double>(workers) / plan.pipeline;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (std::size_t s = 0; s < stages.size(); ++s) {
    rows.push_back({{"stage", s},
                    {"compute_s", stages[s].compute_s / per_stage},
                    {"communication_s", stages[s].communication_s / per_stage},
                    {"wait_s", stages[s].wait_s / per_stage}});
  }
  return {{"stages", plan.pipeline},
          {"microbatches", plan.microbatches},
          {"schedule", std::string(scenario::to_string(plan.schedule))},
          {"busiest_stage_compute_s", busiest},
          {"idle_fraction", busiest > 0.0 ? record.simulated_s / busiest - 1.0 : 0.0},
          {"virtual_stages", plan.virtual_stages},
          {"bubble_closed_form", record.bubble_closed_form},
          {"per_stage", std::move(rows)}};
}

/// Per kind of device, what one worker holds (bytes), its capacity and whether it fits.
nlohmann::ordered_json memory_json(const std::vector<DeviceMemory>& memory) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const DeviceMemory& m : memory) {
    nlohmann::ordered_json row = {{"device", m.device}, {"precision", m.precision}, {"workers", m.workers}};
    if (m.stage >= 0) row["stage"] = m.stage;
    row.update(nlohmann::ordered_json{
                   {"parameters_bytes", m.parameters},
                   {"gradients_bytes", m.gradients},
                   {"optimizer_bytes", m.optimizer},
                   {"activations_bytes", m.activations},
                   {"total_bytes", m.total()},
                   {"capacity_bytes", m.capacity ? nlohmann::ordered_json(*m.capacity) : nlohmann::ordered_json(nullptr)},
                   {"fits", m.fits()}});
    out.push_back(std::move(row));
  }
  return out;
}

nlohmann::ordered_json energy_json(const scenario::Scenario& scenario, const RunRecord& record) {
  const EnergyTotals& e = *record.energy;
  const EnergyCost cost = *energy_cost(scenario, record);
  nlohmann::ordered_json out = {{"total_j", e.total_j()},
                                {"kwh", cost.kwh},
                                {"devices_j", e.devices_j},
                                {"compute_j", e.compute_j},
                                {"communication_j", e.communication_j},
                                {"waiting_j", e.waiting_j},
                                {"static_j", e.static_j},
                                {"links_j", e.links_j},
                                {"waiting_share", e.devices_j > 0.0 ? e.waiting_j / e.devices_j : 0.0}};
  if (cost.co2_kg) out["co2_kg"] = *cost.co2_kg;
  if (cost.cost) {
    out["cost"] = *cost.cost;
    out["currency"] = scenario.energy.currency;
  }
  if (scenario.target_loss) {
    const EvaluationRow* row = record.first_reaching(*scenario.target_loss);
    out["to_target_j"] = row == nullptr ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(row->energy_j);
  }
  return out;
}

/// A budget's whole run, projected from the simulated iterations.
nlohmann::ordered_json failure_totals_json(const FailureCosts& costs, const FailureTotals& t) {
  // An expectation without end (a segment longer than many failures' worth) is written as null.
  const auto finite = [](double value) { return std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json(); };
  nlohmann::ordered_json out{{"interruptions", finite(t.interruptions)}, {"lost_work_s", finite(t.lost_work_s)},
                             {"recovery_s", finite(t.recovery_s)},       {"checkpoint_s", t.checkpoint_s},
                             {"total_s", finite(t.total_s)},             {"goodput", t.goodput()}};
  if (costs.spares > 0 || costs.shrink) {
    out["shrunk_s"] = t.shrunk_s;
    out["spares_used"] = t.spares_used;
    out["regrowths"] = t.regrowths;
  }
  if (costs.causes.size() < 2) return out;
  // Of the recoveries, the checkpoints read back; and the interruptions of each cause.
  out["checkpoint_load_s"] = finite(t.load_s);
  nlohmann::ordered_json by_cause = nlohmann::ordered_json::object();
  for (std::size_t c = 0; c < costs.causes.size(); ++c) by_cause[costs.causes[c].name] = finite(t.interruptions_by_cause[c]);
  out["interruptions_by_cause"] = std::move(by_cause);
  return out;
}

/// The drawn run's interruptions, the first kTimelineLimit of them.
inline constexpr std::size_t kTimelineLimit = 10'000;

nlohmann::ordered_json timeline_json(const Projection::Failures& f) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < std::min(f.timeline.size(), kTimelineLimit); ++i) {
    const Interruption& at = f.timeline[i];
    const std::size_t cause = at.cause;
    out.push_back({{"at_s", at.at_s},
                   {"noticed_s", at.noticed_s},
                   {"resumed_s", at.resumed_s},
                   {"cause", cause < f.costs.causes.size() ? f.costs.causes[cause].name : std::string("random")},
                   {"failures", at.failures},
                   {"iteration", at.iteration},
                   {"lost_iterations", at.lost_iterations},
                   {"shrunk", at.shrunk}});
  }
  return out;
}

nlohmann::ordered_json projected_failures_json(const Projection::Failures& f) {
  nlohmann::ordered_json out{{"job_mtbf_s", f.costs.job_mtbf_s},
                             {"checkpoint_every", f.costs.checkpoint_every},
                             {"checkpoint_write_s", f.costs.checkpoint_s},
                             {"checkpoint_background_s", f.costs.background_s},
                             {"recovery_s", f.costs.interruption_s()},
                             {"young_daly_interval_s", nullptr},
                             {"young_daly_iterations", nullptr}};
  // A run that would not finish is advised no interval.
  if (std::isfinite(f.expected.total_s)) {
    out["young_daly_interval_s"] = f.young_daly_interval_s;
    out["young_daly_iterations"] = f.young_daly_interval_s / f.costs.iteration_s;
  }
  if (f.costs.causes.size() >= 2) {
    nlohmann::ordered_json causes = nlohmann::ordered_json::array();
    for (const FailureCause& cause : f.costs.causes) {
      causes.push_back({{"cause", cause.name},
                        {"job_mtbf_s", cause.job_mtbf_s},
                        {"share", f.costs.job_mtbf_s / cause.job_mtbf_s},
                        {"repair_s", cause.repair_s}});
    }
    out["causes"] = std::move(causes);
  }
  if (f.best_interval) {
    out["best_checkpoint_every"] = f.best_interval->every;
    out["best_total_s"] = f.best_interval->total_s;
  }
  out["expected"] = failure_totals_json(f.costs, f.expected);
  if (f.costs.spares > 0 || f.costs.shrink) {
    out["spares"] = f.costs.spares;
    out["shrink"] = f.costs.shrink;
  }
  out["drawn"] = f.drawn ? failure_totals_json(f.costs, *f.drawn) : nlohmann::ordered_json();
  if (f.spread) {
    const auto spread = [](const Spread& x) {
      return nlohmann::ordered_json{{"mean", x.mean}, {"p5", x.p5}, {"p50", x.p50}, {"p95", x.p95}};
    };
    out["draws"] = {{"count", f.spread->draws},
                    {"goodput", spread(f.spread->goodput)},
                    {"total_s", spread(f.spread->total_s)},
                    {"interruptions", spread(f.spread->interruptions)}};
  }
  out["timeline"] = timeline_json(f);
  if (f.timeline.size() > kTimelineLimit) out["timeline_cut_at"] = kTimelineLimit;
  return out;
}

nlohmann::ordered_json projection_json(const scenario::Scenario& scenario, const Projection& p) {
  nlohmann::ordered_json out{{"iterations", p.iterations}, {"simulated_iterations", p.simulated_iterations}};
  if (p.epochs) out["epochs"] = *p.epochs;
  out.update(nlohmann::ordered_json{{"samples", p.samples},
                             {"tokens", p.tokens > 0.0 ? nlohmann::ordered_json(p.tokens) : nlohmann::ordered_json()},
                             {"iteration_s", p.iteration_s},
                             {"total_s", p.total_s},
                             {"days", p.days},
                             {"device_hours", p.device_hours}});
  if (p.kwh) out["mwh"] = *p.kwh / 1000.0;
  if (p.co2_kg) out["co2_t"] = *p.co2_kg / 1000.0;
  if (p.cost) {
    out["cost"] = *p.cost;
    out["currency"] = scenario.energy.currency;
  }
  if (p.failures) out["failures"] = projected_failures_json(*p.failures);
  return out;
}

/// Each failure, what they cost together, and the checkpoints' overhead.
nlohmann::ordered_json failures_json(const scenario::FailureSpec& spec, const RunRecord& record) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  std::int64_t lost_steps = 0;
  double lost_s = 0.0;
  double downtime_s = 0.0;
  for (const FailureRecord& f : record.failures) {
    events.push_back({{f.server ? "server" : "worker", f.worker},
                      {"at_s", f.at_s},
                      {"noticed_s", f.noticed_s},
                      {"lost_steps", f.lost_steps},
                      {"lost_s", f.lost_s},
                      {"downtime_s", f.downtime_s},
                      {"left", f.left}});
    lost_steps += f.lost_steps;
    lost_s += f.lost_s;
    downtime_s += f.downtime_s;
  }
  nlohmann::ordered_json out = {{"count", record.failures.size()},
                                {"lost_steps", lost_steps},
                                {"lost_s", lost_s},
                                {"downtime_s", downtime_s},
                                {"checkpoints", record.checkpoints},
                                {"checkpoint_s", record.checkpoint_s},
                                {"events", events}};
  if (!record.gradients_by_worker.empty()) out["gradients_by_worker"] = record.gradients_by_worker;
  if (!record.link_events.empty()) {
    nlohmann::ordered_json links = nlohmann::ordered_json::array();
    for (const LinkEvent& e : record.link_events) {
      links.push_back({{"link", e.link}, {"at_s", e.at_s}, {"state", e.down ? "down" : "up"}});
    }
    out["link_events"] = links;
  }
  const std::vector<UnmetFailure> unmet = unmet_failures(spec, record);
  if (!unmet.empty()) {
    nlohmann::ordered_json never = nlohmann::ordered_json::array();
    for (const UnmetFailure& f : unmet) never.push_back({{"failure", f.what}, {"at_s", f.at_s}});
    out["not_reached"] = never;
  }
  if (record.job_lost_s) {
    out["job_lost"] = {{"at_s", *record.job_lost_s}, {"reason", "every worker had failed for good"}};
  }
  if (record.partition) {
    out["partition"] = {{"at_s", record.partition->at_s},
                        {"link", record.partition->link},
                        {"from", record.partition->from},
                        {"to", record.partition->to},
                        {"cut_off", record.partition->cut_off}};
  }
  return out;
}

/// A timing-only run has no losses to evaluate: one row per iteration instead, as worker 0 saw it.
std::string iterations_csv(const scenario::Scenario& scenario, const RunRecord& record) {
  const bool tokens = record.tokens_per_sample > 0;
  std::string out = "iteration,sim_time_s,iteration_s,samples_per_s,";
  out += tokens ? "tokens_per_s,model_flops_utilization\n" : "model_flops_utilization\n";
  double previous = 0.0;
  for (std::size_t i = 0; i < record.iteration_ends.size(); ++i) {
    const double end = record.iteration_ends[i];
    const std::optional<Throughput> rate = throughput_over(scenario, record, 1.0, end - previous);
    out += fmt::format("{},{:.9g},{:.9g},", i + 1, end, end - previous);
    if (rate) {
      out += fmt::format("{:.9g},", rate->samples_per_s);
      if (tokens) out += fmt::format("{:.9g},", rate->tokens_per_s.value_or(0.0));
      out += fmt::format("{:.9g}\n", rate->model_flops_utilization);
    } else {
      out += tokens ? ",,\n" : ",\n";
    }
    previous = end;
  }
  return out;
}

/// Each host's times, bytes and messages (and energy, and communication by kind, when the run has them).
nlohmann::ordered_json hosts_json(const RunRecord& record) {
  nlohmann::ordered_json hosts = nlohmann::ordered_json::array();
  const bool by_kind = record.model_parallel_traffic();  // a look at every host: once, not per host
  for (const auto& host : record.hosts) {
    hosts.push_back({{"name", host.name},
                     {"role", host.role},
                     {"compute_s", host.compute_s},
                     {"communication_s", host.communication_s},
                     {"wait_s", host.wait_s},
                     {"bytes_sent", host.bytes_sent},
                     {"messages_sent", host.messages_sent}});
    if (host.overlapped_communication_s > 0.0) {
      hosts.back()["overlapped_communication_s"] = host.overlapped_communication_s;
    }
    if (by_kind) {
      hosts.back()["communication_by_kind_s"] = {{"data", host.data_communication_s},
                                                 {"tensor", host.tensor_communication_s},
                                                 {"pipeline", host.pipeline_communication_s},
                                                 {"zero", host.zero_communication_s}};
      if (host.context_bytes_sent > 0.0) {
        hosts.back()["communication_by_kind_s"]["context"] = host.context_communication_s;
        hosts.back()["context_bytes_sent"] = host.context_bytes_sent;
      }
      if (host.expert_bytes_sent > 0.0) {
        hosts.back()["communication_by_kind_s"]["expert"] = host.expert_communication_s;
        hosts.back()["expert_bytes_sent"] = host.expert_bytes_sent;
        hosts.back()["expert_messages_sent"] = host.expert_messages_sent;
      }
    }
    if (record.energy) {
      hosts.back()["compute_j"] = host.compute_j;
      hosts.back()["communication_j"] = host.communication_j;
      hosts.back()["waiting_j"] = host.waiting_j;
    }
  }
  return hosts;
}

/// A `sites` topology's datacenters: each one's workers, their mean compute, communication and waiting, their
/// compute utilisation (the share of the run they computed), the bytes they sent, and the bytes that left the
/// site over its wide-area links.
nlohmann::ordered_json sites_json(const RunRecord& record) {
  nlohmann::ordered_json sites = nlohmann::ordered_json::array();
  for (std::size_t site = 0; site < record.site_names.size(); ++site) {
    int workers = 0;
    double compute = 0.0;
    double communication = 0.0;
    double wait = 0.0;
    double bytes = 0.0;
    for (const HostActivity& host : record.hosts) {
      if (host.role != "worker" || host.site != static_cast<int>(site)) continue;
      ++workers;
      compute += host.compute_s;
      communication += host.communication_s;
      wait += host.wait_s;
      bytes += host.bytes_sent;
    }
    double leaving = 0.0;
    const std::string gateway = record.site_names[site] + ".switch";
    for (const LinkLoad& link : record.links) {
      if (link.link_class == "wan" && link.from == gateway) leaving += link.bytes;
    }
    const double n = std::max(workers, 1);
    sites.push_back({{"name", record.site_names[site]},
                     {"workers", workers},
                     {"compute_s", compute / n},
                     {"communication_s", communication / n},
                     {"wait_s", wait / n},
                     {"compute_utilisation", record.simulated_s > 0.0 ? compute / n / record.simulated_s : 0.0},
                     {"bytes_sent", bytes},
                     {"wan_bytes_out", leaving}});
  }
  return sites;
}

/// The updates applied and the staleness of the gradients they applied: mean, largest, histogram.
void add_staleness(const RunRecord& record, nlohmann::ordered_json& result) {
  result["updates_applied"] = record.updates_applied;
  std::int64_t gradients = 0;
  double total = 0.0;
  nlohmann::ordered_json histogram = nlohmann::ordered_json::object();
  for (const auto& [staleness, count] : record.staleness) {
    histogram[std::to_string(staleness)] = count;
    gradients += count;
    total += static_cast<double>(staleness * count);
  }
  result["staleness"] = {{"mean", gradients > 0 ? total / static_cast<double>(gradients) : 0.0},
                         {"max", record.staleness.empty() ? 0 : record.staleness.rbegin()->first},
                         {"histogram", histogram}};
}

}  // namespace

std::string summary_json(const core::SchemaNode& format, const scenario::Scenario& scenario, const RunRecord& record) {
  nlohmann::ordered_json result = {
      {"simulated_s", record.simulated_s},
      {"iterations", record.iterations},
      {"iterations_per_epoch", record.iterations_per_epoch},
      {"epochs", record.iterations_per_epoch > 0 ? static_cast<double>(record.iterations) /
                                                               static_cast<double>(record.iterations_per_epoch)
                                                         : 0.0},
      {"parameters", record.parameter_count},
      {"bytes_sent", record.total_bytes_sent()},
  };
  // A mixture of experts: the parameters each token passes through.
  if (record.fewer_active_parameters()) result["active_parameters"] = record.active_parameter_count;
  if (record.updates_applied > 0) add_staleness(record, result);
  add_traffic(record, result);
  if (const std::optional<Throughput> rate = throughput(scenario, record)) {
    result["throughput"] = {{"samples_per_s", rate->samples_per_s},
                            {"model_flops_utilization", rate->model_flops_utilization}};
    if (rate->tokens_per_s) result["throughput"]["tokens_per_s"] = *rate->tokens_per_s;
  }
  if (const std::optional<PredictionInterval> interval = prediction_interval(scenario, record)) {
    result["interval"] = {{"iteration_s", interval->iteration_s}, {"low_s", interval->low_s},
                          {"high_s", interval->high_s}, {"percentiles", {10, 90}},
                          {"test_rows", interval->rows}, {"basis", interval->basis}};
  }
  if (scenario.training.parallelism.is_model_parallel()) {
    result["parallelism"] = parallelism_json(scenario);
  }
  if (scenario.training.parallelism.pipeline > 1) result["pipeline"] = pipeline_json(scenario, record);
  if (!record.all_to_alls.empty()) result["experts"] = experts_json(scenario, record);
  if (scenario.training.parallelism.context > 1) result["context"] = context_json(scenario, record);
  if (!record.memory.empty()) result["memory"] = memory_json(record.memory);
  if (!record.site_names.empty()) result["sites"] = sites_json(record);
  if (record.energy) result["energy"] = energy_json(scenario, record);
  const std::optional<Projection> projected = projection(scenario, record);
  if (projected) result["projection"] = projection_json(scenario, *projected);
  // A projected run's failures are the projection's: the iterations simulated ran without them.
  if (scenario.failures.enabled && !projected) result["failures"] = failures_json(scenario.failures, record);
  if (scenario.target_loss) {
    result["time_to_target"] = time_to("target_loss", *scenario.target_loss, record.first_reaching(*scenario.target_loss));
  }
  if (const scenario::TrainingSpec& t = scenario.training; t.stops_at_target()) {
    // Where the run stopped: its last evaluation, the first to reach the target.
    const EvaluationRow* last = record.stopped_at_target && !record.evaluations.empty() ? &record.evaluations.back() : nullptr;
    result["stop"] = t.stop_loss ? time_to("target_loss", *t.stop_loss, last) : time_to("target_accuracy", *t.stop_accuracy, last);
  }
  if (scenario.target_accuracy) {
    result["time_to_accuracy"] = time_to("target_accuracy", *scenario.target_accuracy,
                                         record.first_reaching_accuracy(*scenario.target_accuracy));
  }
  if (const EvaluationRow* diverged = record.first_diverged()) {
    result["diverged"] = {{"iteration", diverged->iteration}, {"sim_time_s", diverged->sim_time_s}};
  }
  if (!record.evaluations.empty()) {
    result["initial"] = evaluation_json(record.evaluations.front());
    result["final"] = evaluation_json(record.evaluations.back());
  }
  const nlohmann::ordered_json summary = {
      {"dtsim_version", core::kDtsimVersion},
      {"simgrid_version", record.simgrid_version},
      {"seed", scenario.seed},
      {"origin", {{"file", origin_file(scenario.source)}, {"sweep_point", scenario.sweep_point}}},
      {"scenario", scenario::resolved_json(format, scenario.resolved)},
      {"result", result},
      {"hosts", hosts_json(record)},
  };
  return summary.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string metrics_csv(const scenario::Scenario& scenario, const RunRecord& record) {
  if (record.evaluations.empty() && !record.iteration_ends.empty()) return iterations_csv(scenario, record);
  const bool energy = record.energy.has_value();
  std::string out = "sim_time_s,iteration,epoch,train_loss,train_accuracy,val_loss,val_accuracy,bytes_sent";
  out += energy ? ",energy_j\n" : "\n";
  for (const auto& row : record.evaluations) {
    out += fmt::format("{:.9g},{},{:.6f},{},{:.6f},{},{:.6f},{:.0f}", row.sim_time_s, row.iteration, row.epoch,
                       loss_cell(row.train_loss), row.train_accuracy, loss_cell(row.val_loss), row.val_accuracy,
                       row.bytes_sent);
    out += energy ? fmt::format(",{:.9g}\n", row.energy_j) : "\n";
  }
  return out;
}

std::string links_csv(const RunRecord& record) {
  std::string out = "link,class,from,to,bandwidth_bytes_per_s,bytes,utilization\n";
  for (const LinkLoad& link : record.links) {
    // Names come from the topology (a custom one's nodes are the user's): quoted should one hold a comma.
    out += fmt::format("{},{},{},{},{:.9g},{:.0f},{:.6f}\n", core::csv_field(link.name),
                       core::csv_field(link.link_class), core::csv_field(link.from), core::csv_field(link.to),
                       link.bandwidth_bytes_per_s, link.bytes, utilization(link, record.simulated_s));
  }
  return out;
}

std::string cluster_links_csv(std::span<const RunRecord* const> jobs, double makespan_s) {
  std::string out = "link,class,from,to,bandwidth_bytes_per_s,bytes,utilization,jobs\n";
  if (jobs.empty()) return out;
  // Every job's record lists the cluster's link directions in one order.
  for (std::size_t row = 0; row < jobs.front()->links.size(); ++row) {
    LinkLoad link = jobs.front()->links[row];
    link.bytes = 0.0;
    int crossing = 0;
    for (const RunRecord* job : jobs) {
      link.bytes += job->links[row].bytes;
      crossing += job->links[row].bytes > 0.0 ? 1 : 0;
    }
    out += fmt::format("{},{},{},{},{:.9g},{:.0f},{:.9g},{}\n", core::csv_field(link.name), core::csv_field(link.link_class),
                       core::csv_field(link.from), core::csv_field(link.to), link.bandwidth_bytes_per_s, link.bytes,
                       utilization(link, makespan_s), crossing);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> run_files(const core::SchemaNode& format, const scenario::Scenario& scenario,
                                                           const RunRecord& record, const Timeline* timeline) {
  std::vector<std::pair<std::string, std::string>> files{{"summary.json", summary_json(format, scenario, record)},
                                                         {"metrics.csv", metrics_csv(scenario, record)},
                                                         {"links.csv", links_csv(record)}};
  if (timeline != nullptr) {
    const std::string name = scenario.sweep_point.empty() ? scenario.name : scenario.name + " " + scenario.sweep_point;
    files.emplace_back("trace.json", trace_json(name, record, *timeline));
  }
  return files;
}

void write_run_outputs(const std::filesystem::path& folder, const std::vector<std::pair<std::string, std::string>>& files) {
  core::StagedFolder staged(folder);
  for (const auto& [name, text] : files) staged.write_file(name, text);
  staged.commit();
}

}  // namespace dtsim::metrics
