// The Thrift compact decoder on hostile input: what it may allocate is bounded by a budget charged
// before allocating, and nesting (of lists as of structs) by a depth, so a footer crafted to cost
// gigabytes or to run the recursion off the stack is refused with a message instead.
#include <gtest/gtest.h>

#include "parquet/part_reader.h"
#include "parquet/thrift_compact_reader.h"
#include "reader_check.h"
#include "support/support.h"

namespace sinkd::parquet {
namespace {

// A struct whose field 1 is a list of `n` one-byte (i8) elements: n + ~6 bytes on the wire.
std::string StructWithByteList(uint64_t n) {
  std::string out = "\x19";  // field 1 (delta 1), a list
  out.push_back('\xF3');     // of i8, its size in a varint
  for (uint64_t v = n; ; v >>= 7) {
    out.push_back(static_cast<char>((v & 0x7F) | (v >= 0x80 ? 0x80 : 0)));
    if (v < 0x80) break;
  }
  out.append(n, '\0');
  out.push_back('\0');  // stop
  return out;
}

// A struct whose field 1 is a list of one list of one list … `depth` deep: ~1 byte per level.
std::string StructWithNestedLists(int depth) {
  std::string out = "\x19";                // field 1, a list
  out.append(depth, '\x19');               // each: one element, itself a list
  out.push_back('\x03');                   // the innermost: no elements (of i8)
  out.push_back('\0');                     // stop
  return out;
}

// A list of one-byte elements costs ~100 decoded bytes per wire byte: a budget smaller than that
// refuses it, saying it is about memory; a budget that covers it decodes it whole.
TEST(ThriftCompactReader, AListThatWouldTakeMoreThanTheBudgetIsRefusedBeforeItIsAllocated) {
  const std::string bytes = StructWithByteList(100'000);
  Result<ThriftValue> refused = DecodeThriftStruct(bytes, nullptr, 1 << 20);
  ASSERT_FALSE(refused.ok()) << "100,000 decoded values do not fit in 1 MiB";
  EXPECT_TRUE(refused.status().IsRefuse()) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("more than 1 MiB of memory"), std::string::npos)
      << refused.status().ToString();
  size_t consumed = 0;
  Result<ThriftValue> decoded = DecodeThriftStruct(bytes, &consumed, 64 << 20);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->List(1).size(), 100'000u);
  EXPECT_EQ(consumed, bytes.size());
}

// The budget counts every value, not only lists: a struct of many fields and long strings is
// charged too (a hostile footer could otherwise spread its cost over fields instead).
TEST(ThriftCompactReader, StringsAndFieldsAreChargedAgainstTheBudgetToo) {
  std::string bytes;
  for (int i = 0; i < 14; ++i) {
    bytes.push_back('\x18');  // the next field id, a binary
    bytes += "\x80\x80\x04";  // of 65,536 bytes
    bytes.append(65'536, 'x');
  }
  bytes.push_back('\0');
  EXPECT_FALSE(DecodeThriftStruct(bytes, nullptr, 512 << 10).ok())
      << "14 strings of 64 KiB do not fit in 512 KiB";
  EXPECT_TRUE(DecodeThriftStruct(bytes, nullptr, 2 << 20).ok());
}

// Lists inside lists count as nesting: 100,000 levels (100 KB of input) once recursed that deep
// and crashed on the stack; past kMaxThriftDepth it is a refusal.
TEST(ThriftCompactReader, ListsNestedPastTheDepthLimitAreRefusedNotRecursedInto) {
  Result<ThriftValue> deep = DecodeThriftStruct(StructWithNestedLists(100'000));
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("nested too deep"), std::string::npos)
      << deep.status().ToString();
  EXPECT_TRUE(DecodeThriftStruct(StructWithNestedLists(kMaxThriftDepth - 2)).ok())
      << "a few levels of lists are legitimate";
}

// The footer of a Part with many row groups stays inside the default budget (measured: ~47 bytes
// per footer byte, 62 MB for these 2,000 row groups): the budget refuses hostile footers, not
// large honest ones.
TEST(ThriftCompactReader, TheFooterOfAPartOfTwoThousandRowGroupsDecodesWithinTheBudget) {
  const SampleTable t = MixedTable(2000, 3);
  WriterOptions options;
  options.row_group_rows = 1;
  Result<std::string> bytes = EncodeParquet(t, t.AllRows(), options);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  uint32_t length = 0;
  std::memcpy(&length, bytes->data() + bytes->size() - 8, 4);
  const std::string_view footer = std::string_view(*bytes).substr(bytes->size() - 8 - length, length);
  EXPECT_FALSE(DecodeThriftStruct(footer, nullptr, 16 << 20).ok())
      << "the premise: a footer that takes real memory (" << length << " bytes)";
  EXPECT_TRUE(DecodeThriftStruct(footer, nullptr).ok())
      << "2,000 row groups must fit the default budget";
}

// A whole file whose footer carries 63 Mi one-byte list elements (just under the 64 MiB a footer
// may have): a ~6 GiB tree before the budget; now the file is refused by name, and what is
// refused is the memory, not the format.
TEST(ReadFooter, AFooterThatWouldTakeGigabytesToDecodeIsRefusedNamingTheFile) {
  const SampleTable t = MixedTable(10, 1);
  Result<std::string> part = EncodeParquet(t, t.AllRows(), WriterOptions{});
  ASSERT_TRUE(part.ok()) << part.status().ToString();
  const std::string hostile = sinkd::testing::WithLongFooterList(*part, 63u << 20);
  ASSERT_FALSE(hostile.empty());
  const ReadAt read = [&hostile](uint64_t offset, uint64_t length) -> Result<std::string> {
    return hostile.substr(std::min<uint64_t>(offset, hostile.size()), length);
  };
  Result<FileFooter> footer = ReadFooter(read, hostile.size(), "ledger/x/part-hostile.parquet");
  ASSERT_FALSE(footer.ok());
  EXPECT_TRUE(footer.status().IsRefuse());
  EXPECT_NE(footer.status().message().find("ledger/x/part-hostile.parquet"), std::string::npos)
      << footer.status().ToString();
  EXPECT_NE(footer.status().message().find("of memory"), std::string::npos)
      << footer.status().ToString();
  // The same extra field, short, is skipped like any unknown field: the file reads as before.
  const std::string benign = sinkd::testing::WithLongFooterList(*part, 1000);
  const ReadAt read_benign = [&benign](uint64_t offset, uint64_t length) -> Result<std::string> {
    return benign.substr(std::min<uint64_t>(offset, benign.size()), length);
  };
  Result<FileFooter> ok = ReadFooter(read_benign, benign.size(), "benign");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->rows, 10u);
}

}  // namespace
}  // namespace sinkd::parquet
