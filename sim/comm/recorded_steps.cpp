#include "sim/comm/recorded_steps.hpp"

#include <stdexcept>

namespace dtsim::comm {
namespace {

/// A rank of a group that records the steps it is given and refuses every message.
class StepRecorder final : public Transport {
 public:
  StepRecorder(int rank, int size, std::span<const int> machines) : rank_(rank), size_(size), machines_(machines) {}

  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return size_; }
  [[nodiscard]] std::span<const int> machines() const override { return machines_; }
  void send(int /*to*/, Buffer /*data*/) override { refuse(); }
  Buffer recv(int /*from*/) override { refuse(); }
  Buffer send_recv(int /*to*/, Buffer /*data*/, int /*from*/) override { refuse(); }
  std::vector<Buffer> recv_from_each(std::span<const int> /*from*/) override { refuse(); }
  void send_to_each(std::span<const int> /*to*/, std::vector<Buffer> /*data*/) override { refuse(); }
  std::vector<Buffer> exchange(std::span<const int> /*to*/, std::vector<Buffer> /*data*/,
                               std::span<const int> /*from*/) override {
    refuse();
  }
  std::unique_ptr<Pending> post_send(int /*to*/, Buffer /*data*/, int /*tag*/) override { refuse(); }
  std::unique_ptr<Pending> post_recv(int /*from*/, int /*tag*/) override { refuse(); }
  void group_rounds(int /*to*/, int /*from*/, std::size_t /*elements*/, int /*rounds*/,
                    const RingSet& /*phase*/) override {
    refuse();
  }
  void run_steps(std::span<const Step> steps) override { steps_.insert(steps_.end(), steps.begin(), steps.end()); }
  [[nodiscard]] bool times_phases_at_once() const override { return true; }

  [[nodiscard]] std::vector<Step> take() { return std::move(steps_); }

 private:
  [[noreturn]] static void refuse() {
    throw std::logic_error("a collective recorded as steps sent something other than steps");
  }

  int rank_;
  int size_;
  std::span<const int> machines_;
  std::vector<Step> steps_;
};

}  // namespace

std::vector<Step> recorded_steps(const CollectiveAlgorithm& collective, Block data, int rank, int size,
                                 std::span<const int> machines) {
  StepRecorder recorder(rank, size, machines);
  collective.run(recorder, data);
  return recorder.take();
}

}  // namespace dtsim::comm
