#include "parquet/column_statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace sinkd::parquet {
namespace {

template <typename T>
T As(const std::optional<std::string>& bytes) {
  T v{};
  EXPECT_TRUE(bytes.has_value());
  if (bytes && bytes->size() == sizeof(T)) std::memcpy(&v, bytes->data(), sizeof(T));
  return v;
}

// INT64 extremes are where a sentinel-based min/max goes wrong; legacy and current must agree.
TEST(ColumnStatistics, Int64ExtremesAreExactBoundsInBothFieldPairs) {
  IntegerRange<int64_t> range;
  range.Update(std::span<const int64_t>(std::vector<int64_t>{0, INT64_MAX, -5, INT64_MIN}));
  const Statistics s = range.ToStatistics();
  EXPECT_EQ(As<int64_t>(s.min_value), INT64_MIN);
  EXPECT_EQ(As<int64_t>(s.max_value), INT64_MAX);
  EXPECT_EQ(s.min, s.min_value) << "legacy min/max are written for signed-order types";
  EXPECT_EQ(s.max, s.max_value);
  EXPECT_EQ(s.is_min_value_exact, true);
  EXPECT_EQ(s.is_max_value_exact, true);
}

// Pre-1970 timestamps are negative int64s: signed order, never unsigned.
TEST(ColumnStatistics, NegativeTimestampsUseSignedOrder) {
  IntegerRange<int64_t> range;
  range.Update(-86'400'000'000LL);
  range.Update(1'700'000'000'000'000LL);
  range.Update(-1);
  const Statistics s = range.ToStatistics();
  EXPECT_EQ(As<int64_t>(s.min_value), -86'400'000'000LL);
  EXPECT_EQ(As<int64_t>(s.max_value), 1'700'000'000'000'000LL);
}

// An INT32 bound written as 8 bytes would be misread (DuckDB checks the size).
TEST(ColumnStatistics, Int32BoundsAreFourBytes) {
  IntegerRange<int32_t> range;
  range.Update(std::span<const int32_t>(std::vector<int32_t>{7, -3}));
  const Statistics s = range.ToStatistics();
  ASSERT_TRUE(s.min_value.has_value());
  EXPECT_EQ(s.min_value->size(), 4u);
  EXPECT_EQ(As<int32_t>(s.min_value), -3);
  EXPECT_EQ(As<int32_t>(s.max_value), 7);
}

// A NaN anywhere drops the bounds: a reader trusting [min, max] would otherwise skip the chunk
// for a NaN lookup, and NaN must never be a bound itself.
TEST(ColumnStatistics, ADoubleChunkWithANanHasNoBounds) {
  DoubleRange range;
  range.Update(1.0);
  range.Update(std::nan(""));
  range.Update(2.0);
  const Statistics s = range.ToStatistics();
  EXPECT_FALSE(s.min_value.has_value());
  EXPECT_FALSE(s.max_value.has_value());
  EXPECT_FALSE(s.min.has_value());
  EXPECT_FALSE(s.max.has_value());
}

// ±0 compare equal, so a zero bound is widened to both: min -0.0, max +0.0.
TEST(ColumnStatistics, AZeroMinIsNegativeZeroAndAZeroMaxIsPositiveZero) {
  DoubleRange only_zeros;
  only_zeros.Update(0.0);
  only_zeros.Update(-0.0);
  Statistics s = only_zeros.ToStatistics();
  EXPECT_TRUE(std::signbit(As<double>(s.min_value)));
  EXPECT_FALSE(std::signbit(As<double>(s.max_value)));
  DoubleRange positive_zero_min;
  positive_zero_min.Update(0.0);
  positive_zero_min.Update(3.5);
  s = positive_zero_min.ToStatistics();
  EXPECT_TRUE(std::signbit(As<double>(s.min_value))) << "+0.0 as min is written -0.0";
  EXPECT_EQ(As<double>(s.max_value), 3.5);
}

// ±inf are ordered values, not NaN-like: dropping them would lose pruning for no reason.
TEST(ColumnStatistics, InfinitiesAreOrdinaryDoubleBounds) {
  DoubleRange range;
  range.Update(-std::numeric_limits<double>::infinity());
  range.Update(1.0);
  range.Update(std::numeric_limits<double>::infinity());
  const Statistics s = range.ToStatistics();
  EXPECT_EQ(As<double>(s.min_value), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(As<double>(s.max_value), std::numeric_limits<double>::infinity());
}

// Boolean bounds are one byte, false < true; an all-true chunk must not claim a false min.
TEST(ColumnStatistics, BooleansOrderFalseBeforeTrue) {
  BooleanRange only_true;
  only_true.Update(true);
  Statistics s = only_true.ToStatistics();
  EXPECT_EQ(s.min_value, std::string(1, '\1'));
  EXPECT_EQ(s.max_value, std::string(1, '\1'));
  BooleanRange both;
  both.Update(true);
  both.Update(false);
  s = both.ToStatistics();
  EXPECT_EQ(s.min_value, std::string(1, '\0'));
  EXPECT_EQ(s.max_value, std::string(1, '\1'));
}

// PARQUET-686: bytes ≥ 0x80 must sort after ASCII (unsigned), and strings get no legacy fields.
TEST(ColumnStatistics, StringsCompareAsUnsignedBytesAndHaveNoLegacyBounds) {
  StringRange range;
  range.Update("zebra");
  range.Update("\xC3\xA9t\xC3\xA9");  // "été": 0xC3 > 'z' unsigned, < 'a' if signed
  range.Update("apple");
  const Statistics s = range.ToStatistics(64, true);
  EXPECT_EQ(s.min_value, "apple");
  EXPECT_EQ(s.max_value, "\xC3\xA9t\xC3\xA9");
  EXPECT_FALSE(s.min.has_value());
  EXPECT_FALSE(s.max.has_value());
  EXPECT_EQ(s.is_max_value_exact, true);
}

// A 1 MiB string must not put 2 MiB into the footer: both bounds shrink to the limit, inexact.
TEST(ColumnStatistics, AHugeStringIsTruncatedToTheLimitWithInexactBounds) {
  const std::string huge(1 << 20, 'q');
  StringRange range;
  range.Update(huge);
  const Statistics s = range.ToStatistics(64, true);
  ASSERT_TRUE(s.min_value && s.max_value);
  EXPECT_EQ(*s.min_value, std::string(64, 'q'));
  EXPECT_EQ(*s.max_value, std::string(62, 'q') + "r") << "prefix, last code point incremented";
  EXPECT_EQ(s.is_min_value_exact, false);
  EXPECT_EQ(s.is_max_value_exact, false);
  EXPECT_LT(*s.min_value, huge);
  EXPECT_GT(*s.max_value, huge) << "the truncated max must still bound the value";
}

// Cutting inside a multi-byte character would produce invalid UTF-8 in the footer.
TEST(ColumnStatistics, TruncationRespectsCodePointBoundaries) {
  std::string text(63, 'a');
  text += "\xC3\xA9\xC3\xA9";  // é é: the 64th byte is inside the first é
  const StringBound min = TruncatedMin(text, 64, true);
  EXPECT_EQ(min.bytes, std::string(63, 'a'));
  EXPECT_FALSE(min.exact);
  const std::optional<StringBound> max = TruncatedMax(text, 64, true);
  ASSERT_TRUE(max.has_value());
  EXPECT_EQ(max->bytes, std::string(62, 'a') + "b");
  EXPECT_GT(max->bytes, text);
}

// All U+10FFFF has no shorter upper bound: writing none is correct, writing a prefix is not.
TEST(ColumnStatistics, AMaxWithNoShorterUpperBoundIsOmitted) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "\xF4\x8F\xBF\xBF";
  EXPECT_FALSE(TruncatedMax(text, 64, true).has_value());
  StringRange range;
  range.Update(text);
  const Statistics s = range.ToStatistics(64, true);
  EXPECT_FALSE(s.max_value.has_value());
  EXPECT_TRUE(s.min_value.has_value()) << "the min is still a valid prefix";
}

// Binary (non-UTF-8) columns increment the last byte below 0xFF.
TEST(ColumnStatistics, BinaryTruncationIncrementsTheLastByteBelowFF) {
  std::string bytes(70, '\xFF');
  bytes[10] = '\x10';
  const std::optional<StringBound> max = TruncatedMax(bytes, 64, false);
  ASSERT_TRUE(max.has_value());
  EXPECT_EQ(max->bytes, std::string(10, '\xFF') + "\x11");
  EXPECT_FALSE(TruncatedMax(std::string(70, '\xFF'), 64, false).has_value());
  const StringBound short_value = TruncatedMin("abc", 64, false);
  EXPECT_TRUE(short_value.exact);
  EXPECT_EQ(short_value.bytes, "abc");
}

}  // namespace
}  // namespace sinkd::parquet
