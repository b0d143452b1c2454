#pragma once
// `sweep:` turns one scenario document into several: one per point of a grid of values given for
// dotted scalar keys. Points are named from the values ("staleness=1,workers=8"), so names are stable.

#include "sim/core/diagnostic.hpp"
#include "sim/scenario/config_node.hpp"
#include "sim/scenario/schema_names.hpp"

#include <string>
#include <vector>

namespace dtsim::scenario {

/// The most points one sweep may have: each is a run of its own, in its own process and folder.
inline constexpr std::size_t kSweepPointLimit = 10'000;

struct SweepPoint {
  std::string label;    ///< "" for a scenario without a sweep
  ConfigNode document;  ///< the document as written, with this point's values set and `sweep` removed
  std::vector<std::string> values;  ///< each axis's value at this point, as written, in the axes' order
};

/// Expands the `sweep` section of an unvalidated document of the format `schema`. Cartesian points vary the last axis fastest;
/// `combine: zip` takes the i-th value of every axis (an axis may repeat a value there; two points may not be
/// the same). Problems go to `sink` (and give no points).
std::vector<SweepPoint> expand_sweep(const SchemaNode& schema, const ConfigNode& document, core::DiagnosticSink& sink);

/// Rewrites a sweep given as `points` (a list of mappings, each from dotted paths to the values of one point)
/// as `combine: zip` over one axis per path, in the order the first point names them, so that every later
/// stage reads axes: a list of layouts (tensor, pipeline, micro-batches) is one sweep. Every point sets the same
/// keys; `points` takes neither `axes` nor `combine` beside it. Problems go to `sink` (and remove the sweep).
void points_as_axes(ConfigNode& document, core::DiagnosticSink& sink);

/// What checking one point of a sweep found: the point's label and its problems.
struct PointProblems {
  std::string label;
  std::vector<core::Diagnostic> problems;
};

/// The problems of a sweep of `points` points (`found`, in sweep order), each once, its hint naming the points it is
/// in by their labels: "in sweep point L", "in 2 of the 3 sweep points, such as L" or "in every sweep point (3), such
/// as L". For a sweep a study generates, whose labels are the only names its points have: a problem of every point
/// is said once, not once a point.
std::vector<core::Diagnostic> named_by_point(const std::vector<PointProblems>& found, std::size_t points);

/// Every dotted path that a sweep axis may name.
std::vector<std::string> sweepable_paths(const SchemaNode& schema);

}  // namespace dtsim::scenario
