// The progress line: its figures, drawn in place on a terminal (a real pseudo-terminal here),
// and nothing at all on a pipe.
#include "base/progress.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace sinkd {
namespace {

TEST(Progress, TheLineSaysDoneOfTotalRateAndTimeLeft) {
  EXPECT_EQ(Progress::Line("import ledger", 512 << 20, 2048ull << 20, ProgressUnit::kBytes, "", 4),
            "import ledger: 512.0 MiB of 2.0 GiB (25%), 128.0 MiB/s, 12s left");
  EXPECT_EQ(Progress::Line("verify", 30, 120, ProgressUnit::kCount, "files", 10),
            "verify: 30 files of 120 files (25%), 3 files/s, 30s left");
  // An unknown total has no percentage and no time left.
  EXPECT_EQ(Progress::Line("import audit", 500, 0, ProgressUnit::kCount, "messages", 2),
            "import audit: 500 messages, 250 messages/s");
  EXPECT_EQ(Progress::Line("x", 1, 7200, ProgressUnit::kCount, "", 1), "x: 1 of 7200 (0%), 1/s, 1h59m left");
}

std::string Drain(int fd) {
  std::string out;
  char buf[4096];
  while (true) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) break;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

TEST(Progress, ATerminalGetsTheLineRedrawnInPlaceAndEndedOnce) {
  int master = -1, slave = -1;
  ASSERT_EQ(::openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  std::FILE* out = ::fdopen(slave, "w");
  ASSERT_NE(out, nullptr);
  {
    Progress p(out, "import ledger", 1000, ProgressUnit::kCount, "messages",
               std::chrono::milliseconds(0));
    EXPECT_TRUE(p.active());
    p.Update(250);
    p.Update(1000);
    p.Finish();
    p.Finish();  // once
  }
  std::fclose(out);
  const std::string seen = Drain(master);
  ::close(master);
  EXPECT_NE(seen.find("\rimport ledger: 250 messages of 1000 messages (25%)"), std::string::npos)
      << seen;
  EXPECT_NE(seen.find("\rimport ledger: 1000 messages of 1000 messages (100%)"), std::string::npos)
      << seen;
  EXPECT_NE(seen.find("\x1b[K"), std::string::npos);
  const size_t newlines = std::count(seen.begin(), seen.end(), '\n');
  EXPECT_EQ(newlines, 1u) << seen;
}

TEST(Progress, APipeGetsNothingAtAll) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::FILE* out = ::fdopen(fds[1], "w");
  {
    Progress p(out, "import ledger", 1000, ProgressUnit::kBytes, "", std::chrono::milliseconds(0));
    EXPECT_FALSE(p.active());
    p.Update(500);
    p.Finish();
  }
  std::fclose(out);
  EXPECT_EQ(Drain(fds[0]), "");
  ::close(fds[0]);
}

}  // namespace
}  // namespace sinkd
