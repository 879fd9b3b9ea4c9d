// The delimited form of a stream of wire messages, as protobuf's writeDelimitedTo writes it: each
// message is prefixed by its length as a base-128 varint. `sinkd import` reads it; the traffic
// generator and the demo write it. A file of these is what travelled on the stream, message by
// message, so replaying it through the lake gives exactly what a drain would have written.
// Threads: DelimitedReader is one thread at a time; the functions are pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace sinkd::contract {

// Appends `message` to `out` with its varint length in front.
void AppendDelimited(std::string& out, std::string_view message);

// Splits a buffer of delimited messages. Views point into the buffer given to the constructor,
// which must outlive them.
class DelimitedReader {
 public:
  explicit DelimitedReader(std::string_view data) : data_(data) {}

  // The next message, or an empty optional at a clean end of input.
  // Fails (Reject) on a truncated length or a message running past the end, naming the offset.
  Result<std::optional<std::string_view>> Next();

  uint64_t offset() const { return offset_; }

 private:
  std::string_view data_;
  uint64_t offset_ = 0;
};

}  // namespace sinkd::contract
