#include "sim/runtime/jobs/cluster_run.hpp"

#include "sim/core/diagnostic.hpp"
#include "sim/runtime/context/job_pause.hpp"
#include "sim/runtime/jobs/cluster_placement.hpp"
#include "sim/runtime/jobs/job_queue.hpp"
#include "sim/runtime/jobs/training_job.hpp"
#include "sim/runtime/network/background_traffic.hpp"
#include "sim/runtime/network/engine_session.hpp"
#include "sim/runtime/network/link_sharing.hpp"
#include "sim/runtime/network/network_backend.hpp"
#include "sim/runtime/observe/link_sampler.hpp"
#include "sim/runtime/setup/platform_spec.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>

namespace dtsim::runtime {
namespace s4u = simgrid::s4u;
namespace {

/// What the scheduler actor and the jobs' watchers share while the engine runs.
class Cluster {
 public:
  Cluster(EngineSession& session, const scenario::Scenario& cluster, const topology::TopologyGraph& graph,
          const std::vector<ClusterJob>& jobs, const JobEvent& on_event)
      : session_(&session), cluster_(&cluster), graph_(&graph), jobs_(&jobs), on_event_(on_event), placement_(graph),
        outcomes_(jobs.size()), running_(jobs.size()), pauses_(jobs.size(), nullptr), samplers_(jobs.size()), hosts_(jobs.size()),
        ended_(jobs.size(), false), stopping_(jobs.size(), false), paused_(jobs.size(), false) {
    for (std::size_t j = 0; j < jobs.size(); ++j) hosts_[j] = explicit_ranks(*jobs[j].spec, graph);
    // SimGrid's messages share the links by themselves; the analytical network's phases are shared here.
    if (network_backend(cluster.topology.network_model).phases_at_once() == FlowSharing::MaxMin) sharing_.emplace(graph);
  }

  /// The scheduler actor's life: jobs queued as they arrive and started as the policy says, until all have ended.
  void schedule();
  /// Each job's record, once the engine has run them all.
  std::vector<JobOutcome> finish();

 private:
  [[nodiscard]] double arrival(std::size_t job) const {
    const ClusterJob& j = (*jobs_)[job];
    return j.start_s.value_or(j.spec->arrival_s);
  }
  [[nodiscard]] std::vector<WaitingJob> waiting() const;
  [[nodiscard]] std::vector<RunningJob> running() const;
  bool place(std::size_t job);
  void start(std::size_t job);
  void resume(std::size_t job);
  /// Jobs that ended or left their devices since the scheduler last looked; how many ended.
  std::size_t take_changes(double now);
  /// Preemption: stops running jobs of lower priority than `head` until it would fit, if that can make it fit.
  void preempt_for(std::size_t head, double now);
  [[nodiscard]] std::vector<std::size_t> victims_for(std::size_t head) const;
  /// With no job waiting: takes back the stops not yet begun.
  void cancel_stops();

