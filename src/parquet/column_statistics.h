// The running min/max of one column chunk, one class per physical type, and the rules that turn it
// into the chunk's Statistics (parquet-format.md §5.2), all in one place:
//   - min_value/max_value in PLAIN bytes without a length prefix, ordered per TYPE_ORDER: signed
//     for integers and doubles, false < true, unsigned bytes (memcmp) for strings;
//   - legacy min/max (signed semantics) only for the signed-order types, never for strings;
//   - is_min/max_value_exact always written next to a bound;
//   - doubles: NaN never enters a bound, and a chunk holding a NaN gets no bounds at all (some
//     readers would prune it away on `x = 'NaN'` otherwise); a zero min is written -0.0 and a
//     zero max +0.0, so a reader comparing with either zero keeps the chunk;
//   - strings longer than the truncation limit get a shorter, inexact bound (a prefix for the
//     min; the next string after a prefix for the max), so a 1 MiB value cannot bloat the footer.
// null_count and distinct_count are the column writer's to set.
// Threads: one thread at a time.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string_view>

#include "parquet/metadata.h"

namespace sinkd::parquet {

// int32 and int64 (timestamps included).
template <typename T>
class IntegerRange {
 public:
  void Update(T v) {
    min_ = v < min_ ? v : min_;
    max_ = v > max_ ? v : max_;
    any_ = true;
  }
  void Update(std::span<const T> values) {
    T lo = min_, hi = max_;
    for (T v : values) {
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    min_ = lo;
    max_ = hi;
    any_ = any_ || !values.empty();
  }
  Statistics ToStatistics() const;

 private:
  T min_ = std::numeric_limits<T>::max();
  T max_ = std::numeric_limits<T>::lowest();
  bool any_ = false;
};

class DoubleRange {
 public:
  void Update(double v) {
    if (v != v) {
      has_nan_ = true;
      return;
    }
    min_ = v < min_ ? v : min_;
    max_ = v > max_ ? v : max_;
    any_ = true;
  }
  void Update(std::span<const double> values) {
    for (double v : values) Update(v);
  }
  Statistics ToStatistics() const;

 private:
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
  bool any_ = false;
  bool has_nan_ = false;
};

class BooleanRange {
 public:
  void Update(bool v) { (v ? has_true_ : has_false_) = true; }
  Statistics ToStatistics() const;

 private:
  bool has_false_ = false;
  bool has_true_ = false;
};

// Keeps views of the chunk's own values: valid while the data being encoded is.
class StringRange {
 public:
  void Update(std::string_view v) {
    if (!any_) {
      min_ = max_ = v;
      any_ = true;
      return;
    }
    // string_view compares as unsigned bytes (char_traits<char>::compare is memcmp): PARQUET-686
    // was exactly the bug of comparing them signed.
    if (v < min_) min_ = v;
    if (v > max_) max_ = v;
  }
  // `utf8`: bounds must stay valid UTF-8 (STRING columns), so truncation respects code points.
  Statistics ToStatistics(size_t truncate_to, bool utf8) const;

 private:
  std::string_view min_;
  std::string_view max_;
  bool any_ = false;
};

// The bounds truncation produces; exposed for tests.
struct StringBound {
  std::string bytes;
  bool exact = true;
};
StringBound TruncatedMin(std::string_view min, size_t truncate_to, bool utf8);
// nullopt when no bound shorter than the limit exists (e.g. all 0xFF bytes): write no max.
std::optional<StringBound> TruncatedMax(std::string_view max, size_t truncate_to, bool utf8);

}  // namespace sinkd::parquet
