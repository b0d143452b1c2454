#include "sim/app/collective_command.hpp"

#include "sim/core/name_match.hpp"
#include "sim/runtime/collective_run.hpp"
#include "sim/scenario/named_values.hpp"
#include "sim/scenario/scenario_builder.hpp"
#include "sim/scenario/scenario_reader.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <map>

namespace dtsim::app {
namespace {

[[noreturn]] void usage_error(const std::string& option, std::string message, std::string hint = {}) {
  core::Diagnostic diagnostic;
  diagnostic.where.file = "dtsim collective";
  diagnostic.key = option;
  diagnostic.message = std::move(message);
  diagnostic.hint = std::move(hint);
  throw core::InputError(std::move(diagnostic));
}

template <class Q>
Q parse_option(const std::string& option, const std::string& text, Q (*parse)(std::string_view)) {
  try {
    return parse(text);
  } catch (const core::UnitError& error) {
    usage_error(option, error.what(), error.hint());
  }
}

/// FROM:TO[:FACTOR] -> the sizes in bytes, FROM, FROM x FACTOR, ... up to TO.
std::vector<double> size_range(const std::string& text) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() < 2 || parts.size() > 3) {
    usage_error("--sizes", fmt::format("expected FROM:TO or FROM:TO:FACTOR, got \"{}\"", text), "for example 1KiB:256MiB");
  }
  const double from = parse_option("--sizes", parts[0], core::parse_size).value();
  const double to = parse_option("--sizes", parts[1], core::parse_size).value();
  double factor = 2.0;
  if (parts.size() == 3) {
    const auto [end, error] = std::from_chars(parts[2].data(), parts[2].data() + parts[2].size(), factor);
    if (error != std::errc{} || end != parts[2].data() + parts[2].size() || factor <= 1.0) {
      usage_error("--sizes", fmt::format("the factor must be a number above 1, got \"{}\"", parts[2]));
    }
  }
  if (from < 4.0 || to < from) usage_error("--sizes", fmt::format("expected 4 B <= FROM <= TO, got \"{}\"", text));
  std::vector<double> sizes;
  for (double size = from; size <= to * (1 + 1e-12); size *= factor) {
    const double bytes = 4.0 * std::round(size / 4.0);
    if (bytes != size) usage_error("--sizes", fmt::format("{} B is not a whole number of 4-byte floats", size));
    sizes.push_back(bytes);
  }
  return sizes;
}

std::vector<int> parse_dimensions(const std::string& text) {
  std::vector<int> out;
  for (std::size_t start = 0;;) {
    const std::size_t x = text.find('x', start);
    const std::string part = text.substr(start, x == std::string::npos ? std::string::npos : x - start);
    int value = 0;
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (error != std::errc{} || end != part.data() + part.size() || value < 2) {
      usage_error("--dimensions", fmt::format("expected sizes of at least 2 such as 4x4, got \"{}\"", text));
    }
    out.push_back(value);
    if (x == std::string::npos) return out;
    start = x + 1;
  }
}

void set_scalar(core::ConfigNode& map, const std::string& key, std::string text) {
  map.set(key, core::ConfigNode::make_scalar(std::move(text), {}), {});
}

/// The `topology` section the options describe, as a scenario file would give it.
core::ConfigNode topology_section(const CollectiveOptions& options, const std::vector<int>& dimensions) {
  core::ConfigNode section = core::ConfigNode::make_map({});
  set_scalar(section, "kind", options.topology);
  core::ConfigNode link = core::ConfigNode::make_map({});
  set_scalar(link, "bandwidth", options.bandwidth);
  set_scalar(link, "latency", options.latency);
  section.set("link", link, {});
  set_scalar(section, "arity", std::to_string(options.arity));
  set_scalar(section, "oversubscription", fmt::format("{}", options.oversubscription));
  set_scalar(section, "degree", std::to_string(options.degree));
  set_scalar(section, "bidirectional", options.unidirectional ? "false" : "true");
  core::ConfigNode sizes;
  sizes.kind = core::ConfigNode::Kind::List;
  for (const int d : dimensions) sizes.items.push_back(core::ConfigNode::make_scalar(std::to_string(d), {}));
  section.set("dimensions", sizes, {});
  return section;
}

/// Whether topology `kind` has the key `key` in its section.
bool declares(const topologies::TopologyRegistry& topologies, const std::string& kind, std::string_view key) {
  const auto& parameters = topologies.find(kind).factory.parameters;
  return std::any_of(parameters.begin(), parameters.end(), [&](const core::SchemaNode& node) { return node.key == key; });
}

/// The topologies that have `key`, for a hint.
std::string topologies_with(const topologies::TopologyRegistry& topologies, std::string_view key) {
  std::vector<std::string> out;
  for (const std::string& name : topologies.names()) {
    if (declares(topologies, name, key)) out.push_back(name);
  }
  return core::join_names(out);
}