  EngineSession* session_;
  const scenario::Scenario* cluster_;
  const topology::TopologyGraph* graph_;
  const std::vector<ClusterJob>* jobs_;
  JobEvent on_event_;
  ClusterPlacement placement_;
  std::vector<JobOutcome> outcomes_;
  std::vector<std::unique_ptr<TrainingJob>> running_;
  std::vector<JobPause*> pauses_;  ///< preemption: each started job's
  std::vector<std::unique_ptr<LinkSampler>> samplers_;
  std::vector<std::vector<int>> hosts_;
  std::vector<std::size_t> queue_;
  std::vector<std::size_t> active_;
  std::deque<std::size_t> ending_;   ///< jobs whose watchers saw them end, not yet handled by the scheduler
  std::deque<std::size_t> leaving_;  ///< preempted jobs whose checkpoints are written, not yet handled
  std::vector<bool> ended_;
  std::vector<bool> stopping_;  ///< asked to stop (or ending within the iteration it is in): its devices come free
  std::vector<bool> paused_;    ///< off its devices, queued to resume on them
  std::optional<LinkSharing> sharing_;
  s4u::MutexPtr mutex_ = s4u::Mutex::create();
  s4u::ConditionVariablePtr wake_ = s4u::ConditionVariable::create();
};

std::vector<WaitingJob> Cluster::waiting() const {
  std::vector<WaitingJob> out;
  for (const std::size_t job : queue_) {
    const ClusterJob& j = (*jobs_)[job];
    out.push_back({static_cast<int>(job), j.spec->workers, j.spec->time_limit_s.value_or(0.0)});
  }
  return out;
}

std::vector<RunningJob> Cluster::running() const {
  std::vector<RunningJob> out;
  const double now = s4u::Engine::get_clock();
  for (const std::size_t job : active_) {
    const JobOutcome& o = outcomes_[job];
    // A job asked to stop gives its devices back about now.
    const double limit = (*jobs_)[job].spec->time_limit_s.value_or(0.0);
    out.push_back({(*jobs_)[job].spec->workers, stopping_[job] ? now : o.start_s + metrics::off_devices_s(o.stops) + limit});
  }
  return out;
}

bool Cluster::place(std::size_t job) {
  const ClusterJob& j = (*jobs_)[job];
  std::optional<std::vector<int>> ranks;
  if (paused_[job]) {
    // A preempted job resumes from its checkpoint on the devices it left.
    ranks = placement_.choose(j.spec->workers, scenario::JobPlacement::explicit_hosts, outcomes_[job].ranks, 0);
    if (ranks) placement_.take(*ranks);
    return ranks.has_value();
  }
  if (j.start_s) {
    ranks = j.ranks;
  } else {
    ranks = placement_.choose(j.spec->workers, j.spec->placement, hosts_[job], cluster_->seed + job);
  }
  if (!ranks) return false;
  placement_.take(*ranks);
  outcomes_[job].ranks = std::move(*ranks);
  return true;
}

void Cluster::start(std::size_t job) {
  const ClusterJob& j = (*jobs_)[job];
  std::vector<topology::NodeId> nodes;
  for (const int rank : outcomes_[job].ranks) nodes.push_back(graph_->workers()[static_cast<std::size_t>(rank)]);
  j.setup->graph = graph_->with_workers(nodes);
  // Started by its arrival's timer, a job may find the clock a few ulps short of its arrival (see schedule()): it
  // starts at its arrival, never before it.
  outcomes_[job].start_s = std::max(s4u::Engine::get_clock(), arrival(job));
  samplers_[job] = std::make_unique<LinkSampler>(*graph_);
  running_[job] = std::make_unique<TrainingJob>(*session_, *j.spec->scenario, *j.setup, ProgressCallback{},
                                                samplers_[job].get(), j.spec->name + "/");
  if (cluster_->scheduler.preemption == scenario::Preemption::checkpoint && !j.start_s) {
    pauses_[job] = &running_[job]->make_preemptible(cluster_->scheduler.checkpoint_bytes_per_s, [this, job] {
      const std::unique_lock lock(*mutex_);
      leaving_.push_back(job);
      wake_->notify_all();
    });
    outcomes_[job].checkpoint_s = pauses_[job]->checkpoint_s();
  }
  if (sharing_) running_[job]->share_links(*sharing_, static_cast<int>(job));
  std::vector<s4u::ActorPtr> actors = running_[job]->start();
  active_.push_back(job);
  if (on_event_) on_event_(job, outcomes_[job].start_s, JobChange::started);
  // The watcher: waits for every actor of the job, then tells the scheduler.
  s4u::Actor::create(j.spec->name + "/watcher", session_->host(nodes.front()), [this, job, actors = std::move(actors)]() {
    for (const s4u::ActorPtr& actor : actors) actor->join();
    outcomes_[job].end_s = s4u::Engine::get_clock();
    const std::unique_lock lock(*mutex_);
    ended_[job] = true;
    ending_.push_back(job);
    wake_->notify_all();
  });
}

void Cluster::resume(std::size_t job) {
  paused_[job] = false;
  active_.push_back(job);
  const double now = s4u::Engine::get_clock();
  outcomes_[job].stops.back().resumed_s = now;
  pauses_[job]->resume();
  if (on_event_) on_event_(job, now, JobChange::resumed);
}

std::size_t Cluster::take_changes(double now) {
  std::size_t ended = 0;
  for (; !ending_.empty(); ending_.pop_front(), ++ended) {
    const std::size_t job = ending_.front();
    placement_.give_back(outcomes_[job].ranks);
    std::erase(active_, job);
    stopping_[job] = false;
    if (on_event_) on_event_(job, outcomes_[job].end_s, JobChange::ended);
  }
  for (; !leaving_.empty(); leaving_.pop_front()) {
    const std::size_t job = leaving_.front();
    placement_.give_back(outcomes_[job].ranks);
    std::erase(active_, job);
    stopping_[job] = false;
    paused_[job] = true;
    outcomes_[job].stops.back().left_s = now;
    queue_.push_back(job);
    if (on_event_) on_event_(job, now, JobChange::left);
  }
  return ended;
}

std::vector<std::size_t> Cluster::victims_for(std::size_t head) const {
  const scenario::JobSpec& spec = *(*jobs_)[head].spec;
  std::vector<std::size_t> out;
  for (const std::size_t job : active_) {
    if (!stopping_[job] && pauses_[job] != nullptr && (*jobs_)[job].spec->priority < spec.priority) out.push_back(job);
  }
  // The lowest priority first; of equals, the latest started, so that the jobs longest under way go on.
  std::stable_sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) {
    const int pa = (*jobs_)[a].spec->priority;
    const int pb = (*jobs_)[b].spec->priority;
    return pa != pb ? pa < pb : outcomes_[a].start_s != outcomes_[b].start_s ? outcomes_[a].start_s > outcomes_[b].start_s : a > b;
  });
  return out;
}

