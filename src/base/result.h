// Result<T> holds either a value or a non-OK Status, never both (shaped like C++23 std::expected,
// which gcc 12 lacks). There is no default constructor, so `return {}` cannot invent an error.
// Threads: one thread at a time; a const Result is safe to read concurrently.
#pragma once

#include <cassert>
#include <optional>
#include <utility>

#include "base/status.h"

namespace sinkd {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok() && "a Result built from a Status must hold an error");
    if (status_.ok()) status_ = Status::Internal("Result built from an OK status");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  // REQUIRES: ok().
  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace sinkd

#define SINKD_CONCAT_INNER(a, b) a##b
#define SINKD_CONCAT(a, b) SINKD_CONCAT_INNER(a, b)
// Declares `lhs` from a Result-returning `expr`, or returns its Status from the enclosing function.
#define SINKD_ASSIGN_OR_RETURN(lhs, expr)                                   \
  auto SINKD_CONCAT(sinkd_result_, __LINE__) = (expr);                      \
  if (!SINKD_CONCAT(sinkd_result_, __LINE__).ok())                          \
    return SINKD_CONCAT(sinkd_result_, __LINE__).status();                  \
  lhs = std::move(SINKD_CONCAT(sinkd_result_, __LINE__)).value()
