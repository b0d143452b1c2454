#include "sim/scenario/parallel_axes.hpp"

#include <algorithm>
#include <stdexcept>

namespace dtsim::scenario {
namespace {

std::vector<int> any_divisor(int room, const models::TransformerShape& /*shape*/, const std::optional<int>& fixed) {
  return degrees_dividing(room, fixed);
}

/// Context parallelism pays for itself on long sequences only (Megatron-LM's guidance: 8K tokens and up), so
/// shorter ones are not split unless the user asks; at most 16 devices share a sequence.
std::vector<int> context_degrees(int room, const models::TransformerShape& shape, const std::optional<int>& fixed) {
  if (!fixed && shape.sequence < 8192) return {1};
  std::vector<int> out;
  for (const int c : degrees_dividing(room, fixed)) {
    if (c <= 16 || fixed) out.push_back(c);
  }
  return out;
}

/// Expert groups divide a mixture's routed experts evenly; a dense model has none to spread.
std::vector<int> expert_degrees(int data, const models::TransformerShape& shape, const std::optional<int>& fixed) {
  if (shape.experts <= 0) return fixed && *fixed != 1 ? std::vector<int>{} : std::vector<int>{1};
  std::vector<int> out;
  for (const int e : degrees_dividing(data, fixed)) {
    if (shape.experts % e == 0) out.push_back(e);
  }
  return out;
}

/// Expert tensor parallelism is tried where the user asks for it (--expert-tensor): without, a mixture's plans keep
/// the candidates they had before the axis (the routed experts' matrices split over the tensor group). Its degree
/// divides what the expert groups leave of the replicas, and each expert's feed-forward width.
std::vector<int> expert_tensor_degrees(int data, const models::TransformerShape& shape,
                                      const std::optional<int>& fixed) {
  if (!fixed) return {1};
  if (shape.experts <= 0) return *fixed == 1 ? std::vector<int>{1} : std::vector<int>{};
  std::vector<int> out;
  for (const int et : degrees_dividing(data, fixed)) {
    if (shape.feed_forward % et == 0) out.push_back(et);
  }
  return out;
}

std::string all_to_all_of(const ParallelismSpec& plan) { return plan.all_to_all.value; }

std::string context_attention_of(const ParallelismSpec& plan) { return std::string(to_string(plan.context_attention)); }

}  // namespace

const std::vector<AxisEntry>& parallel_axes() {
  static const std::vector<AxisEntry> table{
      {.axis = ParallelAxis::Tensor, .name = "tensor", .label = "t", .description = "tensor-parallel groups",
       .groups = "tensor", .refused_as = "tensor-parallel groups",
       .key_description = "tensor-parallel degree: each transformer layer's weights split over this many devices "
                          "(timing-only transformer models; it divides the heads)",
       .most = 1024, .declared = &ParallelismSpec::tensor, .declared_at = &ParallelismSpec::tensor_at,
       .splits = Splits::DenseMatrices | Splits::ExpertMatrices, .shares = Weights::None, .carved_from = std::nullopt,
       .always_listed = true, .tries = any_divisor, .setting = "",
       .setting_of = nullptr},
      {.axis = ParallelAxis::Context, .name = "context", .label = "c",
       .description = "context-parallel groups (a sequence's tokens split)", .groups = "context",
       .refused_as = "context groups",
       .key_description = "context-parallel degree: every sequence's tokens split over this many devices, which bring "
                          "each other the keys and values attention needs (timing-only transformers)",
       .most = 1024, .declared = &ParallelismSpec::context, .declared_at = &ParallelismSpec::context_at,
       // The routed experts' copies are counted shared over a context group on the experts' own grid only
       // (shares_under); carved out of the replicas, expert groups are refused beside a context group.
       .splits = Splits::Sequence, .shares = Weights::Dense, .carved_from = std::nullopt, .always_listed = false,
       .tries = context_degrees, .setting = "context_attention",
       .setting_of = context_attention_of},
      // Inside the expert groups, as Megatron-Core orders the experts' grid (expert-tensor, expert, expert-data).
      {.axis = ParallelAxis::ExpertTensor, .name = "expert_tensor", .label = "et",
       .description = "expert-tensor-parallel groups (replicas splitting each routed expert's matrices)",
       .groups = "expert-tensor", .refused_as = "expert-tensor groups",
       .key_description = "expert-tensor-parallel degree: each routed expert's matrices split over this many devices, "
                          "declared (1 included) the experts' own grid, expert_tensor x expert x expert-data laid over "
                          "a stage's tensor x context x data devices in rank order (Megatron-Core's parallel folding), the "
                          "tensor group then splitting the dense layers alone and each device dispatching its own share "
                          "of the tokens; expert x expert_tensor divides tensor x context x data (timing-only "
                          "mixtures); absent, "
                          "the tensor group splits the experts too",
       .most = 1024, .declared = &ParallelismSpec::expert_tensor, .declared_at = &ParallelismSpec::expert_tensor_at,
       .splits = Splits::ExpertMatrices, .shares = Weights::Dense, .carved_from = ParallelAxis::Data,
       .always_listed = false, .tries = expert_tensor_degrees, .setting = "", .setting_of = nullptr},
      {.axis = ParallelAxis::Expert, .name = "expert", .label = "e",
       .description = "expert-parallel groups (replicas exchanging tokens)", .groups = "experts",
       .refused_as = "expert groups",
       .key_description = "expert-parallel degree: a mixture of experts' routed experts spread over this many of "
                          "the data-parallel replicas, which exchange their tokens by all-to-alls; it divides data, or with expert_tensor declared "
                          "tensor x context x data (the experts' own grid, folded over a stage's devices; timing-only "
                          "mixtures)",
       .most = 65'536, .declared = &ParallelismSpec::expert, .declared_at = &ParallelismSpec::expert_at,
       .splits = Splits::Experts, .shares = Weights::Dense, .carved_from = ParallelAxis::Data, .always_listed = false,
       .tries = expert_degrees, .setting = "all_to_all",
       .setting_of = all_to_all_of},
      {.axis = ParallelAxis::Pipeline, .name = "pipeline", .label = "p", .description = "pipeline stages",
       .groups = "pipeline", .refused_as = "pipelines",
       .key_description = "pipeline-parallel degree: the layers split into this many stages, each on its own worker "
                          "(timing-only models)",
       .most = 1024, .declared = &ParallelismSpec::pipeline, .declared_at = &ParallelismSpec::pipeline_at,
       .splits = Splits::Layers, .shares = Weights::None, .carved_from = std::nullopt, .always_listed = true,
       .tries = any_divisor, .setting = "", .setting_of = nullptr},
      {.axis = ParallelAxis::Data, .name = "data", .label = "d", .description = "model replicas", .groups = "replicas",
       .refused_as = "replicas",
       .key_description = "data-parallel degree: model replicas, each on its share of every batch; cluster.workers "
                          "/ (tensor x pipeline) when absent",
       .most = 65'536, .declared = &ParallelismSpec::data, .declared_at = &ParallelismSpec::data_at,
       .splits = Splits::Batch, .shares = Weights::Dense | Weights::Experts, .carved_from = std::nullopt,
       .always_listed = true, .tries = nullptr, .setting = "", .setting_of = nullptr},
  };
  return table;
}

const AxisEntry& axis_entry(ParallelAxis axis) {
  const auto& table = parallel_axes();
  const auto it = std::find_if(table.begin(), table.end(), [&](const AxisEntry& entry) { return entry.axis == axis; });
  if (it == table.end()) throw std::logic_error("a parallel axis without an entry");
  return *it;
}

std::optional<ParallelAxis> axis_named(std::string_view name) {
  for (const AxisEntry& entry : parallel_axes()) {
    if (entry.name == name) return entry.axis;
  }
  return std::nullopt;
}

const std::vector<ParallelAxis>& listing_order() {
  static const std::vector<ParallelAxis> order = [] {
    std::vector<ParallelAxis> out;
    for (const bool listed : {true, false}) {
      for (const AxisEntry& entry : parallel_axes()) {
        if (entry.tries != nullptr && entry.always_listed == listed) out.push_back(entry.axis);
      }
    }
    for (const AxisEntry& entry : parallel_axes()) {
      if (entry.tries == nullptr) out.push_back(entry.axis);
    }
    return out;
  }();
  return order;
}

const std::vector<ParallelAxis>& declaration_order() {
  static const std::vector<ParallelAxis> order = [] {
    std::vector<ParallelAxis> out;
    for (std::size_t i = 0; i < kParallelAxes; ++i) out.push_back(static_cast<ParallelAxis>(i));
    return out;
  }();
  return order;
}

int declared_degree(const ParallelismSpec& plan, ParallelAxis axis) { return plan.*(axis_entry(axis).declared); }

void set_declared_degree(ParallelismSpec& plan, ParallelAxis axis, int value) {
  plan.*(axis_entry(axis).declared) = value;
}

AxisDegrees declared_degrees(const ParallelismSpec& plan) {
  AxisDegrees out = unsplit();
  for (const AxisEntry& entry : parallel_axes()) out[axis_index(entry.axis)] = plan.*(entry.declared);
  return out;
}

int placed_degree(const AxisDegrees& declared, ParallelAxis axis) {
  int out = declared[axis_index(axis)];
  for (const AxisEntry& entry : parallel_axes()) {
    if (entry.carved_from == axis) out /= declared[axis_index(entry.axis)];
  }
  return out;
}

int degree_of(const ParallelismSpec& plan, ParallelAxis axis) {
  // On the experts' own grid the expert and expert-tensor groups are laid over a stage's devices (expert_grid.hpp),
  // not carved out of the replicas: they place no rank, and the data axis places every replica.
  if (plan.expert_tensor_declared) return axis_entry(axis).carved_from ? 1 : declared_degree(plan, axis);
  return placed_degree(declared_degrees(plan), axis);
}

Splits splits_under(const AxisEntry& entry, const ParallelismSpec& plan) {
  if (!plan.expert_tensor_declared || !has(entry.splits, Splits::DenseMatrices)) return entry.splits;
  return static_cast<Splits>(static_cast<unsigned>(entry.splits) & ~static_cast<unsigned>(Splits::ExpertMatrices));
}

Weights shares_under(const AxisEntry& entry, const ParallelismSpec& plan) {
  // The experts' own grid spans a stage's tensor x context x data devices: across the tensor and the context
  // groups the devices holding the same experts are replicas of them too.
  const bool spanned = has(entry.splits, Splits::DenseMatrices) || has(entry.splits, Splits::Sequence);
  if (!plan.expert_tensor_declared || !spanned) return entry.shares;
  return entry.shares | Weights::Experts;
}

int sharing_replicas(const ParallelismSpec& plan, Weights kind) {
  // An axis carved out of another counts among that one's devices already: it divides them where it does not
  // share the weights that one's groups share.
  int out = 1;
  for (const AxisEntry& entry : parallel_axes()) {
    if (has(shares_under(entry, plan), kind) && !entry.carved_from) out *= plan.*(entry.declared);
  }
  for (const AxisEntry& entry : parallel_axes()) {
    if (entry.carved_from && !has(shares_under(entry, plan), kind) &&
        has(shares_under(axis_entry(*entry.carved_from), plan), kind)) {
      out /= plan.*(entry.declared);
    }
  }
  return out;
}

std::vector<ParallelAxis> sharing_axes(const ParallelismSpec& plan, Weights kind) {
  std::vector<ParallelAxis> out;
  for (const AxisEntry& entry : parallel_axes()) {
    if (has(shares_under(entry, plan), kind)) out.push_back(entry.axis);
  }
  return out;
}

bool experts_apart(const ParallelismSpec& plan) {
  return std::any_of(parallel_axes().begin(), parallel_axes().end(), [&](const AxisEntry& entry) {
    const Splits splits = splits_under(entry, plan);
    const Weights shares = shares_under(entry, plan);
    const bool splits_experts = has(splits, Splits::Experts) || has(splits, Splits::ExpertMatrices);
    const bool splits_apart = splits_experts && !has(splits, Splits::DenseMatrices);
    const bool shares_apart = has(shares, Weights::Experts) && !has(shares, Weights::Dense);
    return (splits_apart || shares_apart) && plan.*(entry.declared) > 1;
  });
}

std::vector<int> degrees_dividing(std::int64_t n, const std::optional<int>& fixed) {
  std::vector<int> out;
  for (std::int64_t d = 1; d <= n && d <= (std::int64_t{1} << 30); ++d) {
    if (n % d == 0) out.push_back(static_cast<int>(d));
  }
  if (!fixed) return out;
  return std::find(out.begin(), out.end(), *fixed) != out.end() ? std::vector<int>{*fixed} : std::vector<int>{};
}

void place_optional_axes(ParallelismSpec& plan) {
  auto& axes = plan.placement;
  auto after_tensor = std::find(axes.begin(), axes.end(), ParallelAxis::Tensor) + 1;
  for (const AxisEntry& entry : parallel_axes()) {
    if (entry.always_listed || degree_of(plan, entry.axis) < 2) continue;
    if (std::find(axes.begin(), axes.end(), entry.axis) != axes.end()) continue;
    after_tensor = axes.insert(after_tensor, entry.axis) + 1;
  }
}

bool ParallelismSpec::is_model_parallel() const {
  // Every axis but the replicas' splits the model or its sequences.
  return std::any_of(parallel_axes().begin(), parallel_axes().end(), [&](const AxisEntry& entry) {
    return !has(entry.splits, Splits::Batch) && this->*(entry.declared) > 1;
  });
}

}  // namespace dtsim::scenario
