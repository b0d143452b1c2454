#include "sim/topology/activity_sharing.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>

namespace dtsim::topology {
namespace {

/// A direction two jobs or more use: its transfers, each with its share scaled within its job.
using Users = std::vector<std::pair<std::size_t, double>>;

std::vector<Users> contended_directions(std::span<const TransferLoad> transfers) {
  std::map<std::pair<std::size_t, int>, double> demand;
  std::map<std::size_t, std::set<int>> jobs_on;
  for (const TransferLoad& transfer : transfers) {
    for (const DirectionShare& use : transfer.shares) {
      demand[{use.direction, transfer.job}] += use.share;
      jobs_on[use.direction].insert(transfer.job);
    }
  }
  std::map<std::size_t, Users> users;
  for (std::size_t t = 0; t < transfers.size(); ++t) {
    for (const DirectionShare& use : transfers[t].shares) {
      if (jobs_on[use.direction].size() < 2) continue;
      users[use.direction].emplace_back(t, use.share / std::max(1.0, demand[{use.direction, transfers[t].job}]));
    }
  }
  std::vector<Users> out;
  out.reserve(users.size());
  for (auto& [direction, of_direction] : users) out.push_back(std::move(of_direction));
  return out;
}

}  // namespace

std::vector<double> shared_rates(std::span<const TransferLoad> transfers) {
  std::vector<double> rate(transfers.size(), 1.0);
  const std::vector<Users> directions = contended_directions(transfers);
  std::vector<bool> open(transfers.size(), false);
  for (const Users& users : directions) {
    for (const auto& [t, share] : users) open[t] = true;
  }
  // Progressive filling: every open transfer's rate is `level` times its weight, rising until a direction is full,
  // which fixes its open transfers there, or until a transfer reaches its alone pace. The level never falls (a
  // float's rounding aside).
  double floor = 0.0;
  while (std::find(open.begin(), open.end(), true) != open.end()) {
    double level = std::numeric_limits<double>::infinity();
    for (std::size_t t = 0; t < transfers.size(); ++t) {
      if (open[t]) level = std::min(level, 1.0 / transfers[t].weight);
    }
    std::vector<double> fills(directions.size(), std::numeric_limits<double>::infinity());
    for (std::size_t d = 0; d < directions.size(); ++d) {
      double left = 1.0;
      double rising = 0.0;
      for (const auto& [t, share] : directions[d]) {
        if (open[t]) {
          rising += share * transfers[t].weight;
        } else {
          left -= rate[t] * share;
        }
      }
      if (rising > 0.0) fills[d] = std::max(floor, left / rising);
      level = std::min(level, fills[d]);
    }
    for (std::size_t t = 0; t < transfers.size(); ++t) {
      if (!open[t] || level * transfers[t].weight < 1.0 - 1e-12) continue;
      open[t] = false;  // at its alone pace, exactly
    }
    for (std::size_t d = 0; d < directions.size(); ++d) {
      if (fills[d] > level * (1.0 + 1e-12)) continue;
      for (const auto& [t, share] : directions[d]) {
        if (!open[t]) continue;
        rate[t] = level * transfers[t].weight;
        open[t] = false;
      }
    }
    floor = level;
  }
  return rate;
}

double shared_pace(double rate, double latency) {
  if (rate >= 1.0) return 1.0;
  return 1.0 / (latency + (1.0 - latency) / rate);
}

}  // namespace dtsim::topology