void Cluster::preempt_for(std::size_t head, double now) {
  const scenario::JobSpec& spec = *(*jobs_)[head].spec;
  // Devices already coming free: those of jobs asked to stop.
  int coming = placement_.free_devices();
  for (const std::size_t job : active_) coming += stopping_[job] ? (*jobs_)[job].spec->workers : 0;
  if (coming >= spec.workers) return;
  const bool own_hosts = paused_[head] || spec.placement == scenario::JobPlacement::explicit_hosts;
  const std::vector<int>& wanted = paused_[head] ? outcomes_[head].ranks : hosts_[head];
  std::vector<std::size_t> chosen;
  for (const std::size_t job : victims_for(head)) {
    if (own_hosts) {
      const std::vector<int>& held = outcomes_[job].ranks;
      if (std::none_of(held.begin(), held.end(), [&](int r) { return std::ranges::find(wanted, r) != wanted.end(); })) continue;
    } else if (coming >= spec.workers) {
      break;
    }
    chosen.push_back(job);
    coming += (*jobs_)[job].spec->workers;
  }
  // Stop none where stopping them all would not make the head fit.
  if (coming < spec.workers && !own_hosts) return;
  if (own_hosts) {
    for (const std::size_t job : active_) {
      if (stopping_[job] || std::ranges::find(chosen, job) != chosen.end()) continue;
      for (const int r : outcomes_[job].ranks) {
        if (std::ranges::find(wanted, r) != wanted.end()) return;  // held by a job it may not stop
      }
    }
  }
  for (const std::size_t job : chosen) {
    stopping_[job] = true;
    if (pauses_[job]->request()) outcomes_[job].stops.push_back({now, now, now});
  }
}

void Cluster::cancel_stops() {
  for (const std::size_t job : active_) {
    if (stopping_[job] && pauses_[job] != nullptr && pauses_[job]->cancel()) {
      stopping_[job] = false;
      outcomes_[job].stops.pop_back();
    }
  }
}

