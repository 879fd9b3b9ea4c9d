#include "contract/delimited.h"

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

}  // namespace sinkd::contract
