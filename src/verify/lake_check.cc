#include "verify/lake_check.h"

#include <memory>
#include <utility>
#include <vector>

#include "jetstream/pull_consumer.h"
#include "jetstream/streams.h"
#include "outbox/pg.h"
#include "verify/scan.h"
#include "verify/stream_dead_letters.h"

namespace sinkd::verify {

namespace {

Status AddStreamExpectation(const StreamExpectation& s, VerifyInput& input) {
  SINKD_ASSIGN_OR_RETURN(auto connection, jetstream::Connection::Connect(s.connect));
  SINKD_ASSIGN_OR_RETURN(jetstream::StreamState stream,
                         jetstream::GetStreamState(*connection, s.stream));
  SINKD_ASSIGN_OR_RETURN(jetstream::ConsumerState consumer,
                         jetstream::GetConsumerState(*connection, s.stream, s.durable));
  // Every sequence still in the stream that the durable has acknowledged must be in the lake;
  // what the stream's limits removed is beyond what anyone can check.
  std::vector<lake::SequenceRange>& expected = input.expected[s.stream];
  if (stream.first_sequence != 0 && consumer.ack_floor_stream >= stream.first_sequence) {
    expected.push_back({stream.first_sequence, consumer.ack_floor_stream});
  }
  return AddStreamDeadLetters(*connection, s.origin, input);
}

}  // namespace

Result<LakeCheckResult> CheckLake(lake::Destination& destination, LakeCheckRequest request) {
  VerifyInput& input = request.input;
  std::unique_ptr<TableCheck> table_check;
  OnFooter on_footer;
  if (request.catalog != nullptr) {
    if (request.columns == nullptr) {
      return Status::Internal("CheckLake: a catalog without the table's columns");
    }
    table_check = std::make_unique<TableCheck>(destination, *request.columns, *request.catalog);
    SINKD_RETURN_IF_ERROR(table_check->Prepare());
    on_footer = [&](const lake::StoredObject& object, const parquet::FileFooter& footer) {
      table_check->Observe(object, footer);
    };
  }
  SINKD_RETURN_IF_ERROR(ScanLake(destination, request.prefix, input, request.progress, on_footer));
  if (request.stream) SINKD_RETURN_IF_ERROR(AddStreamExpectation(*request.stream, input));
  if (request.outbox) {
    SINKD_ASSIGN_OR_RETURN(outbox::PgConn conn,
                           outbox::PgConn::Connect(request.outbox->postgres_url,
                                                   "sinkd lake verify"));
    SINKD_RETURN_IF_ERROR(
        AddOutboxRows(conn, request.outbox->table, request.outbox->sink_id, input));
  }
  LakeCheckResult result;
  result.report = Verify(input);
  if (table_check) result.table = table_check->Finish(input);
  return result;
}

std::string LakeCheckResult::Problems() const {
  std::string what;
  auto add = [&](size_t n, const char* one, const char* many) {
    if (n == 0) return;
    if (!what.empty()) what += ", ";
    what += std::to_string(n) + " " + (n == 1 ? one : many);
  };
  size_t missing = 0;
  for (const auto& f : report.incomplete) missing += f.missing.size();
  add(report.gaps.size(), "gap", "gaps");
  add(report.incomplete.size(), "incomplete flush", "incomplete flushes");
  add(missing, "missing Part", "missing Parts");
  add(report.unreadable.size(), "unreadable Part", "unreadable Parts");
  if (table) {
    if (table->metadata.empty()) {
      add(1, "Iceberg table missing", "");
    } else {
      size_t table_missing = 0;
      for (const auto& f : table->view.incomplete) table_missing += f.missing.size();
      add(table->problems.size(), "file of the table wrong", "files of the table wrong");
      add(table->view.gaps.size(), "gap in the table", "gaps in the table");
      add(table->view.incomplete.size(), "incomplete flush in the table",
          "incomplete flushes in the table");
      add(table_missing, "Part missing from the table", "Parts missing from the table");
      if (!table->problems.empty()) {
        what += " (" + table->problems.front().uri + " " + table->problems.front().problem + ")";
      }
    }
  }
  return what;
}

}  // namespace sinkd::verify
