// CopyShort stands in for memcpy in the per-value loops: each length class has its own moves, so
// every length through the memcpy cut-off is checked, at every alignment a string column gives.
#include "base/short_copy.h"

#include <gtest/gtest.h>

#include <string>

namespace sinkd {
namespace {

TEST(CopyShort, CopiesEveryLengthExactlyAndWritesNothingOutsideTheDestination) {
  std::string source(128, '\0');
  for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<char>('A' + i % 53);
  for (size_t n = 0; n <= 80; ++n) {
    for (size_t offset = 0; offset < 8; ++offset) {
      std::string destination(128, '.');
      CopyShort(destination.data() + offset, source.data() + 3 + offset, n);
      std::string expected(128, '.');
      expected.replace(offset, n, source, 3 + offset, n);
      ASSERT_EQ(destination, expected) << "length " << n << ", offset " << offset;
    }
  }
}

TEST(CopyShort, ZeroBytesTouchesNeitherPointer) {
  CopyShort(nullptr, nullptr, 0);  // an empty string's data() may be null: UBSan checks the call
}

}  // namespace
}  // namespace sinkd
