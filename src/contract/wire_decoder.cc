#include "contract/wire_decoder.h"

#include <cassert>

#include "contract/event_reader.h"

namespace sinkd::contract {

struct WireDecoder::State {
  explicit State(const row::ColumnTable& table) : reader(table) {}
  EventReader reader;
  std::vector<std::string_view> events;  // the current Batch's events, reused
};

WireDecoder::WireDecoder(const row::ColumnTable& table) : state_(std::make_unique<State>(table)) {}

WireDecoder::~WireDecoder() = default;

size_t WireDecoder::Decode(Envelope envelope, std::string_view message, row::RowBatch& batch,
                           std::vector<Reject>& rejects) {
  EventReader& reader = state_->reader;
  assert(batch.table().columns.size() == reader.columns() && "a batch of another table");
  if (envelope == Envelope::kEvent) {
    const EventReader::Verdict verdict = reader.ReadEvent(message);
    if (verdict == EventReader::Verdict::kRow) {
      reader.AppendRow(batch);
      return 1;
    }
    rejects.push_back(reader.MakeEventReject(verdict, message, -1));
    return 0;
  }
  // Framing first, so a Batch that breaks after some good events adds no rows from it.
  std::vector<std::string_view>& events = state_->events;
  if (!reader.SplitBatch(message, &events)) {
    rejects.push_back(MakeReject(RejectReason::kUnmarshal, reader.BatchError(), -1, message));
    return 0;
  }
  size_t rows = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const EventReader::Verdict verdict = reader.ReadEvent(events[i]);
    if (verdict == EventReader::Verdict::kRow) {
      reader.AppendRow(batch);
      ++rows;
    } else {
      rejects.push_back(reader.MakeEventReject(verdict, events[i], static_cast<int>(i)));
    }
  }
  return rows;
}

}  // namespace sinkd::contract
