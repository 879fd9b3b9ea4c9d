#include "base/status.h"

namespace sinkd {

namespace {
const std::string& EmptyString() {
  static const std::string empty;
  return empty;
}
}  // namespace

const std::string& Status::message() const { return state_ ? state_->message : EmptyString(); }

std::string Status::ToString() const {
  const char* name = "OK";
  switch (code()) {
    case Code::kOk: return "OK";
    case Code::kRetry: name = "retry"; break;
    case Code::kRedeliver: name = "redeliver"; break;
    case Code::kReject: name = "reject"; break;
    case Code::kRefuse: name = "refused"; break;
    case Code::kNotFound: name = "not found"; break;
    case Code::kInternal: name = "internal"; break;
  }
  return std::string(name) + ": " + state_->message;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  std::string text(context);
  text += ": ";
  text += state_->message;
  return Status(state_->code, text);
}

}  // namespace sinkd
