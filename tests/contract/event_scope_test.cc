#include "contract/event_scope.h"

#include <string>

#include <gtest/gtest.h>

#include "contract/decode_support.h"
#include "garm/ledger/v1/event.pb.h"

namespace sinkd::contract {
namespace {

using testing::Field;
using testing::FullEvent;
using testing::Len;
using testing::VarintField;

// `sinkd publish` picks garm.v1.<origin>.<tenant>.<app> from these: a wrong field would send a
// tenant's records under another tenant's subject.
TEST(EventScope, AnEventGivesItsTenantAndApp) {
  const std::string event = FullEvent().SerializeAsString();
  const EventScope scope = ScopeOf(Envelope::kEvent, event);
  EXPECT_EQ(scope.tenant, "acme");
  EXPECT_EQ(scope.app, "agentd");
}

TEST(EventScope, ABatchGivesItsFirstEventsTenantAndApp) {
  garm::ledger::v1::Batch batch;
  garm::ledger::v1::Event first = FullEvent("e1");
  first.set_tenant("globex");
  first.set_app("billing");
  *batch.add_events() = first;
  *batch.add_events() = FullEvent("e2");
  const std::string bytes = batch.SerializeAsString();
  const EventScope scope = ScopeOf(Envelope::kBatch, bytes);
  EXPECT_EQ(scope.tenant, "globex");
  EXPECT_EQ(scope.app, "billing");
  EXPECT_EQ(ScopeOf(Envelope::kEvent, bytes).tenant, "") << "a Batch read as an Event has no tenant";
}

TEST(EventScope, OtherFieldsOfEveryWireTypeAreSkippedAndTheLastValueWins) {
  const std::string event = VarintField(3, 1234567) + Field(4, 1, std::string(8, '\x01')) +
                            Len(10, "first") + Field(5, 5, std::string(4, '\x02')) +
                            Field(6, 3, VarintField(1, 9) + Field(6, 4, "")) + Len(11, "app") +
                            Len(10, "second");
  const EventScope scope = ScopeOf(Envelope::kEvent, event);
  EXPECT_EQ(scope.tenant, "second");
  EXPECT_EQ(scope.app, "app");
  const std::string batch = VarintField(2, 7) + Len(1, Len(10, "t") + Len(11, "a"));
  EXPECT_EQ(ScopeOf(Envelope::kBatch, batch).tenant, "t") << "fields before the first event";
}

// A publisher forwards bad records as they are; reading stops where the framing breaks.
TEST(EventScope, BrokenFramingKeepsWhatWasReadBeforeItAndNeverReadsPastTheEnd) {
  std::string event = Len(10, "acme") + Len(11, "agentd");
  event += "\x5a\x7f";  // field 11, length 127, with nothing after it
  EXPECT_EQ(ScopeOf(Envelope::kEvent, event).tenant, "acme");
  EXPECT_EQ(ScopeOf(Envelope::kEvent, event).app, "agentd");
  EXPECT_EQ(ScopeOf(Envelope::kEvent, Len(10, "acme") + std::string("\x21\x01", 2)).tenant, "acme")
      << "a fixed64 cut short";
  EXPECT_EQ(ScopeOf(Envelope::kEvent, std::string("\x00\x52\x01x", 4)).tenant, "")
      << "tag 0 ends the reading";
  EXPECT_EQ(ScopeOf(Envelope::kEvent, "").app, "");
  EXPECT_EQ(ScopeOf(Envelope::kBatch, "not protobuf").tenant, "");
  EXPECT_EQ(ScopeOf(Envelope::kBatch, Len(2, "x")).app, "") << "a Batch with no events";
  const std::string cut = Len(1, Len(10, "acme")).substr(0, 4);
  EXPECT_EQ(ScopeOf(Envelope::kBatch, cut).tenant, "") << "an events entry running past the end";
}

}  // namespace
}  // namespace sinkd::contract
