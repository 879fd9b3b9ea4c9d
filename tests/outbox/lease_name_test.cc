#include <gtest/gtest.h>

#include "base/sha256.h"
#include "outbox/lease.h"

namespace sinkd::outbox {
namespace {

// The table of the outbox semantics (D1): safe ids are used as they are, others hashed.
TEST(LeaseName, SafeIdsAreUsedAsTheyAreAndOthersAreHashed) {
  EXPECT_EQ(EventLeaseName("lake"), "singleton:outbox-dispatch:lake");
  EXPECT_EQ(EventLeaseName("a.b_c@d-e"), "singleton:outbox-dispatch:a.b_c@d-e");
  EXPECT_EQ(LeaseKey(std::string(100, 'a')), std::string(100, 'a'));
  for (const std::string& id : {std::string(101, 'a'), std::string(""), std::string("my sink"),
                               std::string("a:b"), std::string("a/b"), std::string("ünï"),
                               std::string("sink\u20101")}) {
    EXPECT_EQ(LeaseKey(id), "h-" + Sha256Hex(id)) << "id \"" << id << "\" is not lease-safe";
    EXPECT_TRUE(IsLeaseSafe(LeaseKey(id))) << "a hashed key is itself lease-safe";
  }
  EXPECT_EQ(LeaseKey("my sink"),
            "h-" + Sha256Hex("my sink"));
  EXPECT_EQ(AuditLeaseName("siem"), "singleton:audit-sinks:siem");
}

}  // namespace
}  // namespace sinkd::outbox
