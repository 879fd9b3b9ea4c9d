#include "base/redact.h"

#include <gtest/gtest.h>

namespace sinkd {
namespace {

TEST(Redact, PasswordsInConnectionStringsAreMasked) {
  EXPECT_EQ(RedactPassword("postgresql://app:s3cret@db:5432/app"), "postgresql://app:***@db:5432/app");
  EXPECT_EQ(RedactPassword("host=db user=app password=s3cret dbname=app"),
            "host=db user=app password=*** dbname=app");
  EXPECT_EQ(RedactPassword("host=db password='a b' dbname=app"), "host=db password=*** dbname=app");
  EXPECT_EQ(RedactPassword("postgresql://db/app?password=s3cret&x=1"),
            "postgresql://db/app?password=***&x=1");
  EXPECT_EQ(RedactPassword("nats://u:pw@127.0.0.1:4222"), "nats://u:***@127.0.0.1:4222");
  EXPECT_EQ(RedactPassword("postgresql://app@db/app"), "postgresql://app@db/app");
}

}  // namespace
}  // namespace sinkd
