// verify::Verify over plain structs: what counts as complete, missing, superseded, duplicated and
// a gap.
#include "verify/verify.h"

#include <gtest/gtest.h>

#include "verify/scan.h"

namespace sinkd::verify {
namespace {

using lake::FlushStamp;
using lake::SequenceRange;

// One flush of `parts` Parts over [first, last], all acked; Part n holds 10 rows.
std::vector<ObjectInfo> Flush(const std::string& instance, uint64_t first, uint64_t last,
                              uint64_t parts, std::vector<SequenceRange> acked = {}) {
  std::vector<ObjectInfo> out;
  for (uint64_t n = 0; n < parts; ++n) {
    FlushStamp s;
    s.instance = instance;
    s.source = "GARM_LEDGER";
    s.first = first;
    s.last = last;
    s.acked = acked.empty() ? std::vector<SequenceRange>{{first, last}} : acked;
    s.parts = parts;
    s.rows = 10 * parts;
    s.n = n;
    s.key = "ledger/date=2026-01-01/app=a" + std::to_string(n) + "/part-" + instance + "-" +
            std::to_string(first) + "-" + std::to_string(last) + "-" + std::to_string(n) +
            ".parquet";
    s.part_rows = 10;
    ObjectInfo o;
    o.key = s.key;
    o.size = 1000;
    o.version = "v1";
    o.rows = 10;
    o.stamps = {s};
    out.push_back(o);
  }
  return out;
}

VerifyInput Of(std::vector<std::vector<ObjectInfo>> flushes) {
  VerifyInput in;
  for (auto& f : flushes) in.objects.insert(in.objects.end(), f.begin(), f.end());
  return in;
}

TEST(Verify, AHealthyLakeHasNoGapAndNoIncompleteFlush) {
  const VerifyReport r = Verify(Of({Flush("a", 1, 10, 3), Flush("b", 11, 20, 2)}));
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.objects, 5u);
  EXPECT_EQ(r.rows, 50u);
  EXPECT_EQ(r.flushes, 2u);
  ASSERT_EQ(r.spaces.size(), 1u);
  EXPECT_EQ(r.spaces[0].covered, (std::vector<SequenceRange>{{1, 20}}));
}

TEST(Verify, AMissingPartMakesItsFlushIncompleteAndItsSequencesAGap) {
  VerifyInput in = Of({Flush("a", 1, 10, 3), Flush("b", 11, 20, 2), Flush("c", 21, 30, 1)});
  in.objects.erase(in.objects.begin() + 1);  // a's Part 1
  const VerifyReport r = Verify(in);
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.incomplete.size(), 1u);
  ASSERT_EQ(r.incomplete[0].missing.size(), 1u);
  const MissingPart& m = r.incomplete[0].missing[0];
  EXPECT_EQ(m.n, 1u);
  EXPECT_EQ(m.name, "part-a-1-10-1.parquet");
  EXPECT_EQ(m.after_dir, "ledger/date=2026-01-01/app=a0");
  EXPECT_EQ(m.before_dir, "ledger/date=2026-01-01/app=a2");
  ASSERT_EQ(r.gaps.size(), 1u);
  EXPECT_EQ(r.gaps[0].range, (SequenceRange{1, 10}));
}

TEST(Verify, AFlushLostWholeInTheMiddleIsAGapBetweenItsNeighbours) {
  const VerifyReport r = Verify(Of({Flush("a", 1, 10, 1), Flush("c", 21, 30, 1)}));
  ASSERT_EQ(r.gaps.size(), 1u);
  EXPECT_EQ(r.gaps[0].range, (SequenceRange{11, 20}));
  EXPECT_TRUE(r.incomplete.empty());
}

TEST(Verify, WholeMessageDeadLettersCoverTheirSequences) {
  VerifyInput in = Of({Flush("a", 1, 10, 1), Flush("c", 13, 30, 1)});
  in.dead_letters["GARM_LEDGER"] = {{11, 11}, {12, 12}};
  EXPECT_TRUE(Verify(in).ok());
  in.dead_letters["GARM_LEDGER"] = {{11, 11}};
  const VerifyReport r = Verify(in);
  ASSERT_EQ(r.gaps.size(), 1u);
  EXPECT_EQ(r.gaps[0].range, (SequenceRange{12, 12}));
}

TEST(Verify, SequencesAFlushDidNotAcknowledgeAreNotCoveredByIt) {
  const VerifyReport r = Verify(Of({Flush("a", 1, 10, 2, {{1, 4}, {6, 10}})}));
  ASSERT_EQ(r.gaps.size(), 1u);
  EXPECT_EQ(r.gaps[0].range, (SequenceRange{5, 5}));
}

// A compaction output of `inputs`: their stamps, and each of them as the object it is.
ObjectInfo OutputOf(const std::vector<ObjectInfo>& inputs) {
  ObjectInfo output;
  output.key = "ledger/date=2026-01-01/compact-00.parquet";
  output.size = 3000;
  output.rows = 30;
  for (const ObjectInfo& i : inputs) {
    output.stamps.push_back(i.stamps[0]);
    output.supersedes.push_back({i.key, i.size, i.version});
  }
  return output;
}

// A compaction output carries its inputs' stamps: the inputs it supersedes may be gone, or still
// there awaiting deletion (not counted twice); a deleted output is missing Parts again.
TEST(Verify, ACompactionOutputStandsForTheInputsItSupersedes) {
  std::vector<ObjectInfo> inputs = Flush("a", 1, 10, 3);
  ObjectInfo output = OutputOf(inputs);
  VerifyInput during = Of({inputs, {output}});
  VerifyReport r = Verify(during);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.superseded, 3u);
  EXPECT_EQ(r.rows, 30u) << "superseded inputs are not counted twice";
  EXPECT_EQ(r.duplicate_parts, 0u);
  EXPECT_TRUE(Verify(Of({{output}})).ok()) << "after the inputs' deletion";
  VerifyInput lost = Of({inputs});
  lost.objects.erase(lost.objects.begin());
  EXPECT_FALSE(Verify(lost).ok()) << "the output deleted after its inputs";
}

