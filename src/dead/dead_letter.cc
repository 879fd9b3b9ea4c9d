#include "dead/dead_letter.h"

#include <charconv>
#include <cstdlib>

#include "contract/wire_decoder.h"
#include "jetstream/dead_letter_publisher.h"
#include "jetstream/streams.h"

namespace sinkd::dead {

namespace {

template <typename T>
bool ParseNumber(const std::string& text, T& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

std::string Where(const DeadLetter& letter) {
  return "dead letter " + std::to_string(letter.dead_sequence);
}

}  // namespace

DeadLetter FromNatsMsg(natsMsg* msg, uint64_t dead_sequence, int64_t time_ns) {
  DeadLetter d;
  d.dead_sequence = dead_sequence;
  d.time_ns = time_ns;
  if (const char* s = natsMsg_GetSubject(msg)) d.dead_subject = s;
  if (const char* data = natsMsg_GetData(msg)) {
    d.payload.assign(data, static_cast<size_t>(natsMsg_GetDataLength(msg)));
  }
  const char** keys = nullptr;
  int count = 0;
  if (natsMsgHeader_Keys(msg, &keys, &count) == NATS_OK) {
    for (int i = 0; i < count; ++i) {
      const char* value = nullptr;
      if (natsMsgHeader_Get(msg, keys[i], &value) == NATS_OK && value != nullptr) {
        d.headers.emplace_back(keys[i], value);
      }
    }
    std::free(keys);  // the array is ours; the strings stay the message's
  }
  std::string sequence, index;
  for (const auto& [name, value] : d.headers) {
    if (name == "Garm-Dead-Reason") d.reason = value;
    if (name == "Garm-Dead-Error") d.error = value;
    if (name == "Garm-Dead-Stream") d.stream = value;
    if (name == "Garm-Dead-Subject") d.subject = value;
    if (name == "Garm-Dead-Sequence") sequence = value;
    if (name == "Garm-Dead-Event-Index") index = value;
  }
  if (!ParseNumber(sequence, d.sequence)) d.sequence = 0;
  if (!ParseNumber(index, d.event_index)) d.event_index = -1;
  return d;
}

std::optional<contract::Envelope> OriginEnvelope(const std::string& stream) {
  if (stream == jetstream::kLedgerStream) return contract::Envelope::kBatch;
  if (stream == jetstream::kAuditStream) return contract::Envelope::kEvent;
  return std::nullopt;
}

std::string ReplayMsgId(const DeadLetter& letter) {
  return "sinkd-replay-" +
         jetstream::DeadLetterMsgId(letter.stream, letter.sequence, letter.event_index);
}

std::string BatchOfOne(std::string_view event) {
  // Batch.events is field 1, length-delimited: tag 0x0A, the length as a varint, the bytes.
  std::string out(1, '\x0A');
  for (uint64_t n = event.size();; n >>= 7) {
    const uint8_t low = n & 0x7F;
    if (n < 0x80) {
      out.push_back(static_cast<char>(low));
      break;
    }
    out.push_back(static_cast<char>(low | 0x80));
  }
  out.append(event);
  return out;
}

Result<ReplayPlan> PlanReplay(const DeadLetter& letter) {
  if (letter.stream.empty() || letter.subject.empty() || letter.sequence == 0) {
    return Status::Refuse(Where(letter) +
                          " lacks Garm-Dead-Stream, Garm-Dead-Subject or Garm-Dead-Sequence: it "
                          "was not written by a sinkd drain, so where it came from is unknown");
  }
  const std::optional<contract::Envelope> envelope = OriginEnvelope(letter.stream);
  if (!envelope) {
    return Status::Refuse(Where(letter) + " comes from stream " + letter.stream + ", which " +
                          "sinkd does not drain (" + jetstream::kLedgerStream + ", " +
                          jetstream::kAuditStream + ")");
  }
  ReplayPlan plan;
  plan.subject = letter.subject;
  plan.stream = letter.stream;
  plan.msg_id = ReplayMsgId(letter);
  plan.envelope = *envelope;
  plan.wrapped = letter.event_index >= 0 && *envelope == contract::Envelope::kBatch;
  plan.payload = plan.wrapped ? BatchOfOne(letter.payload) : letter.payload;
  return plan;
}

Result<DecodeAttempt> Decode(const DeadLetter& letter) {
  SINKD_ASSIGN_OR_RETURN(ReplayPlan plan, PlanReplay(letter));
  DecodeAttempt attempt;
  contract::WireDecoder decoder;
  decoder.Decode(plan.envelope, plan.payload, attempt.rows, attempt.rejects);
  return attempt;
}

}  // namespace sinkd::dead
