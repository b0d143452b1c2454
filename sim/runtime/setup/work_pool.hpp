#pragma once
// The machine's cores for the real math of a run's workers. SimGrid runs one actor at a time, but a worker's
// gradient is not needed until the simulated time of its computation has passed: the worker hands the math to
// the pool, sleeps through its simulated compute time while the other workers do the same, and takes the result
// when it wakes. Each task writes only its own worker's gradient, with the same code whatever thread runs it, so
// the results do not depend on the number of threads.

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <functional>
#include <future>
#include <memory>

namespace dtsim::runtime {

class WorkPool {
 public:
  /// `threads` threads (at least 2: with one, the math stays on the simulation's thread and no pool is made).
  explicit WorkPool(int threads) : pool_(static_cast<std::size_t>(threads)), threads_(threads) {}
  ~WorkPool() { pool_.join(); }
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;

  [[nodiscard]] int threads() const { return threads_; }

  /// Starts `work` on a thread of the pool.
  template <class Result>
  [[nodiscard]] std::future<Result> start(std::function<Result()> work) {
    auto task = std::make_shared<std::packaged_task<Result()>>(std::move(work));
    std::future<Result> out = task->get_future();
    boost::asio::post(pool_, [task] { (*task)(); });
    return out;
  }

 private:
  boost::asio::thread_pool pool_;
  int threads_;
};

/// A task started on a pool, waited for when it goes out of scope, so that it never outlives what it writes (an
/// actor stopped while its task runs unwinds through here).
template <class Result>
class PooledTask {
 public:
  PooledTask(WorkPool& pool, std::function<Result()> work) : future_(pool.start<Result>(std::move(work))) {}
  ~PooledTask() {
    if (future_.valid()) future_.wait();
  }
  PooledTask(const PooledTask&) = delete;
  PooledTask& operator=(const PooledTask&) = delete;

  /// The result; rethrows what the work threw.
  Result get() { return future_.get(); }

 private:
  std::future<Result> future_;
};

}  // namespace dtsim::runtime
