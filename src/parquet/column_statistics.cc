#include "parquet/column_statistics.h"

#include <cstring>
#include <string>

#include "parquet/utf8.h"

namespace sinkd::parquet {
namespace {

template <typename T>
std::string PlainBytes(T v) {
  std::string bytes(sizeof(T), '\0');
  std::memcpy(bytes.data(), &v, sizeof(T));
  return bytes;
}

Statistics SignedOrderBounds(std::string min, std::string max) {
  Statistics s;
  s.max = max;
  s.min = min;
  s.max_value = std::move(max);
  s.min_value = std::move(min);
  s.is_max_value_exact = true;
  s.is_min_value_exact = true;
  return s;
}

}  // namespace

template <typename T>
Statistics IntegerRange<T>::ToStatistics() const {
  if (!any_) return {};
  return SignedOrderBounds(PlainBytes(min_), PlainBytes(max_));
}
template class IntegerRange<int32_t>;
template class IntegerRange<int64_t>;

Statistics DoubleRange::ToStatistics() const {
  if (!any_ || has_nan_) return {};
  // -0.0 == 0.0, so either may have won the comparisons; pin the signs so that a reader
  // comparing bounds with either zero keeps this chunk.
  const double min = min_ == 0.0 ? -0.0 : min_;
  const double max = max_ == 0.0 ? 0.0 : max_;
  return SignedOrderBounds(PlainBytes(min), PlainBytes(max));
}

Statistics BooleanRange::ToStatistics() const {
  if (!has_false_ && !has_true_) return {};
  return SignedOrderBounds(std::string(1, has_false_ ? '\0' : '\1'),
                           std::string(1, has_true_ ? '\1' : '\0'));
}

StringBound TruncatedMin(std::string_view min, size_t truncate_to, bool utf8) {
  if (min.size() <= truncate_to) return {std::string(min), true};
  // Any prefix sorts before the value; cut on a code point boundary so it stays UTF-8.
  const size_t n = utf8 ? Utf8PrefixLength(min, truncate_to) : truncate_to;
  return {std::string(min.substr(0, n)), false};
}

std::optional<StringBound> TruncatedMax(std::string_view max, size_t truncate_to, bool utf8) {
  if (max.size() <= truncate_to) return StringBound{std::string(max), true};
  if (utf8) {
    // The successor is at most one byte longer than the prefix (U+007F → U+0080, U+07FF →
    // U+0800, U+FFFF → U+10000); cut one byte early so the bound stays within the limit.
    const size_t n = Utf8PrefixLength(max, truncate_to > 1 ? truncate_to - 1 : truncate_to);
    std::optional<std::string> next = Utf8SuccessorOfPrefix(max.substr(0, n));
    if (next && !next->empty() && next->size() <= truncate_to) return StringBound{*next, false};
    if (IsValidUtf8(max)) return std::nullopt;
    // Not UTF-8 after all (a precondition broken upstream): bytes are the only order left.
  }
  // Binary: increment the last byte below 0xFF and drop what follows.
  for (size_t n = truncate_to; n > 0; --n) {
    const auto byte = static_cast<uint8_t>(max[n - 1]);
    if (byte == 0xFF) continue;
    std::string bound(max.substr(0, n));
    bound.back() = static_cast<char>(byte + 1);
    return StringBound{std::move(bound), false};
  }
  return std::nullopt;
}

Statistics StringRange::ToStatistics(size_t truncate_to, bool utf8) const {
  Statistics s;
  if (!any_) return s;
  // Strings get no legacy min/max: those are signed-order, and readers that trust them for
  // BYTE_ARRAY would compare the wrong way (PARQUET-686).
  std::optional<StringBound> max = TruncatedMax(max_, truncate_to, utf8);
  if (max) {
    s.max_value = std::move(max->bytes);
    s.is_max_value_exact = max->exact;
  }
  StringBound min = TruncatedMin(min_, truncate_to, utf8);
  s.min_value = std::move(min.bytes);
  s.is_min_value_exact = min.exact;
  return s;
}

}  // namespace sinkd::parquet
