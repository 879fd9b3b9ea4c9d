// Two compactors doing the same merge at once on a directory lake, small enough for the default
// suite (the scenario: compact_race.h; the 200k-event run: tests/cli/slow).
#include "cli/compact_race.h"

namespace sinkd {
namespace {

TEST(CompactRace, TwoCompactorsWritingOneOutputAtOnceLeaveEveryFileReadableAndEveryRow) {
  testing::ExpectTwoCompactorsOfOneMergeLoseNothing(40'000, /*kill_first_mid_write=*/false);
}

TEST(CompactRace, ACompactorKilledWhileAnotherWritesTheSameOutputLeavesOnlyItsOwnTemporaryFile) {
  testing::ExpectTwoCompactorsOfOneMergeLoseNothing(40'000, /*kill_first_mid_write=*/true);
}

}  // namespace
}  // namespace sinkd
