#pragma once
// How a mixture of experts' router spreads the tokens of a micro-batch over its experts, drawn per micro-batch
// and mixture block from a seeded distribution: evenly (every expert top_k/E of the routed copies), or
// unevenly, the experts' shares following Zipf's law over an order drawn afresh each time, or drawn from a
// symmetric Dirichlet. A token goes to top_k distinct experts, so no expert takes more than 1/top_k of the
// routed copies: a drawn share above it is cut to 1/top_k and the excess handed to the experts below it in
// proportion to their shares (water-filling; evenly where they all drew nothing). With a capacity factor
// C >= 1 an expert takes at most C times its even share; the copies beyond it are dropped (they skip the
// expert, as GShard and Switch Transformer drop them).
//
// Under expert parallelism each of the g devices of an expert group holds E/g consecutive experts: its load is
// its experts' kept share over its even share (1/g), which scales its expert products' work and the tokens
// the others send it. It is at most min(g, E/top_k).

#include <cstdint>
#include <optional>
#include <vector>

namespace dtsim::models {

enum class RoutingDistribution { Uniform, Zipf, Dirichlet };

/// `training.routing`.
struct RoutingSpec {
  RoutingDistribution distribution = RoutingDistribution::Uniform;
  double exponent = 1.0;  ///< Zipf's s: the k-th most loaded expert's share goes as 1/k^s (up to 1/top_k)
  double alpha = 1.0;     ///< the Dirichlet's concentration: small, a few experts take most tokens
  std::optional<double> capacity_factor;  ///< at least 1; absent: no capacity, no token dropped
  /// Group-limited routing (models/expert_dispatch.hpp): the experts in `groups` equal groups, each token's
  /// among those of `group_limit` of them; 0: no limit. It moves no expert's load, only where a token's copies
  /// go, which a deduplicating dispatcher sends once per machine.
  int groups = 0;
  int group_limit = 0;

  [[nodiscard]] bool even() const { return distribution == RoutingDistribution::Uniform && !capacity_factor; }
};

/// Which draw: one mixture block's routing for one micro-batch of one step, in one expert group (the replicas
/// exchanging their tokens; each group routes tokens of its own).
struct RoutingKey {
  std::int64_t iteration = 0;
  int microbatch = 0;
  int block = 0;
  int group = 0;
};

/// One draw: each expert's share of the routed copies (summing to 1) and what it keeps under the capacity.
class RoutingDraw {
 public:
  RoutingDraw(std::vector<double> shares, std::optional<double> capacity_factor);

  [[nodiscard]] const std::vector<double>& shares() const { return shares_; }
  [[nodiscard]] const std::vector<double>& kept() const { return kept_; }
  /// The share of the routed copies dropped at full experts.
  [[nodiscard]] double dropped() const;
  /// Each of `ranks` devices' load: its experts' kept share x ranks (1 under even routing). Throws
  /// std::invalid_argument unless `ranks` divides the experts.
  [[nodiscard]] std::vector<double> rank_loads(int ranks) const;
  /// The busiest of `ranks` devices' load over their mean load (the kept share): 1 when the kept copies are
  /// spread evenly, at most min(ranks, E/top_k). Same precondition as rank_loads().
  [[nodiscard]] double busiest_load(int ranks) const;

 private:
  std::vector<double> shares_;
  std::vector<double> kept_;
};

/// The draw for `key` over `experts` experts, each token sent to `top_k` (1 to `experts`) of them, from the
/// stream of `seed` named after the key: no share above 1/top_k. Throws std::invalid_argument for another top_k.
RoutingDraw draw_routing(const RoutingSpec& spec, int experts, int top_k, std::uint64_t seed, const RoutingKey& key);

}  // namespace dtsim::models
