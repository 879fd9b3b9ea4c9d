#include "drain/sink.h"

namespace sinkd::drain {

Result<lake::FlushReport> LakeSink::Flush(const row::RowBatch& rows,
                                          const lake::Provenance& provenance) {
  lake::LakeWriterOptions options = options_;
  auto range = std::make_pair(provenance.first_sequence, provenance.last_sequence);
  auto [it, fresh] = ranges_written_.emplace(range, 0);
  if (!fresh) options.instance += "." + std::to_string(++it->second);
  lake::LakeWriter writer(destination_, options);
  return writer.Flush(rows, provenance);
}

}  // namespace sinkd::drain
