// What the batch tests build rows with: a ledger row of a given id, time and app, every other
// column its zero value. Header-only, for the one tests/batch binary.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "row/row_batch.h"

namespace sinkd::batch {

// Appends a ledger row with the given id, time and app; every other column gets its zero value.
inline void AddRow(row::RowBatch& batch, const std::string& id, int64_t micros,
                   std::string_view app) {
  const auto& columns = batch.table().columns;
  for (size_t i = 0; i < columns.size(); ++i) {
    row::ColumnBuffer& c = batch.column(static_cast<int>(i));
    switch (c.type) {
      case row::ColumnType::kString:
        c.strings.push_back(columns[i].name == "event_id" ? id
                            : columns[i].name == "app"    ? app
                                                          : std::string_view());
        break;
      case row::ColumnType::kTimestamp: c.int64s.push_back(micros); break;
      case row::ColumnType::kInt64: c.int64s.push_back(0); break;
      case row::ColumnType::kInt32: c.int32s.push_back(0); break;
      case row::ColumnType::kDouble: c.doubles.push_back(0); break;
      case row::ColumnType::kBool: c.bools.push_back(0); break;
    }
  }
  batch.CommitRow();
}

}  // namespace sinkd::batch
