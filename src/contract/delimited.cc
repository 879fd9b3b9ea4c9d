#include "contract/delimited.h"

#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>

namespace sinkd::contract {

void AppendDelimited(std::string& out, std::string_view message) {
  uint64_t n = message.size();
  while (n >= 0x80) {
    out.push_back(static_cast<char>((n & 0x7F) | 0x80));
    n >>= 7;
  }
  out.push_back(static_cast<char>(n));
  out.append(message);
}

Result<std::optional<std::string_view>> DelimitedReader::Next() {
  if (offset_ == data_.size()) return std::optional<std::string_view>();
  const uint64_t start = offset_;
  uint64_t length = 0;
  int shift = 0;
  while (true) {
    if (offset_ == data_.size()) {
      return Status::Reject("truncated length prefix at byte " + std::to_string(start));
    }
    const uint8_t byte = static_cast<uint8_t>(data_[offset_++]);
    if (shift == 63 && byte > 1) {
      return Status::Reject("length prefix at byte " + std::to_string(start) + " overflows");
    }
    length |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) break;
    shift += 7;
    if (shift > 63) {
      return Status::Reject("length prefix at byte " + std::to_string(start) + " is too long");
    }
  }
  if (length > data_.size() - offset_) {
    return Status::Reject("message at byte " + std::to_string(start) + " claims " +
                          std::to_string(length) + " bytes but only " +
                          std::to_string(data_.size() - offset_) + " remain");
  }
  std::string_view message = data_.substr(offset_, length);
  offset_ += length;
  return std::optional<std::string_view>(message);
}

DelimitedStreamReader::DelimitedStreamReader(int fd, size_t buffer_bytes) : fd_(fd) {
  buffer_.resize(buffer_bytes);
}

Result<DelimitedStreamReader::Filled> DelimitedStreamReader::Fill(size_t want, bool may_move) {
  while (end_ - begin_ < want) {
    if (eof_) return Filled::kEnd;
    if (!may_move && begin_ + want > buffer_.size()) return Filled::kNoRoom;
    if (may_move && begin_ > 0) {  // slide the unread tail to the front before reading more
      std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (may_move && buffer_.size() < want) buffer_.resize(want);
    const ssize_t n = ::read(fd_, buffer_.data() + end_, buffer_.size() - end_);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Refuse(std::string("read: ") + std::strerror(errno));
    }
    if (n == 0) eof_ = true;
    end_ += static_cast<size_t>(n);
  }
  return Filled::kYes;
}

Result<DelimitedStreamReader::Filled> DelimitedStreamReader::Take(bool may_move,
                                                                  std::string_view* message) {
  // A varint length is at most 10 bytes; ask for that much, accept less at the very end.
  SINKD_ASSIGN_OR_RETURN(const Filled head, Fill(10, may_move));
  if (head == Filled::kNoRoom) return head;
  if (begin_ == end_) return Filled::kEnd;
  // Parse only the length: a message that runs past the buffer is fine here, it is read below.
  uint64_t length = 0;
  size_t used = 0;
  for (int shift = 0;; shift += 7) {
    if (begin_ + used == end_ || shift > 63) {
      return Status::Reject("truncated length prefix at byte " + std::to_string(offset_));
    }
    const uint8_t byte = static_cast<uint8_t>(buffer_[begin_ + used++]);
    length |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) break;
  }
  if (length > (uint64_t{1} << 32)) {
    return Status::Reject("message at byte " + std::to_string(offset_) + " claims " +
                          std::to_string(length) + " bytes");
  }
  SINKD_ASSIGN_OR_RETURN(const Filled whole, Fill(used + length, may_move));
  if (whole == Filled::kNoRoom) return whole;
  if (whole == Filled::kEnd) {
    return Status::Reject("message at byte " + std::to_string(offset_) + " claims " +
                          std::to_string(length) + " bytes but the input ends first");
  }
  *message = std::string_view(buffer_.data() + begin_ + used, length);
  begin_ += used + length;
  offset_ += used + length;
  return Filled::kYes;
}

Result<std::optional<std::string_view>> DelimitedStreamReader::Next() {
  std::string_view message;
  SINKD_ASSIGN_OR_RETURN(const Filled took, Take(/*may_move=*/true, &message));
  if (took == Filled::kEnd) return std::optional<std::string_view>();
  return std::optional<std::string_view>(message);
}

Result<std::span<const std::string_view>> DelimitedStreamReader::NextRun(size_t max_messages,
                                                                         size_t max_bytes) {
  assert(max_messages >= 1 && "an empty run would read as the end of input");
  run_.clear();
  size_t bytes = 0;
  while (run_.size() < max_messages && bytes < max_bytes) {
    std::string_view message;
    // Only the first message may move the buffer: the others' views must stay where they are.
    SINKD_ASSIGN_OR_RETURN(const Filled took, Take(/*may_move=*/run_.empty(), &message));
    if (took != Filled::kYes) break;
    run_.push_back(message);
    bytes += message.size();
  }
  return std::span<const std::string_view>(run_);
}

}  // namespace sinkd::contract
