#include "backfill/dead_letter_file.h"

#include "base/base64.h"
#include "base/log.h"

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

std::string DeadLetterKey(std::string_view prefix, std::string_view instance, uint64_t first,
                          uint64_t last) {
  return "dead-letters/" + std::string(prefix) + "/dead-" + std::string(instance) + "-" +
         std::to_string(first) + "-" + std::to_string(last) + ".jsonl";
}

Status WriteDeadLetters(lake::Destination& destination, const std::string& key,
                        const std::string& lines) {
  if (lines.empty()) return Status::OK();
  SINKD_ASSIGN_OR_RETURN(std::unique_ptr<lake::PartUpload> upload, destination.Begin(key));
  Status s = upload->Append(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(lines.data()), lines.size()));
  if (s.ok()) s = upload->Commit();
  if (!s.ok()) upload->Abort();
  return s.WithContext("dead letters " + key);
}

}  // namespace sinkd::backfill
