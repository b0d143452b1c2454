#include "sim/scenario/energy_reader.hpp"

#include <fmt/format.h>

namespace dtsim::scenario {
namespace {

/// The first device (workers by rank, then the servers') that lacks a power figure: its name and the key.
std::optional<std::pair<std::string, std::string>> missing_power(const ClusterSpec& cluster, bool has_servers) {
  std::vector<const DeviceProfile*> devices;
  for (int rank = 0; rank < cluster.workers; ++rank) devices.push_back(&cluster.device_of(rank));
  if (has_servers) devices.push_back(&cluster.server_device);
  for (const DeviceProfile* device : devices) {
    if (!device->idle_power) return std::pair{device->name, std::string("idle_power")};
    if (!device->busy_power) return std::pair{device->name, std::string("busy_power")};
  }
  return std::nullopt;
}

}  // namespace

EnergySpec read_energy(const View& root, const ClusterSpec& cluster, bool has_servers, core::DiagnosticSink& sink) {
  EnergySpec out;
  const View energy = root.at("energy");
  if (energy.node() == nullptr) return out;
  out.enabled = true;
  out.where = root.key_where("energy");
  if (auto v = energy.quantity("carbon_intensity", core::parse_carbon_intensity)) out.carbon_g_per_kwh = v->value();
  out.price_per_kwh = energy.number("price_per_kwh");
  out.price_per_device_hour = energy.number("price_per_device_hour");
  out.currency = energy.text("currency", "USD");
  out.node_static_power = energy.quantity("node_static_power", core::parse_power);
  out.link_idle_power = energy.quantity("link_idle_power", core::parse_power);
  out.link_busy_power = energy.quantity("link_busy_power", core::parse_power);
  if (out.link_busy_power && !out.link_idle_power) out.link_idle_power = core::Watts(0.0);
  if (out.link_idle_power && out.link_busy_power && out.link_busy_power->value() < out.link_idle_power->value()) {
    sink.error(energy.where("link_busy_power"), "energy.link_busy_power",
               fmt::format("a busy link ({} W) draws less than an idle one ({} W)", out.link_busy_power->value(),
                           out.link_idle_power->value()));
  }
  if (const auto missing = missing_power(cluster, has_servers)) {
    const auto& [device, key] = *missing;
    const bool main = device == cluster.device.name;
    sink.error(out.where, "energy",
               fmt::format("energy needs every device's idle_power and busy_power, and '{}' has no {}", device, key),
               main ? fmt::format("declare cluster.device.{} (for example {}: {})", key, key,
                                  key == "idle_power" ? "60W" : "300W")
                    : fmt::format("declare it in cluster.devices.{} (for example {}: {})", device, key,
                                  key == "idle_power" ? "60W" : "300W"));
  }
  for (int rank = 0; rank < cluster.workers; ++rank) {
    const DeviceProfile& device = cluster.device_of(rank);
    if (device.idle_power && device.busy_power && device.busy_power->value() < device.idle_power->value()) {
      sink.error(out.where, "energy",
                 fmt::format("device '{}' draws less busy ({} W) than idle ({} W)", device.name,
                             device.busy_power->value(), device.idle_power->value()),
                 "busy_power is the draw at full load, idle_power with nothing to do");
      break;
    }
    const std::optional<core::Watts> moving = device.communication_power;
    if (moving && device.idle_power && device.busy_power &&
        (moving->value() < device.idle_power->value() || moving->value() > device.busy_power->value())) {
      sink.error(out.where, "energy",
                 fmt::format("device '{}' draws {} W while communicating, outside its idle ({} W) to busy ({} W) range",
                             device.name, moving->value(), device.idle_power->value(), device.busy_power->value()),
                 "communication_power lies between idle_power and busy_power");
      break;
    }
  }
  return out;
}

}  // namespace dtsim::scenario
