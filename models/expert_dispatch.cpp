#include "models/expert_dispatch.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace dtsim::models {
namespace {

/// C(a, k) / C(b, k), a <= b: the chance that k draws without replacement from b items all fall among a.
double all_among(double a, double b, int k) {
  double out = 1.0;
  for (int i = 0; i < k; ++i) {
    if (a - i <= 0.0) return 0.0;
    out *= (a - i) / (b - i);
  }
  return out;
}

/// log C(n, k).
double log_choose(int n, int k) {
  if (k < 0 || k > n) return -INFINITY;
  return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0);
}

}  // namespace

double machine_reach(const GroupLimitedRouting& routing, int machines, int machine) {
  const int experts = routing.experts;
  const int groups = routing.groups > 0 ? routing.groups : experts;
  const int limit = routing.groups > 0 ? routing.group_limit : routing.top_k;
  if (machines < 1 || experts % machines != 0 || experts % groups != 0 || machine < 0 || machine >= machines ||
      limit < 1 || limit > groups || limit * (experts / groups) < routing.top_k) {
    throw std::invalid_argument("group-limited routing: machines and groups divide the experts, and the chosen "
                                "groups hold at least top_k experts");
  }
  const int group_size = experts / groups;
  const int first = machine * (experts / machines);
  const int last = first + experts / machines;  // past the machine's last expert
  // The groups that overlap the machine, each by how many of its experts.
  std::vector<int> overlaps;
  for (int g = first / group_size; g * group_size < last; ++g) {
    overlaps.push_back(std::min(last, (g + 1) * group_size) - std::max(first, g * group_size));
  }
  // ways[c][o]: the subsets of the overlapping groups with c groups and o of the machine's experts in them.
  const int j = static_cast<int>(overlaps.size());
  const int span = last - first;
  std::vector<std::vector<double>> ways(static_cast<std::size_t>(j + 1), std::vector<double>(static_cast<std::size_t>(span + 1), 0.0));
  ways[0][0] = 1.0;
  for (const int overlap : overlaps) {
    for (int c = j; c-- > 0;) {
      for (int o = span - overlap; o >= 0; --o) ways[static_cast<std::size_t>(c + 1)][static_cast<std::size_t>(o + overlap)] += ways[static_cast<std::size_t>(c)][static_cast<std::size_t>(o)];
    }
  }
  // Each subset of c overlapping groups comes with limit - c of the other groups: C(groups - j, limit - c) of
  // the C(groups, limit) choices. Given the choice, none of the machine's o experts among top_k of
  // limit x group_size.
  const double chosen = static_cast<double>(limit) * group_size;
  double none = 0.0;
  for (int c = 0; c <= std::min(j, limit); ++c) {
    const double rest = std::exp(log_choose(groups - j, limit - c) - log_choose(groups, limit));
    if (rest == 0.0) continue;
    for (int o = 0; o <= span; ++o) {
      const double count = ways[static_cast<std::size_t>(c)][static_cast<std::size_t>(o)];
      if (count > 0.0) none += count * rest * all_among(chosen - o, chosen, routing.top_k);
    }
  }
  return std::clamp(1.0 - none, 0.0, 1.0);
}

}  // namespace dtsim::models
