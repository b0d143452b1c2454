#include "sim/core/units.hpp"

#include <gtest/gtest.h>

namespace dtsim::core {
namespace {

TEST(Units, BandwidthTellsBitsFromBytes) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("10Gbps").value(), 1.25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("10GB/s").value(), 1e10);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1GiB/s").value(), 1073741824.0);
  EXPECT_DOUBLE_EQ(parse_bandwidth("800 Mbps").value(), 1e8);
  EXPECT_DOUBLE_EQ(parse_bandwidth("8bps").value(), 1.0);
}

TEST(Units, DurationsFromNanosecondsToHours) {
  EXPECT_DOUBLE_EQ(parse_duration("5us").value(), 5e-6);
  EXPECT_DOUBLE_EQ(parse_duration("1.5ms").value(), 1.5e-3);
  EXPECT_DOUBLE_EQ(parse_duration("100ns").value(), 1e-7);
  EXPECT_DOUBLE_EQ(parse_duration("2min").value(), 120.0);
  EXPECT_DOUBLE_EQ(parse_duration("1h").value(), 3600.0);
}

TEST(Units, SizesDecimalAndBinary) {
  EXPECT_DOUBLE_EQ(parse_size("1KB").value(), 1000.0);
  EXPECT_DOUBLE_EQ(parse_size("1KiB").value(), 1024.0);
  EXPECT_DOUBLE_EQ(parse_size("64MiB").value(), 64.0 * 1048576.0);
  EXPECT_DOUBLE_EQ(parse_flops("15TFLOPS").value(), 15e12);
}

TEST(Units, PowerEnergyAndCarbonIntensity) {
  EXPECT_DOUBLE_EQ(parse_power("300W").value(), 300.0);
  EXPECT_DOUBLE_EQ(parse_power("1.5kW").value(), 1500.0);
  EXPECT_DOUBLE_EQ(parse_energy("1kWh").value(), 3.6e6);
  EXPECT_DOUBLE_EQ(parse_energy("250Wh").value(), 900000.0);
  EXPECT_DOUBLE_EQ(parse_energy("2MJ").value(), 2e6);
  EXPECT_DOUBLE_EQ(parse_carbon_intensity("400gCO2/kWh").value(), 400.0);
  EXPECT_DOUBLE_EQ(parse_carbon_intensity("0.4kgCO2/kWh").value(), 400.0);
}

TEST(Units, BareNumberIsAnErrorWithAnExample) {
  try {
    parse_bandwidth("10");
    FAIL() << "a bare number was accepted";
  } catch (const UnitError& error) {
    EXPECT_STREQ(error.what(), "a bandwidth needs a unit, got the bare number \"10\"");
    EXPECT_EQ(error.hint(), "write it with a unit, for example \"10Gbps\"");
  }
}

// SimGrid aborts on a subnormal latency or rate: a quantity is 0 or within bounds no hardware comes near.
TEST(Units, ValuesTheSimulatorCannotRepresentAreRefused) {
  try {
    parse_duration("1e-320s");
    FAIL() << "a subnormal latency was accepted";
  } catch (const UnitError& error) {
    EXPECT_STREQ(error.what(), "a duration must be 0 or from 1e-12s to 1e9s, got \"1e-320s\"");
  }
  EXPECT_THROW(parse_bandwidth("1e-300Gbps"), UnitError);
  EXPECT_THROW(parse_size("1e20B"), UnitError);
  EXPECT_THROW(parse_flops("1e30PFLOPS"), UnitError);
  EXPECT_EQ(parse_duration("0s").value(), 0.0);
  EXPECT_EQ(parse_size("8192TiB").value(), 9007199254740992.0);
}

TEST(Units, UnknownUnitListsTheValidOnes) {
  try {
    parse_duration("5 fortnights");
    FAIL() << "an unknown unit was accepted";
  } catch (const UnitError& error) {
    EXPECT_STREQ(error.what(), "unknown duration unit \"fortnights\" in \"5 fortnights\"");
    EXPECT_EQ(error.hint(), "valid units: ns, us, ms, s, min, h");
  }
}

TEST(Units, NotANumberAndNegativeAreRejected) {
  EXPECT_THROW(parse_size("lots"), UnitError);
  EXPECT_THROW(parse_size("-1KB"), UnitError);
}

TEST(Units, FormatPicksAReadableScale) {
  EXPECT_EQ(format_bandwidth(BytesPerSecond(1.25e9)), "10 Gbps");
  EXPECT_EQ(format_duration(Seconds(5e-6)), "5 us");
  EXPECT_EQ(format_size(Bytes(1536.0)), "1.5 KiB");
}

TEST(Units, DivisionOfSizeByRateIsTime) { EXPECT_DOUBLE_EQ((Bytes(1e9) / BytesPerSecond(2e9)).value(), 0.5); }

}  // namespace
}  // namespace dtsim::core
