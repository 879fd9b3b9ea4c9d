// Status is the outcome of an operation that can fail: OK, or a code plus a message with context.
// Codes are named for the decision the caller has to take, not for what broke:
//   Retry      transient (I/O hiccup, HTTP 5xx, timeout): trying the same call again may succeed;
//   Redeliver  a flush or a placement failed: the batch must be nak'd and come back later;
//   Reject     the input can never be read: it goes to dead letters, never to the lake;
//   Refuse     configuration or policy is wrong: stop and tell the operator what to do;
//   NotFound   the thing asked for does not exist (a stream, a bucket, a table);
//   Internal   a bug in sinkd.
// Threads: immutable once built, share freely. An OK Status allocates nothing.
// sinkd throws nothing: every failure travels as a Status so that the ack/nak decision stays visible.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace sinkd {

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  static Status OK() { return Status(); }
  static Status Retry(std::string_view message) { return Status(Code::kRetry, message); }
  static Status Redeliver(std::string_view message) { return Status(Code::kRedeliver, message); }
  static Status Reject(std::string_view message) { return Status(Code::kReject, message); }
  static Status Refuse(std::string_view message) { return Status(Code::kRefuse, message); }
  static Status NotFound(std::string_view message) { return Status(Code::kNotFound, message); }
  static Status Internal(std::string_view message) { return Status(Code::kInternal, message); }

  bool ok() const { return state_ == nullptr; }
  bool IsRetry() const { return code() == Code::kRetry; }
  bool IsRedeliver() const { return code() == Code::kRedeliver; }
  bool IsReject() const { return code() == Code::kReject; }
  bool IsRefuse() const { return code() == Code::kRefuse; }
  bool IsNotFound() const { return code() == Code::kNotFound; }
  bool IsInternal() const { return code() == Code::kInternal; }

  // The message alone ("" when OK). Never contains a secret: callers must not put one in.
  const std::string& message() const;
  // "<code>: <message>", or "OK".
  std::string ToString() const;
  // The same code with "<context>: " in front of the message; OK stays OK.
  Status WithContext(std::string_view context) const;
  // The same message under another code; OK stays OK.
  Status As(Status (*make)(std::string_view)) const { return ok() ? *this : make(message()); }

 private:
  enum class Code { kOk, kRetry, kRedeliver, kReject, kRefuse, kNotFound, kInternal };
  struct State {
    Code code;
    std::string message;
  };
  Status(Code code, std::string_view message)
      : state_(std::make_shared<const State>(State{code, std::string(message)})) {}
  Code code() const { return state_ ? state_->code : Code::kOk; }

  // shared_ptr because a Status is copied into logs and results far more often than it is
  // created; the state is immutable, so sharing it is safe.
  std::shared_ptr<const State> state_;
};

}  // namespace sinkd

// Returns from the enclosing function when `expr` (a Status) is not OK.
#define SINKD_RETURN_IF_ERROR(expr)                     \
  do {                                                  \
    ::sinkd::Status sinkd_status_ = (expr);             \
    if (!sinkd_status_.ok()) return sinkd_status_;      \
  } while (0)
