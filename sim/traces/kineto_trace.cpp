#include "sim/traces/kineto_trace.hpp"

#include "sim/core/diagnostic.hpp"
#include "sim/core/input_file.hpp"
#include "sim/traces/gzip_stream.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <istream>
#include <map>
#include <optional>

namespace dtsim::traces {
namespace {

[[noreturn]] void refuse(const std::filesystem::path& path, int line, int column, std::string message,
                         std::string hint) {
  throw core::InputError(
      core::Diagnostic{core::SourcePosition(path.string(), line, column), "", std::move(message), std::move(hint)});
}

constexpr const char* kTraceHint =
    "give a PyTorch profiler trace (torch.profiler's export_chrome_trace or tensorboard_trace_handler output), "
    "plain or gzipped";

/// The kind of a GPU event's category, if it is one: Kineto's current names and the older ones.
std::optional<ActivityKind> activity_kind(const std::string& category) {
  if (category == "kernel" || category == "Kernel") return ActivityKind::kernel;
  if (category == "gpu_memcpy" || category == "Memcpy") return ActivityKind::memcpy;
  if (category == "gpu_memset" || category == "Memset") return ActivityKind::memset;
  return std::nullopt;
}

/// The product an operator named `name` computes: aten's and autograd's names (aten::cudnn_convolution,
/// ConvolutionBackward0, aten::addmm, AddmmBackward0, aten::_scaled_dot_product_flash_attention, ...).
KernelContext operator_context(const std::string& name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower.find("conv") != std::string::npos) return KernelContext::convolution;
  if (lower.find("attention") != std::string::npos || lower.find("sdpa") != std::string::npos)
    return KernelContext::attention;
  for (const char* product : {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul", "aten::linear",
                              "mmbackward", "addmmbackward", "bmmbackward"}) {
    if (lower.find(product) != std::string::npos) return KernelContext::gemm;
  }
  return KernelContext::none;
}

bool is_host_call(const std::string& category) {
  return category == "cuda_runtime" || category == "cuda_driver" || category == "Runtime";
}

double number_or(const nlohmann::json& object, const char* key, double fallback) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

std::int64_t integer_or(const nlohmann::json& object, const char* key, std::int64_t fallback) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<std::int64_t>() : fallback;
}

/// Collects what dtsim reads from each event as the parser finishes it, and drops the event.
class EventCollector {
 public:
  EventCollector(KinetoTrace& trace, std::string step_marker) : trace_(trace), marker_(std::move(step_marker)) {}