// An output supersedes its inputs as the objects they were: a key re-created since (another
// version, or another size) holds rows the output does not have, and counts as live; so does an
// input named by an output written before versions were recorded (a bare key).
TEST(Verify, AKeyRecreatedAfterItsMergeIsLiveNotSuperseded) {
  std::vector<ObjectInfo> inputs = Flush("a", 1, 10, 3);
  ObjectInfo output = OutputOf(inputs);
  inputs[0].version = "v2";
  inputs[1].size = 999;
  output.supersedes[2].version = "";
  VerifyReport r = Verify(Of({inputs, {output}}));
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.superseded, 0u);
  EXPECT_EQ(r.rows, 60u) << "every re-created Part's rows are live";
}

TEST(Verify, DuplicatesAreCountedFromStamps) {
  std::vector<ObjectInfo> a = Flush("a", 1, 10, 2);
  std::vector<ObjectInfo> copy = {a[0]};
  copy[0].key = "ledger/date=2026-01-01/app=a0/part-a.1-1-10-0.parquet";
  const VerifyReport r = Verify(Of({a, copy, Flush("b", 5, 12, 1)}));
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.duplicate_parts, 1u);
  EXPECT_EQ(r.duplicate_rows, 10u);
  EXPECT_EQ(r.duplicate_sequences, 6u) << "5-10 acked by two flushes";
}

TEST(Verify, FromToAndExpectedRangesBoundWhatMustBeCovered) {
  VerifyInput in = Of({Flush("a", 5, 10, 1)});
  in.from = 1;
  VerifyReport r = Verify(in);
  ASSERT_EQ(r.gaps.size(), 1u);
  EXPECT_EQ(r.gaps[0].range, (SequenceRange{1, 4}));
  in.from.reset();
  in.expected["GARM_LEDGER"] = {{5, 14}};
  r = Verify(in);
  ASSERT_EQ(r.gaps.size(), 1u);
  EXPECT_EQ(r.gaps[0].range, (SequenceRange{11, 14}));
  in.to = 10;
  EXPECT_TRUE(Verify(in).ok());
}

TEST(Verify, AnOutboxSpaceHasNoGapsUnlessItsRowsAreGiven) {
  std::vector<ObjectInfo> f = Flush("a", 4, 9, 1, {{4, 5}, {9, 9}});
  f[0].stamps[0].source = "outbox:lake";
  f[0].stamps[0].scope = "outbox";
  VerifyInput in = Of({f});
  EXPECT_TRUE(Verify(in).ok()) << "seq has holes where transactions rolled back";
  in.expected["outbox:lake"] = {{4, 5}, {7, 7}, {9, 9}};
  const VerifyReport r = Verify(in);
  ASSERT_EQ(r.gaps.size(), 1u);
  EXPECT_EQ(r.gaps[0].range, (SequenceRange{7, 7}));
}

TEST(Verify, AnUnreadableFooterIsNamedAndFailsTheCheck) {
  VerifyInput in = Of({Flush("a", 1, 10, 1)});
  in.objects.push_back({"ledger/date=2026-01-01/x.parquet", 10, 0, {}, {}, "truncated"});
  const VerifyReport r = Verify(in);
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.unreadable.size(), 1u);
  EXPECT_EQ(r.unreadable[0].first, "ledger/date=2026-01-01/x.parquet");
}

TEST(Verify, SubtractAndMergeWorkOnRanges) {
  EXPECT_EQ(Merge({{5, 6}, {1, 2}, {3, 3}, {8, 9}}),
            (std::vector<SequenceRange>{{1, 3}, {5, 6}, {8, 9}}));
  EXPECT_EQ(Subtract({{1, 20}}, {{3, 4}, {10, 25}}),
            (std::vector<SequenceRange>{{1, 2}, {5, 9}}));
  EXPECT_EQ(Subtract({{1, 5}, {8, 9}}, {{1, 9}}), (std::vector<SequenceRange>{}));
  EXPECT_EQ(Subtract({{1, 5}, {8, 9}}, {}), (std::vector<SequenceRange>{{1, 5}, {8, 9}}));
}

TEST(Verify, ImportDeadLetterFilesCoverWholeMessagesOfTheirRun) {
  VerifyInput in;
  ASSERT_TRUE(AddDeadLetterFile(
                  "dead-letters/ledger/dead-box-1-3-9.jsonl",
                  "{\"reason\":\"unmarshal\",\"error\":\"x\",\"stream\":\"import\",\"subject\":\"f\","
                  "\"sequence\":4,\"event_index\":-1,\"payload_base64\":\"\"}\n"
                  "{\"reason\":\"missing_time\",\"error\":\"x\",\"stream\":\"import\",\"subject\":\"f\","
                  "\"sequence\":5,\"event_index\":2,\"payload_base64\":\"\"}\n",
                  in)
                  .ok());
  ASSERT_EQ(in.dead_letters.size(), 1u);
  EXPECT_EQ(in.dead_letters["import@box-1"], (std::vector<SequenceRange>{{4, 4}}))
      << "one event of message 5 does not account for the message";
  EXPECT_FALSE(AddDeadLetterFile("dead-letters/ledger/dead-box-1-3-9.jsonl", "{}\n", in).ok());
}

}  // namespace
}  // namespace sinkd::verify
