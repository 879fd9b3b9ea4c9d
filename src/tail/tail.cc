#include "tail/tail.h"

#include <charconv>
#include <map>

#include "base/duration.h"
#include "contract/wire_decoder.h"
#include "jetstream/ephemeral_reader.h"
#include "jetstream/streams.h"
#include "row/ledger_columns.h"

namespace sinkd::tail {

namespace {

std::string ColumnList() {
  std::string list;
  for (const row::ColumnSpec& c : row::kLedgerColumns.columns) {
    list += (list.empty() ? "" : ", ") + std::string(c.name);
  }
  return list;
}

bool IsInteger(std::string_view t) {
  if (t.empty()) return false;
  size_t i = (t[0] == '-' || t[0] == '+') ? 1 : 0;
  if (i == t.size()) return false;
  for (; i < t.size(); ++i) {
    if (t[i] < '0' || t[i] > '9') return false;
  }
  return true;
}

}  // namespace

Result<Since> ParseSince(std::string_view text) {
  Since since;
  if (text.empty()) return since;
  if (IsInteger(text)) {
    int64_t n = 0;
    const char* begin = text.data() + (text[0] == '+' ? 1 : 0);
    auto r = std::from_chars(begin, text.data() + text.size(), n);
    if (r.ec != std::errc() || n <= 0) {
      return Status::Refuse("--since " + std::string(text) + ": a message count must be positive");
    }
    since.count = n;
    return since;
  }
  const bool negative = text[0] == '-';
  auto d = ParseDuration(negative ? text.substr(1) : text);
  if (!d.ok()) {
    return Status::Refuse("--since \"" + std::string(text) +
                          "\": neither a message count nor a duration");
  }
  if (negative || d->count() == 0) {
    return Status::Refuse("--since " + std::string(negative ? "-" : "") + FormatDuration(*d) +
                          ": a duration must be positive");
  }
  since.is_count = false;
  since.duration = *d;
  return since;
}

Result<Filter> ParseFilter(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return Status::Refuse("--filter \"" + std::string(text) + "\": want key=value");
  }
  const std::string_view key = text.substr(0, eq);
  Filter f;
  f.column = row::ColumnIndex(row::kLedgerColumns, key);
  if (f.column < 0) {
    return Status::Refuse("--filter \"" + std::string(text) + "\": no column \"" +
                          std::string(key) + "\"; columns are " + ColumnList());
  }
  f.value = std::string(text.substr(eq + 1));
  return f;
}

namespace {

// Where the reader starts, from the stream's state now.
Result<jetstream::ReaderStart> StartOf(jetstream::Connection& connection,
                                       const TailOptions& options,
                                       const jetstream::StreamState& state) {
  if (options.from_start || state.last_sequence == 0) return jetstream::ReaderStart{true, 0};
  if (options.since.is_count) {
    const uint64_t n = static_cast<uint64_t>(options.since.count);
    const uint64_t start = n >= state.last_sequence ? 1 : state.last_sequence - n + 1;
    return jetstream::ReaderStart{false, std::max(start, state.first_sequence)};
  }
  const int64_t from = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::system_clock::now().time_since_epoch() -
                           options.since.duration)
                           .count();
  SINKD_ASSIGN_OR_RETURN(uint64_t seq,
                         jetstream::SequenceAtTime(connection, options.stream, from,
                                                   state.first_sequence, state.last_sequence));
  return jetstream::ReaderStart{false, seq};
}

// Last value wins for a repeated column, as a map of flags would.
std::vector<Filter> Effective(const std::vector<Filter>& filters) {
  std::map<int, std::string> by_column;
  for (const Filter& f : filters) by_column[f.column] = f.value;
  std::vector<Filter> out;
  for (auto& [column, value] : by_column) out.push_back({column, value});
  return out;
}

}  // namespace

Status RunTail(jetstream::Connection& connection, const TailOptions& options, std::FILE* out,
               std::FILE* err, const std::atomic<bool>& stop) {
  SINKD_ASSIGN_OR_RETURN(jetstream::StreamState state,
                         jetstream::GetStreamState(connection, options.stream));
  SINKD_ASSIGN_OR_RETURN(jetstream::ReaderStart start, StartOf(connection, options, state));
  const uint64_t end = state.last_sequence;  // the end as it was at the start
  const bool nothing_to_read = start.all ? state.messages == 0 : start.sequence > end;
  SINKD_ASSIGN_OR_RETURN(auto reader, jetstream::EphemeralReader::Open(
                                          connection, options.stream, options.subject_filter,
                                          start));
  std::fprintf(err, "sinkd tail: stream=%s consumer=%s durable=%s ack=%s pending=%llu follow=%s\n",
               options.stream.c_str(), reader->name().c_str(), reader->durable() ? "true" : "false",
               reader->ack_policy() == js_AckNone ? "none" : "explicit",
               static_cast<unsigned long long>(reader->initial_pending()),
               options.follow ? "true" : "false");
  std::fflush(err);
  if (!options.follow && (nothing_to_read || reader->initial_pending() == 0)) return Status::OK();

  const std::vector<Filter> filters = Effective(options.filters);
  contract::WireDecoder decoder;
  row::RowBuffer rows(row::kLedgerColumns);
  std::vector<contract::Reject> rejects;
  std::vector<jetstream::Message> messages;
  std::string text;
  while (!stop.load()) {
    messages.clear();
    Status s = reader->Fetch(256, std::chrono::milliseconds(1000), messages);
    if (!s.ok()) return s.WithContext("reading " + options.stream);
    if (messages.empty() && !options.follow) return Status::OK();  // nothing left of the old end
    bool at_end = false;
    for (const jetstream::Message& m : messages) {
      rows.Clear();
      rejects.clear();
      decoder.Decode(options.envelope, m.data(), rows, rejects);
      for (const contract::Reject& r : rejects) {
        std::fprintf(err, "sinkd tail: %.*s seq %llu: unreadable: %s\n",
                     static_cast<int>(m.subject().size()), m.subject().data(),
                     static_cast<unsigned long long>(m.stream_sequence()), r.ToString().c_str());
      }
      text.clear();
      for (size_t i = 0; i < rows.rows(); ++i) {
        bool match = true;
        for (const Filter& f : filters) {
          if (ColumnText(rows, i, f.column) != f.value) {
            match = false;
            break;
          }
        }
        if (match) AppendRowJson(text, rows, i, options.json);
      }
      std::fwrite(text.data(), 1, text.size(), out);
      if (!options.follow && (m.stream_sequence() >= end || m.pending() == 0)) at_end = true;
      if (at_end) break;
    }
    std::fflush(out);
    std::fflush(err);
    if (at_end) return Status::OK();
  }
  return Status::OK();
}

}  // namespace sinkd::tail
