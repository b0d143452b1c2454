#include "models/dualpipe_order.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>
#include <stdexcept>

namespace dtsim::models {

namespace {

/// The passes of one device as DualPipe.step issues them. Its phases are relative: on the second half of the
/// devices phase 0 is the direction entering at the last device, so that both halves run the same steps.
class DualPipeOrder {
 public:
  DualPipeOrder(int devices, int device, int microbatches)
      : half_devices_(devices / 2), half_rank_(std::min(device, devices - 1 - device)), half_(microbatches / 2),
        second_half_(device >= devices / 2), middle_(device == devices / 2 - 1 || device == devices / 2),
        devices_(devices) {}

  std::vector<PipelinePass> passes() {
    const int ahead = half_devices_ - half_rank_ - 1;
    for (int i = 0; i < 2 * ahead; ++i) forward(0);                         // 1: nF0
    for (int i = 0; i < half_rank_ + 1; ++i) {                              // 2: nF0F1
      forward(0);
      forward(1);
    }
    for (int i = 0; i < ahead; ++i) {                                       // 3: nB1W1F1
      backward(1, true);
      weights();
      forward(1);
    }
    for (int i = 0; i < half_ - devices_ + half_rank_ + 1; ++i) {           // 4: nF0B1F1B0
      if (i == 0 && middle_) {
        // The middle devices run these two apart, which the repository says shortens the bubble.
        forward(0);
        backward(1, false);
      } else {
        forward_backward(0, 1);
      }
      forward_backward(1, 0);
    }
    for (int i = 0; i < ahead; ++i) {                                       // 5: nB1F1B0
      backward(1, false);
      forward_backward(1, 0);
    }
    bool split = false;                                                     // 6: nB1B0, the second half split
    const int ending = half_rank_ + 1;
    for (int i = 0; i < ending; ++i) {
      if (i == ending / 2 && half_rank_ % 2 == 1) split = true;
      backward(1, split);
      if (i == ending / 2 && half_rank_ % 2 == 0) split = true;
      backward(0, split);
    }
    for (int i = 0; i < ahead; ++i) {                                       // 7: nWB0
      weights();
      backward(0, true);
    }
    for (int i = 0; i < half_rank_ + 1; ++i) weights();                     // 8: nW
    return std::move(out_);
  }

 private:
  [[nodiscard]] int direction(int phase) const { return phase ^ (second_half_ ? 1 : 0); }

  void forward(int phase) {
    const int d = direction(phase);
    out_.push_back({true, d * half_ + next_forward_[static_cast<std::size_t>(d)]++, d, false});
  }

  void backward(int phase, bool input_only) {
    const int d = direction(phase);
    PipelinePass pass{false, d * half_ + next_backward_[static_cast<std::size_t>(d)]++, d, false};
    pass.input_only = input_only;
    if (input_only) owed_.push_back({false, pass.microbatch, d, true});
    out_.push_back(pass);
  }

  void weights() {
    out_.push_back(owed_.front());
    owed_.pop_front();
  }

  void forward_backward(int forward_phase, int backward_phase) {
    forward(forward_phase);
    out_.back().beside_next = true;
    backward(backward_phase, false);
  }

  int half_devices_;
  int half_rank_;
  int half_;
  bool second_half_;
  bool middle_;
  int devices_;
  std::array<int, 2> next_forward_{0, 0};
  std::array<int, 2> next_backward_{0, 0};
  std::deque<PipelinePass> owed_;  ///< weight passes of split backward passes, first in first out
  std::vector<PipelinePass> out_;
};

}  // namespace

std::vector<PipelinePass> dualpipe_passes(int devices, int device, int microbatches) {
  if (devices < 2 || devices % 2 != 0 || microbatches % 2 != 0 || microbatches < 2 * devices) {
    throw std::invalid_argument(fmt::format("DualPipe runs an even number of stages and an even number of "
                                            "micro-batches, at least twice the stages, and has {} stages and {}",
                                            devices, microbatches));
  }
  return DualPipeOrder(devices, device, microbatches).passes();
}

}  // namespace dtsim::models
