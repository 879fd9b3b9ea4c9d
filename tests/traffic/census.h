// Test-side reading of generated traffic: classifies every record of a message the way a drain
// must, using only libprotobuf and independent wire walking, so the generator's own stats can be
// checked against what is actually in the bytes.
#pragma once

#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/unknown_field_set.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "garm/ledger/v1/event.pb.h"
#include "traffic/traffic_generator.h"

namespace sinkd::traffic::testing {

using garm::ledger::v1::Event;

struct Census {
  int64_t good = 0;
  std::array<int64_t, kBadKindCount> bad = {};
  std::vector<Event> events;  // the good events, in stream order, when keep_events is set
  bool keep_events = false;

  int64_t bad_records() const {
    int64_t n = 0;
    for (int64_t b : bad) n += b;
    return n;
  }
  void Add(BadKind kind) { ++bad[static_cast<int>(kind)]; }
};

// The Batch entries (field 1, length-delimited) of `message`, or nullopt when the message is not
// a well-formed sequence of them.
inline std::optional<std::vector<std::string_view>> BatchEntries(std::string_view message) {
  std::vector<std::string_view> entries;
  size_t pos = 0;
  auto varint = [&](uint64_t& value) {
    value = 0;
    for (int shift = 0; shift < 64 && pos < message.size(); shift += 7) {
      const uint8_t byte = static_cast<uint8_t>(message[pos++]);
      value |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  };
  while (pos < message.size()) {
    uint64_t tag, length;
    if (!varint(tag) || tag != 0x0A || !varint(length) || length > message.size() - pos) {
      return std::nullopt;
    }
    entries.push_back(message.substr(pos, length));
    pos += length;
  }
  return entries;
}

inline bool StructurallyValid(std::string_view bytes) {
  google::protobuf::UnknownFieldSet fields;
  return fields.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
}

// A record that parses as an Event: good, or missing its id or time.
inline void CountEvent(const Event& event, Census& census) {
  if (event.event_id().empty()) return census.Add(BadKind::kMissingEventId);
  if (!event.has_time()) return census.Add(BadKind::kMissingTime);
  ++census.good;
  if (census.keep_events) census.events.push_back(event);
}

// An Event-sized record that libprotobuf refuses: invalid UTF-8 if the wire structure is sound.
inline void CountUnparsable(std::string_view bytes, Census& census, bool whole_message) {
  if (StructurallyValid(bytes)) return census.Add(BadKind::kInvalidUtf8);
  ASSERT_TRUE(whole_message) << "a Batch entry that is structurally broken would hide its siblings";
  ASSERT_FALSE(bytes.empty());
  const uint8_t first = static_cast<uint8_t>(bytes[0]);
  if (first == '{') {
    for (unsigned char c : bytes) {
      ASSERT_TRUE(c < 0x80 && c != '|')
          << "a JSON record must be ASCII without '|' to stay unparsable";
    }
    const auto json = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(json.is_discarded()) << "the JSON bad record is not JSON: " << bytes;
    ASSERT_TRUE(json.contains("event_id") || json.contains("events")) << bytes;
    return census.Add(BadKind::kJson);
  }
  if ((first & 7) == 6 || (first & 7) == 7) return census.Add(BadKind::kGarbage);
  census.Add(BadKind::kTruncated);
}

// Parses one Event as a drain's reference decoder would; libprotobuf's complaint about invalid
// UTF-8 is expected here and silenced.
inline bool ParseEvent(std::string_view bytes, Event& event) {
  google::protobuf::LogSilencer quiet;
  return event.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
}

inline void CensusOfLedgerMessage(std::string_view message, Census& census) {
  const auto entries = BatchEntries(message);
  if (!entries) {
    garm::ledger::v1::Batch batch;
    ASSERT_FALSE(batch.ParseFromArray(message.data(), static_cast<int>(message.size())))
        << "a whole bad ledger message parsed as a Batch";
    return CountUnparsable(message, census, /*whole_message=*/true);
  }
  Event event;
  for (std::string_view entry : *entries) {
    if (ParseEvent(entry, event)) {
      CountEvent(event, census);
    } else {
      CountUnparsable(entry, census, /*whole_message=*/false);
    }
  }
}

inline void CensusOfAuditMessage(std::string_view message, Census& census) {
  Event event;
  if (ParseEvent(message, event)) return CountEvent(event, census);
  CountUnparsable(message, census, /*whole_message=*/true);
}

}  // namespace sinkd::traffic::testing
