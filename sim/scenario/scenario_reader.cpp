#include "sim/scenario/scenario_reader.hpp"

#include "sim/scenario/yaml_map.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

namespace dtsim::scenario {
namespace {

constexpr std::int64_t kMaxCount = 1'000'000'000;

template <class T>
Located<T> located(std::optional<T> value, const T& fallback, const YamlMap& map, const std::string& key) {
  return Located<T>{value.value_or(fallback), map.where(key)};
}

void read_cluster(YamlMap cluster, ClusterSpec& out) {
  out.workers = static_cast<int>(cluster.integer("workers", true, 1, 1'000'000).value_or(0));
  YamlMap device = cluster.map("device", true);
  out.device.name = device.text("name", false).value_or("custom");
  out.device.peak_flops = device.quantity("peak_flops", true, core::parse_flops).value_or(core::FlopsPerSecond(1.0));
  out.device.efficiency = device.number("efficiency", false, 1e-6, 1.0).value_or(1.0);
  if (out.device.peak_flops.value() <= 0.0) device.error("peak_flops", "must be greater than zero");
  device.reject_unknown_keys();
  cluster.not_supported_yet({"node_types", "nodes", "servers", "devices"});
  cluster.reject_unknown_keys();
}

LinkSpec read_link(YamlMap link) {
  LinkSpec out;
  out.bandwidth = link.quantity("bandwidth", true, core::parse_bandwidth).value_or(core::BytesPerSecond(1.0));
  out.latency = link.quantity("latency", true, core::parse_duration).value_or(core::Seconds(0.0));
  if (out.bandwidth.value() <= 0.0 && link.has("bandwidth")) {
    link.error("bandwidth", "must be greater than zero", "a link that carries nothing would never deliver a message");
  }
  link.not_supported_yet({"sharing"});
  link.reject_unknown_keys();
  return out;
}

void read_topology(YamlMap topology, TopologySpec& out) {
  out.kind = located(topology.text("kind", true), std::string{}, topology, "kind");
  out.link = read_link(topology.map("link", true));
  const bool has_server_link = topology.has("server_link");
  YamlMap server_link = topology.map("server_link", false);
  out.server_link = has_server_link ? read_link(server_link) : out.link;
  if (topology.has("server_link") && out.kind.value != "parameter_server") {
    topology.error("server_link", fmt::format("only a parameter_server topology has server links, this one is '{}'",
                                              out.kind.value),
                   "remove server_link, or set topology.kind to parameter_server");
  }
  if (const auto model = topology.text("network_model", false)) {
    if (*model == "alpha_beta") {
      out.network_model = NetworkModel::AlphaBeta;
    } else if (*model == "tcp") {
      out.network_model = NetworkModel::Tcp;
    } else {
      topology.error("network_model", fmt::format("unknown network model '{}'", *model),
                     "valid network models: alpha_beta, tcp");
    }
  }
  topology.not_supported_yet({"link_classes", "nodes", "links", "degree", "arity", "dimensions", "k"});
  topology.reject_unknown_keys();
}

void read_data(YamlMap data, DataSpec& out) {
  out.kind = located(data.text("kind", true), std::string{}, data, "kind");
  out.samples = static_cast<int>(data.integer("samples", true, 2, 100'000'000).value_or(2));
  out.samples_at = data.where("samples");
  out.features = static_cast<int>(data.integer("features", true, 1, 1'000'000).value_or(1));
  out.validation_fraction = data.number("validation_fraction", false, 0.0, 0.9).value_or(0.2);
  out.validation_fraction_at = data.where("validation_fraction");
  out.label_noise = data.number("label_noise", false, 0.0, 1e6).value_or(0.0);
  data.not_supported_yet({"source", "path", "partitioning"});
  data.reject_unknown_keys();
}

void read_training(YamlMap training, TrainingSpec& out) {
  YamlMap batch = training.map("batch", true);
  out.batch_per_worker = static_cast<int>(batch.integer("per_worker", true, 1, kMaxCount).value_or(1));
  out.batch_at = batch.where("per_worker");
  batch.not_supported_yet({"global"});
  batch.reject_unknown_keys();

  YamlMap optimizer = training.map("optimizer", true);
  out.optimizer.kind = located(optimizer.text("kind", false), std::string("sgd"), optimizer, "kind");
  out.optimizer.learning_rate = optimizer.number("learning_rate", true, 0.0, 1e6).value_or(0.1);
  if (out.optimizer.learning_rate <= 0.0 && optimizer.has("learning_rate")) {
    optimizer.error("learning_rate", "must be greater than zero");
  }
  optimizer.reject_unknown_keys();

  YamlMap sync = training.map("sync", false);
  out.sync_strategy = located(sync.text("strategy", false), std::string("bsp"), sync, "strategy");
  sync.not_supported_yet({"staleness", "threshold", "period", "peers"});
  sync.reject_unknown_keys();

  YamlMap architecture = training.map("architecture", false);
  out.architecture_at = architecture.where("kind");
  const std::string kind = architecture.text("kind", false).value_or("allreduce");
  out.allreduce_algorithm = located(architecture.text("algorithm", false), std::string("ring"), architecture, "algorithm");
  if (kind == "allreduce") {
    out.architecture = Architecture::Allreduce;
  } else if (kind == "parameter_server") {
    out.architecture = Architecture::ParameterServer;
    if (architecture.has("algorithm")) {
      architecture.error("algorithm", "an allreduce algorithm does not apply to a parameter_server architecture",
                         "remove training.architecture.algorithm");
    }
  } else {
    architecture.error("kind", fmt::format("unknown architecture '{}'", kind), "valid architectures: allreduce, parameter_server");
  }
  architecture.not_supported_yet({"shards"});
  architecture.reject_unknown_keys();

  YamlMap stop = training.map("stop", true);
  out.epochs = static_cast<int>(stop.integer("epochs", true, 1, kMaxCount).value_or(1));
  stop.not_supported_yet({"iterations", "target_loss", "sim_time"});
  stop.reject_unknown_keys();

  out.evaluate_every = static_cast<int>(training.integer("evaluate_every", false, 1, kMaxCount).value_or(0));
  training.not_supported_yet({"parallelism"});
  training.reject_unknown_keys();
}

Scenario read_document(const YAML::Node& root, const std::string& file_name) {
  core::DiagnosticSink sink;
  if (!root.IsMap()) {
    sink.error({file_name, 0, 0}, "", "a scenario must be a YAML mapping (name:, cluster:, topology:, ...)",
               "start from scenarios/quickstart.yaml");
    sink.throw_if_any();
  }
  YamlMap top(root, "", file_name, sink);
  Scenario scenario;
  scenario.source = file_name;
  scenario.name = top.text("name", true).value_or("");
  if (top.has("name") && scenario.name.find_first_of("/\\") != std::string::npos) {
    top.error("name", fmt::format("must not contain path separators, got \"{}\"", scenario.name),
              "the name becomes a folder under out/; use letters, digits, '-' and '_'");
  }
  scenario.seed = static_cast<std::uint64_t>(
      top.integer("seed", false, 0, std::numeric_limits<std::int64_t>::max()).value_or(1));
  read_cluster(top.map("cluster", true), scenario.cluster);
  read_topology(top.map("topology", true), scenario.topology);
  YamlMap model = top.map("model", true);
  scenario.model.kind = located(model.text("kind", true), std::string{}, model, "kind");
  model.reject_unknown_keys();
  read_data(top.map("data", true), scenario.data);
  read_training(top.map("training", true), scenario.training);
  top.not_supported_yet({"include", "stragglers", "failures", "energy", "outputs", "sweep"});
  top.reject_unknown_keys();
  sink.throw_if_any();
  return scenario;
}

}  // namespace

Scenario read_scenario_text(const std::string& text, const std::string& file_name) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& parse_error) {
    core::Diagnostic diagnostic;
    diagnostic.where.file = file_name;
    if (parse_error.mark.line >= 0) {
      diagnostic.where.line = parse_error.mark.line + 1;
      diagnostic.where.column = parse_error.mark.column + 1;
    }
    diagnostic.message = fmt::format("not valid YAML: {}", parse_error.msg);
    throw core::InputError(std::move(diagnostic));
  }
  return read_document(root, file_name);
}

Scenario read_scenario_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path)) {
    const std::string reason = std::filesystem::is_directory(path) ? "it is a folder" : std::strerror(errno);
    core::Diagnostic diagnostic;
    diagnostic.where.file = path.string();
    diagnostic.message = fmt::format("cannot read scenario file: {}", reason);
    throw core::InputError(std::move(diagnostic));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return read_scenario_text(text.str(), path.string());
}

std::string_view to_string(NetworkModel model) {
  return model == NetworkModel::AlphaBeta ? "alpha_beta" : "tcp";
}

std::string_view to_string(Architecture architecture) {
  return architecture == Architecture::Allreduce ? "allreduce" : "parameter_server";
}

}  // namespace dtsim::scenario
