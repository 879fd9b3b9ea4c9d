// Ledger rows for tests, the one copy of what test files each built for themselves: a row made to
// order (an id, a time and an app, every other column its zero value) and the rows the traffic
// generator's ledger messages decode to. Header-only: a test binary that includes it links
// sinkd_row (and, for GeneratedLedgerRows, sinkd_traffic and sinkd_contract) already; the test
// support library itself stays free of sinkd's libraries.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "contract/wire_decoder.h"
#include "row/ledger_columns.h"
#include "row/row_buffer.h"
#include "traffic/traffic_generator.h"

namespace sinkd::testing {

// Appends a ledger row with the given id, time and app; every other column gets its zero value.
inline void AddLedgerRow(row::RowBuffer& batch, std::string_view id, int64_t micros,
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
      case row::ColumnType::kTimestamp:
        c.int64s.push_back(micros);
        break;
      case row::ColumnType::kInt64:
        c.int64s.push_back(0);
        break;
      case row::ColumnType::kInt32:
        c.int32s.push_back(0);
        break;
      case row::ColumnType::kDouble:
        c.doubles.push_back(0);
        break;
      case row::ColumnType::kBool:
        c.bools.push_back(0);
        break;
    }
  }
  batch.CommitRow();
}

inline constexpr int64_t kOneHourMicros = 3'600'000'000;

// The rows of `messages` ledger messages of 100 events each from the traffic generator seeded
// with `seed`: several apps, so a flush of them writes several Parts; their times spread over
// `span_micros` (one hour: one date).
inline row::RowBuffer GeneratedLedgerRows(uint64_t seed, int messages,
                                         int64_t span_micros = kOneHourMicros) {
  traffic::TrafficOptions traffic;
  traffic.seed = seed;
  traffic.events_per_batch = 100;
  traffic.expected_events = 100 * messages;
  traffic.span_micros = span_micros;
  traffic::TrafficGenerator generator(traffic);
  contract::WireDecoder decoder;
  row::RowBuffer rows(row::kLedgerColumns);
  std::vector<contract::Reject> rejects;
  for (int i = 0; i < messages; ++i) {
    decoder.Decode(contract::Envelope::kBatch, generator.NextLedgerMessage(), rows, rejects);
  }
  return rows;
}

}  // namespace sinkd::testing
