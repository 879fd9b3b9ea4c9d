// The two-compactors-on-one-merge scenario (tests/cli/compact_race.h) at the size: about
// 200k imported events in Parts of 2,000 rows, so each merge takes seconds.
#include "cli/compact_race.h"

namespace sinkd {
namespace {

TEST(CompactRaceSlow, TwoCompactorsWritingOneOutputOf200kEventsAtOnceLoseNothing) {
  testing::ExpectTwoCompactorsOfOneMergeLoseNothing(200'000, /*kill_first_mid_write=*/false);
}

TEST(CompactRaceSlow, ACompactorKilledWhileAnotherWritesOneOutputOf200kEventsLosesNothing) {
  testing::ExpectTwoCompactorsOfOneMergeLoseNothing(200'000, /*kill_first_mid_write=*/true);
}

}  // namespace
}  // namespace sinkd
