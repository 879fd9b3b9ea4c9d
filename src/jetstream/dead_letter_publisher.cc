#include "jetstream/dead_letter_publisher.h"

#include "jetstream/streams.h"

namespace sinkd::jetstream {

std::string DeadLetterMsgId(std::string_view stream, uint64_t sequence, int index) {
  return std::string(stream) + "-" + std::to_string(sequence) + "-" + std::to_string(index);
}

DeadLetterPublisher::DeadLetterPublisher(Connection& connection, std::string origin)
    : connection_(connection), subject_(DeadSubjectFor(origin)) {}

Status DeadLetterPublisher::CheckReachable() {
  auto state = GetStreamState(connection_, kDeadStream);
  if (!state.ok()) {
    // A timeout (Retry) is what a cluster electing the stream's leader answers: a caller may ask
    // again. A missing stream is for the operator.
    return Status::Refuse(std::string("dead-letter stream ") + kDeadStream +
                          " is not reachable (" + state.status().message() +
                          "): a drain refuses to start without it, because unreadable records "
                          "are never discarded; run `sinkd provision`")
        .As(state.status().IsRetry() ? &Status::Retry : &Status::Refuse);
  }
  for (const std::string& s : state->config.subjects) {
    if (s == kDeadFilter || s == subject_ || s == ">") return Status::OK();
  }
  return Status::Refuse(std::string("dead-letter stream ") + kDeadStream + " does not take " +
                        subject_ + "; run `sinkd provision` to see how it differs");
}

Result<StreamState> DeadLetterPublisher::State() {
  return GetStreamState(connection_, kDeadStream);
}

Result<bool> DeadLetterPublisher::Publish(const DeadLetterRecord& record) {
  const contract::Reject& reject = *record.reject;
  const std::string where =
      "dead-letter " + std::string(record.subject) + " seq " + std::to_string(record.sequence);
  natsMsg* raw = nullptr;
  natsStatus s = natsMsg_Create(&raw, subject_.c_str(), nullptr, reject.payload.data(),
                                static_cast<int>(reject.payload.size()));
  MsgPtr msg(raw);
  const std::string sequence = std::to_string(record.sequence);
  const std::string index = std::to_string(reject.index);
  const std::string stream(record.stream);
  const std::string subject(record.subject);
  const std::string reason(contract::ReasonName(reject.reason));
  // A header value cannot hold a line break; parse errors can quote one.
  std::string error = reject.error;
  for (char& c : error) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  if (s == NATS_OK) s = natsMsgHeader_Set(raw, "Garm-Dead-Reason", reason.c_str());
  if (s == NATS_OK && !error.empty()) {
    s = natsMsgHeader_Set(raw, "Garm-Dead-Error", error.c_str());
  }
  if (s == NATS_OK) s = natsMsgHeader_Set(raw, "Garm-Dead-Stream", stream.c_str());
  if (s == NATS_OK) s = natsMsgHeader_Set(raw, "Garm-Dead-Subject", subject.c_str());
  if (s == NATS_OK) s = natsMsgHeader_Set(raw, "Garm-Dead-Sequence", sequence.c_str());
  if (s == NATS_OK) s = natsMsgHeader_Set(raw, "Garm-Dead-Event-Index", index.c_str());
  if (s != NATS_OK) return FromNats(s, where);
  const std::string msg_id = DeadLetterMsgId(record.stream, record.sequence, reject.index);
  jsPubOptions po;
  jsPubOptions_Init(&po);
  po.MsgId = msg_id.c_str();
  po.ExpectStream = kDeadStream;
  jsPubAck* ack = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  s = js_PublishMsg(&ack, connection_.js(), raw, &po, &jerr);
  PubAckPtr owned(ack);
  if (s != NATS_OK) return FromNats(s, where, jerr).As(Status::Retry);
  return !ack->Duplicate;
}

}  // namespace sinkd::jetstream