/// The scenario the options describe. The topology options set its keys; each applies to the topologies
/// that declare the key (`--unidirectional` sets `bidirectional`, `--dimensions` and `--degree` their own).
scenario::Scenario from_options(const CollectiveOptions& options, const topologies::TopologyRegistry& topologies) {
  scenario::Scenario s;
  if (options.scenario) {
    s = scenario::read_scenario_file(*options.scenario);
    if (options.ranks) s.cluster.workers = *options.ranks;
    return s;
  }
  s.cluster.workers = options.ranks.value_or(8);
  s.topology.kind.value = options.topology;
  if (!topologies.contains(options.topology)) {
    usage_error("--topology", fmt::format("unknown or unsupported topology '{}'", options.topology),
                fmt::format("valid: {}", core::join_names(topologies.names())));
  }
  const auto has = [&](std::string_view key) { return declares(topologies, options.topology, key); };
  s.topology.link = {parse_option("--bandwidth", options.bandwidth, core::parse_bandwidth),
                     parse_option("--latency", options.latency, core::parse_duration)};
  if (s.topology.link.bandwidth.value() <= 0.0) usage_error("--bandwidth", "must be greater than zero");
  if (options.unidirectional && !has("bidirectional")) {
    usage_error("--unidirectional", fmt::format("applies to a topology with one-way links, and '{}' has none", options.topology),
                fmt::format("topologies with a `bidirectional` key: {}", topologies_with(topologies, "bidirectional")));
  }
  std::vector<std::string> models;
  for (const auto& model : scenario::network_models()) models.emplace_back(model.name);
  if (std::find(models.begin(), models.end(), options.network_model) == models.end()) {
    usage_error("--network-model", fmt::format("unknown network model '{}'", options.network_model),
                fmt::format("valid network model names: {}", core::join_names(models)));
  }
  s.topology.network_model = scenario::value_named(scenario::network_models(), options.network_model);
  std::vector<int> dimensions;
  if (has("dimensions")) {
    // Sizes whose product is the ranks: they give the ranks when --ranks is not.
    dimensions = parse_dimensions(options.dimensions);
    int product = 1;
    for (const int d : dimensions) product *= d;
    if (!options.ranks) s.cluster.workers = product;
    if (product != s.cluster.workers) {
      usage_error("--dimensions",
                  fmt::format("the {} holds {} ranks but --ranks is {}", options.topology, product, s.cluster.workers));
    }
  }
  if (has("degree") &&
      (options.degree < 1 || options.degree >= s.cluster.workers || (options.degree * s.cluster.workers) % 2 != 0)) {
    // `degree` links at every rank: each link has two ends, and no rank links to itself.
    usage_error("--degree", fmt::format("a {} graph on {} ranks needs an even ranks x degree and 1 <= degree < ranks, "
                                        "got {}", options.topology, s.cluster.workers, options.degree));
  }
  s.topology.section = topology_section(options, dimensions);
  return s;
}

std::string_view bus_factor_text(comm::Operation operation) {
  switch (operation) {
    case comm::Operation::allreduce: return "2(p-1)/p";
    case comm::Operation::reduce_scatter:
    case comm::Operation::allgather: return "(p-1)/p";
    default: return "1";
  }
}

struct Row {
  double size_bytes = 0.0;
  std::string algorithm;
  double time_s = 0.0;
  double algbw = 0.0;
  double busbw = 0.0;
  double closed_form_s = 0.0;
};

}  // namespace

