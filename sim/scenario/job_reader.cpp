#include "sim/scenario/job_reader.hpp"

#include "sim/scenario/config_view.hpp"
#include "sim/scenario/named_values.hpp"
#include "sim/scenario/scenario_schema.hpp"
#include "sim/scenario/scenario_builder.hpp"
#include "sim/scenario/schema_validator.hpp"

#include <fmt/format.h>

#include <set>

namespace dtsim::scenario {
namespace {

/// The most jobs one scenario may hold: each is simulated beside the others, then alone, and with each job it met.
constexpr std::size_t kJobLimit = 1'024;

/// The job's own document: the point's, with the job's sections merged over the top level's as an including file's
/// are (`replaced_whole` as its one-of groups say); a model or data section of another kind replaces the top level's,
/// and a job that names another model and no data has none.
ConfigNode job_document(const ConfigNode& raw, const ConfigNode& job, const SchemaNode& schema) {
  ConfigNode out = raw;
  out.erase("jobs");
  out.erase("scheduler");
  out.erase("sweep");
  const ConfigEntry* name = job.find_entry("name");
  out.set("name", name->value, name->key_where);
  if (ConfigNode* cluster = out.find("cluster"); cluster != nullptr && cluster->is_map()) {
    const ConfigEntry* workers = job.find_entry("workers");
    cluster->set("workers", workers->value, workers->key_where);
  }
  const auto kind_of = [](const ConfigNode* section) {
    const ConfigNode* kind = section != nullptr ? section->find("kind") : nullptr;
    return kind != nullptr ? kind->scalar : std::string();
  };
  // A section of another kind: one that names its kind, and not the top level's.
  const auto another_kind = [&](const ConfigNode* section, const ConfigNode* base) {
    return section != nullptr && !kind_of(section).empty() && kind_of(section) != kind_of(base);
  };
  const bool other_model = another_kind(job.find("model"), raw.find("model"));
  if (other_model && job.find("data") == nullptr) out.erase("data");
  const auto replaced_whole = [&schema](const std::string& path) {
    const SchemaNode* node = find_schema(schema, path);
    return node != nullptr && node->replaced_whole;
  };
  for (const char* section : {"model", "data", "training"}) {
    const ConfigEntry* entry = job.find_entry(section);
    if (entry == nullptr) continue;
    ConfigNode* base = out.find(section);
    const bool other_kind = std::string(section) != "training" && another_kind(&entry->value, base);
    if (base == nullptr || other_kind || !entry->value.is_map()) {
      out.set(section, entry->value, entry->key_where);
    } else {
      ConfigNode overlay = ConfigNode::make_map(entry->value.where);
      overlay.set(section, entry->value, entry->key_where);
      merge_into(out, overlay, replaced_whole);
    }
  }
  return out;
}

/// What several jobs on one cluster do not do yet, said at the key that asks for it.
void refuse_unbuilt(const Scenario& s, const Scenario& job, core::DiagnosticSink& sink) {
  if (!traits_of(s.topology.network_model).shares_links) {
    sink.error(s.topology.network_model_at, "topology.network_model",
               fmt::format("jobs share the cluster's links, and '{}' times every message as if alone on its route",
                           to_string(s.topology.network_model)),
               "use network_model: analytical (flows shared by max-min), alpha_beta or tcp (SimGrid's), or run the "
               "jobs one at a time");
  }
  if (job.training.stops_at_target()) {
    sink.error(job.training.stop_target_at, "training.stop",
               fmt::format("job '{}' stops at a target, and a run stopped there ends every actor of the engine, "
                           "other jobs' too",
                           job.name),
               "report when the target is reached instead (outputs.target_loss or target_accuracy), or run the job "
               "alone");
  }
  if (has_servers(job.training.architecture)) {
    sink.error(job.training.architecture_at, "training.architecture",
               fmt::format("job '{}' has parameter servers, and jobs on a shared cluster train by allreduce only",
                           job.name),
               "use architecture: allreduce for the job, or run it alone");
  }
}

JobSpec read_job(const View& job, const Scenario& s) {
  JobSpec out;
  out.name = job.text("name");
  out.where = job.where();
  out.workers = static_cast<int>(*job.integer("workers"));
  if (const auto arrival = job.quantity("arrival", core::parse_duration)) out.arrival_s = arrival->value();
  out.placement = job.has("placement") ? value_named(job_placements(), job.text("placement")) : s.scheduler.placement;
  if (const ConfigNode* hosts = job.at("hosts").node()) {
    for (const ConfigNode& host : hosts->items) out.hosts.push_back({host.scalar, host.where});
  }
  if (const auto priority = job.integer("priority")) out.priority = static_cast<int>(*priority);
  if (const auto limit = job.quantity("time_limit", core::parse_duration)) out.time_limit_s = limit->value();
  return out;
}

void check_job(const View& job, const JobSpec& spec, const Scenario& s, core::DiagnosticSink& sink) {
  const std::string path = job.path();
  if (spec.workers > s.cluster.workers) {
    sink.error(job.where("workers"), path + ".workers",
               fmt::format("job '{}' needs {} devices, and the cluster has {} (cluster.workers)", spec.name,
                           spec.workers, s.cluster.workers),
               "lower the job's workers, or add devices to the cluster");
  }
  const bool explicit_hosts = spec.placement == JobPlacement::explicit_hosts;
  if (explicit_hosts && std::cmp_not_equal(spec.hosts.size(), spec.workers)) {
    sink.error(job.where(spec.hosts.empty() ? "placement" : "hosts"), path + ".hosts",
               fmt::format("job '{}' is placed explicitly on {} hosts, and it has {} workers", spec.name,
                           spec.hosts.size(), spec.workers),
               "list one worker host per worker (`dtsim explain` names them), in rank order");
  } else if (!explicit_hosts && !spec.hosts.empty()) {
    sink.error(job.where("hosts"), path + ".hosts",
               fmt::format("job '{}' names hosts, and its placement is {}", spec.name, to_string(spec.placement)),
               "set placement: explicit, or leave hosts out");
  }
  if (s.scheduler.policy == SchedulePolicy::backfill && !spec.time_limit_s) {
    sink.error(job.where(), path + ".time_limit",
               fmt::format("backfill reserves devices by each job's declared time, and job '{}' declares none",
                           spec.name),
               "give the job time_limit (as Slurm's --time), or use scheduler.policy: fifo");
  }
}

}  // namespace

void read_jobs(const ScenarioFormat& format, const ConfigNode& raw, const std::string& source, Scenario& s,
               core::DiagnosticSink& sink) {
  const View root(&s.resolved, "");
  const View scheduler = root.at("scheduler");
  if (scheduler.has("policy")) s.scheduler.policy = value_named(schedule_policies(), scheduler.text("policy"));
  if (scheduler.has("placement")) s.scheduler.placement = value_named(job_placements(), scheduler.text("placement"));
  if (scheduler.has("preemption")) s.scheduler.preemption = value_named(preemptions(), scheduler.text("preemption"));
  if (const auto rate = scheduler.quantity("checkpoint_bandwidth", core::parse_bandwidth)) {
    s.scheduler.checkpoint_bytes_per_s = rate->value();
  }
  const ConfigNode* jobs = s.resolved.find("jobs");
  const ConfigNode* written = raw.find("jobs");
  if (jobs == nullptr || written == nullptr || jobs->items.empty()) return;
  if (jobs->items.size() > kJobLimit) {
    sink.error(jobs->where, "jobs",
               fmt::format("{} jobs, and a scenario holds at most {}: each is simulated beside the others, then alone",
                           jobs->items.size(), kJobLimit),
               "split the queue over several scenarios");
    return;
  }
  if (s.scheduler.preemption == Preemption::checkpoint && s.scheduler.checkpoint_bytes_per_s <= 0.0) {
    sink.error(scheduler.where("preemption"), "scheduler.checkpoint_bandwidth",
               "preemption by checkpoint writes each stopped job's state to storage, and no storage rate is given",
               "add scheduler.checkpoint_bandwidth (a parallel file system gives a job some GB/s), or preemption: off");
  }
  if (s.failures.enabled || s.energy.enabled) {
    sink.error(s.failures.enabled ? s.failures.where : s.energy.where, s.failures.enabled ? "failures" : "energy",
               "several jobs on one cluster are simulated without failures and energy so far",
               "leave the section out, or run the jobs one at a time");
  }
  // A rule's ranks would mean two things at once: the cluster's hosts take its fixed slowdowns (whichever job runs
  // there), each job's own ranks its random factors, and every job's summary would declare the rule as its own.
  if (root.has("stragglers")) {
    sink.error(root.key_where("stragglers"), "stragglers",
               "several jobs on one cluster are simulated without stragglers so far: a rule's worker ranks name the "
               "cluster's hosts for its slowdown and each job's own workers for its random factors",
               "leave stragglers out, or run the jobs one at a time");
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < jobs->items.size() && i < written->items.size(); ++i) {
    const View job(&jobs->items[i], fmt::format("jobs[{}]", i));
    JobSpec spec = read_job(job, s);
    spec.index = i;
    if (!names.insert(spec.name).second) {
      sink.error(job.where("name"), job.path() + ".name", fmt::format("two jobs are named '{}'", spec.name),
                 "give each job a name of its own: it names its results' folder");
    }
    check_job(job, spec, s, sink);
    core::DiagnosticSink own;
    const ConfigNode document = job_document(raw, written->items[i], format.schema());
    ConfigNode checked = validate_scenario_document(format.schema(), document, own);
    if (own.empty()) {
      auto built = std::make_shared<Scenario>(build_scenario(checked, format.registries(), source, s.sweep_point, own,
                                                             s.cluster.workers, job.path() + ".name"));
      built->resolved = std::move(checked);
      refuse_unbuilt(s, *built, own);
      // A budget projects a run from its first iterations, while the queue places each job for the time it runs:
      // the jobs would hold their devices for three iterations of a run that lasts days.
      if (built->training.has_budget()) {
        own.error(built->training.budget_at, "training.stop",
                  "several jobs on one cluster are simulated for a number of iterations so far, and a budget (tokens, "
                  "samples or sized epochs) projects a run from its first few",
                  "give each job training.stop.iterations, or run the budget's job alone");
      }
      spec.scenario = std::move(built);
    }
    sink.append(own);
    s.jobs.push_back(std::move(spec));
  }
}

}  // namespace dtsim::scenario
