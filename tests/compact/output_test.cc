// Output names are a function of the inputs; the footer's metadata is the design's, in order.
#include "compact/output.h"

#include <gtest/gtest.h>

#include "compact/id_set.h"
#include "row/ledger_columns.h"
#include "table/footer.h"
#include "table/key.h"

namespace sinkd::compact {
namespace {

TEST(OutputNaming, TheSameInputsInAnyOrderGiveTheSameName) {
  const std::string a = MergeHash({{"p/part-1.parquet", 10}, {"p/part-2.parquet", 20}});
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(a, MergeHash({{"p/part-2.parquet", 20}, {"p/part-1.parquet", 10}}));
  EXPECT_NE(a, MergeHash({{"p/part-1.parquet", 10}, {"p/part-2.parquet", 21}}));
  EXPECT_NE(a, MergeHash({{"p/part-1.parquet", 10}}));
  EXPECT_NE(a, MergeHash({{"p/part-1.parquet", 10, "v2"}, {"p/part-2.parquet", 20}}))
      << "a key re-created with the same size is another input";
  EXPECT_EQ(table::CompactionOutputKey("p", a, 0, 1), "p/compact-" + a + ".parquet");
  EXPECT_EQ(table::CompactionOutputKey("p", a, 2, 3), "p/compact-" + a + "-2.parquet");
}

TEST(OutputFooter, TheMetadataIsTheDesignsInItsOrder) {
  std::vector<std::string> stamps;
  ASSERT_TRUE(AppendStamps(R"([{"n":1,"k":"b"}])", stamps).ok());
  ASSERT_TRUE(AppendStamps(R"([{"n":0,"k":"a"},{"n":1,"k":"b"}])", stamps).ok());
  SortUnique(stamps);
  ASSERT_EQ(stamps.size(), 2u);
  const std::vector<InputRef> inputs = {{"p/b.parquet", 7, "e2"}, {"p/a.parquet", 5, "e1"}};
  auto kv = OutputMetadata(row::kLedgerColumns, inputs, stamps, {10, 7, 3, 2, 1}, 0);
  ASSERT_EQ(kv.size(), 6u);
  EXPECT_EQ(kv[0], (parquet::KeyValue{"sinkd.table", "ledger"}));
  EXPECT_EQ(kv[1].first, "sinkd.schema_version");
  EXPECT_EQ(kv[2], (parquet::KeyValue{"sinkd.source", "compact"}));
  EXPECT_EQ(kv[3], (parquet::KeyValue{"sinkd.supersedes",
                                      R"([{"key":"p/a.parquet","size":5,"version":"e1"},)"
                                      R"({"key":"p/b.parquet","size":7,"version":"e2"}])"}));
  EXPECT_EQ(kv[4], (parquet::KeyValue{"sinkd.stamps", R"([{"k":"a","n":0},{"k":"b","n":1}])"}));
  EXPECT_EQ(kv[5].second,
            R"({"rows_in":10,"rows_out":7,"duplicates_dropped":3,"inputs":2,"outputs":1,"index":0})");
  auto back = table::ParseSupersedes(kv[3].second);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, (std::vector<table::SupersededObject>{{"p/a.parquet", 5, "e1"},
                                                         {"p/b.parquet", 7, "e2"}}));
  // An output written before versions were recorded: its keys, matching no object.
  auto old = table::ParseSupersedes(R"(["p/a.parquet"])");
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(*old, (std::vector<table::SupersededObject>{{"p/a.parquet", 0, ""}}));
  EXPECT_FALSE(table::ParseSupersedes("{").ok());
  EXPECT_FALSE(table::ParseSupersedes("[1]").ok());
  EXPECT_FALSE(table::ParseSupersedes(R"([{"key":"p/a.parquet","size":5}])").ok());
}

TEST(IdSetTest, RemembersEveryIdOnceThroughGrowth) {
  IdSet set;
  for (int i = 0; i < 5000; ++i) EXPECT_TRUE(set.Insert("id-" + std::to_string(i)));
  for (int i = 0; i < 5000; ++i) EXPECT_FALSE(set.Insert("id-" + std::to_string(i)));
  EXPECT_EQ(set.size(), 5000u);
  EXPECT_TRUE(set.Insert(""));
  EXPECT_FALSE(set.Insert(""));
}

}  // namespace
}  // namespace sinkd::compact
