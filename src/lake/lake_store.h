// LakeStore is where every batch lands in production (table/land.h's Store), for the drain,
// `import` and the outbox lake sinks alike: a flush is LakeWriter::Flush (place the Parts, sync,
// commit), and what the table holds already is the writer's commit's answer, asked by the
// positions' kind (table::AskCommitted).
// Ownership: owns its LakeWriter, which borrows the Destination and the commit (both must outlive
// it). Threads: one thread at a time.
#pragma once

#include <utility>

#include "lake/lake_writer.h"
#include "table/land.h"

namespace sinkd::lake {

class LakeStore final : public table::Store {
 public:
  LakeStore(Destination& destination, LakeWriterOptions options,
            table::Commit& commit = table::NoTableCommit())
      : writer_(destination, std::move(options), commit) {}
  Result<FlushReport> Flush(row::RowBuffer& rows, const Provenance& provenance) override {
    return writer_.Flush(rows, provenance);
  }
  Result<table::CommittedPositions> Committed(const Provenance& provenance) override {
    return table::AskCommitted(writer_.commit(), writer_.options().key_prefix, provenance);
  }
  LakeWriter& writer() { return writer_; }
  const LakeWriter& writer() const { return writer_; }

 private:
  LakeWriter writer_;
};

}  // namespace sinkd::lake
