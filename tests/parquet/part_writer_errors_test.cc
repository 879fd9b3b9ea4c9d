// Failure behaviour of PartWriter: refusals before any byte, rejections of unreadable input, and
// the sticky first error (later calls do nothing and return it).
#include <sys/mman.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reader_check.h"

namespace sinkd::parquet {
namespace {

SampleTable Strings(const std::vector<std::string>& values, Annotation annotation) {
  SampleTable t({{"s", PhysicalType::kByteArray, annotation}});
  for (const std::string& v : values) {
    t.String(0, v);
    t.EndRow();
  }
  return t;
}

// DuckDB refuses a whole file over one invalid UTF-8 value in a STRING column, so the writer
// must reject it (naming column and row) instead of poisoning a partition. Both the dictionary
// path (few distinct values) and the PLAIN path must check.
TEST(PartWriterErrors, InvalidUtf8InAStringColumnIsRejectedNamingTheRow) {
  std::vector<std::string> dictionary_values(100, "ok");
  dictionary_values[57] = "bad \xC3";
  std::vector<std::string> plain_values;
  for (int i = 0; i < 100; ++i) plain_values.push_back(Numbered("unique-", i));
  plain_values[57] = "bad \xC3";
  for (const auto* values : {&dictionary_values, &plain_values}) {
    const SampleTable t = Strings(*values, Annotation::kString);
    MemoryOutputStream out;
    PartWriter writer(t.schema(), WriterOptions{}, out);
    const Status s = writer.WriteRows(t.View(), t.AllRows());
    EXPECT_TRUE(s.IsReject()) << s.ToString();
    EXPECT_NE(s.message().find("column s"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("row 57"), std::string::npos) << s.message();
    writer.Abandon();
  }
}

// A BYTE_ARRAY without the STRING annotation is binary: any bytes are fine.
TEST(PartWriterErrors, BinaryColumnsAcceptBytesThatAreNotUtf8) {
  const SampleTable t = Strings({"\xFF\xFE", "\xC3", ""}, Annotation::kNone);
  EXPECT_TRUE(EncodeParquet(t, t.AllRows(), WriterOptions{}).ok());
}

// The first error sticks: later WriteRows and Finish return it and write nothing more, so the
// caller checks once.
TEST(PartWriterErrors, TheFirstErrorSticksAndLaterCallsWriteNothing) {
  const SampleTable bad = Strings({"x", "\xC3"}, Annotation::kString);
  const SampleTable good = Strings({"y"}, Annotation::kString);
  MemoryOutputStream out;
  PartWriter writer(bad.schema(), WriterOptions{}, out);
  const Status first = writer.WriteRows(bad.View(), bad.AllRows());
  ASSERT_TRUE(first.IsReject()) << "premise";
  const size_t bytes_after_error = out.data().size();
  EXPECT_EQ(writer.WriteRows(good.View(), good.AllRows()).message(), first.message());
  EXPECT_EQ(writer.Finish({}).message(), first.message());
  EXPECT_EQ(writer.status().message(), first.message());
  EXPECT_EQ(out.data().size(), bytes_after_error) << "nothing written after the error";
  writer.Abandon();
}

// A schema the writer cannot encode is refused at the first call, before any byte is written.
TEST(PartWriterErrors, ASchemaTheWriterCannotEncodeIsRefusedBeforeAnyByte) {
  const std::vector<Schema> bad = {
      {},
      {{"a", PhysicalType::kInt32}, {"a", PhysicalType::kInt64}},
      {{"", PhysicalType::kInt32}},
      {{"a", PhysicalType::kInt64, Annotation::kString}},
      {{"a", PhysicalType::kByteArray, Annotation::kTimestampMicrosUtc}},
      {{"a", PhysicalType::kBoolean, Annotation::kNone, -1, /*bloom_filter=*/true}},
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    MemoryOutputStream out;
    PartWriter writer(bad[i], WriterOptions{}, out);
    EXPECT_TRUE(writer.status().IsRefuse()) << "schema " << i;
    EXPECT_TRUE(writer.Finish({}).IsRefuse()) << "schema " << i;
    EXPECT_TRUE(out.data().empty()) << "schema " << i;
    writer.Abandon();
  }
  WriterOptions zero_rows;
  zero_rows.row_group_rows = 0;
  MemoryOutputStream out;
  PartWriter writer({{"a", PhysicalType::kInt32}}, zero_rows, out);
  EXPECT_TRUE(writer.status().IsRefuse()) << "row_group_rows = 0 would loop forever";
  writer.Abandon();
}

// A table that does not match the schema is a bug in the caller: Internal, and no bytes.
TEST(PartWriterErrors, ATableThatDoesNotMatchTheSchemaIsAnInternalError) {
  const Schema schema = {{"n", PhysicalType::kInt64}};
  const std::vector<int64_t> values = {1, 2, 3};
  const std::vector<int32_t> wrong_type = {1, 2, 3};
  const std::vector<TableView> tables = {
      TableView{{}, 3},                                                     // no columns
      TableView{{std::span<const int32_t>(wrong_type)}, 3},                // wrong type
      TableView{{std::span<const int64_t>(values).first(2)}, 3},           // too short
  };
  const std::vector<uint32_t> rows = {0, 1, 2};
  for (size_t i = 0; i < tables.size(); ++i) {
    MemoryOutputStream out;
    PartWriter writer(schema, WriterOptions{}, out);
    EXPECT_TRUE(writer.WriteRows(tables[i], rows).IsInternal()) << "table " << i;
    EXPECT_TRUE(out.data().empty()) << "table " << i;
    writer.Abandon();
  }
  MemoryOutputStream out;
  PartWriter writer(schema, WriterOptions{}, out);
  const std::vector<uint32_t> past_the_end = {0, 3};
  EXPECT_TRUE(writer.WriteRows(TableView{{std::span<const int64_t>(values)}, 3}, past_the_end)
                  .IsInternal());
  writer.Abandon();
}

// A string column's offsets are 32-bit: a column of more bytes than they address (a batch that
// closed too late) is refused naming the column, before any byte, instead of being written with
// wrapped offsets. The 4 GiB are zero pages of an anonymous mapping: no memory is used.
TEST(PartWriterErrors, AStringColumnPastTheOffsetLimitIsRefusedNamingIt) {
  const size_t size = size_t{UINT32_MAX} + 2;
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  const std::vector<uint32_t> offsets = {0, 1, 2};
  const Schema schema = {{"n", PhysicalType::kInt64}, {"app", PhysicalType::kByteArray,
                                                       Annotation::kString}};
  const std::vector<int64_t> numbers = {1, 2};
  const TableView table{
      {std::span<const int64_t>(numbers),
       StringArray{std::span<const uint32_t>(offsets),
                   std::string_view(static_cast<const char*>(p), size)}},
      2};
  MemoryOutputStream out;
  PartWriter writer(schema, WriterOptions{}, out);
  const Status s = writer.WriteRows(table, std::vector<uint32_t>{0, 1});
  EXPECT_TRUE(s.IsRefuse()) << s.ToString();
  EXPECT_NE(s.message().find("column app holds 4294967297 bytes"), std::string::npos)
      << s.ToString();
  EXPECT_TRUE(out.data().empty());
  writer.Abandon();
  munmap(p, size);
}

// A stream failure (disk full, upload refused) is returned as the stream said it, and sticks.
TEST(PartWriterErrors, AStreamFailureIsReturnedAndSticks) {
  class FailingStream final : public OutputStream {
   public:
    Status Append(std::span<const uint8_t> bytes) override {
      if (appended_ + bytes.size() > 100) return Status::Retry("disk full");
      appended_ += bytes.size();
      return Status::OK();
    }
    size_t appended_ = 0;
  } out;
  const SampleTable t = MixedTable(500, 2);
  PartWriter writer(t.schema(), WriterOptions{}, out);
  const Status s = writer.WriteRows(t.View(), t.AllRows());
  EXPECT_TRUE(s.IsRetry()) << s.ToString();
  EXPECT_NE(s.message().find("disk full"), std::string::npos);
  EXPECT_TRUE(writer.Finish({}).IsRetry());
  writer.Abandon();
}

// Finish closes the Part: nothing may be appended after the footer.
TEST(PartWriterErrors, WriteRowsAfterFinishIsRefusedAndAppendsNothing) {
  const SampleTable t = Strings({"a"}, Annotation::kString);
  MemoryOutputStream out;
  PartWriter writer(t.schema(), WriterOptions{}, out);
  ASSERT_TRUE(writer.WriteRows(t.View(), t.AllRows()).ok());
  ASSERT_TRUE(writer.Finish({}).ok());
  const size_t size = out.data().size();
  EXPECT_FALSE(writer.WriteRows(t.View(), t.AllRows()).ok());
  EXPECT_EQ(out.data().size(), size);
}

}  // namespace
}  // namespace sinkd::parquet
