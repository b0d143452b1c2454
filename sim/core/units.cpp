#include "sim/core/units.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <span>
#include <utility>

namespace dtsim::core {
namespace {

struct UnitFactor {
  std::string_view suffix;
  double factor;
};

constexpr std::array kBandwidthUnits{
    UnitFactor{"bps", 1.0 / 8},          UnitFactor{"Kbps", 1e3 / 8},        UnitFactor{"Mbps", 1e6 / 8},
    UnitFactor{"Gbps", 1e9 / 8},         UnitFactor{"Tbps", 1e12 / 8},       UnitFactor{"B/s", 1.0},
    UnitFactor{"KB/s", 1e3},             UnitFactor{"MB/s", 1e6},            UnitFactor{"GB/s", 1e9},
    UnitFactor{"TB/s", 1e12},            UnitFactor{"KiB/s", 1024.0},        UnitFactor{"MiB/s", 1048576.0},
    UnitFactor{"GiB/s", 1073741824.0},   UnitFactor{"TiB/s", 1099511627776.0}, UnitFactor{"Bps", 1.0},
    UnitFactor{"KBps", 1e3},             UnitFactor{"MBps", 1e6},            UnitFactor{"GBps", 1e9},
};
constexpr std::array kDurationUnits{
    UnitFactor{"ns", 1e-9}, UnitFactor{"us", 1e-6}, UnitFactor{"ms", 1e-3},
    UnitFactor{"s", 1.0},   UnitFactor{"min", 60.0}, UnitFactor{"h", 3600.0},
};
constexpr std::array kSizeUnits{
    UnitFactor{"B", 1.0},           UnitFactor{"KB", 1e3},          UnitFactor{"MB", 1e6},
    UnitFactor{"GB", 1e9},          UnitFactor{"TB", 1e12},         UnitFactor{"KiB", 1024.0},
    UnitFactor{"MiB", 1048576.0},   UnitFactor{"GiB", 1073741824.0}, UnitFactor{"TiB", 1099511627776.0},
};
constexpr std::array kFlopsUnits{
    UnitFactor{"FLOPS", 1.0},   UnitFactor{"KFLOPS", 1e3},  UnitFactor{"MFLOPS", 1e6},
    UnitFactor{"GFLOPS", 1e9},  UnitFactor{"TFLOPS", 1e12}, UnitFactor{"PFLOPS", 1e15},
};
constexpr std::array kPowerUnits{
    UnitFactor{"W", 1.0}, UnitFactor{"kW", 1e3}, UnitFactor{"MW", 1e6},
};
constexpr std::array kEnergyUnits{
    UnitFactor{"J", 1.0},      UnitFactor{"kJ", 1e3},      UnitFactor{"MJ", 1e6},       UnitFactor{"GJ", 1e9},
    UnitFactor{"Wh", 3600.0},  UnitFactor{"kWh", 3.6e6},   UnitFactor{"MWh", 3.6e9},
};
constexpr std::array kCarbonUnits{
    UnitFactor{"gCO2/kWh", 1.0}, UnitFactor{"kgCO2/kWh", 1e3}, UnitFactor{"kgCO2/MWh", 1.0},
};

std::string unit_list(std::span<const UnitFactor> units) {
  std::string out;
  for (const auto& unit : units) {
    if (!out.empty()) out += ", ";
    out += unit.suffix;
  }
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

double parse_with_units(std::string_view text, std::span<const UnitFactor> units, std::string_view what,
                        std::string_view example, const Magnitudes& range) {
  const std::string_view trimmed = trim(text);
  double number = 0.0;
  const auto [end, error] = std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), number);
  if (error != std::errc{} || end == trimmed.data()) {
    throw UnitError(fmt::format("expected a {} such as \"{}\", got \"{}\"", what, example, text),
                    fmt::format("write a number followed by a unit ({})", unit_list(units)));
  }
  const std::string_view suffix = trim(std::string_view(end, static_cast<size_t>(trimmed.data() + trimmed.size() - end)));
  if (suffix.empty()) {
    throw UnitError(fmt::format("a {} needs a unit, got the bare number \"{}\"", what, text),
                    fmt::format("write it with a unit, for example \"{}\"", example));
  }
  for (const auto& unit : units) {
    if (unit.suffix == suffix) {
      const double value = number * unit.factor;
      if (!std::isfinite(value) || value < 0.0) {
        throw UnitError(fmt::format("a {} must be finite and not negative, got \"{}\"", what, text), "");
      }
      if (value != 0.0 && (value < range.smallest || value > range.largest)) {
        throw UnitError(fmt::format("a {} must be 0 or from {} to {}, got \"{}\"", what, range.smallest_text,
                                    range.largest_text, text),
                        "the simulator cannot represent it; no hardware comes near it");
      }
      return value;
    }
  }
  throw UnitError(fmt::format("unknown {} unit \"{}\" in \"{}\"", what, suffix, text),
                  fmt::format("valid units: {}", unit_list(units)));
}

std::string format_scaled(double value, std::span<const std::pair<double, std::string_view>> steps) {
  for (const auto& [factor, name] : steps) {
    if (value >= factor) return fmt::format("{:.4g} {}", value / factor, name);
  }
  return fmt::format("{:.4g} {}", value / steps.back().first, steps.back().second);
}

}  // namespace

