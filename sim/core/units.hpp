#pragma once
// Physical quantities as distinct types, and the parsers for their YAML spelling ("10Gbps", "5us").

#include <compare>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::core {

/// A double tagged with its unit, so that seconds cannot be passed where bytes are expected.
template <class Tag>
class Quantity {
 public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double value) : value_(value) {}
  [[nodiscard]] constexpr double value() const { return value_; }

  constexpr Quantity operator+(Quantity other) const { return Quantity(value_ + other.value_); }
  constexpr Quantity operator-(Quantity other) const { return Quantity(value_ - other.value_); }
  constexpr Quantity operator*(double factor) const { return Quantity(value_ * factor); }
  constexpr Quantity operator/(double divisor) const { return Quantity(value_ / divisor); }
  constexpr Quantity& operator+=(Quantity other) {
    value_ += other.value_;
    return *this;
  }
  constexpr auto operator<=>(const Quantity&) const = default;

 private:
  double value_ = 0.0;
};

struct SecondsTag {};
struct BytesTag {};
struct BytesPerSecondTag {};
struct FlopsPerSecondTag {};
struct WattsTag {};
struct JoulesTag {};
struct GramsCo2PerKwhTag {};

using Seconds = Quantity<SecondsTag>;
using Bytes = Quantity<BytesTag>;
using BytesPerSecond = Quantity<BytesPerSecondTag>;
using FlopsPerSecond = Quantity<FlopsPerSecondTag>;
using Watts = Quantity<WattsTag>;
using Joules = Quantity<JoulesTag>;
/// Grid carbon intensity: grams of CO2 emitted per kWh drawn.
using GramsCo2PerKwh = Quantity<GramsCo2PerKwhTag>;

/// Time to move `size` at `rate`.
constexpr Seconds operator/(Bytes size, BytesPerSecond rate) { return Seconds(size.value() / rate.value()); }

/// Raised by the parsers below; the scenario reader adds the file position.
class UnitError : public std::exception {
 public:
  UnitError(std::string message, std::string hint) : message_(std::move(message)), hint_(std::move(hint)) {}
  [[nodiscard]] const char* what() const noexcept override { return message_.c_str(); }
  [[nodiscard]] const std::string& hint() const { return hint_; }

 private:
  std::string message_;
  std::string hint_;
};

/// "10Gbps", "1.25GB/s", "100 MiB/s". Bits and bytes are told apart by case: b = bit, B = byte.
BytesPerSecond parse_bandwidth(std::string_view text);
/// "5us", "1.5ms", "2s", "3min", "1h". Also "ns".
Seconds parse_duration(std::string_view text);
/// "64MiB", "1KB", "512B". Decimal (KB = 1000 B) and binary (KiB = 1024 B) prefixes.
Bytes parse_size(std::string_view text);
/// "15TFLOPS", "100GFLOPS", "1e12FLOPS".
FlopsPerSecond parse_flops(std::string_view text);

/// "300W", "1.5kW", "2MW".
Watts parse_power(std::string_view text);
/// "3.6MJ", "1kWh", "250Wh", "10J".
Joules parse_energy(std::string_view text);
/// "400gCO2/kWh", "0.4kgCO2/kWh".
GramsCo2PerKwh parse_carbon_intensity(std::string_view text);

/// The kinds of quantity the scenario language writes with units.
enum class UnitFamily { Bandwidth, Duration, Size, Flops, Power, Energy, CarbonIntensity };

/// The magnitudes a quantity may take besides 0: the simulator keeps time as doubles in seconds, and SimGrid
/// aborts on a subnormal or infinite rate, latency or amount (a latency of 1e-320 s, a link of 1e-300 B/s).
/// The bounds are far outside any hardware and well inside what doubles hold with full precision once
/// multiplied and divided by each other.
struct Magnitudes {
  double smallest;  ///< in SI base units, as parse_quantity returns them
  double largest;
  std::string_view smallest_text;  ///< as messages write it: "1e-12s"
  std::string_view largest_text;
};

/// Parses `text` in `family`, returning SI base units (B/s, s, B, FLOP/s, W, J, gCO2/kWh).
double parse_quantity(UnitFamily family, std::string_view text);
/// The magnitudes parse_quantity accepts for `family` besides 0; for readers of plain numbers (CSV columns
/// such as `iteration_s`) that must keep to the same bounds.
Magnitudes magnitudes_of(UnitFamily family);
/// The unit spellings accepted for `family`, in the order listed in messages.
std::vector<std::string> unit_suffixes(UnitFamily family);
/// "bandwidth", "duration", ...
std::string_view family_name(UnitFamily family);
/// A well-formed example value: "10Gbps".
std::string_view family_example(UnitFamily family);

/// Human-readable renderings for tables and messages ("10 Gbps", "5 us", "1.5 MiB").
std::string format_bandwidth(BytesPerSecond rate);
std::string format_duration(Seconds duration);
std::string format_size(Bytes size);

}  // namespace dtsim::core
