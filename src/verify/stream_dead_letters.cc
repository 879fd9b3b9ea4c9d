#include "verify/stream_dead_letters.h"

#include <charconv>

#include "jetstream/ephemeral_reader.h"
#include "jetstream/streams.h"

namespace sinkd::verify {

namespace {

std::string Header(const jetstream::Message& m, const char* name) {
  const char* value = nullptr;
  if (natsMsgHeader_Get(m.raw(), name, &value) != NATS_OK || value == nullptr) return "";
  return value;
}

}  // namespace

Status AddStreamDeadLetters(jetstream::Connection& connection, const std::string& origin,
                            VerifyInput& input) {
  SINKD_ASSIGN_OR_RETURN(
      auto reader, jetstream::EphemeralReader::Open(connection, jetstream::kDeadStream,
                                                    jetstream::DeadSubjectFor(origin),
                                                    jetstream::ReaderStart{true, 0}));
  uint64_t left = reader->initial_pending();
  std::vector<jetstream::Message> batch;
  // Bounded: the records present when the reader opened, and a few empty fetches at most.
  for (int empty = 0; left > 0 && empty < 5;) {
    batch.clear();
    Status s = reader->Fetch(256, std::chrono::milliseconds(1000), batch);
    if (!s.ok() && !s.IsRetry()) return s.WithContext("read " + std::string(jetstream::kDeadStream));
    if (batch.empty()) {
      ++empty;
      continue;
    }
    for (const jetstream::Message& m : batch) {
      if (left > 0) --left;
      if (Header(m, "Garm-Dead-Event-Index") != "-1") continue;
      const std::string stream = Header(m, "Garm-Dead-Stream");
      const std::string text = Header(m, "Garm-Dead-Sequence");
      uint64_t seq = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seq);
      if (stream.empty() || ec != std::errc() || end != text.data() + text.size()) continue;
      input.dead_letters[SpaceOf(stream, "stream", "")].push_back({seq, seq});
    }
  }
  return Status::OK();
}

}  // namespace sinkd::verify
