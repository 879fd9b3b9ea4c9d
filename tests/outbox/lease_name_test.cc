#include <gtest/gtest.h>

#include "outbox/lease.h"
#include "outbox/sha256.h"

namespace sinkd::outbox {
namespace {

TEST(Sha256, KnownVectorsMatch) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
      << "a message that pads into a second block";
  EXPECT_EQ(Sha256Hex(std::string(1000, 'a')).size(), 64u);
}

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
