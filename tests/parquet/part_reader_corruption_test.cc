// A truncated or corrupted Part is refused, never a crash and never a wrong row: cut, zeroed or
// short-read at every section boundary (magic, page headers, page payloads, footer, its length),
// and with bytes flipped anywhere. fuzz/fuzz_parquet_reader does the same at random, under ASan.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>

#include "parquet/part_reader.h"
#include "reader_check.h"
#include "thrift_decoder.h"

namespace sinkd::parquet {
namespace {

std::string CorruptionSample() {
  const SampleTable t = MixedTable(600, 9);
  WriterOptions options;
  options.row_group_rows = 200;
  options.page_rows = 70;
  return EncodeAll(t, options);
}

// Every offset where one section of the file ends and the next begins.
std::set<size_t> Boundaries(const std::string& file) {
  std::set<size_t> out = {0, 4};
  const ThriftValue footer = DecodeFooter(file);
  for (const ThriftValue& group : footer.List(kRowGroups)) {
    for (const ThriftValue& chunk : group.List(kColumns)) {
      for (const PageInFile& page : ChunkPages(file, chunk[kMeta])) {
        out.insert(page.offset);
        out.insert(page.payload_offset);
        out.insert(page.payload_offset + page.compressed_bytes);
      }
    }
  }
  uint32_t length;
  std::memcpy(&length, file.data() + file.size() - 8, 4);
  out.insert(file.size() - 8 - length);
  out.insert(file.size() - 8);
  out.insert(file.size() - 4);
  return out;
}

struct RowGroupSpan {
  uint64_t begin = UINT64_MAX, end = 0;
};
std::vector<RowGroupSpan> Spans(const std::string& file) {
  std::vector<RowGroupSpan> spans;
  for (const ThriftValue& group : DecodeFooter(file).List(kRowGroups)) {
    RowGroupSpan s;
    for (const ThriftValue& chunk : group.List(kColumns)) {
      const ThriftValue& meta = chunk[kMeta];
      const uint64_t start = static_cast<uint64_t>(meta.Has(11) ? meta.Int(11) : meta.Int(9));
      s.begin = std::min(s.begin, start);
      s.end = std::max(s.end, start + static_cast<uint64_t>(meta.Int(7)));
    }
    spans.push_back(s);
  }
  return spans;
}

// Reads every row group; the outcome of each: "ok", or the Refuse message. Anything else fails.
std::vector<std::string> Outcomes(const ReadAt& read, uint64_t size) {
  std::vector<std::string> out;
  auto reader = PartReader::Open(read, size, "cut.parquet");
  if (!reader.ok()) {
    EXPECT_TRUE(reader.status().IsRefuse()) << reader.status().ToString();
    EXPECT_EQ(reader.status().message().rfind("cut.parquet: ", 0), 0u) << reader.status().message();
    return {reader.status().message()};
  }
  const FileFooter& footer = (*reader)->footer();
  for (size_t g = 0; g < footer.row_groups.size(); ++g) {
    auto values = (*reader)->ReadRowGroup(g);
    if (values.ok()) {
      for (const ColumnValues& v : *values) EXPECT_EQ(v.size(), footer.row_groups[g].rows);
      out.push_back("ok");
    } else {
      EXPECT_TRUE(values.status().IsRefuse()) << values.status().ToString();
      EXPECT_EQ(values.status().message().rfind("cut.parquet: ", 0), 0u) << values.status().message();
      out.push_back(values.status().message());
    }
  }
  return out;
}

ReadAt Over(const std::string& bytes) {
  return [&bytes](uint64_t offset, uint64_t length) -> Result<std::string> {
    return offset > bytes.size() ? std::string() : bytes.substr(offset, length);
  };
}

TEST(PartReaderCorruption, AFileCutAtAnySectionBoundaryIsRefused) {
  const std::string file = CorruptionSample();
  for (const size_t at : Boundaries(file)) {
    const std::string cut = file.substr(0, at);
    const std::vector<std::string> outcomes = Outcomes(Over(cut), cut.size());
    ASSERT_EQ(outcomes.size(), 1u) << "cut at " << at << " opened";
  }
}

TEST(PartReaderCorruption, DataZeroedFromAnySectionBoundaryRefusesEveryRowGroupItReaches) {
  const std::string file = CorruptionSample();
  const std::vector<RowGroupSpan> spans = Spans(file);
  const size_t data_end = spans.back().end;
  for (const size_t at : Boundaries(file)) {
    if (at < 4 || at >= data_end) continue;
    std::string zeroed = file;
    std::memset(zeroed.data() + at, 0, data_end - at);
    const std::vector<std::string> outcomes = Outcomes(Over(zeroed), zeroed.size());
    ASSERT_EQ(outcomes.size(), spans.size()) << "zeroed from " << at;
    for (size_t g = 0; g < spans.size(); ++g) {
      if (spans[g].end <= at) {
        EXPECT_EQ(outcomes[g], "ok") << "row group " << g << ", zeroed from " << at;
      } else {
        EXPECT_NE(outcomes[g], "ok") << "row group " << g << ", zeroed from " << at;
      }
    }
  }
}

TEST(PartReaderCorruption, AFileThatShrinksAfterItsFooterWasReadIsRefusedWhereItEnds) {
  // The footer was read while the file was whole; then reads past `at` come back short.
  const std::string file = CorruptionSample();
  const std::vector<RowGroupSpan> spans = Spans(file);
  for (const size_t at : Boundaries(file)) {
    if (at >= spans.back().end) continue;
    std::string current = file;
    auto reopened = PartReader::Open(
        [&current](uint64_t offset, uint64_t length) -> Result<std::string> {
          return offset > current.size() ? std::string() : current.substr(offset, length);
        },
        file.size(), "cut.parquet");
    ASSERT_TRUE(reopened.ok());
    current = file.substr(0, at);
    for (size_t g = 0; g < spans.size(); ++g) {
      auto values = (*reopened)->ReadRowGroup(g);
      if (spans[g].end <= at) {
        EXPECT_TRUE(values.ok()) << values.status().ToString();
      } else {
        ASSERT_FALSE(values.ok()) << "row group " << g << " read past " << at;
        EXPECT_NE(values.status().message().find("cut.parquet: truncated"), std::string::npos)
            << values.status().message();
      }
    }
  }
}

TEST(PartReaderCorruption, FlippedBytesAnywhereAreRefusedOrReadWithTheFootersShape) {
  // Without CRCs (sinkd and DuckDB write none) a flipped value byte inside a zstd frame can go
  // unnoticed; what must hold is a refusal or values of exactly the footer's shape, never a crash.
  const std::string file = CorruptionSample();
  std::mt19937 rng(3);
  size_t refused = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string bad = file;
    const size_t at = rng() % bad.size();
    bad[at] = static_cast<char>(bad[at] ^ (1 << (rng() % 8)));
    for (const std::string& outcome : Outcomes(Over(bad), bad.size())) refused += outcome != "ok";
  }
  EXPECT_GT(refused, 0u);
}

}  // namespace
}  // namespace sinkd::parquet
