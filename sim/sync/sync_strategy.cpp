#include "sim/sync/sync_strategy.hpp"

namespace dtsim::sync {

void register_builtin_strategies(SyncRegistry& registry) {
  registry.add("bsp", "bulk synchronous parallel: all workers' gradients in every update",
               [](const SyncParameters&) { return std::make_unique<Bsp>(); });
  registry.add("ssp", "stale-synchronous: a worker may run `staleness` clocks ahead of the last full update",
               [](const SyncParameters& p) { return std::make_unique<Ssp>(p.staleness); });
  registry.add("adaptive_ssp", "ssp whose bound moves within [staleness_min, staleness_max] with observed waiting",
               [](const SyncParameters& p) { return std::make_unique<AdaptiveSsp>(p.staleness_min, p.staleness_max); });
  registry.add("approximate", "workers push accumulated gradients only when significant, or after max_delay steps",
               [](const SyncParameters& p) { return std::make_unique<Approximate>(p.threshold, p.max_delay, p.lock); });
  registry.add("async", "asynchronous: each gradient applied as it arrives, no waiting",
               [](const SyncParameters& p) { return std::make_unique<Async>(p.lock); });
  registry.add("local_sgd", "`local_steps` local SGD steps on every worker, then the parameters averaged by allreduce",
               [](const SyncParameters& p) { return std::make_unique<LocalSgd>(p.local_steps); });
  registry.add("gossip", "a local step, then averaging with the topology neighbours (all, or one by seeded matching)",
               [](const SyncParameters& p) { return std::make_unique<Gossip>(p.gossip_with_all); });
  registry.add("staleness_aware", "asynchronous, learning rate divided by each gradient's staleness, `accumulate` at a time",
               [](const SyncParameters& p) { return std::make_unique<StalenessAware>(p.accumulate, p.lock); });
}

}  // namespace dtsim::sync
