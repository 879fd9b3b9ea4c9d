// The one place a libnats (cnats 3.4.1) error becomes a sinkd Status, and the RAII owners of the
// C handles sinkd keeps across calls. Every handle is move-only; copying is deleted.
// Threads: the converters are pure; a handle is owned by one thread at a time.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <nats/nats.h>

#include "base/status.h"

namespace sinkd::jetstream {

// "<context>: <natsStatus text>[ (jetstream error <code>)][: <last error text>]", coded for the
// decision the caller takes: NotFound for NATS_NOT_FOUND and the not-found JetStream codes, Retry for
// timeouts, lost connections and everything else a later attempt may cure.
Status FromNats(natsStatus s, std::string_view context, jsErrCode jerr = static_cast<jsErrCode>(0));

struct NatsDeleter {
  void operator()(natsConnection* p) const { natsConnection_Destroy(p); }
  void operator()(natsOptions* p) const { natsOptions_Destroy(p); }
  void operator()(jsCtx* p) const { jsCtx_Destroy(p); }
  void operator()(natsSubscription* p) const { natsSubscription_Destroy(p); }
  void operator()(natsMsg* p) const { natsMsg_Destroy(p); }
  void operator()(jsStreamInfo* p) const { jsStreamInfo_Destroy(p); }
  void operator()(jsConsumerInfo* p) const { jsConsumerInfo_Destroy(p); }
  void operator()(jsPubAck* p) const { jsPubAck_Destroy(p); }
  void operator()(jsMsgMetaData* p) const { jsMsgMetaData_Destroy(p); }
};

using ConnectionPtr = std::unique_ptr<natsConnection, NatsDeleter>;
using OptionsPtr = std::unique_ptr<natsOptions, NatsDeleter>;
using JsPtr = std::unique_ptr<jsCtx, NatsDeleter>;
using SubscriptionPtr = std::unique_ptr<natsSubscription, NatsDeleter>;
using MsgPtr = std::unique_ptr<natsMsg, NatsDeleter>;
using StreamInfoPtr = std::unique_ptr<jsStreamInfo, NatsDeleter>;
using ConsumerInfoPtr = std::unique_ptr<jsConsumerInfo, NatsDeleter>;
using PubAckPtr = std::unique_ptr<jsPubAck, NatsDeleter>;
using MetaDataPtr = std::unique_ptr<jsMsgMetaData, NatsDeleter>;

}  // namespace sinkd::jetstream
