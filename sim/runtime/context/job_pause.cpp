#include "sim/runtime/context/job_pause.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <mutex>

namespace dtsim::runtime {
namespace s4u = simgrid::s4u;

JobPause::JobPause(int workers, double checkpoint_s, std::int64_t iterations, std::function<void()> left)
    : workers_(workers), checkpoint_s_(checkpoint_s), iterations_(iterations), left_(std::move(left)) {}

void JobPause::at_iteration(std::int64_t iteration, const Meter& meter, bool reports, const std::function<void()>& drain) {
  // A request that comes while the workers read the checkpoint back stops them again before they begin.
  while (stop_after_ && iteration - 1 == *stop_after_) {
    ++writing_;
    if (drain) drain();
    const double started = s4u::Engine::get_clock();
    s4u::this_actor::sleep_for(checkpoint_s_);
    if (reports) meter.observer().on_checkpoint(started, checkpoint_s_);
    std::unique_lock lock(*mutex_);
    const std::int64_t resumes = resumes_;
    const bool last = ++written_ == workers_;
    // The scheduler is told outside this lock: it takes its own, and resume() takes this one.
    lock.unlock();
    if (last) left_();
    lock.lock();
    while (resumes_ == resumes) resumed_->wait(lock);
    lock.unlock();
    s4u::this_actor::sleep_for(checkpoint_s_);
  }
  furthest_ = std::max(furthest_, iteration);
}

std::optional<std::int64_t> JobPause::request() {
  if (furthest_ >= iterations_) return std::nullopt;
  stop_after_ = furthest_;
  return stop_after_;
}

bool JobPause::cancel() {
  if (!stop_after_ || writing_ > 0) return false;
  stop_after_.reset();
  return true;
}

void JobPause::resume() {
  const std::unique_lock lock(*mutex_);
  stop_after_.reset();
  writing_ = 0;
  written_ = 0;
  ++resumes_;
  resumed_->notify_all();
}

}  // namespace dtsim::runtime
