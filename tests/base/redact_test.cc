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

// NATS reads a user part without a password as a token (nats://TOKEN@host); libpq reads it as a
// user name, which is no secret.
TEST(Redact, ANatsTokenUrlIsMaskedWholeButAPostgresUserNameIsKept) {
  EXPECT_EQ(RedactPassword("nats://s3cretToken@127.0.0.1:4222"), "nats://***@127.0.0.1:4222");
  EXPECT_EQ(RedactPassword("tls://s3cretToken@nats.example:4222"), "tls://***@nats.example:4222");
  EXPECT_EQ(RedactPassword("connect to NATS at nats://tok@h:1: No server available"),
            "connect to NATS at nats://***@h:1: No server available");
  EXPECT_EQ(RedactPassword("postgres://app@db/app"), "postgres://app@db/app");
  EXPECT_EQ(RedactPassword("nats://127.0.0.1:4222"), "nats://127.0.0.1:4222");
}

TEST(Redact, EveryUrlOfACommaSeparatedListIsMasked) {
  EXPECT_EQ(RedactPassword("nats://a:pw1@h1:4222,nats://b:pw2@h2:4222,nats://tok3@h3:4222"),
            "nats://a:***@h1:4222,nats://b:***@h2:4222,nats://***@h3:4222");
  EXPECT_EQ(RedactPassword("nats://h1:4222,nats://b:pw2@h2:4222"),
            "nats://h1:4222,nats://b:***@h2:4222");
  // libpq's multi-host URI: one user part for all the hosts.
  EXPECT_EQ(RedactPassword("postgresql://app:pw@h1:5432,h2:5432/app"),
            "postgresql://app:***@h1:5432,h2:5432/app");
}

TEST(Redact, APasswordHoldingAtOrColonIsMaskedWhole) {
  EXPECT_EQ(RedactPassword("nats://u:p@ss:w@h:4222"), "nats://u:***@h:4222");
  EXPECT_EQ(RedactPassword("postgresql://app:a%40b@db/app"), "postgresql://app:***@db/app");
}

TEST(Redact, LibpqKeywordPasswordsAreMaskedInEveryForm) {
  EXPECT_EQ(RedactPassword("host=db password = s3cret dbname=app"),
            "host=db password = *** dbname=app");
  EXPECT_EQ(RedactPassword("host=db password= s3cret"), "host=db password= ***");
  EXPECT_EQ(RedactPassword("host=db password ='it\\'s a secret' dbname=app"),
            "host=db password =*** dbname=app");
  EXPECT_EQ(RedactPassword("host=db password=back\\ slash dbname=app"),
            "host=db password=*** dbname=app");
  EXPECT_EQ(RedactPassword("host=db sslpassword=keypass password=pw"),
            "host=db sslpassword=*** password=***");
  EXPECT_EQ(RedactPassword("PASSWORD=s3cret"), "PASSWORD=***");
  EXPECT_EQ(RedactPassword("postgresql://db/app?sslmode=require&password=s3cret"),
            "postgresql://db/app?sslmode=require&password=***");
  // A password in a keyword string may hold '&': only a URL's query ends there.
  EXPECT_EQ(RedactPassword("host=db password=a&b dbname=app"), "host=db password=*** dbname=app");
  // The word alone, with no '=', is text.
  EXPECT_EQ(RedactPassword("password authentication failed for user \"app\""),
            "password authentication failed for user \"app\"");
}

TEST(Redact, MaskingIsIdempotent) {
  for (const char* s : {"nats://a:pw@h1,nats://tok@h2", "host=db password='x y' dbname=app",
                        "postgresql://app:pw@db/app?password=q"}) {
    EXPECT_EQ(RedactPassword(RedactPassword(s)), RedactPassword(s)) << s;
  }
}

}  // namespace
}  // namespace sinkd
