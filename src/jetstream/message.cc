#include "jetstream/message.h"

#include <string>

namespace sinkd::jetstream {

namespace {

// One settle call: a publish of `body` to the reply subject, as libnats' natsMsg_Ack does it
// (asynchronously: it goes out with the connection's next flush).
Status Publish(const AckAddress* address, const char* body, const char* what) {
  if (address == nullptr) {
    return FromNats(NATS_ILLEGAL_STATE,
                    std::string(what) +
                        ": nothing to settle the message on (not delivered by an acking consumer)");
  }
  return FromNats(natsConnection_PublishString(address->connection, address->reply.c_str(), body),
                  what);
}

}  // namespace

Message::Message(natsMsg* msg, natsConnection* connection) : msg_(msg) {
  jsMsgMetaData* meta = nullptr;
  if (natsMsg_GetMetaData(&meta, msg) == NATS_OK && meta != nullptr) {
    MetaDataPtr owned(meta);
    stream_ = meta->Stream != nullptr ? meta->Stream : "";
    stream_sequence_ = meta->Sequence.Stream;
    delivered_ = meta->NumDelivered;
    pending_ = meta->NumPending;
    timestamp_ns_ = meta->Timestamp;
  }
  const char* reply = natsMsg_GetReply(msg);
  if (connection != nullptr && reply != nullptr && *reply != '\0') {
    address_ = std::make_unique<const AckAddress>(AckAddress{connection, reply});
  }
}

std::string_view Message::data() const {
  if (msg_ == nullptr) return {};
  return std::string_view(natsMsg_GetData(msg_.get()),
                          static_cast<size_t>(natsMsg_GetDataLength(msg_.get())));
}

std::string_view Message::subject() const {
  return msg_ != nullptr ? std::string_view(natsMsg_GetSubject(msg_.get())) : subject_;
}

void Message::ReleasePayload() {
  if (msg_ == nullptr) return;
  subject_ = natsMsg_GetSubject(msg_.get());
  msg_.reset();
}

Status Message::Ack() { return Publish(address_.get(), "+ACK", "ack"); }

Status Message::Nak(std::chrono::milliseconds delay) {
  if (delay.count() <= 0) return Publish(address_.get(), "-NAK", "nak");
  // The server reads the delay as a Go duration: nanoseconds.
  const std::string body =
      "-NAK {\"delay\": " + std::to_string(std::chrono::nanoseconds(delay).count()) + "}";
  return Publish(address_.get(), body.c_str(), "nak");
}

Status Message::Term() { return Publish(address_.get(), "+TERM", "term"); }

Status Message::InProgress(const AckAddress& address) {
  return Publish(&address, "+WPI", "in-progress");
}

}  // namespace sinkd::jetstream
