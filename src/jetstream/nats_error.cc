#include "jetstream/nats_error.h"

namespace sinkd::jetstream {

Status FromNats(natsStatus s, std::string_view context, jsErrCode jerr) {
  if (s == NATS_OK) return Status::OK();
  std::string message(context);
  message += ": ";
  message += natsStatus_GetText(s);
  if (jerr != 0) message += " (jetstream error " + std::to_string(static_cast<int>(jerr)) + ")";
  // The last error of this thread often says what the server said ("maximum bytes exceeded").
  const char* detail = nats_GetLastError(nullptr);
  if (detail != nullptr && *detail != '\0' && message.find(detail) == std::string::npos) {
    message += ": ";
    message += detail;
  }
  if (s == NATS_NOT_FOUND || jerr == JSStreamNotFoundErr || jerr == JSConsumerNotFoundErr) {
    return Status::NotFound(message);
  }
  return Status::Retry(message);
}

}  // namespace sinkd::jetstream
