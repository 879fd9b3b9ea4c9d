// `sinkd import` shows its progress line on a terminal (run under `script`, a real pseudo-
// terminal) and writes nothing extra when stderr is a pipe.
#include <gtest/gtest.h>

#include "support/support.h"

namespace sinkd {
namespace {

using testing::RunCommand;
using testing::SinkdBinary;
using testing::TempDir;

std::string Generated(const TempDir& dir) {
  const std::string file = (dir / "ledger.bin").string();
  auto g = RunCommand({SinkdBinary().string(), "generate", "ledger", "--messages", "300", "-o", file});
  EXPECT_EQ(g.exit_code, 0) << g.err;
  return file;
}

TEST(ProgressCli, ImportOnATerminalShowsDoneOfTotalRateAndTimeLeft) {
  TempDir dir;
  const std::string file = Generated(dir);
  // Only stderr reaches the terminal: stdout (the summary) goes to /dev/null.
  std::string cmd;
  for (const std::string& word : {SinkdBinary().string(), std::string("import"), std::string("ledger"),
                                  std::string("--lake-dir"), (dir / "lake").string(),
                                  std::string("--instance-id"), std::string("t"), file}) {
    cmd.append(1, '\'').append(word).append("' ");
  }
  cmd.append(">/dev/null");
  auto r = RunCommand({"script", "-qec", cmd, "/dev/null"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("\rimport ledger: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" (100%), "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/s, 0s left"), std::string::npos) << r.out;
}

TEST(ProgressCli, ImportWithStderrOnAPipeWritesNoProgress) {
  TempDir dir;
  const std::string file = Generated(dir);
  auto r = RunCommand({SinkdBinary().string(), "import", "ledger", "--lake-dir",
                       (dir / "lake").string(), "--instance-id", "t", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("import ledger: "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("\x1b[K"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sinkd
