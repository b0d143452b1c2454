#pragma once
// Models whose samples are (a, b) pairs of row ids, such as (user, item) ratings and (word, context)
// co-occurrences: the rows a batch touches.

#include "models/dataset.hpp"

#include <algorithm>
#include <span>
#include <vector>

namespace dtsim::models {

/// Rows a and `second_offset` + b of every sample in `rows` (features [a, b]), ascending and once each, into
/// `out`.
inline void pair_rows(const Dataset& data, std::span<const std::size_t> rows, std::size_t second_offset,
                      std::vector<std::size_t>& out) {
  out.clear();
  for (const std::size_t row : rows) {
    out.push_back(static_cast<std::size_t>(data.features(static_cast<Eigen::Index>(row), 0)));
    out.push_back(second_offset + static_cast<std::size_t>(data.features(static_cast<Eigen::Index>(row), 1)));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

}  // namespace dtsim::models
