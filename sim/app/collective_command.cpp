#include "sim/app/collective_command.hpp"

#include "sim/checks/scenario_resolver.hpp"
#include "sim/comm/library_collective.hpp"
#include "sim/core/name_match.hpp"
#include "sim/runtime/network/collective_run.hpp"
#include "sim/runtime/network/network_backend.hpp"
#include "sim/scenario/named_values.hpp"
#include "sim/scenario/scenario_builder.hpp"
#include "sim/scenario/scenario_reader.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

namespace dtsim::app {
namespace {

/// The options' problems, every one of them reported together: a user fixes all flags in one go.
class OptionProblems {
 public:
  void add(const std::string& option, std::string message, std::string hint = {}) {
    sink_.error(core::SourcePosition("dtsim collective"), option, std::move(message), std::move(hint));
  }
  [[nodiscard]] bool any() const { return !sink_.empty(); }
  void throw_if_any() const { sink_.throw_if_any(); }

 private:
  core::DiagnosticSink sink_;
};

template <class Q>
std::optional<Q> parse_option(const std::string& option, const std::string& text, Q (*parse)(std::string_view),
                              OptionProblems& problems) {
  try {
    return parse(text);
  } catch (const core::UnitError& error) {
    problems.add(option, error.what(), error.hint());
    return std::nullopt;
  }
}

/// FROM:TO[:FACTOR] -> the sizes in bytes, FROM, FROM x FACTOR, ... up to TO; empty after a problem.
std::vector<double> size_range(const std::string& text, OptionProblems& problems) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() == 1) parts.push_back(parts.front());  // one size: FROM:FROM
  if (parts.size() > 3) {
    problems.add("--sizes", fmt::format("expected SIZE, FROM:TO or FROM:TO:FACTOR, got \"{}\"", text),
                 "for example 1GiB or 1KiB:256MiB");
    return {};
  }
  const auto from = parse_option("--sizes", parts[0], core::parse_size, problems);
  const auto to = parse_option("--sizes", parts[1], core::parse_size, problems);
  double factor = 2.0;
  if (parts.size() == 3) {
    const auto [end, error] = std::from_chars(parts[2].data(), parts[2].data() + parts[2].size(), factor);
    if (error != std::errc{} || end != parts[2].data() + parts[2].size() || factor <= 1.0) {
      problems.add("--sizes", fmt::format("the factor must be a number above 1, got \"{}\"", parts[2]));
      return {};
    }
  }
  if (!from || !to) return {};
  if (from->value() < 4.0 || to->value() < from->value()) {
    problems.add("--sizes", fmt::format("expected 4 B <= FROM <= TO, got \"{}\"", text));
    return {};
  }
  std::vector<double> sizes;
  for (double size = from->value(); size <= to->value() * (1 + 1e-12); size *= factor) {
    const double bytes = 4.0 * std::round(size / 4.0);
    if (bytes != size) {
      problems.add("--sizes", fmt::format("{} B is not a whole number of 4-byte floats", size));
      return {};
    }
    sizes.push_back(bytes);
  }
  return sizes;
}

