#include "table/key.h"

#include <gtest/gtest.h>

namespace sinkd::table {
namespace {

// Partition values are untrusted: an unescaped '/' or '..' would write outside the partition,
// and an unescaped '=' or '%' would make two values share one directory.
TEST(Key, PartitionValuesAreEscapedAsHiveAndDuckDbDo) {
  EXPECT_EQ(EscapePartitionValue("agentd"), "agentd");
  EXPECT_EQ(EscapePartitionValue("svc-a_b.c~d"), "svc-a_b.c~d");
  EXPECT_EQ(EscapePartitionValue(""), "");
  EXPECT_EQ(EscapePartitionValue(" "), "%20");
  EXPECT_EQ(EscapePartitionValue("a/b"), "a%2Fb");
  EXPECT_EQ(EscapePartitionValue("../../etc"), "..%2F..%2Fetc");
  EXPECT_EQ(EscapePartitionValue("a=b"), "a%3Db");
  EXPECT_EQ(EscapePartitionValue("%41"), "%2541");
  EXPECT_EQ(EscapePartitionValue("caf\xC3\xA9"), "caf%C3%A9");
  EXPECT_EQ(EscapePartitionValue("12345"), "12345");
}

// `app=` + 251 bytes is exactly a directory name's 255: such a value must stay exact, not be cut
// to a prefix and a hash (it once was, past 200 bytes, and read back as that shortened form).
TEST(Key, AValueWhoseSegmentFitsADirectoryNameIsKeptExactly) {
  PartKeyFields f;
  f.prefix = "ledger";
  f.date = "2026-09-29";
  f.columns = {"app"};
  f.instance = "box-77";
  const std::string name(251, 'n');
  f.values = {name};
  EXPECT_EQ(PartKey(f), "ledger/date=2026-09-29/app=" + name + "/part-box-77-0-0-0.parquet");
  const std::string slashes(83, '/');  // 83 × "%2F" = 249 bytes escaped: `app=` + 249 fits
  f.values = {slashes};
  EXPECT_NE(PartKey(f).find("/app=" + EscapePartitionValue(slashes) + "/"), std::string::npos);
  const std::string long_type(300, 't');
  EXPECT_EQ(EscapePartitionValue(long_type), long_type) << "escaping alone never shortens";
}

// A directory name is limited to 255 bytes: past it, a value must still get a unique, valid name.
TEST(Key, AValuePastADirectoryNameIsShortenedToAUniqueNameThatFits) {
  const std::string a(252, 'a');
  std::string b = a;
  b.back() = 'b';
  const std::string ea = PartitionSegment("app", a), eb = PartitionSegment("app", b);
  EXPECT_LE(ea.size(), kMaxSegmentBytes);
  EXPECT_EQ(ea.rfind("app=aaa", 0), 0u) << ea;
  EXPECT_NE(ea, eb) << "two long values sharing a prefix must not collide";
  const std::string unicode(150, '\xE9');  // every byte escapes to three
  const std::string eu = PartitionSegment("type", unicode);
  EXPECT_LE(eu.size(), kMaxSegmentBytes);
  const size_t tilde = eu.rfind('~');
  ASSERT_NE(tilde, std::string::npos);
  EXPECT_EQ((tilde - 5) % 3, 0u) << "the cut must fall on an escape boundary: " << eu;
}

TEST(Key, TheKeyNamesDatePartitionsInstanceAndSequenceRange) {
  PartKeyFields f;
  f.prefix = "ledger";
  f.date = "2026-09-29";
  f.columns = {"app"};
  f.values = {"agentd"};
  f.instance = "box-77";
  f.first_sequence = 100;
  f.last_sequence = 250;
  f.number = 1;
  EXPECT_EQ(PartKey(f), "ledger/date=2026-09-29/app=agentd/part-box-77-100-250-1.parquet");
}

// Two drains on one host must never share an instance id, and a hostname's dots are replaced so
// the name stays one token.
TEST(Key, InstanceIdsAreHostnameAndPid) {
  EXPECT_EQ(InstanceIdFor("box", 77), "box-77");
  EXPECT_EQ(InstanceIdFor("box.internal.example", 77), "box_internal_example-77");
  EXPECT_EQ(InstanceIdFor("", 77), "unknown-77");
  EXPECT_EQ(InstanceIdFor("...", 77), "___-77");
  EXPECT_NE(DefaultInstanceId().find('-'), std::string::npos);
}

// The names every writer gives and every reader parses come from one place: what is written reads
// back as what it was.
TEST(Key, EveryNameAWriterGivesReadsBackAsWhatItNamed) {
  const std::string hash(32, 'a');
  const std::string one = CompactionOutputKey("ledger/date=2026-09-29/app=x", hash, 0, 1);
  EXPECT_EQ(one, "ledger/date=2026-09-29/app=x/compact-" + hash + ".parquet");
  auto stem = CompactionOutputStem(one.substr(one.rfind('/') + 1));
  ASSERT_TRUE(stem);
  EXPECT_EQ(stem->first, "compact-" + hash);
  EXPECT_FALSE(stem->second);
  const std::string third = CompactionOutputKey("p", hash, 12, 13);
  stem = CompactionOutputStem(third.substr(2));
  ASSERT_TRUE(stem);
  EXPECT_EQ(stem->second, std::optional<uint64_t>(12));
  EXPECT_FALSE(CompactionOutputStem("compact-" + hash + "-01.parquet"));
  EXPECT_FALSE(CompactionOutputStem("part-box-1-2-0.parquet"));

  EXPECT_EQ(DeadLetterKey("ledger", "box-77", 3, 9), "dead-letters/ledger/dead-box-77-3-9.jsonl");
  EXPECT_EQ(DeadLetterInstance(DeadLetterKey("ledger", "box-77", 3, 9)), "box-77");
  EXPECT_EQ(DeadLetterInstance(DeadLetterKey("a/b", "box-77", 3, 9, 2)), "box-77");
  EXPECT_EQ(DeadLetterInstance("dead-letters/ledger/notes.txt"), "");
  EXPECT_EQ(DeadLetterDirectory("ledger"), "dead-letters/ledger/");

  EXPECT_EQ(PartNameWithNumber("part-box-77-100-250-1.parquet", 4),
            "part-box-77-100-250-4.parquet");
}

TEST(Key, PrefixesAndInstancesAreSafeTokensOnly) {
  for (const char* ok : {"ledger", "a/b", "x.y-z_1"}) EXPECT_TRUE(SafeKeyPrefix(ok)) << ok;
  for (const char* bad : {"", "/ledger", "ledger/", "a//b", "../x", "a/./b", "a b", "a%2F"}) {
    EXPECT_FALSE(SafeKeyPrefix(bad)) << bad;
  }
  EXPECT_TRUE(SafeKeyToken("box-77"));
  EXPECT_FALSE(SafeKeyToken("a/b"));
  EXPECT_FALSE(SafeKeyToken(".."));
}

}  // namespace
}  // namespace sinkd::table
