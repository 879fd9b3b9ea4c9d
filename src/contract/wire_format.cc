#include "contract/wire_format.h"

#include <cassert>

namespace sinkd::contract::wire {
namespace {

const uint8_t* SkipGroup(uint32_t field, const uint8_t* p, const uint8_t* end, int depth,
                         Fault* fault) {
  if (--depth < 0) {
    *fault = Fault::kTooDeep;
    return nullptr;
  }
  while (true) {
    if (p >= end) {
      *fault = Fault::kUnclosedGroup;
      return nullptr;
    }
    uint32_t tag;
    p = ReadTag(p, end, &tag, fault);
    if (p == nullptr) return nullptr;
    if (tag == 0 || (tag & 7) == kEndGroup) {
      if (tag >> 3 == field && (tag & 7) == kEndGroup) return p;
      *fault = Fault::kWrongGroupEnd;
      return nullptr;
    }
    p = SkipField(tag, p, end, depth, fault);
    if (p == nullptr) return nullptr;
  }
}

}  // namespace

std::string_view FaultText(Fault fault) {
  switch (fault) {
    case Fault::kNone:
      return "no fault";
    case Fault::kTruncated:
      return "the message ends in the middle of a field";
    case Fault::kVarintTooLong:
      return "a varint is longer than 10 bytes";
    case Fault::kTagTooLong:
      return "a field tag is longer than 5 bytes";
    case Fault::kLengthTooLong:
      return "a length prefix is malformed or beyond 2 GiB";
    case Fault::kFieldZero:
      return "a field has number 0";
    case Fault::kBadWireType:
      return "a field has wire type 6 or 7";
    case Fault::kEarlyEnd:
      return "tag 0 or an end-group tag ends a message before its length";
    case Fault::kUnclosedGroup:
      return "a group is never closed";
    case Fault::kWrongGroupEnd:
      return "a group is closed by the end tag of another field";
    case Fault::kTooDeep:
      return "messages and groups nest deeper than 100 levels";
    case Fault::kInvalidUtf8:
      return "a string is not valid UTF-8";
  }
  return "unknown fault";
}

const uint8_t* SkipField(uint32_t tag, const uint8_t* p, const uint8_t* end, int depth,
                         Fault* fault) {
  assert(tag != 0 && (tag & 7) != kEndGroup && "the caller ends the message on these");
  const uint32_t field = tag >> 3;
  if (field == 0) {
    *fault = Fault::kFieldZero;
    return nullptr;
  }
  switch (tag & 7) {
    case kVarint: {
      uint64_t ignored;
      return ReadVarint(p, end, &ignored, fault);
    }
    case kFixed64:
    case kFixed32: {
      const size_t width = (tag & 7) == kFixed64 ? 8 : 4;
      if (static_cast<size_t>(end - p) < width) {
        *fault = Fault::kTruncated;
        return nullptr;
      }
      return p + width;
    }
    case kLengthDelimited: {
      size_t length;
      p = ReadLength(p, end, &length, fault);
      return p == nullptr ? nullptr : p + length;
    }
    case kStartGroup:
      return SkipGroup(field, p, end, depth, fault);
    default:
      *fault = Fault::kBadWireType;
      return nullptr;
  }
}

}  // namespace sinkd::contract::wire
