// verify over a real compaction (the compact engine on a directory lake): healthy before, during
// the grace (inputs superseded, counted once) and after the inputs' deletion; a deleted output's
// sequences are named.
#include <gtest/gtest.h>

#include "compact/compact_test_util.h"
#include "compact/compactor.h"
#include "verify/scan.h"
#include "verify/verify.h"

namespace sinkd::verify {
namespace {

namespace fs = std::filesystem;
using compact::testutil::kDayMicros;
using compact::testutil::kDayMs;
using compact::testutil::kHourMs;
using compact::testutil::TestRow;

// One flush of 5 rows of `app` acknowledging sequences [first, first + 9].
void FlushTen(lake::Destination& lake, uint64_t first, const std::string& app) {
  std::vector<TestRow> rows;
  for (int i = 0; i < 5; ++i) {
    TestRow r;
    r.id = "e" + std::to_string(first) + "-" + std::to_string(i);
    r.time_micros = kDayMicros + static_cast<int64_t>(first) * 1'000'000 + i;
    r.app = app;
    rows.push_back(r);
  }
  lake::LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = "box-1";
  lake::LakeWriter writer(lake, options);
  row::RowBuffer batch = compact::testutil::LedgerRows(rows);
  auto report = writer.Flush(batch, {"GARM_LEDGER", first, first + 9});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
}

VerifyReport Check(lake::Destination& lake) {
  VerifyInput input;
  Status s = ScanLake(lake, "ledger", input);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return Verify(input);
}

std::string Gaps(const VerifyReport& r) {
  std::string out;
  for (const Gap& g : r.gaps) out += g.space + " " + lake::FormatRanges({g.range}) + ";";
  return out;
}

TEST(VerifyCompaction, PassesBeforeDuringAndAfterCompactionAndNamesTheSequencesOfADeletedOutput) {
  sinkd::testing::TempDir dir;
  auto lake = compact::testutil::DirLake(dir.path());
  FlushTen(*lake, 1, "web");
  for (uint64_t k = 0; k < 8; ++k) FlushTen(*lake, 11 + 10 * k, "svc");  // 8 small Parts: merged
  FlushTen(*lake, 91, "web");

  VerifyReport before = Check(*lake);
  EXPECT_TRUE(before.ok()) << Gaps(before);
  EXPECT_EQ(before.objects, 10u);
  ASSERT_EQ(before.spaces.size(), 1u);
  EXPECT_EQ(lake::FormatRanges(before.spaces[0].covered), "1-100");

  int64_t now = kDayMs + 2 * kHourMs;
  compact::Compactor compactor(*lake, compact::testutil::Options([&] { return now; }));
  auto pass = compactor.RunPass({});
  ASSERT_TRUE(pass.ok()) << pass.status().ToString();
  ASSERT_EQ(pass->outputs, 1u);
  const std::vector<std::string> outputs = compact::testutil::Outputs(dir.path());
  ASSERT_EQ(outputs.size(), 1u);

  VerifyReport during = Check(*lake);
  EXPECT_TRUE(during.ok()) << Gaps(during);
  EXPECT_EQ(during.superseded, 8u) << "the inputs await deletion";
  EXPECT_EQ(during.rows, 50u) << "their rows counted once, in the output";
  EXPECT_EQ(during.duplicate_parts, 0u);

  now = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::file_clock::to_sys(fs::last_write_time(dir / outputs[0]))
                .time_since_epoch())
            .count() +
        kHourMs + 1;
  auto deletions = compactor.RunPass({});
  ASSERT_TRUE(deletions.ok()) << deletions.status().ToString();
  ASSERT_EQ(deletions->inputs_deleted, 8u);

  VerifyReport after = Check(*lake);
  EXPECT_TRUE(after.ok()) << Gaps(after);
  // The same pass, on a clock past the day's end, merged web's two Parts too (a closed date):
  // live are the two outputs, web's inputs await their grace.
  EXPECT_EQ(after.objects - after.superseded, 2u);
  EXPECT_EQ(after.rows, 50u);
  EXPECT_EQ(lake::FormatRanges(after.spaces[0].covered), "1-100");

  fs::remove(dir / outputs[0]);
  VerifyReport lost = Check(*lake);
  EXPECT_FALSE(lost.ok());
  EXPECT_EQ(Gaps(lost), "GARM_LEDGER 11-90;") << "the output carried every stamp of 11-90";
}

// An output deleted during the grace (its inputs still there) loses nothing: they are live again.
TEST(VerifyCompaction, AnOutputDeletedDuringTheGraceLeavesItsInputsLive) {
  sinkd::testing::TempDir dir;
  auto lake = compact::testutil::DirLake(dir.path());
  for (uint64_t k = 0; k < 8; ++k) FlushTen(*lake, 1 + 10 * k, "svc");
  int64_t now = kDayMs + 2 * kHourMs;
  compact::Compactor compactor(*lake, compact::testutil::Options([&] { return now; }));
  ASSERT_TRUE(compactor.RunPass({}).ok());
  const std::vector<std::string> outputs = compact::testutil::Outputs(dir.path());
  ASSERT_EQ(outputs.size(), 1u);
  fs::remove(dir / outputs[0]);
  VerifyReport r = Check(*lake);
  EXPECT_TRUE(r.ok()) << Gaps(r);
  EXPECT_EQ(r.superseded, 0u);
  EXPECT_EQ(r.rows, 40u);
}

}  // namespace
}  // namespace sinkd::verify
