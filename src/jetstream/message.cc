#include "jetstream/message.h"

namespace sinkd::jetstream {

Message::Message(natsMsg* msg) : msg_(msg) {
  jsMsgMetaData* meta = nullptr;
  if (natsMsg_GetMetaData(&meta, msg) == NATS_OK && meta != nullptr) {
    MetaDataPtr owned(meta);
    stream_ = meta->Stream != nullptr ? meta->Stream : "";
    stream_sequence_ = meta->Sequence.Stream;
    delivered_ = meta->NumDelivered;
    pending_ = meta->NumPending;
    timestamp_ns_ = meta->Timestamp;
  }
}

std::string_view Message::data() const {
  return std::string_view(natsMsg_GetData(msg_.get()),
                          static_cast<size_t>(natsMsg_GetDataLength(msg_.get())));
}

std::string_view Message::subject() const { return natsMsg_GetSubject(msg_.get()); }

Status Message::Ack() { return FromNats(natsMsg_Ack(msg_.get(), nullptr), "ack"); }

Status Message::Nak(std::chrono::milliseconds delay) {
  return FromNats(natsMsg_NakWithDelay(msg_.get(), delay.count(), nullptr), "nak");
}

Status Message::Term() { return FromNats(natsMsg_Term(msg_.get(), nullptr), "term"); }

Status Message::InProgress(natsMsg* msg) {
  return FromNats(natsMsg_InProgress(msg, nullptr), "in-progress");
}

}  // namespace sinkd::jetstream
