#include "verify/scan.h"

#include <nlohmann/json.hpp>

#include "parquet/part_reader.h"
#include "table/footer.h"
#include "table/key.h"

namespace sinkd::verify {

namespace {

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Status AddDeadLetterFile(const std::string& key, const std::string& text, VerifyInput& input) {
  const std::string instance = table::DeadLetterInstance(key);
  size_t start = 0, line = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++line;
    const std::string_view one(text.data() + start, end - start);
    start = end + 1;
    if (one.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(one.begin(), one.end(), nullptr, false);
    if (!j.is_object() || !j.contains("stream") || !j["stream"].is_string() ||
        !j.contains("sequence") || !j["sequence"].is_number_unsigned() ||
        !j.contains("event_index") || !j["event_index"].is_number_integer()) {
      return Status::Refuse(key + ":" + std::to_string(line) + ": not a dead letter");
    }
    if (j["event_index"].get<int64_t>() != -1) continue;  // one event of a message: not the message
    const uint64_t seq = j["sequence"].get<uint64_t>();
    input.dead_letters[SpaceOf(j["stream"].get<std::string>(), "run", instance)].push_back(
        {seq, seq});
  }
  return Status::OK();
}

Status ScanLake(lake::Destination& destination, const std::string& prefix, VerifyInput& input,
                const std::function<void(uint64_t done, uint64_t total)>& progress,
                const OnFooter& on_footer) {
  SINKD_ASSIGN_OR_RETURN(std::vector<lake::StoredObject> objects, destination.List(prefix + "/"));
  SINKD_ASSIGN_OR_RETURN(std::vector<lake::StoredObject> dead,
                         destination.List(table::DeadLetterDirectory(prefix)));
  const uint64_t total = objects.size() + dead.size();
  uint64_t done = 0;
  for (const lake::StoredObject& object : objects) {
    ++done;
    if (!EndsWith(object.key, ".parquet")) continue;
    ObjectInfo info;
    info.key = object.key;
    info.size = object.size;
    info.version = object.version;
    const std::string& key = object.key;
    auto footer = parquet::ReadFooter(
        [&](uint64_t offset, uint64_t length) { return destination.Read(key, offset, length); },
        object.size, key);
    if (!footer.ok()) {
      // A store that failed to answer is the scan's failure; a footer that is wrong is the Part's.
      if (!footer.status().IsRefuse()) return footer.status();
      info.error = footer.status().message();
    } else {
      info.rows = footer->rows;
      if (on_footer) on_footer(object, *footer);
      if (auto stamps = footer->Find(table::kStampsKey)) {
        auto parsed = lake::ParseStamps(*stamps);
        if (parsed.ok()) {
          info.stamps = std::move(parsed).value();
        } else {
          info.error = key + ": " + parsed.status().message();
        }
      }
      if (auto supersedes = footer->Find(table::kSupersedesKey)) {
        auto parsed = table::ParseSupersedes(*supersedes);
        if (parsed.ok()) {
          info.supersedes = std::move(parsed).value();
        } else {
          info.error = key + ": " + parsed.status().message();
        }
      }
    }
    input.objects.push_back(std::move(info));
    if (progress) progress(done, total);
  }
  for (const lake::StoredObject& object : dead) {
    ++done;
    if (EndsWith(object.key, ".jsonl")) {
      SINKD_ASSIGN_OR_RETURN(std::string text, destination.Read(object.key, 0, object.size));
      SINKD_RETURN_IF_ERROR(AddDeadLetterFile(object.key, text, input));
    }
    if (progress) progress(done, total);
  }
  return Status::OK();
}

}  // namespace sinkd::verify
