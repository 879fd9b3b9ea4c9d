#include "contract/wire_decoder.h"

#include <cassert>

#include "contract/event_reader.h"

namespace sinkd::contract {

struct WireDecoder::State {
  explicit State(const row::ColumnTable& table) : reader(table) {}
  EventReader reader;
};

WireDecoder::WireDecoder(const row::ColumnTable& table) : state_(std::make_unique<State>(table)) {}

WireDecoder::~WireDecoder() = default;

size_t WireDecoder::Decode(Envelope envelope, std::string_view message, row::RowBuffer& batch,
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
  // Each event is read as the framing reaches it; a Batch whose framing breaks after some events
  // takes back what they added: its rows would be acked as the message is dead-lettered whole,
  // and the redelivered copy would duplicate them.
  const size_t rows_before = batch.rows();
  const size_t rejects_before = rejects.size();
  EventReader::BatchCursor cursor = EventReader::StartBatch(message);
  std::string_view event;
  EventReader::BatchStep step;
  size_t rows = 0;
  for (int index = 0;
       (step = reader.NextBatchEvent(cursor, &event)) == EventReader::BatchStep::kEvent; ++index) {
    const EventReader::Verdict verdict = reader.ReadEvent(event);
    if (verdict == EventReader::Verdict::kRow) {
      reader.AppendRow(batch);
      ++rows;
    } else {
      rejects.push_back(reader.MakeEventReject(verdict, event, index));
    }
  }
  if (step == EventReader::BatchStep::kBroken) {
    batch.TruncateRows(rows_before);
    rejects.erase(rejects.begin() + static_cast<std::ptrdiff_t>(rejects_before), rejects.end());
    rejects.push_back(
        MakeReject(RejectReason::kUnmarshal, reader.BatchFramingError(message), -1, message));
    return 0;
  }
  return rows;
}

bool WireDecoder::BatchEvents(std::string_view message, std::vector<std::string_view>& events) {
  EventReader::BatchCursor cursor = EventReader::StartBatch(message);
  std::string_view event;
  EventReader::BatchStep step;
  while ((step = state_->reader.NextBatchEvent(cursor, &event)) == EventReader::BatchStep::kEvent) {
    events.push_back(event);
  }
  return step == EventReader::BatchStep::kEnd;
}

}  // namespace sinkd::contract
