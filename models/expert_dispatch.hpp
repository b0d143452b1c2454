#pragma once
// Where a token's routed copies go when its experts sit on several machines: the probability that a token
// reaches a given machine, which a dispatcher that sends each token once to each machine holding one of its
// experts (DeepEP's, HybridEP's) sends it across the fabric; and group-limited routing, which bounds it
// (DeepSeek-V3's node-limited routing: its 256 experts in 8 groups, a token's 8 among the experts of 4 of
// them; Megatron-Core's moe_router_num_groups and moe_router_group_topk).

namespace dtsim::models {

/// A mixture's routing as the dispatch sees it, under even routing: `top_k` of `experts` a token; with
/// `groups` > 0, the experts in that many equal groups in expert order, a token's experts all among those of
/// `group_limit` groups; `groups` 0: no limit.
struct GroupLimitedRouting {
  int experts = 0;
  int top_k = 0;
  int groups = 0;
  int group_limit = 0;
};

/// The probability that a token's experts include one of machine `machine`'s, the experts spread in order
/// over `machines` machines, each holding experts / machines of them: 1 - P(none of them chosen), the groups
/// chosen uniformly (group_limit of groups), then top_k experts uniformly among the chosen groups' (a
/// router's even routing). Throws std::invalid_argument when the machines do not divide the experts, the
/// groups do not divide them, or the chosen groups hold fewer than top_k experts.
double machine_reach(const GroupLimitedRouting& routing, int machines, int machine);

}  // namespace dtsim::models
