#include "sim/app/layer_matching.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

namespace dtsim::app {
namespace {

/// One weight shape the trace ran, and the table's layers it may be.
struct ShapeRow {
  std::string shape;
  models::OpClass op = models::OpClass::Gemm;
  int traced = 0;
  std::vector<std::size_t> layers;  ///< indices into the table
};

std::string shape_text(const std::vector<std::int64_t>& weight) {
  std::string out;
  for (const std::int64_t d : weight) out += fmt::format("{}{}", out.empty() ? "" : "x", d);
  return out;
}

/// Whether `layer` may be the operator of weight `weight`: its class, and its parameters the weights with
/// none, one or two (a batch normalization's) or three values per output channel.
bool may_be(const models::LayerProfile& layer, const traces::ShapedProduct& product) {
  const models::OpClass op =
      product.kind == traces::KernelContext::convolution ? models::OpClass::Convolution : models::OpClass::Gemm;
  if (layer.op != op) return false;
  const double weights = std::accumulate(product.weight.begin(), product.weight.end(), 1.0,
                                         [](double total, std::int64_t d) { return total * static_cast<double>(d); });
  const auto out = static_cast<double>(product.weight.front());
  for (int per_channel = 0; per_channel <= 3; ++per_channel) {
    if (layer.parameters == weights + per_channel * out) return true;
  }
  return false;
}

/// The traced operators begun within the host spans of the steps named `steps`.
std::vector<const traces::ShapedProduct*> in_steps(const traces::KinetoTrace& trace,
                                                   const std::vector<std::string>& steps) {
  std::vector<const traces::ShapedProduct*> out;
  for (const traces::ProfiledStep& step : trace.steps) {
    if (std::find(steps.begin(), steps.end(), step.name) == steps.end()) continue;
    for (const traces::ShapedProduct& p : trace.shaped) {
      if (p.start_us >= step.start_us && p.start_us <= step.start_us + step.duration_us) out.push_back(&p);
    }
  }
  return out;
}

/// The table's layer that module `module` is: the layer of that name, else of the longest name that begins it
/// followed by a dot (torchvision's `layer1.0.downsample.0` is the table's `layer1.0.downsample`); none: npos.
std::size_t layer_named(const std::map<std::string, std::size_t>& by_name, std::string module) {
  while (!module.empty()) {
    if (const auto it = by_name.find(module); it != by_name.end()) return it->second;
    const auto dot = module.rfind('.');
    if (dot == std::string::npos) break;
    module.resize(dot);
  }
  return std::string::npos;
}

/// The line on matching by name: how many of the table's product layers the trace's module annotations name,
/// and which of those ran a weight of another shape than the table's.
std::string name_matching_line(const traces::KinetoTrace& trace, const std::vector<const traces::ShapedProduct*>& ran,
                               const models::ModelProfile& layers, std::size_t products) {
  std::map<std::string, std::size_t> by_name;
  for (std::size_t i = 0; i < layers.layers.size(); ++i) by_name.emplace(layers.layers[i].name, i);
  std::vector<bool> agrees(layers.layers.size(), false);
  std::map<std::string, std::string> disagreeing;  // layer -> the traced shape
  bool annotated = false;
  for (const traces::ShapedProduct* p : ran) {
    if (p->module < 0) continue;
    annotated = true;
    const std::size_t i = layer_named(by_name, trace.module_names[static_cast<std::size_t>(p->module)]);
    if (i == std::string::npos) continue;
    if (may_be(layers.layers[i], *p)) {
      agrees[i] = true;
    } else {
      disagreeing.emplace(layers.layers[i].name, shape_text(p->weight));
    }
  }
  if (!annotated) {
    return "matched by name: the trace has no module annotations (tools/capture_trace.py writes them)\n";
  }
  std::erase_if(disagreeing, [&](const auto& row) { return agrees[by_name.at(row.first)]; });
  std::string out = fmt::format(
      "matched by name (the trace's module annotations) and shape: {} of the table's {} convolution and product "
      "layers; named, the table's parameters not the traced weight's: {}",
      std::count(agrees.begin(), agrees.end(), true), products, disagreeing.size());
  std::size_t listed = 0;
  for (const auto& [layer, shape] : disagreeing) {
    if (listed++ == 4) {
      out += ", ...";
      break;
    }
    out += fmt::format("{} {} (traced {})", listed == 1 ? ":" : ",", layer, shape);
  }
  return out + "\n";
}

}  // namespace

std::string layer_matching_report(const traces::KinetoTrace& trace, const std::vector<std::string>& steps,
                                  const models::ModelProfile& layers) {
  if (trace.shaped.empty()) {
    return "layers: the trace recorded no input shapes (torch.profiler's record_shapes): none matched\n\n";
  }
  std::map<std::pair<int, std::string>, ShapeRow> rows;  // by kind and shape, in a stable order
  const std::vector<const traces::ShapedProduct*> ran = in_steps(trace, steps);
  for (const traces::ShapedProduct* p : ran) {
    ShapeRow& row = rows[{static_cast<int>(p->kind), shape_text(p->weight)}];
    if (row.traced++ > 0) continue;
    row.shape = shape_text(p->weight);
    row.op = p->kind == traces::KernelContext::convolution ? models::OpClass::Convolution : models::OpClass::Gemm;
    for (std::size_t i = 0; i < layers.layers.size(); ++i) {
      if (may_be(layers.layers[i], *p)) row.layers.push_back(i);
    }
  }
  const double count = static_cast<double>(std::max<std::size_t>(steps.size(), 1));
  std::string out = fmt::format("{:<22} {:>14} {:>6}  {}\n", "traced shape", "traced a step", "table",
                                "the table's layers of that shape");
  std::vector<bool> matched(layers.layers.size(), false);
  double unmatched = 0.0;
  double beyond = 0.0;
  for (const auto& [key, row] : rows) {
    std::string names;
    for (std::size_t k = 0; k < row.layers.size() && k < 4; ++k)
      names += (k > 0 ? ", " : "") + layers.layers[row.layers[k]].name;
    if (row.layers.size() > 4) names += fmt::format(" and {} more", row.layers.size() - 4);
    for (const std::size_t i : row.layers) matched[i] = true;
    const double per_step = row.traced / count;
    if (row.layers.empty()) unmatched += per_step;
    beyond += std::max(0.0, per_step - static_cast<double>(row.layers.size()));
    out += fmt::format("{:<22} {:>14.4g} {:>6}  {}\n",
                       fmt::format("{} {}", row.op == models::OpClass::Convolution ? "conv" : "linear", row.shape),
                       per_step, row.layers.size(), row.layers.empty() ? "none" : names);
  }
  std::size_t products = 0;
  for (const models::LayerProfile& layer : layers.layers) {
    products += layer.op == models::OpClass::Convolution || layer.op == models::OpClass::Gemm ? 1 : 0;
  }
  out += fmt::format(
      "matched by shape: {} of the table's {} convolution and product layers; traced operators of "
      "no layer's shape: {:.4g} a step; run beyond the table's count: {:.4g} a step (recomputed, as "
      "activation checkpointing does, or repeated)\n",
      std::count(matched.begin(), matched.end(), true), products, unmatched, beyond);
  return out + name_matching_line(trace, ran, layers, products) + "\n";
}

}  // namespace dtsim::app
