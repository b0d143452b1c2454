#include "models/expert_dispatch.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace dtsim::models {
namespace {

/// log C(n, k); -inf outside 0 <= k <= n.
double log_choose(double n, double k) {
  if (k < 0.0 || k > n) return -INFINITY;
  return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0);
}

/// C(a, k) / C(b, k), a <= b: the chance that k draws without replacement from b items all fall among a.
double all_among(double a, double b, int k) {
  if (a < k) return 0.0;
  return std::exp(log_choose(a, k) - log_choose(b, k));
}

}  // namespace

double machine_reach(const GroupLimitedRouting& routing, int machines, int machine) {
  const int experts = routing.experts;
  const int groups = routing.groups > 0 ? routing.groups : experts;
  const int limit = routing.groups > 0 ? routing.group_limit : routing.top_k;
  if (machines < 1 || experts < 1 || groups < 1 || experts % machines != 0 || experts % groups != 0 || machine < 0 ||
      machine >= machines || limit < 1 || limit > groups || limit * (experts / groups) < routing.top_k) {
    throw std::invalid_argument("group-limited routing: machines and groups divide the experts, and the chosen "
                                "groups hold at least top_k experts");
  }
  const int group_size = experts / groups;
  const int first = machine * (experts / machines);
  const int last = first + experts / machines;  // past the machine's last expert
  // The groups that overlap the machine: `whole` of them inside it, and at most two at its ends holding only
  // part of theirs there (one when the machine lies inside a group).
  int whole = 0;
  std::vector<int> partial;
  for (int g = first / group_size; g * group_size < last; ++g) {
    const int overlap = std::min(last, (g + 1) * group_size) - std::max(first, g * group_size);
    if (overlap == group_size) {
      ++whole;
    } else {
      partial.push_back(overlap);
    }
  }
  const int overlapping = whole + static_cast<int>(partial.size());
  // The chosen groups: f of the whole ones, a subset of the partial ones and the rest elsewhere, each choice of
  // `limit` groups as likely; then top_k experts among the chosen groups', none of them the machine's.
  const double chosen = static_cast<double>(limit) * group_size;
  const double all_choices = log_choose(groups, limit);
  double none = 0.0;
  for (unsigned subset = 0; subset < (1U << partial.size()); ++subset) {
    int picked = 0;
    int on_machine = 0;
    for (std::size_t i = 0; i < partial.size(); ++i) {
      if ((subset >> i & 1U) != 0U) {
        ++picked;
        on_machine += partial[i];
      }
    }
    for (int f = 0; f <= std::min(whole, limit - picked); ++f) {
      const double ways = log_choose(whole, f) + log_choose(groups - overlapping, limit - picked - f) - all_choices;
      if (std::isinf(ways)) continue;
      none += std::exp(ways) * all_among(chosen - on_machine - static_cast<double>(f) * group_size, chosen, routing.top_k);
    }
  }
  return std::clamp(1.0 - none, 0.0, 1.0);
}

}  // namespace dtsim::models
