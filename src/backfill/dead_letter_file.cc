#include "backfill/dead_letter_file.h"

#include "base/base64.h"
#include "base/log.h"
#include "table/key.h"

namespace sinkd::backfill {

std::string DeadLetterLine(const DeadLetter& letter) {
  std::string line = "{\"reason\":";
  AppendJsonString(line, contract::ReasonName(letter.reject.reason));
  line += ",\"error\":";
  AppendJsonString(line, letter.reject.error);
  line += ",\"stream\":";
  AppendJsonString(line, letter.stream);
  line += ",\"subject\":";
  AppendJsonString(line, letter.subject);
  line += ",\"sequence\":" + std::to_string(letter.sequence);
  line += ",\"event_index\":" + std::to_string(letter.reject.index);
  line += ",\"payload_base64\":\"" + Base64Encode(letter.reject.payload) + "\"}\n";
  return line;
}

Result<std::string> WriteDeadLetters(
    lake::Destination& destination,
    const std::function<std::string(uint32_t alternative)>& key_for, const std::string& lines) {
  if (lines.empty()) return std::string();
  auto placed = lake::Place(destination, key_for, [&](lake::PartUpload& upload) {
    return upload.Append(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(lines.data()), lines.size()));
  });
  if (!placed.ok()) return placed.status().WithContext("dead letters");
  return placed->key;
}

Result<bool> DeadLetterFile::Publish(const jetstream::DeadLetterRecord& record) {
  lines_ += DeadLetterLine(DeadLetter{*record.reject, std::string(record.stream),
                                      std::string(record.subject), record.sequence});
  return true;
}

Status DeadLetterFile::Sync(uint64_t first_sequence, uint64_t last_sequence) {
  const std::string lines = std::move(lines_);
  lines_.clear();
  if (lines.empty()) return Status::OK();
  SINKD_ASSIGN_OR_RETURN(const std::string key,
                         WriteDeadLetters(
                             destination_,
                             [&](uint32_t alternative) {
                               return table::DeadLetterKey(key_prefix_, instance_, first_sequence,
                                                           last_sequence, alternative);
                             },
                             lines));
  SINKD_RETURN_IF_ERROR(destination_.Sync());
  keys_.push_back(key);
  return Status::OK();
}

Result<jetstream::StreamState> DeadLetterFile::State() {
  return Status::Refuse("import keeps its dead letters in files of the lake, not in a stream");
}

}  // namespace sinkd::backfill
