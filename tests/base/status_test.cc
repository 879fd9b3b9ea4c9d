#include "base/result.h"
#include "base/status.h"

#include <gtest/gtest.h>

namespace sinkd {
namespace {

// An OK status must cost nothing and say nothing; an error must keep its code through context.
TEST(Status, AnErrorKeepsItsCodeWhenContextIsAdded) {
  Status s = Status::Redeliver("disk full").WithContext("place ledger/x.parquet");
  EXPECT_TRUE(s.IsRedeliver()) << "context must not change the settle decision";
  EXPECT_EQ(s.message(), "place ledger/x.parquet: disk full");
  EXPECT_TRUE(Status::OK().WithContext("ignored").ok());
  EXPECT_EQ(Status::OK().ToString(), "OK");
}

TEST(Status, ResultHoldsAValueOrAnErrorNeverBoth) {
  Result<int> good = 7;
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 7);
  Result<int> bad = Status::Refuse("no destination");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsRefuse());
}

}  // namespace
}  // namespace sinkd

#include "base/base64.h"

namespace sinkd {
namespace {

// RFC 4648 test vectors: a wrong padding rule corrupts every dead-letter payload and Content-MD5.
TEST(Base64, EncodesTheRfc4648Vectors) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64Encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode(std::string("\xff\xfe\x00", 3)), "//4A");
}

}  // namespace
}  // namespace sinkd