namespace {

struct Family {
  std::span<const UnitFactor> units;
  std::string_view name;
  std::string_view example;
  Magnitudes range;
};

Family family_of(UnitFamily family) {
  switch (family) {
    case UnitFamily::Bandwidth: return {kBandwidthUnits, "bandwidth", "10Gbps", {1.0, 1e18, "1B/s", "1e18B/s"}};
    case UnitFamily::Duration: return {kDurationUnits, "duration", "5us", {1e-12, 1e9, "1e-12s", "1e9s"}};
    // 2^53 bytes: beyond it a size in a double no longer counts every byte.
    case UnitFamily::Size: return {kSizeUnits, "size", "64MiB", {1e-3, 9007199254740992.0, "0.001B", "8192TiB"}};
    case UnitFamily::Flops: return {kFlopsUnits, "compute rate", "15TFLOPS", {1.0, 1e21, "1FLOPS", "1e21FLOPS"}};
    case UnitFamily::Power: return {kPowerUnits, "power", "300W", {1e-6, 1e12, "1e-6W", "1e12W"}};
    case UnitFamily::Energy: return {kEnergyUnits, "energy", "1.5kWh", {1e-6, 1e21, "1e-6J", "1e21J"}};
    case UnitFamily::CarbonIntensity:
      return {kCarbonUnits, "carbon intensity", "400gCO2/kWh", {1e-6, 1e9, "1e-6gCO2/kWh", "1e9gCO2/kWh"}};
  }
  return {kDurationUnits, "duration", "5us", {1e-12, 1e9, "1e-12s", "1e9s"}};
}

}  // namespace

double parse_quantity(UnitFamily family, std::string_view text) {
  const Family f = family_of(family);
  return parse_with_units(text, f.units, f.name, f.example, f.range);
}

Magnitudes magnitudes_of(UnitFamily family) { return family_of(family).range; }

std::vector<std::string> unit_suffixes(UnitFamily family) {
  std::vector<std::string> out;
  for (const auto& unit : family_of(family).units) out.emplace_back(unit.suffix);
  return out;
}

std::string_view family_name(UnitFamily family) { return family_of(family).name; }

std::string_view family_example(UnitFamily family) { return family_of(family).example; }

BytesPerSecond parse_bandwidth(std::string_view text) {
  return BytesPerSecond(parse_quantity(UnitFamily::Bandwidth, text));
}

Seconds parse_duration(std::string_view text) { return Seconds(parse_quantity(UnitFamily::Duration, text)); }

Bytes parse_size(std::string_view text) { return Bytes(parse_quantity(UnitFamily::Size, text)); }

FlopsPerSecond parse_flops(std::string_view text) { return FlopsPerSecond(parse_quantity(UnitFamily::Flops, text)); }

Watts parse_power(std::string_view text) { return Watts(parse_quantity(UnitFamily::Power, text)); }

Joules parse_energy(std::string_view text) { return Joules(parse_quantity(UnitFamily::Energy, text)); }

GramsCo2PerKwh parse_carbon_intensity(std::string_view text) {
  return GramsCo2PerKwh(parse_quantity(UnitFamily::CarbonIntensity, text));
}

std::string format_bandwidth(BytesPerSecond rate) {
  static constexpr std::array<std::pair<double, std::string_view>, 4> kSteps{
      {{1e12 / 8, "Tbps"}, {1e9 / 8, "Gbps"}, {1e6 / 8, "Mbps"}, {1e3 / 8, "Kbps"}}};
  return format_scaled(rate.value(), kSteps);
}

std::string format_duration(Seconds duration) {
  static constexpr std::array<std::pair<double, std::string_view>, 4> kSteps{
      {{1.0, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}}};
  return format_scaled(duration.value(), kSteps);
}

std::string format_size(Bytes size) {
  static constexpr std::array<std::pair<double, std::string_view>, 5> kSteps{
      {{1099511627776.0, "TiB"}, {1073741824.0, "GiB"}, {1048576.0, "MiB"}, {1024.0, "KiB"}, {1.0, "B"}}};
  return format_scaled(size.value(), kSteps);
}

}  // namespace dtsim::core
