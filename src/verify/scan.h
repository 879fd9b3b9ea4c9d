// Scan reads what `sinkd lake verify` needs from a lake Destination, and nothing more: the footer
// of every Part under `<prefix>/` (parquet::ReadFooter over Destination::Read: the last bytes of
// each object, never its rows) and the dead-letter files `import` places under
// `dead-letters/<prefix>/` (lines of a few hundred bytes; a whole-message one, event_index -1,
// accounts for its sequence). A Part whose footer cannot be read is kept with its error, so the
// report names it; a failed List or Read of the store is an error of the scan.
// Dead letters a drain stores on GARM_SINK_DEAD are not in the lake: the caller adds those it can
// read (verify/stream_dead_letters.h) to the input.
// Threads: one thread at a time (the Destination's rule).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "base/result.h"
#include "lake/destination.h"
#include "parquet/part_reader.h"
#include "verify/verify.h"

namespace sinkd::verify {

// Reads every Part's footer and every dead-letter file of the table under `prefix` into `input`
// (objects and dead_letters; the rest is the caller's). `progress(done, total)` after each object;
// `on_footer` with every footer read (a table's check, table_check.h: no footer is read twice).
using OnFooter = std::function<void(const lake::StoredObject&, const parquet::FileFooter&)>;
Status ScanLake(lake::Destination& destination, const std::string& prefix, VerifyInput& input,
                const std::function<void(uint64_t done, uint64_t total)>& progress = {},
                const OnFooter& on_footer = {});

// The whole-message sequences of one dead-letter file's text, and the space they belong to
// (import's: "<stream>@<instance>", the instance from the file's name
// dead-<instance>[.<k>]-<first>-<last>.jsonl). Refuse naming the line that is not a dead letter.
Status AddDeadLetterFile(const std::string& key, const std::string& text, VerifyInput& input);

}  // namespace sinkd::verify