/// "4x4x2" -> {4, 4, 2}; empty after a problem.
std::vector<int> parse_dimensions(const std::string& text, OptionProblems& problems) {
  std::vector<int> out;
  for (std::size_t start = 0;;) {
    const std::size_t x = text.find('x', start);
    const std::string part = text.substr(start, x == std::string::npos ? std::string::npos : x - start);
    int value = 0;
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (error != std::errc{} || end != part.data() + part.size() || value < 2) {
      problems.add("--dimensions", fmt::format("expected sizes of at least 2 such as 4x4, got \"{}\"", text));
      return {};
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
  set_scalar(section, "k", std::to_string(options.k));
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
/// Every problem of the options goes to `problems`; the scenario is whole only when there are none.
/// Keys a topology must be given that no option of this command sets: it takes them from a scenario.
void refuse_unsettable_keys(const CollectiveOptions& options, const topologies::TopologyRegistry& topologies,
                            OptionProblems& problems) {
  static const std::vector<std::string> settable{"arity", "k", "oversubscription", "degree", "dimensions", "bidirectional"};
  std::vector<std::string> missing;
  for (const core::SchemaNode& parameter : topologies.find(options.topology).factory.parameters) {
    if (parameter.required && std::find(settable.begin(), settable.end(), parameter.key) == settable.end()) {
      missing.push_back(parameter.key);
    }
  }
  if (!missing.empty()) {
    problems.add("--topology",
                 fmt::format("'{}' needs {}, which dtsim collective has no options for", options.topology,
                             core::join_names(missing)),
                 "write the topology in a scenario file and pass it with --scenario");
  }
}

/// The topology's own rules (a k-ary fat tree holds k^3/4 ranks), each under the option that sets its key.
void check_topology_rules(const scenario::Scenario& s, const CollectiveOptions& options,
                          const topologies::TopologyRegistry& topologies, OptionProblems& problems) {
  core::DiagnosticSink sink;
  topologies::TopologyContext context;
  context.workers = s.cluster.workers;
  topologies::check_topology(topologies, options.topology, core::View(&s.topology.section, "topology"), context, sink);
  for (const core::Diagnostic& d : sink.diagnostics()) {
    std::string option = d.key == "topology.kind"             ? "--topology"
                         : d.key.starts_with("topology.") ? "--" + d.key.substr(9)
                                                          : d.key;
    std::replace(option.begin(), option.end(), '_', '-');
    problems.add(option, d.message,
                 d.hint.empty() ? "" : (d.hint.starts_with("k: ") ? "--k " + d.hint.substr(3) : d.hint));
  }
}

/// --network-model, where given, into `s`.
void read_network_model(const CollectiveOptions& options, scenario::Scenario& s, OptionProblems& problems) {
  if (!options.network_model) return;
  std::vector<std::string> models;
  for (const auto& model : scenario::network_models()) models.emplace_back(model.name);
  if (std::find(models.begin(), models.end(), *options.network_model) == models.end()) {
    problems.add("--network-model", fmt::format("unknown network model '{}'", *options.network_model),
                 fmt::format("valid network model names: {}", core::join_names(models)));
  } else {
    s.topology.network_model = scenario::value_named(scenario::network_models(), *options.network_model);
  }
}

scenario::Scenario from_options(const CollectiveOptions& options, const checks::Registries& registries,
                                OptionProblems& problems) {
  const topologies::TopologyRegistry& topologies = registries.topologies;
  scenario::Scenario s;
  if (options.scenario) {
    const scenario::ScenarioFormat format(registries);
    s = options.point ? std::move(scenario::read_scenario_document_file(format, *options.scenario, options.point).points.front())
                      : scenario::read_scenario_file(format, *options.scenario);
    if (options.ranks) s.cluster.workers = *options.ranks;
    for (const std::string& given : options.topology_options_given) {
      problems.add(given, "the scenario gives the topology and its links",
                   "leave out --scenario to build the topology from the options, or change the scenario");
    }
    read_network_model(options, s, problems);
    return s;
  }
  s.cluster.workers = options.ranks.value_or(8);
  s.topology.kind.value = options.topology;
  const bool known = topologies.contains(options.topology);
  if (!known) {
    std::string hint = fmt::format("valid: {}", core::join_names(topologies.names()));
    if (const auto closest = core::closest_name(options.topology, topologies.names())) {
      hint = fmt::format("did you mean '{}'? {}", *closest, hint);
    }
    problems.add("--topology", fmt::format("unknown or unsupported topology '{}'", options.topology), hint);
  }
  // The options that only some topologies have are checked against a topology that exists.
  const auto has = [&](std::string_view key) { return known && declares(topologies, options.topology, key); };
  const auto bandwidth = parse_option("--bandwidth", options.bandwidth, core::parse_bandwidth, problems);
  const auto latency = parse_option("--latency", options.latency, core::parse_duration, problems);
  if (bandwidth && latency) s.topology.link = {*bandwidth, *latency};
  if (bandwidth && bandwidth->value() <= 0.0) problems.add("--bandwidth", "must be greater than zero");
  if (known && options.unidirectional && !has("bidirectional")) {
    problems.add("--unidirectional", fmt::format("applies to a topology with one-way links, and '{}' has none", options.topology),
                 fmt::format("topologies with a `bidirectional` key: {}", topologies_with(topologies, "bidirectional")));
  }
  read_network_model(options, s, problems);
  std::vector<int> dimensions;
  if (has("dimensions")) {
    // Sizes whose product is the ranks: they give the ranks when --ranks is not.
    dimensions = parse_dimensions(options.dimensions, problems);
    int product = 1;
    for (const int d : dimensions) product *= d;
    if (!options.ranks && !dimensions.empty()) s.cluster.workers = product;
    if (!dimensions.empty() && product != s.cluster.workers) {
      problems.add("--dimensions",
                   fmt::format("the {} holds {} ranks but --ranks is {}", options.topology, product, s.cluster.workers));
    }
  }
  if (has("degree") &&
      (options.degree < 1 || options.degree >= s.cluster.workers || (options.degree * s.cluster.workers) % 2 != 0)) {
    // `degree` links at every rank: each link has two ends, and no rank links to itself.
    problems.add("--degree", fmt::format("a {} graph on {} ranks needs an even ranks x degree and 1 <= degree < ranks, "
                                         "got {}", options.topology, s.cluster.workers, options.degree));
  }
  s.topology.section = topology_section(options, dimensions);
  if (known) refuse_unsettable_keys(options, topologies, problems);
  if (known && s.cluster.workers >= 1 && !problems.any()) check_topology_rules(s, options, topologies, problems);
  return s;
}

std::string_view bus_factor_text(comm::Operation operation) {
  switch (operation) {
    case comm::Operation::allreduce: return "2(p-1)/p";
    case comm::Operation::reduce_scatter:
    case comm::Operation::allgather:
    case comm::Operation::all_to_all: return "(p-1)/p";
    default: return "1";
  }
}

struct Row {
  double size_bytes = 0.0;
  std::string algorithm;
  std::string protocol;  ///< the library's choice; empty without one
  double time_s = 0.0;
  double algbw = 0.0;
  double busbw = 0.0;
  double closed_form_s = 0.0;
};

/// What the options ask for, as far as they can be checked without the topology: the operation, the
/// algorithms by name (every registered one for `all`), the sizes in bytes.
struct Request {
  std::optional<comm::Operation> operation;
  std::vector<std::string> names;
  std::vector<double> sizes;
};

Request checked_request(const CollectiveOptions& options, const checks::Registries& registries,
                        OptionProblems& problems) {
  Request out;
  out.operation = comm::operation_named(options.operation);
  if (!out.operation) {
    std::vector<std::string> valid;
    for (const comm::Operation op : comm::all_operations()) valid.emplace_back(comm::to_string(op));
    std::string hint = fmt::format("valid: {}", core::join_names(valid));
    if (const auto closest = core::closest_name(options.operation, valid)) hint = fmt::format("did you mean '{}'? {}", *closest, hint);
    problems.add("--op", fmt::format("unknown collective '{}'", options.operation), hint);
  }
  if (options.ranks && (*options.ranks < 1 || *options.ranks > 4096)) {
    problems.add("--ranks", fmt::format("must be between 1 and 4096, got {}", *options.ranks));
  }
  if (options.repeat < 1 || options.repeat > 1000) {
    problems.add("--repeat", fmt::format("must be between 1 and 1000, got {}", options.repeat));
  }
  // An algorithm is named within its operation: checked when the operation is known.
  const comm::CollectiveRegistry& registry = registries.collectives.of(out.operation.value_or(comm::Operation::allreduce));
  out.names = registry.names();
  if (out.operation && options.algorithm != "all") {
    if (!registry.contains(options.algorithm)) {
      std::string hint = fmt::format("valid: all, {}", core::join_names(out.names));
      if (const auto closest = core::closest_name(options.algorithm, out.names)) hint = fmt::format("did you mean '{}'? {}", *closest, hint);
      problems.add("--algo", fmt::format("unknown {} '{}'", registry.kind(), options.algorithm), hint);
    }
    out.names = {options.algorithm};
  }
  out.sizes = size_range(options.sizes, problems);
  const auto& libraries = scenario::communication_libraries();
  if (options.library && std::none_of(libraries.begin(), libraries.end(),
                                      [&](const auto& library) { return library.name == *options.library; })) {
    std::vector<std::string> valid;
    for (const auto& library : libraries) valid.emplace_back(library.name);
    problems.add("--library", fmt::format("unknown communication library '{}'", *options.library),
                 fmt::format("valid: {}", core::join_names(valid)));
  }
  return out;
}

/// Leaves out of `names` the algorithms that cannot run on `graph` under the scenario's network: those that
/// need another placement of the workers (the hierarchical allreduce: several on each node), and those of
/// single messages under a network that times phases at once. Asked for by name, they are refused.
void keep_runnable(std::vector<std::string>& names, const comm::CollectiveRegistry& registry,
                   const std::vector<int>& workers_per_machine, const scenario::Scenario& s,
                   const CollectiveOptions& options, OptionProblems& problems) {
  const runtime::NetworkBackend& backend = runtime::network_backend(s.topology.network_model);
  std::erase_if(names, [&](const std::string& name) {
    const comm::CollectivePlugin& algorithm = registry.find(name).factory;
    const auto refusal = algorithm.refuses ? algorithm.refuses(comm::Placement{
        workers_per_machine, backend.times_phases_at_once()}) : std::nullopt;
    if (refusal && options.algorithm != "all") problems.add("--algo", refusal->message, refusal->hint);
    if (refusal) return true;
    // A network that times ring phases and steps of the whole group would leave an algorithm of other
    // messages to SimGrid.
    if (backend.times_phases_at_once() && !algorithm.timed_at_once) {
      if (options.algorithm != "all") {
        problems.add("--algo", fmt::format("{} times ring phases and steps of the whole group, and '{}' sends its "
                                           "messages one by one",
                                           backend.times_only(), name),
                     "use another algorithm (every one but double_binary_tree), or --network-model alpha_beta");
      }
      return true;
    }
    return false;
  });
  if (names.empty() && options.algorithm == "all") {
    problems.add("--algo", fmt::format("no {} runs here", registry.kind()),
                 backend.times_phases_at_once()
                     ? fmt::format("{} times ring phases and steps of the whole group only: use --network-model "
                                   "alpha_beta",
                                   backend.times_only())
                     : "");
  }
}

/// Each (size, algorithm) timed `options.repeat` times on `graph`: its mean, its library protocol (rank 0's
/// first call of the case, under nccl), its bandwidths and its closed form.
std::vector<Row> timed_rows(const Request& request, const comm::CollectiveRegistry& registry,
                            const topology::TopologyGraph& graph, const scenario::Scenario& s,
                            const CollectiveOptions& options, scenario::CommunicationLibrary library) {
  const std::vector<std::string>& names = request.names;
  // Under the library, each algorithm's protocol per call (rank 0's), in the order its cases run.
  std::vector<std::vector<comm::Protocol>> choices(names.size());
  std::vector<std::unique_ptr<comm::CollectiveAlgorithm>> algorithms;
  for (std::size_t a = 0; a < names.size(); ++a) {
    algorithms.push_back(
        checks::as_library_runs_it(library, s, registry.find(names[a]).factory.make(),
                                   [&choices, a](comm::Protocol protocol) { choices[a].push_back(protocol); }));
  }
  std::vector<runtime::CollectiveCase> cases;
  for (const double size : request.sizes) {
    for (const auto& algorithm : algorithms) {
      for (int run = 0; run < options.repeat; ++run) cases.push_back({algorithm.get(), static_cast<std::size_t>(size / 4.0), options.phase_shortcut});
    }
  }
  const std::vector<double> all_times = runtime::time_collective_cases(graph, s.topology.network_model, cases);
  const int p = s.cluster.workers;
  const comm::AlphaBeta cost{s.topology.link.latency, s.topology.link.bandwidth};
  std::vector<Row> rows;
  for (std::size_t i = 0; i * static_cast<std::size_t>(options.repeat) < all_times.size(); ++i) {
    Row row;
    // One time per (size, algorithm): the mean over its repetitions.
    const std::size_t first = i * static_cast<std::size_t>(options.repeat);
    double sum = 0.0;
    for (int run = 0; run < options.repeat; ++run) sum += all_times[first + static_cast<std::size_t>(run)];
    row.time_s = sum / options.repeat;
    row.size_bytes = request.sizes[i / algorithms.size()];
    row.algorithm = names[i % algorithms.size()];
    const std::vector<comm::Protocol>& made = choices[i % names.size()];
    const std::size_t call = (i / names.size()) * static_cast<std::size_t>(options.repeat);
    if (library == scenario::CommunicationLibrary::Nccl && call < made.size()) row.protocol = std::string(comm::to_string(made[call]));
    row.algbw = row.time_s > 0 ? row.size_bytes / row.time_s / 1e9 : 0.0;
    row.busbw = row.algbw * comm::bus_bandwidth_factor(*request.operation, p);
    row.closed_form_s = algorithms[i % algorithms.size()]->predicted_time(p, core::Bytes(row.size_bytes), cost).value();
    rows.push_back(row);
  }
  return rows;
}

std::string rows_json(const std::vector<Row>& rows, const scenario::Scenario& s, const CollectiveOptions& options,
                      scenario::CommunicationLibrary library) {
  nlohmann::ordered_json out = {{"operation", options.operation},
                                {"ranks", s.cluster.workers},
                                {"topology", s.topology.kind.value},
                                {"network_model", std::string(scenario::to_string(s.topology.network_model))},
                                {"repeat", options.repeat},
                                {"library", std::string(scenario::to_string(library))},
                                {"link",
                                 {{"bandwidth_bytes_per_s", s.topology.link.bandwidth.value()},
                                  {"latency_s", s.topology.link.latency.value()}}}};
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& row : rows) {
    list.push_back({{"size_bytes", row.size_bytes},
                    {"algorithm", row.algorithm},
                    {"protocol", row.protocol.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(row.protocol)},
                    {"time_s", row.time_s},
                    {"algbw_gb_per_s", row.algbw},
                    {"busbw_gb_per_s", row.busbw},
                    {"closed_form_s", row.closed_form_s}});
  }
  out["rows"] = list;
  return out.dump(2) + "\n";
}

std::string rows_text(const std::vector<Row>& rows, const scenario::Scenario& s, const CollectiveOptions& options,
                      comm::Operation operation, scenario::CommunicationLibrary library, bool flat) {
  std::string text = fmt::format("# {} on {} ranks, topology {} (links {}, {}), {} network model\n", options.operation,
                                 s.cluster.workers, s.topology.kind.value, core::format_bandwidth(s.topology.link.bandwidth),
                                 core::format_duration(s.topology.link.latency), scenario::to_string(s.topology.network_model));
  text += fmt::format("# closed form: alpha-beta time with every message one link away and no link shared; busbw = algbw x {}\n",
                      bus_factor_text(operation));
  if (library == scenario::CommunicationLibrary::Nccl) {
    text += "# library nccl: NCCL's launch and per-step latency and protocol (LL, LL128, Simple) on top of the "
            "network's time, in the times and the closed forms; NVLS where a node's switch reduces (times only: the "
            "closed forms stay the ring's)\n";
  }
  if (!flat) {
    text += "# multi-device nodes: messages cross intra-node and fabric links, so the closed forms (fabric link "
            "only) are a reference, not a prediction\n";
  }
  const bool with_protocol = library == scenario::CommunicationLibrary::Nccl;
  text += fmt::format("{:>12}  {:<18} {}{:>14} {:>12} {:>12} {:>14} {:>10}\n", "size", "algorithm",
                      with_protocol ? fmt::format("{:<9}", "protocol") : "", "time_s", "algbw_GB/s", "busbw_GB/s",
                      "closed_form_s", "sim/closed");
  for (const auto& row : rows) {
    const std::string ratio = row.closed_form_s > 0 ? fmt::format("{:.4f}", row.time_s / row.closed_form_s) : "-";
    text += fmt::format("{:>12}  {:<18} {}{:>14.6e} {:>12.4f} {:>12.4f} {:>14.6e} {:>10}\n",
                        core::format_size(core::Bytes(row.size_bytes)), row.algorithm,
                        with_protocol ? fmt::format("{:<9}", row.protocol) : "", row.time_s, row.algbw, row.busbw,
                        row.closed_form_s, ratio);
  }
  return text;
}

}  // namespace

std::string collective_command(const CollectiveOptions& options, const checks::Registries& registries) {
  OptionProblems problems;
  Request request = checked_request(options, registries, problems);
  // A scenario file's own problems are its InputError; the options' are reported first, together.
  if (options.point && !options.scenario) problems.add("--point", "picks a sweep point of a scenario", "add --scenario FILE");
  if (options.scenario) problems.throw_if_any();
  const scenario::Scenario s = from_options(options, registries, problems);
  problems.throw_if_any();
  const topology::TopologyGraph graph = scenario::build_topology(s, registries.topologies);
  std::map<int, int> per_machine;
  for (const int machine : graph.worker_machines()) ++per_machine[machine];
  std::vector<int> workers_per_machine;
  for (const auto& [machine, count] : per_machine) workers_per_machine.push_back(count);
  const comm::CollectiveRegistry& registry = registries.collectives.of(*request.operation);
  keep_runnable(request.names, registry, workers_per_machine, s, options, problems);
  problems.throw_if_any();
  const scenario::CommunicationLibrary library =
      options.library ? scenario::value_named(scenario::communication_libraries(), *options.library)
                      : s.training.communication_library;
  if (library == scenario::CommunicationLibrary::Nccl && *request.operation == comm::Operation::all_to_all) {
    // NCCL's cost model (src/graph/tuning.cc) times its rings and trees; its all-to-all is grouped sends.
    problems.add(options.library ? "--library" : "--op",
                 "the nccl library model covers NCCL's ring and tree collectives, and NCCL runs all-to-all as grouped "
                 "point-to-point sends, which it does not model",
                 options.library ? "use --library none" : "use --library none (the scenario asks for nccl)");
  }
  problems.throw_if_any();
  const std::vector<Row> rows = timed_rows(request, registry, graph, s, options, library);
  if (options.json) return rows_json(rows, s, options, library);
  const bool flat = per_machine.size() == graph.worker_machines().size();
  return rows_text(rows, s, options, *request.operation, library, flat);
}

}  // namespace dtsim::app
