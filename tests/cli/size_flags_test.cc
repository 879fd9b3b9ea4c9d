// Sizes with units on every size flag, from the help's own list of flags, and on their keys.
#include <gtest/gtest.h>

#include <set>

#include "cli/cli_help.h"
#include "support/support.h"

namespace sinkd {
namespace {

using testing::CommandResult;
using testing::Joined;
using testing::LeafCommands;
using testing::Plus;
using testing::SinkdWithoutServers;

// Every flag that takes bytes reads "1GiB", "256MiB" and plain bytes, from the help's own list:
// each is typed SIZE, and any flag whose name says bytes must be (a new one added with a plain
// integer parser fails here). A value is accepted when the parse gets past it to the next,
// misspelt, flag; a decimal unit is refused naming the flag.
TEST(SizeFlags, EverySizeFlagOfEveryCommandTakesBinaryUnitsAndPlainBytes) {
  size_t sizes = 0;
  std::set<std::string> names;
  for (const std::vector<std::string>& leaf : LeafCommands()) {
    for (const testing::HelpFlag& flag : testing::FlagsIn(testing::HelpOf(leaf))) {
      const std::string& name = flag.names.back();
      const bool says_bytes =
          name.find("bytes") != std::string::npos || name.find("threshold") != std::string::npos;
      if (says_bytes) {
        EXPECT_EQ(flag.type, "SIZE") << Joined(leaf) << " " << name << " takes bytes as "
                                     << flag.type << ", not through the size parser";
      }
      if (flag.type != "SIZE") continue;
      ++sizes;
      names.insert(name);
      for (const char* value : {"1GiB", "256MiB", "268435456", "64 KiB", "1.5GiB"}) {
        const CommandResult r = SinkdWithoutServers(Plus(leaf, {name, value, "--next-flagg"}));
        EXPECT_NE(r.exit_code, 0) << Joined(leaf) << " " << name << " " << value;
        EXPECT_NE(r.err.find("unknown argument \"--next-flagg\""), std::string::npos)
            << Joined(leaf) << " " << name << " " << value << " was refused: " << r.err;
      }
      const CommandResult r = SinkdWithoutServers(Plus(leaf, {name, "1GB", "--next-flagg"}));
      EXPECT_NE(r.exit_code, 0) << Joined(leaf) << " " << name << " 1GB";
      EXPECT_NE(r.err.find(name + ": size \"1GB\": unknown unit \"GB\""), std::string::npos)
          << Joined(leaf) << " " << name << ": " << r.err;
    }
  }
  EXPECT_GE(sizes, 10u) << "the premise: size flags are listed as SIZE";
  for (const char* name :
       {"--batch-max-bytes", "--target-bytes", "--s3-multipart-threshold", "--small-bytes",
        "--ledger-max-bytes", "--audit-max-bytes", "--dead-max-bytes"}) {
    EXPECT_TRUE(names.count(name)) << name;
  }
}

// The unit reaches the command as bytes, from a flag and from a key of the file alike: the
// compactor's start line states its target in bytes, and a drain's limit is checked in bytes.
TEST(SizeFlags, ASizeWithAUnitReachesTheCommandAsBytesFromAFlagAndFromTheFile) {
  testing::TempDir tmp;
  const std::string lake = (tmp / "lake").string();
  CommandResult r =
      SinkdWithoutServers({"compact", "ledger", "--lake-dir", lake, "--target-bytes", "1GiB"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("\"target_bytes\":1073741824"), std::string::npos) << r.err;
  const std::string file = (tmp / "sinkd.toml").string();
  testing::WriteFile(file,
                     "[lake]\ndir = \"" + lake + "\"\n[compaction]\ntarget_bytes = \"1.5GiB\"\n");
  r = SinkdWithoutServers({"compact", "ledger", "--config", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("\"target_bytes\":1610612736"), std::string::npos) << r.err;
  testing::WriteFile(
      file, "[lake]\ndir = \"" + lake + "\"\n[drain.ledger]\nbatch_max_bytes = \"3GiB\"\n");
  r = SinkdWithoutServers({"drain", "ledger", "--config", file});
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("3221225472"), std::string::npos)
      << "3 GiB is past the 2 GiB limit: " << r.err;
}

}  // namespace
}  // namespace sinkd
