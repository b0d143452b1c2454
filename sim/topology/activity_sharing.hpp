#pragma once
// Several jobs' transfers (a collective's phase, a point-to-point message) in flight on the same link
// directions at once, each described by what it would ask of every link direction alone: the share of the
// direction's capacity it uses on average while it moves bytes. Each gets a rate, the fraction of its alone
// pace at which it moves its bytes, max-min fair over the flows (weighted progressive filling):
//
// - flows share fairly, not transfers: a transfer's rate rises in proportion to its weight, the inverse of its
//   flows' alone rate where they are slowest, so that where two transfers fill a direction each flow gets as
//   much (a transfer of eight flows through a NIC gets 8/9 of it beside a transfer of one, as message by message);
// - a job is never slowed by itself: its own transfers' shares of a direction are scaled down together until
//   they sum to at most 1, as the analytical network times each of a job's phases apart from its others;
// - only directions used by two jobs or more constrain; on each, the jobs' scaled shares times their rates
//   sum to at most 1;
// - a transfer's rate is at most 1 (alone, it runs at its alone pace).
//
// A transfer that meets no other job gets a rate of exactly 1: a job whose links no other job uses keeps its
// alone times to the last bit. The shares are averages over the time a transfer moves bytes: two jobs each
// using a direction half that time are taken to fit together, whatever the instants of their bursts.
//
// A transfer moves bytes in bursts, one a round, between its rounds' latencies, and the rounds of different jobs
// are not in step: while a transfer moves bytes, another job's moves too only as often as it moves at all (its
// time moving over its time, which grows as its rate falls). A transfer's rate is its mean over which of the
// others are moving, each combination timed as above with those moving at once. Transfers of one `cadence`
// (begun together, rounds alike: two identical jobs side by side) move at the same instants, as one. Past 8
// transfers of cadences apart (2^8 combinations), all are taken as moving at once.

#include <cstddef>
#include <span>
#include <vector>

namespace dtsim::topology {

/// What a transfer asks of one link direction (a link's index times two, plus one for the backward
/// direction): the share of its capacity, in (0, 1].
struct DirectionShare {
  std::size_t direction = 0;
  double share = 0.0;
};

struct TransferLoad {
  int job = 0;
  std::vector<DirectionShare> shares;
  /// Its flows' claim on a full direction, against other transfers': any positive unit, the same for all (the
  /// links' users take the inverse of the flows' alone rate, in seconds a byte).
  double weight = 1.0;
  /// The fraction of its alone time it moves bytes, in (0, 1]: the rest is its rounds' latencies.
  double moving = 1.0;
  /// Transfers with the same nonzero cadence move their bytes at the same instants; 0: in step with none.
  std::size_t cadence = 0;
};

/// Each transfer's rate in (0, 1], in the order of `transfers`.
std::vector<double> shared_rates(std::span<const TransferLoad> transfers);

/// The pace of a transfer moving its bytes at `rate` of its alone pace, a fraction `latency` of whose alone time
/// is latency (which sharing does not stretch): its alone time over its time shared. Exactly 1 at a rate of 1.
double shared_pace(double rate, double latency);

}  // namespace dtsim::topology
