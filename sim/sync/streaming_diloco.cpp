// Streaming DiLoCo (Douillard et al. 2025, "Streaming DiLoCo with overlapping communication: Towards a
// Distributed Free Lunch", arXiv:2501.18512, algorithm 2): DiLoCo's outer step taken fragment by fragment. The
// parameters are cut into P fragments, each exchanged every H inner steps at its own offset, so that the wide
// area carries 1/P of the model at a time; a fragment's averaged outer gradient comes back `overlap` inner steps
// after it was sent, while the worker computed on, and the global fragment it steps is mixed into the worker's
// own: alpha own + (1 - alpha) global. The outer gradients may travel rounded to 4-bit floats, accumulated in
// 32-bit ones. One fragment, no overlap and alpha 0 is DiLoCo.

#include "sim/sync/diloco_family.hpp"
#include "sim/sync/fragment_schedule.hpp"
#include "sim/sync/sync_strategy.hpp"

#include <fmt/format.h>

namespace dtsim::sync {
namespace {

class StreamingDiloco final : public OuterStepStrategy {
 public:
  StreamingDiloco(StreamingSettings settings, OuterOptimizer outer, bool with_site)
      : OuterStepStrategy(settings.inner_steps, outer, with_site),
        settings_(settings),
        schedule_(settings.inner_steps, settings.fragments, settings.overlap) {}
  [[nodiscard]] std::string_view name() const override { return "streaming_diloco"; }
  [[nodiscard]] const StreamingSettings* streaming() const override { return &settings_; }
  /// An inner step, then the fragments' exchanges due after it.
  void after_gradient(std::int64_t iteration, std::int64_t last, LockStepActions& actions) const override {
    inner_step(actions);
    for (const FragmentAction& action : schedule_.at(iteration, last)) {
      if (action.kind == FragmentAction::Kind::send) {
        actions.send_fragment(action.fragment);
      } else {
        actions.merge_fragment(action.fragment);
      }
    }
  }

 private:
  StreamingSettings settings_;
  FragmentSchedule schedule_;
};

OuterPrecision precision_of(const std::string& name) {
  if (name == "fp32") return OuterPrecision::fp32;
  if (name == "bf16") return OuterPrecision::bf16;
  if (name == "fp8") return OuterPrecision::fp8;
  if (name == "int8") return OuterPrecision::int8;
  if (name == "fp4") return OuterPrecision::fp4;
  return OuterPrecision::automatic;
}

std::vector<core::SchemaNode> streaming_parameters() {
  std::vector<core::SchemaNode> parameters = diloco_parameters();
  parameters.push_back(
      core::integer("fragments", 1, 1'000'000, "fragments the parameters are cut into (P), exchanged in turn")
          .require());
  parameters.push_back(core::integer("overlap_steps", 0, 1'000'000'000,
                                     "inner steps a fragment's exchange runs beside (tau; 0 blocks; the paper's main "
                                     "runs' 1)")
                           .fallback("1"));
  parameters.push_back(core::number("mixing", 0.0, 1.0,
                                    "alpha: the weight of the worker's own fragment when the global one comes back "
                                    "(0 takes the global one; 0.5 as the paper's figure 10)")
                           .fallback("0.5"));
  parameters.push_back(
      core::choice_of(
          "outer_precision", "outer precision", "the float an outer gradient travels in",
          {{"auto", "as DiLoCo's: 32-bit when trained for real, the parameters' wire precision on a profile"},
           {"fp32", "32-bit floats"},
           {"bf16", "bfloat16"},
           {"fp8", "8-bit E4M3, scaled by a power of two per message"},
           {"int8", "8-bit bucket indices, each bucket's mean beside them (INTELLECT-1's 256 buckets over 6 sigma)"},
           {"fp4", "4-bit E3M0 (the paper's), scaled by a power of two per message"}})
          .fallback("auto"));
  return parameters;
}

}  // namespace

void register_streaming_diloco(SyncRegistry& registry) {
  registry.add(
      "streaming_diloco",
      "Streaming DiLoCo: DiLoCo's outer step fragment by fragment, each fragment's exchange at its own offset and "
      "overlapped with the next inner steps, optionally in 4-bit floats (allreduce)",
      {.parameters = streaming_parameters(),
       .make =
           [](const core::ParameterValues& p) {
             const StreamingSettings settings{.inner_steps = static_cast<int>(p.integer("inner_steps")),
                                              .fragments = static_cast<int>(p.integer("fragments")),
                                              .overlap = static_cast<int>(p.integer("overlap_steps")),
                                              .mixing = p.number("mixing"),
                                              .precision = precision_of(p.text("outer_precision"))};
             return std::make_unique<StreamingDiloco>(settings, outer_optimizer_of(p), inner_sync_by_site(p));
           },
       .check =
           [](const core::ParameterValues& p, const StrategyContext&, core::DiagnosticSink& sink) {
             const std::int64_t steps = p.integer("inner_steps");
             if (p.integer("fragments") > steps) {
               sink.error(p.where("fragments"), "training.sync.fragments",
                          fmt::format("{} fragments cannot each take its own step among {} inner steps",
                                      p.integer("fragments"), steps),
                          "use at most inner_steps fragments");
             }
             if (p.integer("overlap_steps") >= steps) {
               sink.error(p.where("overlap_steps"), "training.sync.overlap_steps",
                          fmt::format("a fragment's exchange must come back before its next one: overlap_steps {} is "
                                      "not below inner_steps {}",
                                      p.integer("overlap_steps"), steps),
                          "use fewer overlap steps (the paper advises at most 5)");
             }
             check_outer_momentum(p, sink);
           },
       .example =
           "{strategy: streaming_diloco, inner_steps: 100, fragments: 4, overlap_steps: 1, outer_precision: fp4}"});
}

}  // namespace dtsim::sync
