#include "sim/metrics/run_record.hpp"

#include <cmath>

namespace dtsim::metrics {

double RunRecord::total_bytes_sent() const {
  double total = 0.0;
  for (const auto& host : hosts) total += host.bytes_sent;
  return total;
}

const EvaluationRow* RunRecord::first_reaching(double target) const {
  for (const EvaluationRow& row : evaluations) {
    if (row.val_loss <= target) return &row;
  }
  return nullptr;
}

const EvaluationRow* RunRecord::first_reaching_accuracy(double target) const {
  for (const EvaluationRow& row : evaluations) {
    if (row.val_accuracy >= target) return &row;
  }
  return nullptr;
}

const EvaluationRow* RunRecord::first_diverged() const {
  for (const EvaluationRow& row : evaluations) {
    if (!std::isfinite(row.train_loss) || !std::isfinite(row.val_loss)) return &row;
  }
  return nullptr;
}

}  // namespace dtsim::metrics
