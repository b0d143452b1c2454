#include "sim/runtime/model_parallel/gradient_stream.hpp"

#include "sim/runtime/network/s4u_transport.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace dtsim::runtime {
namespace s4u = simgrid::s4u;

// The worker and its stream meet through these counters. SimGrid runs one actor at a time and switches only
// at its calls, so no lock guards them; whoever waits suspends itself, and the other resumes it: two calls
// a hand-over, where a mutex and condition variable took some ten (a bucket at a time, that was most of a
// large job's simulation).
struct GradientStream::Shared {
  std::int64_t handed = 0;    ///< buckets handed over since the start
  std::int64_t averaged = 0;  ///< buckets whose allreduce is done
  /// While the worker waits for the stream: its meter, and how far its wait is reported.
  std::optional<Meter> waiting;
  double reported_until = 0.0;
  s4u::ActorPtr stream_waiting;  ///< the stream, suspended until a bucket is handed over
  s4u::ActorPtr worker_waiting;  ///< the worker, suspended until every bucket handed over is averaged
  /// The buckets handed over with work of their own, by their number (1-based); the others run the collective.
  std::deque<std::pair<std::int64_t, std::function<void(S4uTransport&)>>> work;

  /// Suspends the calling actor, recorded in `slot`, until `ready()` holds.
  template <class Ready>
  static void wait_until(s4u::ActorPtr& slot, Ready ready) {
    while (!ready()) {
      slot = s4u::Actor::self();
      s4u::this_actor::suspend();
    }
  }
  /// Resumes the actor in `slot`, if one waits there.
  static void wake(s4u::ActorPtr& slot) {
    if (!slot) return;
    const s4u::ActorPtr waiting = std::move(slot);
    slot = nullptr;
    waiting->resume();
  }

  /// The stream's transfers `moving`, reported on the waiting worker's lane as they end: its wait so far is
  /// communication while they moved and waiting for peers before. Reported piece by piece rather than kept
  /// for the end of the wait: a ring of p ranks moves 2(p-1) times a bucket, 131,070 spans of 16 bytes a
  /// worker at 65,536 ranks, some 137 GB a bucket over the workers (the run was killed at 24 GB).
  void report_moving(std::span<const Span> moving) {
    for (const Span& span : moving) {
      const double from = std::max(span.start, reported_until);
      if (span.end <= from) continue;
      const Span piece{from, span.end};
      waiting->observer().on_communication(waiting->lane(), {reported_until, span.end}, std::span<const Span>(&piece, 1));
      reported_until = span.end;
    }
  }
};

namespace {

/// What the stream's transport reports, passed on, and while the worker waits, reported on its lane too: a
/// worker waiting for the stream is communicating while its messages move and waiting for peers otherwise.
class StreamObserver final : public RunObserver {
 public:
  StreamObserver(RunObserver& next, std::shared_ptr<GradientStream::Shared> shared)
      : next_(next), shared_(std::move(shared)) {}
  void on_compute(Lane lane, Span span) override { next_.on_compute(lane, span); }
  void on_communication(Lane lane, Span blocked, std::span<const Span> moving) override {
    next_.on_communication(lane, blocked, moving);
    if (shared_->waiting) shared_->report_moving(moving);
  }
  void on_wait(Lane lane, Span span) override { next_.on_wait(lane, span); }
  void on_sent(Lane lane, double bytes, std::int64_t messages) override { next_.on_sent(lane, bytes, messages); }
  void on_lane_done(Lane lane) override { next_.on_lane_done(lane); }