void Cluster::schedule() {
  std::vector<std::size_t> arrivals(jobs_->size());
  for (std::size_t j = 0; j < arrivals.size(); ++j) arrivals[j] = j;
  std::stable_sort(arrivals.begin(), arrivals.end(), [&](std::size_t a, std::size_t b) { return arrival(a) < arrival(b); });
  std::size_t arrived = 0;
  std::size_t ended = 0;
  double due = 0.0;  // arrivals up to here have come: the clock, or the moment the last timer was set for
  std::unique_lock lock(*mutex_);
  while (ended < jobs_->size()) {
    const double now = s4u::Engine::get_clock();
    due = std::max(due, now);
    ended += take_changes(now);
    for (; arrived < arrivals.size() && arrival(arrivals[arrived]) <= due; ++arrived) queue_.push_back(arrivals[arrived]);
    // Priority first, then arrival, then declaration.
    std::stable_sort(queue_.begin(), queue_.end(), [&](std::size_t a, std::size_t b) {
      const int pa = (*jobs_)[a].spec->priority;
      const int pb = (*jobs_)[b].spec->priority;
      return pa != pb ? pa > pb : arrival(a) != arrival(b) ? arrival(a) < arrival(b) : a < b;
    });
    const std::vector<int> starting = jobs_to_start(cluster_->scheduler.policy, now, placement_.free_devices(), waiting(),
                                                    running(), [&](int job) { return place(static_cast<std::size_t>(job)); });
    for (const int job : starting) {
      std::erase(queue_, static_cast<std::size_t>(job));
      if (paused_[static_cast<std::size_t>(job)]) {
        resume(static_cast<std::size_t>(job));
      } else {
        start(static_cast<std::size_t>(job));
      }
    }
    if (cluster_->scheduler.preemption == scenario::Preemption::checkpoint) {
      if (queue_.empty()) {
        cancel_stops();
      } else {
        preempt_for(queue_.front(), now);
      }
    }
    if (ended >= jobs_->size()) break;
    const double next = arrived < arrivals.size() ? arrival(arrivals[arrived]) : std::numeric_limits<double>::infinity();
    while (ending_.empty() && leaving_.empty() && s4u::Engine::get_clock() < next) {
      if (next == std::numeric_limits<double>::infinity()) {
        wake_->wait(lock);
      } else if (wake_->wait_until(lock, next) == std::cv_status::timeout) {
        // SimGrid dates the timer now + (next - now), which may round a few ulps short of next; a second timer for
        // those ulps would last SimGrid's least wait (precision/timing, 1e-9 s) and start the job that much late.
        due = next;
        break;
      }
    }
  }
}

std::vector<JobOutcome> Cluster::finish() {
  for (std::size_t job = 0; job < running_.size(); ++job) {
    // Every job's watcher saw it end: a job that did not was stopped by something outside the scheduler.
    if (!running_[job] || !ended_[job]) throw std::logic_error("job '" + (*jobs_)[job].spec->name + "' never ended");
    outcomes_[job].record = running_[job]->finish(outcomes_[job].end_s);
    outcomes_[job].link_samples = samplers_[job]->take();
  }
  return std::move(outcomes_);
}

}  // namespace

std::vector<JobOutcome> run_cluster(const scenario::Scenario& cluster, const topology::TopologyGraph& graph,
                                    const std::vector<ClusterJob>& jobs, const JobEvent& on_event) {
  EngineSession session(graph, cluster.topology.network_model, platform_spec(cluster, graph));
  Cluster state(session, cluster, graph, jobs, on_event);
  s4u::Actor::create("scheduler", session.host(graph.workers()[0]), [&state]() { state.schedule(); });
  start_background_traffic(session.platform());
  static_cast<void>(session.run());
  return state.finish();
}

}  // namespace dtsim::runtime
