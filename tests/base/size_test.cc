#include "base/size.h"

#include <gtest/gtest.h>

namespace sinkd {
namespace {

constexpr uint64_t kKiB = uint64_t{1} << 10, kMiB = kKiB << 10, kGiB = kMiB << 10;

// --batch-max-bytes, --target-bytes and their keys take what an operator writes; a unit read
// as the wrong power would move a limit by a factor of 1024.
TEST(Size, BinaryUnitsAndPlainBytesParseToTheirExactByteCount) {
  EXPECT_EQ(*ParseSize("268435456"), 256 * kMiB);
  EXPECT_EQ(*ParseSize("256MiB"), 256 * kMiB);
  EXPECT_EQ(*ParseSize("1GiB"), kGiB);
  EXPECT_EQ(*ParseSize("2TiB"), 2 * (kGiB << 10));
  EXPECT_EQ(*ParseSize("64KiB"), 64 * kKiB);
  EXPECT_EQ(*ParseSize("512B"), 512u);
  EXPECT_EQ(*ParseSize("0"), 0u);
  EXPECT_EQ(*ParseSize("1.5GiB"), kGiB + kGiB / 2);
  EXPECT_EQ(*ParseSize("0.5KiB"), 512u);
  EXPECT_EQ(*ParseSize(".25MiB"), 256 * kKiB);
  EXPECT_EQ(*ParseSize("64 MiB"), 64 * kMiB) << "a space before the unit, as TOML values have it";
  EXPECT_EQ(*ParseSize("1gib"), kGiB) << "letter case does not change a binary unit";
  EXPECT_EQ(*ParseSize("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(*ParseSize("16777215TiB"), (uint64_t{16777215}) << 40);
}

// A decimal unit is refused rather than read as a binary one (or as 1000s): the operator finds
// out at startup, not from a limit 7% off.
TEST(Size, DecimalUnitsAndNonsenseAreRefusedNamingTheTextAndTheUnits) {
  for (const char* bad : {"1GB", "1G", "10MB", "1kB", "5k", "1 gigabyte", "MiB", "", "-1MiB",
                          "1..5GiB", "1.5.GiB", "twelve", "1 GiB x", ".MiB", "+5"}) {
    const Result<uint64_t> r = ParseSize(bad);
    EXPECT_FALSE(r.ok()) << "'" << bad << "' parsed to " << (r.ok() ? *r : 0);
    if (!r.ok() && *bad != '\0') {
      EXPECT_NE(r.status().message().find(std::string("\"") + bad + "\""), std::string::npos)
          << r.status().message();
      EXPECT_TRUE(r.status().IsRefuse());
    }
  }
  EXPECT_NE(ParseSize("1GB").status().message().find("GiB"), std::string::npos)
      << "the refusal lists the units sinkd reads";
}

TEST(Size, ValuesThatAreNoWholeByteCountOrPast64BitsAreRefused) {
  EXPECT_FALSE(ParseSize("1.1KiB").ok()) << "1126.4 bytes";
  EXPECT_FALSE(ParseSize("0.5B").ok());
  EXPECT_FALSE(ParseSize("18446744073709551616").ok()) << "2^64";
  EXPECT_FALSE(ParseSize("16777216TiB").ok()) << "2^64";
  EXPECT_FALSE(ParseSize("99999999999999999999999GiB").ok());
  EXPECT_FALSE(ParseSize("1.0000000000001GiB").ok()) << "13 decimals";
}

// Help and `config show` print defaults with FormatSize; each must read back to itself.
TEST(Size, FormatPicksTheLargestExactUnitAndParsesBackToTheSameBytes) {
  EXPECT_EQ(FormatSize(512 * kMiB), "512MiB");
  EXPECT_EQ(FormatSize(kGiB), "1GiB");
  EXPECT_EQ(FormatSize(1536 * kKiB), "1536KiB");
  EXPECT_EQ(FormatSize(1000), "1000");
  EXPECT_EQ(FormatSize(0), "0");
  for (uint64_t bytes : {uint64_t{0}, uint64_t{1}, uint64_t{1000}, 5 * kMiB, 64 * kMiB + 1,
                         3 * kGiB, UINT64_MAX, uint64_t{1} << 63}) {
    EXPECT_EQ(*ParseSize(FormatSize(bytes)), bytes) << FormatSize(bytes);
  }
}

}  // namespace
}  // namespace sinkd
