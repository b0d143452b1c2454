#include "topologies/random_regular.hpp"

#include "sim/core/rng.hpp"

#include <boost/pending/disjoint_sets.hpp>
#include <fmt/format.h>

#include <set>
#include <stdexcept>
#include <utility>

namespace dtsim::topologies {
namespace {

using Pairs = std::vector<std::pair<int, int>>;

/// One configuration-model draw, or an empty list when it has a self-link, a double link or is split.
Pairs draw(int workers, int degree, core::RandomEngine& engine) {
  std::vector<int> ends;
  for (int rank = 0; rank < workers; ++rank) ends.insert(ends.end(), static_cast<std::size_t>(degree), rank);
  core::shuffle(std::span<int>(ends), engine);
  Pairs pairs;
  std::set<std::pair<int, int>> seen;
  std::vector<std::size_t> rank(static_cast<std::size_t>(workers));
  std::vector<std::size_t> parent(static_cast<std::size_t>(workers));
  boost::disjoint_sets<std::size_t*, std::size_t*> components(rank.data(), parent.data());
  for (int w = 0; w < workers; ++w) components.make_set(static_cast<std::size_t>(w));
  for (std::size_t i = 0; i + 1 < ends.size(); i += 2) {
    const auto pair = std::minmax(ends[i], ends[i + 1]);
    if (pair.first == pair.second || !seen.insert(pair).second) return {};
    pairs.emplace_back(pair);
    components.union_set(static_cast<std::size_t>(pair.first), static_cast<std::size_t>(pair.second));
  }
  for (int w = 1; w < workers; ++w) {
    if (components.find_set(static_cast<std::size_t>(w)) != components.find_set(std::size_t{0})) return {};
  }
  return pairs;
}

bool connected(int workers, const Pairs& pairs) {
  std::vector<std::size_t> rank(static_cast<std::size_t>(workers));
  std::vector<std::size_t> parent(static_cast<std::size_t>(workers));
  boost::disjoint_sets<std::size_t*, std::size_t*> components(rank.data(), parent.data());
  for (int w = 0; w < workers; ++w) components.make_set(static_cast<std::size_t>(w));
  for (const auto& [a, b] : pairs) components.union_set(static_cast<std::size_t>(a), static_cast<std::size_t>(b));
  for (int w = 1; w < workers; ++w) {
    if (components.find_set(static_cast<std::size_t>(w)) != components.find_set(std::size_t{0})) return false;
  }
  return true;
}

/// A connected `degree`-regular graph that needs no luck: the circulant graph (each worker linked to the
/// next degree/2 on either side, and to the opposite one when the degree is odd), randomised by seeded
/// double-edge swaps, which keep every degree. Where the configuration model almost never draws a simple
/// graph (high degrees) or a connected one (degree 2 on many workers), this still gives a random one.
Pairs swapped_circulant(int workers, int degree, core::RandomEngine& engine) {
  Pairs circulant;
  for (int w = 0; w < workers; ++w) {
    for (int offset = 1; offset <= degree / 2; ++offset) circulant.emplace_back(std::minmax(w, (w + offset) % workers));
    if (degree % 2 == 1 && w < workers / 2) circulant.emplace_back(w, w + workers / 2);
  }
  if (degree == 2) {
    // A connected 2-regular graph is one cycle: through the workers in a seeded order.
    std::vector<int> order(static_cast<std::size_t>(workers));
    for (int w = 0; w < workers; ++w) order[static_cast<std::size_t>(w)] = w;
    core::shuffle(std::span<int>(order), engine);
    Pairs cycle;
    for (std::size_t i = 0; i < order.size(); ++i) cycle.emplace_back(std::minmax(order[i], order[(i + 1) % order.size()]));
    return cycle;
  }
  for (int attempt = 0; attempt < 100; ++attempt) {
    Pairs pairs = circulant;
    std::set<std::pair<int, int>> present(pairs.begin(), pairs.end());
    for (std::size_t swap = 0; swap < 2 * pairs.size(); ++swap) {
      const auto i = static_cast<std::size_t>(core::uniform_index(engine, pairs.size()));
      const auto j = static_cast<std::size_t>(core::uniform_index(engine, pairs.size()));
      const auto [a, b] = pairs[i];
      const auto [c, d] = pairs[j];
      const auto first = std::minmax(a, d);
      const auto second = std::minmax(c, b);
      if (a == d || c == b || present.contains(first) || present.contains(second)) continue;
      present.erase(pairs[i]);
      present.erase(pairs[j]);
      pairs[i] = first;
      pairs[j] = second;
      present.insert(first);
      present.insert(second);
    }
    if (connected(workers, pairs)) return pairs;
  }
  return circulant;
}

}  // namespace

topology::TopologyGraph build_random_regular(int workers, int degree, std::uint64_t seed,
                                             const LinkSpec& link) {
  core::RandomEngine engine = core::random_stream(seed, "topology/random_regular");
  for (int attempt = 0; attempt <= 1000; ++attempt) {
    Pairs pairs = attempt < 1000 ? draw(workers, degree, engine) : swapped_circulant(workers, degree, engine);
    if (pairs.empty() && workers > 1) continue;
    // Links in a canonical order, so the routing tie-break does not depend on the shuffle's order.
    std::sort(pairs.begin(), pairs.end());
    topology::TopologyGraph graph;
    for (int rank = 0; rank < workers; ++rank) graph.add_worker(fmt::format("worker-{}", rank));
    const auto nodes = graph.workers();
    for (const auto& [a, b] : pairs) {
      graph.add_link(nodes[static_cast<std::size_t>(a)], nodes[static_cast<std::size_t>(b)], link.bandwidth,
                     link.latency, "peer");
    }
    return graph;
  }
  throw std::logic_error("random_regular: the circulant fallback returned no graph");
}

void register_random_regular(TopologyRegistry& registry) {
  registry.add(
      "random_regular", "seeded random graph in which every worker has `degree` links",
      {.parameters = {core::integer("degree", 1, 1024, "links per worker").require()},
       .make = [](const core::View& t, const TopologyContext& c) {
         return build_random_regular(c.workers, static_cast<int>(*t.integer("degree")), c.seed, topology_link(t, c));
       },
       .check = [](const core::View& t, const TopologyContext& c, core::DiagnosticSink& sink) {
         const std::int64_t degree = t.integer("degree").value_or(0);
         if (degree >= c.workers) {
           sink.error(t.where("degree"), "topology.degree",
                      fmt::format("a {} can have at most {} links to the other {} {}, got {}", c.attached == 0 ? "worker" : "host",
                                  c.workers - 1, c.workers - 1, c.attached == 0 ? "workers" : "hosts", degree),
                      "lower topology.degree or raise cluster.workers");
         } else if (degree == 1 && c.workers > 2) {
           sink.error(t.where("degree"), "topology.degree",
                      fmt::format("one link each pairs the {} {} off, and pairs are not connected to each other",
                                  c.workers, c.attached == 0 ? "workers" : "hosts"),
                      "use topology.degree: 2 or more (2 is a ring in a seeded order)");
         } else if ((static_cast<std::int64_t>(c.workers) * degree) % 2 != 0) {
           sink.error(t.where("degree"), "topology.degree",
                      fmt::format("{} with {} links each would leave one link end unpaired", c.host_count(), degree),
                      "make cluster.workers or topology.degree even");
         }
       },
       .size = [](const core::View& t, const TopologyContext& c) {
         return TopologySize{c.workers, c.workers * t.integer("degree").value_or(0) / 2};
       },
       .example = "{kind: random_regular, degree: 3}"});
}

}  // namespace dtsim::topologies
