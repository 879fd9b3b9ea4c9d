#include "sinks/jetstream_sink.h"

#include "jetstream/nats_error.h"

namespace sinkd::sinks {

bool IsSubjectSafe(std::string_view type) {
  if (type.empty() || type.front() == '.' || type.back() == '.') return false;
  char previous = 0;
  for (char c : type) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '*' || c == '>' ||
        static_cast<unsigned char>(c) < 0x20) {
      return false;
    }
    if (c == '.' && previous == '.') return false;
    previous = c;
  }
  return true;
}

JetStreamEventSink::JetStreamEventSink(std::string id, JetStreamSinkOptions options)
    : id_(std::move(id)), options_(std::move(options)) {}

Status JetStreamEventSink::Open() {
  jetstream::ConnectOptions connect;
  connect.url = options_.url;
  connect.name = "sinkd-dispatch:" + id_;
  connect.timeout = options_.timeout;
  auto connection = jetstream::Connection::Connect(connect);
  if (!connection.ok()) return connection.status().WithContext("jetstream sink " + id_);
  connection_ = std::move(connection).value();
  return Status::OK();
}

Status JetStreamEventSink::Deliver(std::span<const Event> events) {
  for (const Event& e : events) {
    if (e.id.empty()) return Status::Reject("event " + e.sequence + " has no id to publish under");
    if (!IsSubjectSafe(e.type)) {
      return Status::Reject("event " + e.sequence + ": its type \"" + e.type +
                            "\" cannot be a subject");
    }
  }
  for (const Event& e : events) {
    const std::string subject = options_.subject_prefix + "." + e.type;
    const std::string body = EventJson(e);
    const std::string where = "publish " + e.sequence + " to " + subject;
    jsPubOptions po;
    jsPubOptions_Init(&po);
    po.MsgId = e.id.c_str();  // sets the Nats-Msg-Id header
    po.MaxWait = options_.timeout.count();
    jsPubAck* ack = nullptr;
    jsErrCode jerr = static_cast<jsErrCode>(0);
    natsStatus s = js_Publish(&ack, connection_->js(), subject.c_str(), body.data(),
                              static_cast<int>(body.size()), &po, &jerr);
    jetstream::PubAckPtr owned(ack);
    if (s != NATS_OK) return jetstream::FromNats(s, where, jerr).As(Status::Retry);
  }
  return Status::OK();
}

}  // namespace sinkd::sinks
