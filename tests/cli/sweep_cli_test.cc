// `sinkd sweep` through the binary: --dry-run names the stale temporary files and removes nothing;
// the same command without it removes them and only them.
#include <gtest/gtest.h>

#include "cli/cli_help.h"

namespace sinkd {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::SinkdWithoutServers;
using testing::TempDir;
using testing::WriteFile;

TEST(SweepCli, DryRunNamesWhatWouldGoAndRemovesNothing) {
  TempDir tmp;
  const fs::path dir = tmp / "lake/ledger/date=2026-09-29/app=a";
  const fs::path stale = dir / "part-x-1-1-0.parquet.0123456789abcdef.incomplete";
  const fs::path young = dir / "part-x-2-2-0.parquet.fedcba9876543210.incomplete";
  const fs::path part = dir / "part-x-3-3-0.parquet";
  for (const fs::path& f : {stale, young, part}) WriteFile(f, "bytes");
  fs::last_write_time(stale, fs::file_time_type::clock::now() - std::chrono::hours(2));
  const std::string lake = (tmp / "lake").string();
  CommandResult r = SinkdWithoutServers({"sweep", "--lake-dir", lake, "--dry-run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("would remove " + stale.string() + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("would remove 1 stale .incomplete file(s); kept 1 younger than 1h; "
                       "nothing was removed (--dry-run)"),
            std::string::npos)
      << r.out;
  for (const fs::path& f : {stale, young, part}) EXPECT_TRUE(fs::exists(f)) << f;
  r = SinkdWithoutServers({"sweep", "--lake-dir", lake});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("removed " + stale.string() + "\n"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(young));
  EXPECT_TRUE(fs::exists(part));
}

}  // namespace
}  // namespace sinkd
