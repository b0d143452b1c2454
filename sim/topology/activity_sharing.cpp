#include "sim/topology/activity_sharing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>

namespace dtsim::topology {
namespace {

/// Combinations of bursts weighed at most: 2^8 progressive fillings.
constexpr std::size_t kWeighedBursts = 8;
/// Rounds of the rates and the bursts' times moving, to where they hold (they fall from 1, toward a fixed point).
constexpr int kRateRounds = 50;

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

/// Each transfer's rate while all of `transfers` move bytes at once.
std::vector<double> rates_all_moving(std::span<const TransferLoad> transfers) {
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

/// Bursts: the transfers that move bytes at the same instants, those of one cadence together, each other alone.
/// Only transfers on directions another job uses take part (`meets`); any other keeps a rate of exactly 1.
struct SharingBursts {
  std::vector<bool> meets;
  std::vector<std::vector<std::size_t>> bursts;
  std::vector<std::size_t> burst_of;  ///< each transfer's burst (0 for one that takes no part)
};

SharingBursts sharing_bursts(std::span<const TransferLoad> transfers) {
  std::vector<bool> meets(transfers.size(), false);
  for (const Users& users : contended_directions(transfers)) {
    for (const auto& [t, share] : users) meets[t] = true;
  }
  std::vector<std::vector<std::size_t>> bursts;
  std::map<std::size_t, std::size_t> burst_of_cadence;
  std::vector<std::size_t> burst_of(transfers.size(), 0);
  for (std::size_t t = 0; t < transfers.size(); ++t) {
    if (!meets[t]) continue;
    const std::size_t cadence = transfers[t].cadence;
    const auto known = cadence == 0 ? burst_of_cadence.end() : burst_of_cadence.find(cadence);
    if (known == burst_of_cadence.end()) {
      if (cadence != 0) burst_of_cadence[cadence] = bursts.size();
      burst_of[t] = bursts.size();
      bursts.emplace_back();
    } else {
      burst_of[t] = known->second;
    }
    bursts[burst_of[t]].push_back(t);
  }
  return {std::move(meets), std::move(bursts), std::move(burst_of)};
}

/// Each transfer's rate in every combination of bursts moving at once (bit b for burst b), its own among them;
/// 1 in a combination without it.
std::vector<std::vector<double>> combination_rates(std::span<const TransferLoad> transfers,
                                                   const std::vector<std::vector<std::size_t>>& bursts) {
  const std::size_t combinations = std::size_t{1} << bursts.size();
  std::vector<std::vector<double>> rates_of(combinations, std::vector<double>(transfers.size(), 1.0));
  for (std::size_t combination = 1; combination < combinations; ++combination) {
    std::vector<TransferLoad> some;
    std::vector<std::size_t> which;
    for (std::size_t b = 0; b < bursts.size(); ++b) {
      if ((combination >> b & 1U) == 0) continue;
      for (const std::size_t t : bursts[b]) {
        some.push_back(transfers[t]);
        which.push_back(t);
      }
    }
    const std::vector<double> rates = rates_all_moving(some);
    for (std::size_t i = 0; i < which.size(); ++i) rates_of[combination][which[i]] = rates[i];
  }
  return rates_of;
}

/// Each burst's fraction of time moving at the transfers' rates `rate`: its slowest transfer stretches its time
/// moving, not its latencies.
void update_burst_busy(std::span<const TransferLoad> transfers, const std::vector<std::vector<std::size_t>>& bursts,
                       const std::vector<double>& rate, std::vector<double>& busy) {
  for (std::size_t b = 0; b < bursts.size(); ++b) {
    double slowest = 1.0;
    double moving = 1.0;
    for (const std::size_t t : bursts[b]) {
      slowest = std::min(slowest, rate[t]);
      moving = std::min(moving, std::clamp(transfers[t].moving, 0.0, 1.0));
    }
    busy[b] = moving / (moving + (1.0 - moving) * slowest);
  }
}

/// Each transfer's mean rate over the combinations its burst is in, each weighed by the chance that the other
/// bursts move or rest as it says.
std::vector<double> next_shared_rates(std::span<const TransferLoad> transfers, const SharingBursts& grouped,
                                      const std::vector<std::vector<double>>& rates_of,
                                      const std::vector<double>& busy) {
  const std::vector<std::vector<std::size_t>>& bursts = grouped.bursts;
  const std::size_t combinations = rates_of.size();
  std::vector<double> next(transfers.size(), 1.0);
  for (std::size_t t = 0; t < transfers.size(); ++t) {
    if (!grouped.meets[t]) continue;
    const std::size_t own = grouped.burst_of[t];
    double mean = 0.0;
    double lost = 0.0;
    for (std::size_t combination = 1; combination < combinations; ++combination) {
      if ((combination >> own & 1U) == 0) continue;
      double chance = 1.0;
      for (std::size_t b = 0; b < bursts.size(); ++b) {
        if (b != own) chance *= (combination >> b & 1U) != 0 ? busy[b] : 1.0 - busy[b];
      }
      mean += chance * rates_of[combination][t];
      lost += chance * (1.0 - rates_of[combination][t]);
    }
    // Exactly 1 where it loses nothing in any combination; exactly the rate of all moving at once where the
    // others never rest (every other chance is 0).
    next[t] = lost == 0.0 ? 1.0 : mean;
  }
  return next;
}

}  // namespace

std::vector<double> shared_rates(std::span<const TransferLoad> transfers) {
  const SharingBursts grouped = sharing_bursts(transfers);
  std::vector<double> rate(transfers.size(), 1.0);
  if (grouped.bursts.empty()) return rate;
  // Too many to weigh every combination: all move at once, as transfers of one cadence do.
  if (grouped.bursts.size() > kWeighedBursts) return rates_all_moving(transfers);
  const std::vector<std::vector<double>> rates_of = combination_rates(transfers, grouped.bursts);
  // While a transfer moves bytes, another burst moves too as often as it moves at all, whatever the instants of
  // their rounds: a transfer's rate is its mean over the combinations, each as likely as its bursts' times moving
  // make it. A burst's time moving grows as its rate falls (its latency is not stretched): from rates of 1, the
  // rates fall to where they hold.
  std::vector<double> busy(grouped.bursts.size(), 1.0);
  for (int round = 0; round < kRateRounds; ++round) {
    update_burst_busy(transfers, grouped.bursts, rate, busy);
    std::vector<double> next = next_shared_rates(transfers, grouped, rates_of, busy);
    bool held = true;
    for (std::size_t t = 0; t < transfers.size(); ++t) held = held && std::abs(next[t] - rate[t]) <= 1e-12;
    rate = std::move(next);
    if (held) break;
  }
  return rate;
}

double shared_pace(double rate, double latency) {
  if (rate >= 1.0) return 1.0;
  return 1.0 / (latency + (1.0 - latency) / rate);
}

}  // namespace dtsim::topology
