// LakeWriter turns one batch of rows into Parts in a Destination: one Part per partition
// (date + partition columns), rows sorted by (time, id), each Part streamed row group by row group
// into its upload and committed, then the Destination synced once. When Flush returns OK every row
// is durable and may be acknowledged.
// Ownership: borrows the Destination (must outlive the writer). Threads: one thread at a time.
// Errors: a failure aborts the Part in progress and returns Redeliver naming its key (Reject when
// the Parquet writer refused the rows themselves, e.g. a STRING that is not UTF-8: no redelivery
// can help); Parts committed before it stay whole (a redelivery writes their rows again:
// duplicates, never a gap).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "lake/destination.h"
#include "parquet/part_writer.h"
#include "row/row_batch.h"

namespace sinkd::lake {

// The Parquet options every lake Part starts from. The Bloom filter on the id column targets a 2.5%
// false-positive rate rather than the writer's 1%: ids are unique, so at 1% a full row group
// needs a 256 KiB filter (power-of-two sizes) and the Part came out larger than DuckDB's
// COPY of the same rows; at 2.5% it is 128 KiB and a point lookup still skips 97.5% of the row
// groups that do not hold the id.
inline parquet::WriterOptions LakePartOptions() {
  parquet::WriterOptions options;
  options.bloom_fpp = 0.025;
  return options;
}

struct LakeWriterOptions {
  std::string key_prefix;  // "ledger", "audit", …: the first key segment
  std::string instance;    // unique per process (lake::DefaultInstanceId)
  parquet::WriterOptions parquet = LakePartOptions();
};

// Where the rows of a flush came from: names the Part keys and goes into every Part's footer.
struct Provenance {
  std::string source;            // "GARM_LEDGER", "import", …
  uint64_t first_sequence = 0;   // lowest source sequence in the flush
  uint64_t last_sequence = 0;    // highest
};

struct PartReport {
  std::string key;
  uint64_t rows = 0;
  uint64_t bytes = 0;
};

struct FlushReport {
  std::vector<PartReport> parts;
  uint64_t rows = 0;
  uint64_t bytes = 0;
};

class LakeWriter {
 public:
  LakeWriter(Destination& destination, LakeWriterOptions options);

  // Writes every row of `batch`. No rows: no Part, no I/O, an empty report.
  Result<FlushReport> Flush(const row::RowBatch& batch, const Provenance& provenance);

  const LakeWriterOptions& options() const { return options_; }

 private:
  Destination& destination_;
  LakeWriterOptions options_;
};

}  // namespace sinkd::lake