  /// The parser's callback: keeps the top-level keys' names, takes each finished event, discards it.
  bool operator()(int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::key && depth == 1) section_ = parsed.get<std::string>();
    if (event == Event::object_start && depth == 0) root_is_object_ = true;
    if (event != Event::object_end || depth != 2) return true;
    if (section_ == "traceEvents") {
      seen_events_ = true;
      take_event(parsed);
    } else if (section_ == "deviceProperties") {
      const auto name = parsed.find("name");
      if (name != parsed.end() && name->is_string()) {
        trace_.device_names[integer_or(parsed, "id", 0)] = name->get<std::string>();
      }
    }
    return false;
  }

  [[nodiscard]] bool saw_events() const { return seen_events_; }
  [[nodiscard]] bool root_is_object() const { return root_is_object_; }
  [[nodiscard]] bool too_many() const { return too_many_; }

 private:
  void take_event(const nlohmann::json& event) {
    if (!event.is_object()) return;
    const auto ph = event.find("ph");
    if (ph == event.end() || !ph->is_string() || *ph != "X") return;
    const auto cat = event.find("cat");
    const auto name = event.find("name");
    if (cat == event.end() || !cat->is_string() || name == event.end() || !name->is_string()) return;
    const std::string& category = cat->get_ref<const std::string&>();
    const std::string& text = name->get_ref<const std::string&>();
    const double start = number_or(event, "ts", -1.0);
    const double duration = number_or(event, "dur", -1.0);
    if (!(start >= 0.0) || !(duration >= 0.0)) return;
    static const nlohmann::json kNoArgs = nlohmann::json::object();
    const auto args_at = event.find("args");
    const nlohmann::json& args = args_at != event.end() && args_at->is_object() ? *args_at : kNoArgs;
    if (const std::optional<ActivityKind> kind = activity_kind(category)) {
      if (trace_.activities.size() >= kMaxTraceActivities) {
        too_many_ = true;
        return;
      }
      trace_.activities.push_back({*kind, intern(text), start, duration, integer_or(args, "correlation", -1),
                                   integer_or(args, "stream", 0), integer_or(args, "device", 0)});
    } else if (is_host_call(category)) {
      const std::int64_t correlation = integer_or(args, "correlation", -1);
      if (correlation >= 0) trace_.launches.emplace(correlation, Launch{start, integer_or(event, "tid", 0)});
    } else if ((category == "cpu_op" || category == "Operator") && trace_.products.size() < kMaxTraceActivities) {
      if (text == "aten::convolution" || text == "aten::linear")
        take_shape(text, start, integer_or(event, "tid", 0), args);
      const KernelContext product = operator_context(text);
      if (product != KernelContext::none)
        trace_.products.push_back({product, start, start + duration, integer_or(event, "tid", 0)});
    }
    if ((category == "user_annotation" || category == "cpu_op" || category == "Operator") &&
        text.rfind(marker_, 0) == 0) {
      trace_.steps.push_back({text, start, duration});
    }
    if (category == "user_annotation" && text.rfind(kModuleMarker, 0) == 0 && trace_.modules.size() < kMaxModuleSpans) {
      const auto [it, added] = module_index_.emplace(text.substr(std::string(kModuleMarker).size()),
                                                     static_cast<int>(trace_.module_names.size()));
      if (added) trace_.module_names.push_back(it->first);
      trace_.modules.push_back({it->second, start, start + duration, integer_or(event, "tid", 0)});
    }
  }

  /// The weight's shape of a convolution or linear operator, from its `Input Dims` (input, weight, bias...).
  void take_shape(const std::string& name, double start, std::int64_t thread, const nlohmann::json& args) {
    const auto dims = args.find("Input Dims");
    if (dims == args.end() || !dims->is_array() || dims->size() < 2 || !(*dims)[1].is_array()) return;
    if (trace_.shaped.size() >= kMaxTraceActivities) return;
    ShapedProduct out;
    out.kind = name == "aten::linear" ? KernelContext::gemm : KernelContext::convolution;
    out.start_us = start;
    out.thread = thread;
    for (const nlohmann::json& d : (*dims)[1]) {
      if (!d.is_number_integer() || out.weight.size() >= 8) return;
      out.weight.push_back(d.get<std::int64_t>());
    }
    out.bias = dims->size() > 2 && (*dims)[2].is_array() && !(*dims)[2].empty();
    if (out.weight.size() >= 2) trace_.shaped.push_back(std::move(out));
  }

  int intern(const std::string& name) {
    const auto [it, added] = index_.emplace(name, static_cast<int>(trace_.names.size()));
    if (added) trace_.names.push_back(name);
    return it->second;
  }

  KinetoTrace& trace_;
  std::string marker_;
  std::unordered_map<std::string, int> index_;
  std::unordered_map<std::string, int> module_index_;
  std::string section_;
  bool seen_events_ = false;
  bool root_is_object_ = false;
  bool too_many_ = false;
};

/// Fills `trace.contexts`: for each activity, the product of the operators open on its launching thread when
/// it was launched (a convolution wins over the matrix product inside it).
void launch_contexts(KinetoTrace& trace) {
  trace.contexts.assign(trace.activities.size(), KernelContext::none);
  if (trace.products.empty()) return;
  std::map<std::int64_t, std::vector<const ProductOperator*>> by_thread;
  for (const ProductOperator& op : trace.products) by_thread[op.thread].push_back(&op);
  for (auto& [thread, ops] : by_thread) {
    std::sort(ops.begin(), ops.end(),
              [](const ProductOperator* a, const ProductOperator* b) { return a->start_us < b->start_us; });
  }
  for (std::size_t i = 0; i < trace.activities.size(); ++i) {
    const auto launch = trace.launches.find(trace.activities[i].correlation);
    if (launch == trace.launches.end()) continue;
    const auto ops = by_thread.find(launch->second.thread);
    if (ops == by_thread.end()) continue;
    const double at = launch->second.at_us;
    // The operators begun by `at`, latest first; nesting keeps the open ones among the last begun, and a
    // product operator rarely holds more than a few others.
    auto begun = std::upper_bound(ops->second.begin(), ops->second.end(), at,
                                  [](double t, const ProductOperator* op) { return t < op->start_us; });
    KernelContext found = KernelContext::none;
    for (int looked = 0; begun != ops->second.begin() && looked < 64; ++looked) {
      const ProductOperator* op = *--begun;
      if (op->end_us < at) continue;
      if (found == KernelContext::none || op->kind == KernelContext::convolution) found = op->kind;
    }
    trace.contexts[i] = found;
  }
}

