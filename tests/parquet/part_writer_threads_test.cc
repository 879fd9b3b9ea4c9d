// PartWriter on a WorkPool: a row group's chunks encoded on several threads give the bytes one
// thread gives, whatever the row order, and the refusals still name the table's row.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "base/work_pool.h"
#include "reader_check.h"
#include "support/support.h"

namespace sinkd::parquet {
namespace {

std::string Encode(const SampleTable& t, const std::vector<uint32_t>& rows,
                   const WriterOptions& options, WorkPool* pool) {
  MemoryOutputStream out;
  PartWriter writer(t.schema(), options, out, pool);
  EXPECT_TRUE(writer.WriteRows(t.View(), rows).ok());
  const std::vector<KeyValue> metadata = {{"k", "v"}};
  EXPECT_TRUE(writer.Finish(metadata).ok());
  return out.Release();
}

// The contract the lake's flush relies on: the Part's bytes never depend on --encode-threads.
// Rows in arrival order (contiguous: no copy) and shuffled (each chunk gathered first), several
// row groups, 1, 2 and 4 pool threads against no pool at all.
TEST(PartWriterThreads, APartsBytesAreTheSameWithoutAPoolAndOnOneTwoOrFourThreads) {
  const SampleTable t = MixedTable(5000, 3);
  WriterOptions options;
  options.row_group_rows = 1200;
  std::vector<uint32_t> shuffled = t.AllRows();
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(7));
  for (const auto& rows : {t.AllRows(), shuffled}) {
    const std::string alone = Encode(t, rows, options, nullptr);
    ASSERT_GT(alone.size(), 1000u);
    for (size_t threads : {1, 2, 4}) {
      WorkPool pool(threads);
      EXPECT_EQ(Encode(t, rows, options, &pool), alone) << threads << " threads";
    }
  }
  // And what was gathered reads back as the rows asked for, in their order.
  testing::TempDir tmp;
  ASSERT_TRUE(WriteParquet(t, shuffled, options, tmp / "shuffled.parquet").ok());
  EXPECT_TRUE(SameRows(t, shuffled, ReadWithDuckDb(t.schema(), tmp / "shuffled.parquet")));
}

// The chunk is encoded from a gathered copy of its rows; a refusal must still name the row of
// the table the caller gave, not the copy's.
TEST(PartWriterThreads, InvalidUtf8InAGatheredChunkIsRejectedNamingTheTablesRow) {
  SampleTable t({{"s", PhysicalType::kByteArray, Annotation::kString}});
  for (int r = 0; r < 100; ++r) {
    t.String(0, r == 57 ? "bad \xC3" : Numbered("unique-", r));
    t.EndRow();
  }
  std::vector<uint32_t> rows = t.AllRows();
  std::reverse(rows.begin(), rows.end());
  WorkPool pool(2);
  MemoryOutputStream out;
  PartWriter writer(t.schema(), WriterOptions{}, out, &pool);
  const Status s = writer.WriteRows(t.View(), rows);
  EXPECT_TRUE(s.IsReject()) << s.ToString();
  EXPECT_NE(s.message().find("row 57"), std::string::npos) << s.message();
  writer.Abandon();
}

}  // namespace
}  // namespace sinkd::parquet
