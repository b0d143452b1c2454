#pragma once
// Failures by component kind: the rate at which each kind of component interrupts a synchronous job, per
// device or per node, and the published breakdowns they come from (`failures.catalog`). A whole run projected
// from its steady state (metrics/failure_projection.hpp) meets every kind's failures at the sum of their
// rates over the cluster's components; each interruption is booked to its kind.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::scenario {

/// What one kind of component is counted by: each device (a GPU, its memory, its network adapter) or each node.
enum class ComponentUnit { Device, Node };

/// The kinds `failures.components` names, in the order results list them.
const std::vector<std::string>& component_kinds();
/// A kind's unit unless declared: node for "host", device for the others.
ComponentUnit default_unit(std::string_view kind);
std::string_view to_string(ComponentUnit unit);

/// One kind's failures: a component of it interrupts the job after a mean time of mtbf_s.
struct ComponentFailures {
  std::string kind;
  double mtbf_s = 0.0;
  ComponentUnit per = ComponentUnit::Device;
  double repair_s = 0.0;  ///< repairing or replacing a failed one; 0: nothing to repair (a restart mends it)
  /// Where the rate comes from: the catalog's rows and how the rate was derived from them, or "declared".
  std::string source;
};

struct FailureCatalog {
  std::string name;
  std::string description;  ///< the measurement: job, cluster, period, and the publication
  std::vector<ComponentFailures> components;
};

const std::vector<FailureCatalog>& failure_catalogs();
std::optional<FailureCatalog> find_failure_catalog(std::string_view name);
std::vector<std::string> failure_catalog_names();

}  // namespace dtsim::scenario
