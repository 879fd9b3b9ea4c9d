#include "drain/message_acks.h"

#include <span>

namespace sinkd::drain {

void MessageAcks::Hold(jetstream::Message&& message) {
  message.ReleasePayload();
  messages_.push_back(std::move(message));
}

Status MessageAcks::Ack(size_t record) {
  keepalive_.Release(messages_[record]);
  return messages_[record].Ack();
}

Status MessageAcks::Term(size_t record) {
  keepalive_.Release(messages_[record]);
  return messages_[record].Term();
}

Status MessageAcks::Nak(size_t record, std::chrono::milliseconds delay) {
  keepalive_.Release(messages_[record]);
  return messages_[record].Nak(delay);
}

void MessageAcks::Clear() {
  keepalive_.Release(std::span<const jetstream::Message>(messages_));
  messages_.clear();
}

}  // namespace sinkd::drain
