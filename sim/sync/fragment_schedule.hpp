#pragma once
// Streaming DiLoCo's schedule (Douillard et al. 2025, "Streaming DiLoCo with overlapping communication",
// arXiv:2501.18512, algorithm 2): the model is cut into P fragments, each synchronised every H inner steps but
// at its own offset, so that only one fragment's outer gradient is on the wire at a time; a fragment's exchange
// runs beside the next `overlap` inner steps, and what comes back is mixed into the worker's own parameters.

#include "sim/sync/sync_strategy.hpp"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace dtsim::sync {

/// One exchange of one fragment: its outer gradient sent (the allreduce starts), or what came back merged.
struct FragmentAction {
  enum class Kind { send, merge };
  Kind kind;
  int fragment;
  friend bool operator==(const FragmentAction&, const FragmentAction&) = default;
};

class FragmentSchedule {
 public:
  /// `inner_steps` H > 0; `fragments` P in [1, H]; `overlap` tau in [0, H).
  FragmentSchedule(int inner_steps, int fragments, int overlap);

  [[nodiscard]] int fragments() const { return fragments_; }
  [[nodiscard]] int overlap() const { return overlap_; }
  /// Fragment p's first exchange comes after H + p H / P inner steps, then every H (the paper's example: H =
  /// 100 and two fragments exchange at 100, 200, ... and 150, 250, ...): each fragment takes H inner steps
  /// between its exchanges.
  [[nodiscard]] bool sends_at(int fragment, std::int64_t iteration) const;
  /// The exchanges after inner step `iteration` of `last`, in order: the fragments due to send, then those whose
  /// exchange started `overlap` steps before. After the last step, the exchanges still on the wire are merged,
  /// and then every fragment that took inner steps since its last exchange is sent and merged at once, so that a
  /// run ends as DiLoCo's does, on an outer step.
  [[nodiscard]] std::vector<FragmentAction> at(std::int64_t iteration, std::int64_t last) const;
  /// The fragments sent over a run of `last` steps, in order: what a background exchange moves.
  [[nodiscard]] std::vector<int> send_order(std::int64_t last) const;
  /// Fragment p's elements of `count` parameters, [begin, end): P nearly equal parts in order.
  [[nodiscard]] std::pair<std::size_t, std::size_t> range(int fragment, std::size_t count) const;

 private:
  [[nodiscard]] std::int64_t offset(int fragment) const;
  /// The last step at or before `iteration` at which the fragment sent; 0 if none.
  [[nodiscard]] std::int64_t last_send(int fragment, std::int64_t iteration) const;

  int inner_steps_;
  int fragments_;
  int overlap_;
};

}  // namespace dtsim::sync