std::string collective_command(const CollectiveOptions& options, const Registries& registries) {
  const auto operation = comm::operation_named(options.operation);
  if (!operation) {
    std::vector<std::string> valid;
    for (const comm::Operation op : comm::all_operations()) valid.emplace_back(comm::to_string(op));
    std::string hint = fmt::format("valid: {}", core::join_names(valid));
    if (const auto closest = core::closest_name(options.operation, valid)) hint = fmt::format("did you mean '{}'? {}", *closest, hint);
    usage_error("--op", fmt::format("unknown collective '{}'", options.operation), hint);
  }
  if (options.ranks && (*options.ranks < 1 || *options.ranks > 4096)) {
    usage_error("--ranks", fmt::format("must be between 1 and 4096, got {}", *options.ranks));
  }
  if (options.repeat < 1 || options.repeat > 1000) {
    usage_error("--repeat", fmt::format("must be between 1 and 1000, got {}", options.repeat));
  }
  const comm::CollectiveRegistry& registry = registries.collectives.of(*operation);
  std::vector<std::string> names = registry.names();
  if (options.algorithm != "all") {
    if (!registry.contains(options.algorithm)) {
      std::string hint = fmt::format("valid: all, {}", core::join_names(names));
      if (const auto closest = core::closest_name(options.algorithm, names)) hint = fmt::format("did you mean '{}'? {}", *closest, hint);
      usage_error("--algo", fmt::format("unknown {} '{}'", registry.kind(), options.algorithm), hint);
    }
    names = {options.algorithm};
  }
  const std::vector<double> sizes = size_range(options.sizes);
  const scenario::Scenario s = from_options(options, registries.topologies);
  const topology::TopologyGraph graph = scenario::build_topology(s, registries.topologies);
  // Algorithms that need a placement of the workers (the hierarchical allreduce: several on each node) are
  // refused when asked for by name, and left out of `all`.
  std::map<int, int> per_machine;
  for (const int machine : graph.worker_machines()) ++per_machine[machine];
  std::vector<int> workers_per_machine;
  for (const auto& [machine, count] : per_machine) workers_per_machine.push_back(count);
  const bool flat = per_machine.size() == graph.worker_machines().size();
  std::erase_if(names, [&](const std::string& name) {
    const comm::CollectivePlugin& algorithm = registry.find(name).factory;
    const auto refusal = algorithm.refuses ? algorithm.refuses(workers_per_machine) : std::nullopt;
    if (refusal && options.algorithm != "all") usage_error("--algo", refusal->message, refusal->hint);
    return refusal.has_value();
  });

  std::vector<std::unique_ptr<comm::CollectiveAlgorithm>> algorithms;
  for (const auto& name : names) algorithms.push_back(registry.find(name).factory.make());
  std::vector<runtime::CollectiveCase> cases;
  for (const double size : sizes) {
    for (const auto& algorithm : algorithms) {
      for (int run = 0; run < options.repeat; ++run) cases.push_back({algorithm.get(), static_cast<std::size_t>(size / 4.0), options.phase_shortcut});
    }
  }
  const std::vector<double> all_times = runtime::time_collective_cases(graph, s.topology.network_model, cases);
  // One time per (size, algorithm): the mean over its repetitions.
  std::vector<double> times;
  for (std::size_t first = 0; first < all_times.size(); first += static_cast<std::size_t>(options.repeat)) {
    double sum = 0.0;
    for (int run = 0; run < options.repeat; ++run) sum += all_times[first + static_cast<std::size_t>(run)];
    times.push_back(sum / options.repeat);
  }

  const int p = s.cluster.workers;
  const comm::AlphaBeta cost{s.topology.link.latency, s.topology.link.bandwidth};
  std::vector<Row> rows;
  for (std::size_t i = 0; i < times.size(); ++i) {
    Row row;
    row.size_bytes = sizes[i / algorithms.size()];
    row.algorithm = names[i % algorithms.size()];
    row.time_s = times[i];
    row.algbw = times[i] > 0 ? row.size_bytes / times[i] / 1e9 : 0.0;
    row.busbw = row.algbw * comm::bus_bandwidth_factor(*operation, p);
    row.closed_form_s = algorithms[i % algorithms.size()]->predicted_time(p, core::Bytes(row.size_bytes), cost).value();
    rows.push_back(row);
  }

  if (options.json) {
    nlohmann::ordered_json out = {{"operation", options.operation},
                                  {"ranks", p},
                                  {"topology", s.topology.kind.value},
                                  {"network_model", std::string(scenario::to_string(s.topology.network_model))},
                                  {"repeat", options.repeat},
                                  {"link", {{"bandwidth_bytes_per_s", cost.bandwidth.value()}, {"latency_s", cost.alpha.value()}}}};
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& row : rows) {
      list.push_back({{"size_bytes", row.size_bytes},
                      {"algorithm", row.algorithm},
                      {"time_s", row.time_s},
                      {"algbw_gb_per_s", row.algbw},
                      {"busbw_gb_per_s", row.busbw},
                      {"closed_form_s", row.closed_form_s}});
    }
    out["rows"] = list;
    return out.dump(2) + "\n";
  }
  std::string text = fmt::format("# {} on {} ranks, topology {} (links {}, {}), {} network model\n", options.operation, p,
                                 s.topology.kind.value, core::format_bandwidth(cost.bandwidth),
                                 core::format_duration(cost.alpha), scenario::to_string(s.topology.network_model));
  text += fmt::format("# closed form: alpha-beta time with every message one link away and no link shared; busbw = algbw x {}\n",
                      bus_factor_text(*operation));
  if (!flat) {
    text += "# multi-device nodes: messages cross intra-node and fabric links, so the closed forms (fabric link "
            "only) are a reference, not a prediction\n";
  }
  text += fmt::format("{:>12}  {:<18} {:>14} {:>12} {:>12} {:>14} {:>10}\n", "size", "algorithm", "time_s", "algbw_GB/s",
                      "busbw_GB/s", "closed_form_s", "sim/closed");
  for (const auto& row : rows) {
    const std::string ratio = row.closed_form_s > 0 ? fmt::format("{:.4f}", row.time_s / row.closed_form_s) : "-";
    text += fmt::format("{:>12}  {:<18} {:>14.6e} {:>12.4f} {:>12.4f} {:>14.6e} {:>10}\n", core::format_size(core::Bytes(row.size_bytes)),
                        row.algorithm, row.time_s, row.algbw, row.busbw, row.closed_form_s, ratio);
  }
  return text;
}

}  // namespace dtsim::app