/// Names each shaped product's module: the annotation on its thread begun last among those open when it began
/// (modules nest, so that is the innermost).
void module_names(KinetoTrace& trace) {
  if (trace.modules.empty()) return;
  std::map<std::int64_t, std::vector<const ModuleSpan*>> by_thread;
  for (const ModuleSpan& span : trace.modules) by_thread[span.thread].push_back(&span);
  for (auto& [thread, spans] : by_thread) {
    // Begun together, the longer holds the shorter: it sorts first, so that the inner one is met first below.
    std::sort(spans.begin(), spans.end(), [](const ModuleSpan* a, const ModuleSpan* b) {
      return a->start_us != b->start_us ? a->start_us < b->start_us : a->end_us > b->end_us;
    });
  }
  for (ShapedProduct& product : trace.shaped) {
    const auto spans = by_thread.find(product.thread);
    if (spans == by_thread.end()) continue;
    auto begun = std::upper_bound(spans->second.begin(), spans->second.end(), product.start_us,
                                  [](double t, const ModuleSpan* span) { return t < span->start_us; });
    // A module holds few others open at once: the innermost open one is among the last few begun.
    for (int looked = 0; begun != spans->second.begin() && looked < 64; ++looked) {
      const ModuleSpan* span = *--begun;
      if (span->end_us < product.start_us) continue;
      product.module = span->name;
      break;
    }
  }
}

}  // namespace

bool is_json_trace(const std::filesystem::path& path) {
  if (!core::input_file_problem(path, core::kDataFileLimit).empty()) return false;
  try {
    GzipStreamBuffer buffer(path);
    std::istream in(&buffer);
    char c = 0;
    while (in.get(c)) {
      if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return c == '{';
    }
  } catch (const core::InputError&) {
    return false;
  }
  return false;
}

KinetoTrace read_kineto_trace(const std::filesystem::path& path, const std::string& step_marker) {
  if (const std::string problem = core::input_file_problem(path, core::kDataFileLimit); !problem.empty()) {
    refuse(path, 0, 0, "cannot read the trace: " + problem, "check the path");
  }
  KinetoTrace trace;
  EventCollector collector(trace, step_marker);
  GzipStreamBuffer buffer(path);
  std::istream in(&buffer);
  try {
    const nlohmann::json rest = nlohmann::json::parse(in, std::ref(collector));  // the events, dropped as read
  } catch (const nlohmann::json::parse_error& error) {
    const auto [line, column] = buffer.position_of(error.byte > 0 ? error.byte - 1 : 0);
    // The parser's own words, without the text it last read: a file named by mistake is not quoted.
    std::string what = error.what();
    const auto detail = what.find("syntax error");
    what = detail == std::string::npos ? std::string() : what.substr(detail);
    what = what.substr(0, what.find("; last read"));
    refuse(path, line, column, "the trace is no valid JSON" + (what.empty() ? std::string() : ": " + what), kTraceHint);
  }
  if (!collector.root_is_object() || !collector.saw_events()) {
    refuse(path, 0, 0, "the file has no traceEvents of events: it is no profiler trace", kTraceHint);
  }
  if (collector.too_many()) {
    refuse(path, 0, 0, fmt::format("the trace holds more than {} GPU kernels, copies and fills", kMaxTraceActivities),
           "profile fewer steps (torch.profiler.schedule(active=...))");
  }
  if (trace.activities.empty()) {
    refuse(path, 0, 0, "the trace has no GPU kernel",
           "profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] (CUDA stands for ROCm too)");
  }
  launch_contexts(trace);
  module_names(trace);
  std::sort(trace.steps.begin(), trace.steps.end(),
            [](const ProfiledStep& a, const ProfiledStep& b) { return a.start_us < b.start_us; });
  return trace;
}

}  // namespace dtsim::traces
