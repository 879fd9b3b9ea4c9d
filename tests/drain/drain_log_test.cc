// What the drain tells an operator in its log: one line per batch for its unreadable records
// (counts by reason and a bounded sample, however many there are), and, at a stop, what it landed
// and what it handed back to the stream.
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "drain/drain_rig.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using testing::DrainRig;
using testing::MakeEvent;
using testing::WaitUntil;

std::vector<nlohmann::json> LogLines(const std::string& text, const std::string& msg) {
  std::vector<nlohmann::json> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.value("msg", "") == msg) out.push_back(j);
  }
  return out;
}

// A producer sending garbage must not bury the log: 40 unreadable messages and 10 events without
// an id in one batch are one ERROR line, with the counts by reason and three records shown.
TEST(DrainLog, ABatchsUnreadableRecordsAreOneLineWithCountsByReasonAndABoundedSample) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  rig.options.batch_interval = 1h;  // one batch, closed by the stop
  for (int i = 0; i < 40; ++i) {
    testing::Publish(*rig.connection, "garm.v1.ledger.acme.svc", "\x0f\xff not protobuf");
  }
  std::vector<garm::ledger::v1::Event> events;
  for (int i = 0; i < 12; ++i) {
    events.push_back(MakeEvent("b" + std::to_string(i)));
    if (i < 10) events.back().clear_event_id();
  }
  testing::PublishLedger(*rig.connection, events);
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.metrics.messages.load() == 41; }, 10s));
  rig.Stop();
  ASSERT_TRUE(rig.Drained());
  EXPECT_EQ(rig.metrics.dead_unmarshal.load(), 40u) << "premise: every record dead-lettered";

  const std::string log = rig.LogText();
  size_t errors = 0;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    errors += line.find("\"level\":\"ERROR\"") != std::string::npos;
  }
  EXPECT_EQ(errors, 1u) << log;
  const auto summary = LogLines(log, "unreadable records in this batch; dead-lettering them");
  ASSERT_EQ(summary.size(), 1u) << log;
  EXPECT_EQ(summary[0]["records"], 50);
  EXPECT_EQ(summary[0]["by_reason"], "unmarshal=40 missing_event_id=10");
  EXPECT_EQ(summary[0]["first_seq"], 1);
  EXPECT_EQ(summary[0]["last_seq"], 41);
  const std::string sample = summary[0]["sample"];
  EXPECT_EQ(sample.rfind("seq 1 (garm.v1.ledger.acme.svc): unmarshal: ", 0), 0u) << sample;
  size_t shown = 0;
  for (size_t at = sample.find("seq "); at != std::string::npos; at = sample.find("seq ", at + 1)) {
    ++shown;
  }
  EXPECT_EQ(shown, drain::kRejectSample) << sample;
}

// SIGTERM's summary: the batch held at the stop is flushed (its rows counted), and messages
// fetched but never added go back to the stream (counted as held back).
TEST(DrainLog, AStopIsLoggedWithWhatItFlushedAndWhatItHandedBack) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  rig.options.batch_interval = 1h;
  std::vector<garm::ledger::v1::Event> events;
  for (int i = 0; i < 3; ++i) events.push_back(MakeEvent("s" + std::to_string(i)));
  testing::PublishLedger(*rig.connection, events);
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.metrics.buffered_rows.load() == 3; }, 10s));
  rig.Stop();
  EXPECT_EQ(rig.drain->stop_summary().rows_flushed, 3u);
  EXPECT_EQ(rig.drain->stop_summary().messages_held_back, 0u);
  const auto stopping = LogLines(rig.LogText(), "stop requested; landing what is held");
  ASSERT_EQ(stopping.size(), 1u) << rig.LogText();
  EXPECT_EQ(stopping[0]["buffered_rows"], 3);

  // A stop whose last flush fails hands its batch back: every message of it is held back.
  DrainRig failing;
  ASSERT_TRUE(failing.server.ok()) << failing.server.error();
  failing.options.batch_interval = 1h;
  testing::PublishLedger(*failing.connection, events);
  testing::PublishLedger(*failing.connection, events);
  ASSERT_TRUE(failing.Start());
  ASSERT_TRUE(WaitUntil([&] { return failing.metrics.buffered_rows.load() == 6; }, 10s));
  failing.store->failures = 1;
  failing.Stop();
  EXPECT_EQ(failing.drain->stop_summary().rows_flushed, 0u);
  EXPECT_EQ(failing.drain->stop_summary().messages_held_back, 2u);
}

}  // namespace
}  // namespace sinkd
