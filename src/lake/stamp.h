// A flush stamp says where the rows of one Part came from, so that `sinkd lake verify` can prove,
// from footers alone, that nothing acknowledged is missing. Every Part LakeWriter writes carries
// its flush's stamp under the footer key `sinkd.stamps` (table/footer.h): a compact JSON array
// with one element (a compaction output carries the union of its inputs' elements, as opaque
// values). An element, fields always in this order:
//   {"instance":"host-41","source":"GARM_LEDGER","scope":"stream","first":1,"last":500,
//    "acked":[[1,200],[202,500]],"parts":3,"rows":12000,"n":1,
//    "key":"ledger/date=2026-11-30/app=web/part-host-41-1-500-1.parquet","part_rows":4000}
// plus "first_txid","last_txid" after "last" for an outbox lake sink. Meaning:
//   instance, source  the writer's instance and what it read (a stream, "import", "outbox:<sink>")
//   scope             what numbers the sequences: "stream" (one numbering per stream, shared by
//                     every drain), "run" (import numbers its input from 1 on each run, so a
//                     run's sequences mean something only with its instance), "outbox" (the
//                     outbox's seq, a bigserial with holes: gaps are only known against the outbox)
//   first, last       the flush's lowest and highest sequence (the key's range)
//   acked             every sequence the flush acknowledged, as sorted inclusive ranges: messages
//                     that gave no row (dead-lettered, a Batch of zero events) included
//   parts, rows       how many Parts and rows the whole flush wrote
//   n, key, part_rows this Part: its index in the flush (0 … parts-1, in key order), its key as
//                     the flush meant it (alternative 0: a Part moved to "<instance>.<k>" because
//                     the key held other bytes keeps the plain key here, so its bytes do not
//                     depend on where it landed), and its rows
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "table/flush.h"

namespace sinkd::lake {

using SequenceRange = table::SequenceRange;  // table/flush.h

// Sorted, merged ranges of `sequences` (any order, repeats allowed).
std::vector<SequenceRange> ToRanges(std::vector<uint64_t> sequences);
// "1-200,202-500" ("7" for a range of one): how sequences are named in messages.
std::string FormatRanges(const std::vector<SequenceRange>& ranges);

struct FlushStamp {
  std::string instance;
  std::string source;
  std::string scope = "stream";  // stream | run | outbox
  uint64_t first = 0;
  uint64_t last = 0;
  std::optional<uint64_t> first_txid;  // outbox sinks only
  std::optional<uint64_t> last_txid;
  std::vector<SequenceRange> acked;
  uint64_t parts = 0;
  uint64_t rows = 0;
  uint64_t n = 0;
  std::string key;
  uint64_t part_rows = 0;
};

// One element, compact, fields in the order above.
std::string StampJson(const FlushStamp& stamp);
// "[<element>]".
std::string StampsJson(const FlushStamp& stamp);
// The elements of a `sinkd.stamps` value. Refuse naming what is wrong (not an array, a field
// missing or of the wrong type, a range whose first is past its last).
Result<std::vector<FlushStamp>> ParseStamps(std::string_view json);

}  // namespace sinkd::lake
