// Differential fuzz target: every input is decoded by the hand-written WireDecoder and by the
// libprotobuf reference (DecodeWithLibprotobuf), as a Batch and as an Event, and any difference in
// rows, in any column value, or in a reject's reason, index or payload aborts. Error texts may
// differ. One more oracle ties the Batch split to the generated Batch parser itself: when
// Batch::ParseFromArray accepts the message, every event in it must parse on its own too.
// Keep <ranges> out of this file: clang 14 cannot compile libstdc++ 12's views.
#include <google/protobuf/stubs/common.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "contract/reference_decoder.h"
#include "contract/wire_decoder.h"
#include "garm/ledger/v1/event.pb.h"
#include "row/ledger_columns.h"
#include "row/row_buffer.h"

namespace {

using sinkd::contract::Envelope;
using sinkd::contract::EnvelopeName;
using sinkd::contract::Reject;
using sinkd::row::ColumnBuffer;
using sinkd::row::ColumnType;
using sinkd::row::RowBuffer;

[[noreturn]] void Mismatch(Envelope envelope, const std::string& what) {
  std::fprintf(stderr,
               "fuzz_decoder: %s envelope: hand-written and libprotobuf decoders differ: %s\n",
               std::string(EnvelopeName(envelope)).c_str(), what.c_str());
  std::abort();
}

std::string Hex(std::string_view bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes.substr(0, 64)) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return bytes.size() > 64 ? out + "..." : out;
}

template <typename T>
bool SameValues(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if constexpr (std::is_same_v<T, double>) {
      // Bitwise: NaN payloads and -0.0 must survive as they were sent.
      if (std::bit_cast<uint64_t>(a[i]) != std::bit_cast<uint64_t>(b[i])) return false;
    } else if (a[i] != b[i]) {
      return false;
    }
  }
  return true;
}

void CompareRows(Envelope envelope, const RowBuffer& hand, const RowBuffer& ref) {
  if (hand.rows() != ref.rows()) {
    Mismatch(envelope, "rows " + std::to_string(hand.rows()) + " vs " + std::to_string(ref.rows()));
  }
  for (size_t c = 0; c < hand.table().columns.size(); ++c) {
    const ColumnBuffer& a = hand.column(static_cast<int>(c));
    const ColumnBuffer& b = ref.column(static_cast<int>(c));
    const bool same = a.strings.bytes == b.strings.bytes &&
                      a.strings.offsets == b.strings.offsets && SameValues(a.int64s, b.int64s) &&
                      SameValues(a.int32s, b.int32s) && SameValues(a.doubles, b.doubles) &&
                      SameValues(a.bools, b.bools);
    if (!same) {
      std::string what = "column " + std::string(hand.table().columns[c].name);
      if (a.type == ColumnType::kString && a.strings.size() == b.strings.size()) {
        for (size_t r = 0; r < a.strings.size(); ++r) {
          if (a.strings.at(r) != b.strings.at(r)) {
            what += " row " + std::to_string(r) + ": " + std::string(a.strings.at(r)) + " vs " +
                    std::string(b.strings.at(r));
            break;
          }
        }
      }
      Mismatch(envelope, what);
    }
  }
}

void CompareRejects(Envelope envelope, const std::vector<Reject>& hand,
                    const std::vector<Reject>& ref) {
  if (hand.size() != ref.size()) {
    std::string what =
        "rejects " + std::to_string(hand.size()) + " vs " + std::to_string(ref.size());
    for (const Reject& r : hand) what += "\n  hand: " + r.ToString();
    for (const Reject& r : ref) what += "\n  ref:  " + r.ToString();
    Mismatch(envelope, what);
  }
  for (size_t i = 0; i < hand.size(); ++i) {
    if (hand[i].reason != ref[i].reason || hand[i].index != ref[i].index ||
        hand[i].payload != ref[i].payload) {
      Mismatch(envelope, "reject " + std::to_string(i) + ": " + hand[i].ToString() + " [" +
                             Hex(hand[i].payload) + "] vs " + ref[i].ToString() + " [" +
                             Hex(ref[i].payload) + "]");
    }
  }
}

// Batch::ParseFromArray accepting the message means the framing is sound and every event parses
// (with one nesting level less than a standalone Event gets), so no event may be unreadable alone.
void CheckAgainstGeneratedBatch(std::string_view message, const std::vector<Reject>& rejects) {
  garm::ledger::v1::Batch batch;
  if (!batch.ParseFromArray(message.data(), static_cast<int>(message.size()))) return;
  for (const Reject& reject : rejects) {
    garm::ledger::v1::Event event;
    if (reject.index < 0 || !event.ParseFromString(reject.payload)) {
      Mismatch(Envelope::kBatch,
               "Batch::ParseFromArray accepts the message but the decoders "
               "reject: " +
                   reject.ToString());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // libprotobuf logs every invalid UTF-8 string it refuses; the verdict is all that matters here.
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Reused across inputs, as a drain reuses them across messages: a decoder that leaked state
  // from one message into the next would show up as a difference here.
  static sinkd::contract::WireDecoder decoder;
  static RowBuffer hand(sinkd::row::kLedgerColumns);
  static RowBuffer ref(sinkd::row::kLedgerColumns);
  const std::string_view message(reinterpret_cast<const char*>(data), size);
  for (Envelope envelope : {Envelope::kBatch, Envelope::kEvent}) {
    hand.Clear();
    ref.Clear();
    std::vector<Reject> hand_rejects;
    std::vector<Reject> ref_rejects;
    const size_t hand_rows = decoder.Decode(envelope, message, hand, hand_rejects);
    const size_t ref_rows =
        sinkd::contract::DecodeWithLibprotobuf(envelope, message, ref, ref_rejects);
    if (hand_rows != hand.rows() || ref_rows != ref.rows()) {
      Mismatch(envelope, "a decoder's return value is not the number of rows it appended");
    }
    CompareRows(envelope, hand, ref);
    CompareRejects(envelope, hand_rejects, ref_rejects);
    if (envelope == Envelope::kBatch) CheckAgainstGeneratedBatch(message, ref_rejects);
  }
  return 0;
}
