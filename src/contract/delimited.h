// The delimited form of a stream of wire messages, as protobuf's writeDelimitedTo writes it: each
// message is prefixed by its length as a base-128 varint. `sinkd import` reads it; the traffic
// generator and the demo write it. A file of these is what travelled on the stream, message by
// message, so replaying it through the lake gives exactly what a drain would have written.
// Threads: DelimitedReader is one thread at a time; the functions are pure.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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

// Reads delimited messages from a file descriptor through a bounded buffer, so replaying a file of
// any size holds one buffer (plus the largest message) in memory, not the file.
// Borrows the descriptor. Views returned by Next or NextRun stay valid until the next call of
// either.
class DelimitedStreamReader {
 public:
  explicit DelimitedStreamReader(int fd, size_t buffer_bytes = 8 << 20);

  // The next message, an empty optional at a clean end of input, Reject on a truncated message or
  // length (naming the byte offset), Refuse on a read error.
  Result<std::optional<std::string_view>> Next();

  // The next messages, up to `max_messages` of them or until they hold `max_bytes`, all viewing
  // the buffer the input was read into: at least one, none only at a clean end of input. A run
  // also ends before a message that does not fit in the buffer behind the ones taken, since the
  // buffer's bytes move (or it grows) only before a run's first message. Errors as Next's.
  // REQUIRES: max_messages >= 1.
  // Why: `sinkd import` decodes a run where it was read; copying each message out first was 2.5%
  // of an import's instructions.
  Result<std::span<const std::string_view>> NextRun(size_t max_messages, size_t max_bytes);

 private:
  enum class Filled { kYes, kEnd, kNoRoom };
  // Makes at least `want` unread bytes available: kEnd at end of input with fewer; kNoRoom when
  // that needs the unread bytes moved or the buffer grown and `may_move` is false.
  Result<Filled> Fill(size_t want, bool may_move);
  // The next message in `message` (kYes), or kEnd, or kNoRoom (nothing taken; only when
  // `may_move` is false).
  Result<Filled> Take(bool may_move, std::string_view* message);

  int fd_;
  std::string buffer_;
  size_t begin_ = 0;  // first unread byte in buffer_
  size_t end_ = 0;    // one past the last valid byte
  uint64_t offset_ = 0;  // input offset of buffer_[begin_]
  bool eof_ = false;
  std::vector<std::string_view> run_;  // NextRun's messages
};

}  // namespace sinkd::contract