 private:
  RunObserver& next_;
  std::shared_ptr<GradientStream::Shared> shared_;
};

/// Who the stream reduces with: every worker, or a group of them.
struct StreamGroup {
  std::string name;
  std::vector<int> members;  ///< empty: every worker, by rank
  int position = 0;
  AnalyticalMeeting meeting;  ///< empty name: none
  Traffic carried = Traffic::Data;
};

void run_stream(const TrainingContext& context, int rank, const comm::CollectiveAlgorithm& collective,
                const std::vector<std::size_t>& buckets, std::int64_t iterations, const StreamGroup& group,
                const std::shared_ptr<GradientStream::Shared>& shared) {
  const TrainingSetup& setup = *context.setup;
  // The stream's own lane: its transfers are the host's overlapped communication.
  StreamObserver observer(*context.observer, shared);
  const Meter meter(observer, Lane{rank, 1, false, true});
  // Its own channels: under ZeRO stage 3 the worker gathers parameters while the stream reduces gradients.
  const bool everyone = group.members.empty();
  std::vector<int> machines;
  const std::span<const int> all = setup.graph.worker_machines();
  for (const int member : group.members) machines.push_back(all[static_cast<std::size_t>(member)]);
  S4uTransport transport(
      context.network,
      {.name = group.name,
       .rank = everyone ? rank : group.position,
       .size = everyone ? context.scenario->cluster.workers : static_cast<int>(group.members.size()),
       .machines = everyone ? all : std::span<const int>(machines),
       .hosts = group.members,
       .shortcut = everyone ? context.network.shortcut : nullptr,
       .meeting = group.meeting,
       // Worker 0 stands for every worker's stream, or replica 0's rank for its replicas' (the stream's group).
       .mirrored = everyone ? context.mirroring == Mirroring::every_worker : context.mirroring == Mirroring::replicas},
      meter);
  transport.carry(group.carried);
  std::int64_t next = 0;
  for (std::int64_t iteration = 1; iteration <= iterations; ++iteration) {
    for (const std::size_t elements : buckets) {
      GradientStream::Shared::wait_until(shared->stream_waiting, [&] { return shared->handed > next; });
      if (!shared->work.empty() && shared->work.front().first == next + 1) {
        const std::function<void(S4uTransport&)> work = std::move(shared->work.front().second);
        shared->work.pop_front();
        work(transport);
      } else {
        collective.run(transport, comm::Block::sized(elements));
      }
      shared->averaged = ++next;
      GradientStream::Shared::wake(shared->worker_waiting);
    }
  }
  context.observer->on_lane_done(meter.lane());
}

}  // namespace

GradientStream::GradientStream(const TrainingContext& context, int rank, const comm::CollectiveAlgorithm& collective,
                               std::vector<std::size_t> buckets, std::int64_t iterations)
    : GradientStream(context, rank, collective, std::move(buckets), iterations, "gradients", {}, rank) {}

GradientStream::GradientStream(const TrainingContext& context, int rank, const comm::CollectiveAlgorithm& collective,
                               std::vector<std::size_t> buckets, std::int64_t iterations, std::string name,
                               std::vector<int> members, int position, AnalyticalMeeting meeting, Traffic carried)
    : shared_(std::make_shared<Shared>()) {
  const std::string actor = s4u::this_actor::get_name() + "/" + name.substr(0, name.find('/'));
  s4u::Actor::create(actor, s4u::this_actor::get_host(),
                     [context, rank, &collective, buckets = std::move(buckets), iterations,
                      group = StreamGroup{std::move(name), std::move(members), position, std::move(meeting), carried},
                      shared = shared_] {
                       run_stream(context, rank, collective, buckets, iterations, group, shared);
                     });
}

void GradientStream::hand_over() {
  ++shared_->handed;
  Shared::wake(shared_->stream_waiting);
}

void GradientStream::hand_over(std::function<void(S4uTransport&)> work) {
  shared_->work.emplace_back(shared_->handed + 1, std::move(work));
  hand_over();
}

void GradientStream::wait_for_all(const Meter& meter) { wait_for(shared_->handed, meter); }

std::int64_t GradientStream::handed() const { return shared_->handed; }

void GradientStream::wait_for(std::int64_t count, const Meter& meter) {
  // Waiting for buckets: the communication the compute did not hide while the stream's messages move,
  // waiting for slower peers while they do not. The transfers the stream reported before hold none of this
  // wait: each ended by the time it was reported.
  shared_->waiting = meter;
  shared_->reported_until = s4u::Engine::get_clock();
  Shared::wait_until(shared_->worker_waiting, [&] { return shared_->averaged >= count; });
  shared_->waiting.reset();
  const Span rest{shared_->reported_until, s4u::Engine::get_clock()};
  meter.observer().on_communication(meter.lane(), rest, {});
}

}  // namespace dtsim::runtime
