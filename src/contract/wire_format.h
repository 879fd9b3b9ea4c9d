// Internal to contract/ and its tests: the protobuf wire format read with the exact limits of
// libprotobuf 3.21's generated parser (google::protobuf::internal::ParseContext), so that the
// hand-written decoder accepts and refuses byte for byte what Event::ParseFromArray does:
//   tag      varint of at most 5 bytes, its value taken modulo 2^32 (bits past 32 are dropped);
//   varint   at most 10 bytes, value modulo 2^64; int32 fields keep the low 32 bits;
//   length   at most 5 bytes with a 5th byte below 8, at most INT_MAX - 16, within the message;
//   groups   an unknown start-group must be closed by the end-group of the same field number;
//   nesting  every sub-message and group costs one level of a budget of 100
//            (io::CodedInputStream::GetDefaultRecursionLimit()); the 101st level fails;
//   ending   tag 0 or a stray end-group tag inside a message ends it early, which is a failure
//            because a message must run exactly to its length.
// Each reader returns the position after what it read, or nullptr after setting *fault.
// Threads: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sinkd::contract::wire {

enum WireType : uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

inline constexpr int kRecursionLimit = 100;
inline constexpr uint32_t kMaxLength = 0x7FFFFFFF - 16;  // INT_MAX - ParseContext::kSlopBytes

// Why bytes are not a readable message; the text of a reject says which.
enum class Fault : uint8_t {
  kNone,
  kTruncated,      // a field runs past the end of its message
  kVarintTooLong,  // a varint of more than 10 bytes
  kTagTooLong,     // a tag of more than 5 bytes
  kLengthTooLong,  // a length of more than 5 bytes or beyond 2 GiB
  kFieldZero,      // field number 0
  kBadWireType,    // wire type 6 or 7
  kEarlyEnd,       // tag 0 or an end-group tag where the message must go on to its length
  kUnclosedGroup,  // a start-group never closed before its enclosing message ends
  kWrongGroupEnd,  // a group closed by the end-group of another field (or by tag 0)
  kTooDeep,        // more than 100 levels of nested messages and groups
  kInvalidUtf8,    // a string field, map key or value, or list item that is not UTF-8
};

// A short phrase: "the message ends in the middle of a field", "a string is not valid UTF-8", …
std::string_view FaultText(Fault fault);

inline const uint8_t* ReadVarint(const uint8_t* p, const uint8_t* end, uint64_t* value,
                                 Fault* fault) {
  if (p < end && *p < 0x80) {
    *value = *p;
    return p + 1;
  }
  uint64_t result = 0;
  for (int i = 0; i < 10; ++i) {
    if (p + i >= end) {
      *fault = Fault::kTruncated;
      return nullptr;
    }
    const uint64_t byte = p[i];
    result |= (byte & 0x7F) << (7 * i);  // at i == 9 only bit 63 survives: modulo 2^64
    if (byte < 0x80) {
      *value = result;
      return p + i + 1;
    }
  }
  *fault = Fault::kVarintTooLong;
  return nullptr;
}

inline const uint8_t* ReadTag(const uint8_t* p, const uint8_t* end, uint32_t* tag, Fault* fault) {
  // Fields 1..15 take one byte and 16..2047 two: every field of the contract.
  if (p < end && *p < 0x80) {
    *tag = *p;
    return p + 1;
  }
  if (end - p >= 2 && p[1] < 0x80) {
    *tag = (p[0] & 0x7Fu) | (uint32_t{p[1]} << 7);
    return p + 2;
  }
  uint32_t result = 0;
  for (int i = 0; i < 5; ++i) {
    if (p + i >= end) {
      *fault = Fault::kTruncated;
      return nullptr;
    }
    const uint32_t byte = p[i];
    result |= (byte & 0x7F) << (7 * i);  // the 5th byte's bits past 32 are dropped
    if (byte < 0x80) {
      *tag = result;
      return p + i + 1;
    }
  }
  *fault = Fault::kTagTooLong;
  return nullptr;
}

// Reads a length prefix and checks that many bytes follow before `end`.
inline const uint8_t* ReadLength(const uint8_t* p, const uint8_t* end, size_t* length,
                                 Fault* fault) {
  if (p < end && *p < 0x80 && *p < end - p) {  // short strings: one byte, and it fits
    *length = *p;
    return p + 1;
  }
  uint32_t result = 0;
  for (int i = 0; i < 5; ++i) {
    if (p + i >= end) {
      *fault = Fault::kTruncated;
      return nullptr;
    }
    const uint32_t byte = p[i];
    if (i == 4 && byte >= 8) {
      *fault = Fault::kLengthTooLong;
      return nullptr;
    }
    result |= (byte & 0x7F) << (7 * i);
    if (byte < 0x80) {
      if (result > kMaxLength) {
        *fault = Fault::kLengthTooLong;
        return nullptr;
      }
      p += i + 1;
      if (result > static_cast<size_t>(end - p)) {
        *fault = Fault::kTruncated;
        return nullptr;
      }
      *length = result;
      return p;
    }
  }
  *fault = Fault::kLengthTooLong;  // unreachable: the 5th byte is below 8 or refused above
  return nullptr;
}

// Skips the value of an unknown field whose tag was just read, groups included.
// `depth` is the nesting budget left at the field's own level.
// REQUIRES: tag != 0 and its wire type is not kEndGroup (the caller handles both as an ending).
const uint8_t* SkipField(uint32_t tag, const uint8_t* p, const uint8_t* end, int depth,
                         Fault* fault);

}  // namespace sinkd::contract::wire
