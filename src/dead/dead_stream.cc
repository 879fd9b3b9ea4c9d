#include "dead/dead_stream.h"

#include <algorithm>

#include "jetstream/ephemeral_reader.h"
#include "jetstream/streams.h"

namespace sinkd::dead {

namespace {

constexpr int kFetch = 256;
// Empty fetches in a row after which a scan gives up on messages the consumer said were there
// (they aged out or were removed meanwhile): the scan stays bounded.
constexpr int kEmptyFetches = 5;

Status ScanStream(jetstream::Connection& connection, const Selection& selection,
                  const std::function<Status(const DeadLetter&)>& visit) {
  SINKD_ASSIGN_OR_RETURN(jetstream::StreamState state,
                         jetstream::GetStreamState(connection, jetstream::kDeadStream));
  if (state.messages == 0) return Status::OK();
  uint64_t start = state.first_sequence;
  if (selection.since_ns) {
    SINKD_ASSIGN_OR_RETURN(
        start, jetstream::SequenceAtTime(connection, jetstream::kDeadStream, *selection.since_ns,
                                         state.first_sequence, state.last_sequence));
  }
  if (start > state.last_sequence) return Status::OK();
  // Each origin's dead letters have their own subject: a scan of one origin reads only those.
  std::string filter = jetstream::kDeadFilter;
  if (selection.stream == jetstream::kLedgerStream) filter = jetstream::DeadSubjectFor("ledger");
  if (selection.stream == jetstream::kAuditStream) filter = jetstream::DeadSubjectFor("audit");
  SINKD_ASSIGN_OR_RETURN(
      auto reader, jetstream::EphemeralReader::Open(connection, jetstream::kDeadStream, filter,
                                                    jetstream::ReaderStart{false, start}));
  uint64_t left = reader->initial_pending();
  std::vector<jetstream::Message> batch;
  for (int empty = 0; left > 0 && empty < kEmptyFetches;) {
    batch.clear();
    Status s = reader->Fetch(kFetch, std::chrono::milliseconds(1000), batch);
    if (!s.ok()) return s.WithContext(std::string("read ") + jetstream::kDeadStream);
    empty = batch.empty() ? empty + 1 : 0;
    for (const jetstream::Message& m : batch) {
      if (left > 0) --left;
      if (m.stream_sequence() > state.last_sequence) return Status::OK();
      DeadLetter letter = FromNatsMsg(m.raw(), m.stream_sequence(), m.timestamp_ns());
      if (selection.until_ns && letter.time_ns >= *selection.until_ns) return Status::OK();
      if (Matches(selection, letter)) SINKD_RETURN_IF_ERROR(visit(letter));
      if (m.stream_sequence() == state.last_sequence || m.pending() == 0) return Status::OK();
    }
  }
  return Status::OK();
}

}  // namespace

Result<DeadLetter> GetDeadLetter(jetstream::Connection& connection, uint64_t dead_sequence) {
  natsMsg* raw = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s =
      js_GetMsg(&raw, connection.js(), jetstream::kDeadStream, dead_sequence, nullptr, &jerr);
  jetstream::MsgPtr msg(raw);
  if (s != NATS_OK) {
    if (s == NATS_NOT_FOUND && jerr != JSStreamNotFoundErr) {
      return Status::NotFound(std::string(jetstream::kDeadStream) +
                              " holds no message at sequence " + std::to_string(dead_sequence) +
                              " (`sinkd dead list` lists them)");
    }
    return jetstream::FromNats(
        s, std::string(jetstream::kDeadStream) + " sequence " + std::to_string(dead_sequence),
        jerr);
  }
  return FromNatsMsg(raw, dead_sequence, natsMsg_GetTime(raw));
}

Status ForEachDeadLetter(jetstream::Connection& connection, const Selection& selection,
                         const std::function<Status(const DeadLetter&)>& visit) {
  if (selection.sequences.empty()) return ScanStream(connection, selection, visit);
  std::vector<uint64_t> sequences = selection.sequences;
  std::sort(sequences.begin(), sequences.end());
  sequences.erase(std::unique(sequences.begin(), sequences.end()), sequences.end());
  for (uint64_t seq : sequences) {
    SINKD_ASSIGN_OR_RETURN(DeadLetter letter, GetDeadLetter(connection, seq));
    if (Matches(selection, letter)) SINKD_RETURN_IF_ERROR(visit(letter));
  }
  return Status::OK();
}

Result<bool> PublishReplay(jetstream::Connection& connection, const ReplayPlan& plan,
                           uint64_t dead_sequence) {
  const std::string where = "replay of " + std::string(jetstream::kDeadStream) + " sequence " +
                            std::to_string(dead_sequence) + " to " + plan.subject;
  natsMsg* raw = nullptr;
  natsStatus s = natsMsg_Create(&raw, plan.subject.c_str(), nullptr, plan.payload.data(),
                                static_cast<int>(plan.payload.size()));
  jetstream::MsgPtr msg(raw);
  const std::string of = std::string(jetstream::kDeadStream) + "-" + std::to_string(dead_sequence);
  if (s == NATS_OK) s = natsMsgHeader_Set(raw, "Garm-Replay-Of", of.c_str());
  if (s != NATS_OK) return jetstream::FromNats(s, where);
  jsPubOptions po;
  jsPubOptions_Init(&po);
  po.MsgId = plan.msg_id.c_str();
  po.ExpectStream = plan.stream.c_str();
  jsPubAck* ack = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  s = js_PublishMsg(&ack, connection.js(), raw, &po, &jerr);
  jetstream::PubAckPtr owned(ack);
  if (s != NATS_OK) return jetstream::FromNats(s, where, jerr).As(Status::Retry);
  return !ack->Duplicate;
}

}  // namespace sinkd::dead
