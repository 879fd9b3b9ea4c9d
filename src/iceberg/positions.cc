#include "iceberg/positions.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace sinkd::iceberg {

namespace {

using Json = nlohmann::ordered_json;
using lake::SequenceRange;

Status Malformed(const std::string& what) {
  return Status::Reject(std::string("iceberg: ") + kPositionsKey + ": " + what);
}

// The ranges in both (each list sorted and disjoint).
std::vector<SequenceRange> Intersect(const std::vector<SequenceRange>& a,
                                     const std::vector<SequenceRange>& b) {
  std::vector<SequenceRange> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const uint64_t first = std::max(a[i].first, b[j].first);
    const uint64_t last = std::min(a[i].last, b[j].last);
    if (first <= last) out.push_back({first, last});
    if (a[i].last < b[j].last) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

std::string Describe(const Positions& p) {
  std::string out;
  for (const auto& [stream, ranges] : p.streams) {
    out += (out.empty() ? "" : "; ") + stream + " " + lake::FormatRanges(ranges);
  }
  for (const auto& [sink, seq] : p.outbox) {
    out += (out.empty() ? "" : "; ") + std::string("outbox ") + sink + " up to " +
           std::to_string(p.OutboxMark(sink).first) + ":" + std::to_string(seq);
  }
  return out;
}

}  // namespace

std::pair<uint64_t, uint64_t> Positions::OutboxMark(const std::string& sink) const {
  auto seq = outbox.find(sink);
  if (seq == outbox.end()) return {0, 0};
  auto txid = outbox_txid.find(sink);
  return {txid == outbox_txid.end() ? 0 : txid->second, seq->second};
}

std::string StreamIdentity(std::string_view name, std::string_view created) {
  std::string id(name);
  id.append("@").append(created);
  return id;
}

std::vector<SequenceRange> MergeRanges(std::vector<SequenceRange> ranges) {
  std::sort(ranges.begin(), ranges.end(), [](const SequenceRange& a, const SequenceRange& b) {
    return a.first < b.first || (a.first == b.first && a.last < b.last);
  });
  std::vector<SequenceRange> out;
  for (const SequenceRange& r : ranges) {
    // Joined when overlapping or adjacent (last + 1 == first; no overflow at UINT64_MAX).
    if (!out.empty() && (r.first <= out.back().last || r.first - 1 == out.back().last)) {
      out.back().last = std::max(out.back().last, r.last);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

Positions Merge(Positions a, const Positions& b) {
  for (const auto& [stream, ranges] : b.streams) {
    std::vector<SequenceRange>& mine = a.streams[stream];
    mine.insert(mine.end(), ranges.begin(), ranges.end());
    mine = MergeRanges(std::move(mine));
  }
  for (const auto& [sink, seq] : b.outbox) {
    // The later position, (txid, seq) as pairs: never the larger seq alone.
    const std::pair<uint64_t, uint64_t> theirs = b.OutboxMark(sink);
    if (a.outbox.find(sink) == a.outbox.end() || a.OutboxMark(sink) < theirs) {
      a.outbox[sink] = theirs.second;
      a.outbox_txid[sink] = theirs.first;
    }
  }
  return a;
}

std::string PositionsJson(const Positions& p) {
  Json streams = Json::object();
  for (const auto& [stream, ranges] : p.streams) {
    Json list = Json::array();
    for (const SequenceRange& r : ranges) list.push_back(Json::array({r.first, r.last}));
    streams[stream] = list;
  }
  Json outbox = Json::object();
  Json txids = Json::object();
  for (const auto& [sink, seq] : p.outbox) {
    outbox[sink] = seq;
    txids[sink] = p.OutboxMark(sink).first;
  }
  return Json{{"streams", streams}, {"outbox", outbox}, {"outbox_txid", txids}}.dump();
}

Result<Positions> ParsePositions(std::string_view text) {
  const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Malformed("not a JSON object");
  Positions p;
  if (j.contains("streams")) {
    if (!j["streams"].is_object()) return Malformed("\"streams\" is not an object");
    for (const auto& [stream, list] : j["streams"].items()) {
      if (!list.is_array()) return Malformed(stream + ": not a list of ranges");
      std::vector<SequenceRange> ranges;
      for (const auto& r : list) {
        if (!r.is_array() || r.size() != 2 || !r[0].is_number_unsigned() ||
            !r[1].is_number_unsigned() || r[0].get<uint64_t>() > r[1].get<uint64_t>()) {
          return Malformed(stream + ": " + r.dump() + " is not a range [first, last]");
        }
        ranges.push_back({r[0].get<uint64_t>(), r[1].get<uint64_t>()});
      }
      p.streams[stream] = MergeRanges(std::move(ranges));
    }
  }
  if (j.contains("outbox")) {
    if (!j["outbox"].is_object()) return Malformed("\"outbox\" is not an object");
    for (const auto& [sink, mark] : j["outbox"].items()) {
      if (!mark.is_number_unsigned()) return Malformed(sink + ": not a sequence number");
      p.outbox[sink] = mark.get<uint64_t>();
    }
  }
  if (j.contains("outbox_txid")) {
    if (!j["outbox_txid"].is_object()) return Malformed("\"outbox_txid\" is not an object");
    for (const auto& [sink, txid] : j["outbox_txid"].items()) {
      if (!txid.is_number_unsigned()) return Malformed(sink + ": not a txid");
      if (p.outbox.find(sink) == p.outbox.end()) {
        return Malformed(sink + ": a txid without its seq in \"outbox\"");
      }
      p.outbox_txid[sink] = txid.get<uint64_t>();
    }
  }
  return p;
}

Result<Positions> CommittedPositions(const TableMetadata* base) {
  if (base == nullptr) return Positions{};
  std::map<int64_t, const Snapshot*> by_id;
  for (const Snapshot& s : base->snapshots) by_id[s.id] = &s;
  const Snapshot* s = base->Current();
  // Bounded by the number of snapshots: a cycle of parents (a corrupt table) ends it too.
  for (size_t steps = 0; s != nullptr && steps < base->snapshots.size(); ++steps) {
    if (const std::string* value = s->Find(kPositionsKey)) {
      Result<Positions> parsed = ParsePositions(*value);
      if (!parsed.ok()) {
        return parsed.status().WithContext("snapshot " + std::to_string(s->id));
      }
      return parsed;
    }
    if (!s->parent_id) break;
    auto it = by_id.find(*s->parent_id);
    s = it == by_id.end() ? nullptr : it->second;
  }
  return Positions{};
}

Positions AlreadyCommitted(const Positions& committed, const BatchPositions& batch) {
  Positions out;
  for (const auto& [stream, ranges] : batch.positions.streams) {
    auto it = committed.streams.find(stream);
    if (it == committed.streams.end()) continue;
    std::vector<SequenceRange> both = Intersect(it->second, MergeRanges(ranges));
    if (!both.empty()) out.streams[stream] = std::move(both);
  }
  for (const auto& [sink, seq] : batch.positions.outbox) {
    if (committed.outbox.find(sink) == committed.outbox.end()) continue;
    const std::pair<uint64_t, uint64_t> mark = committed.OutboxMark(sink);
    const std::pair<uint64_t, uint64_t> last = batch.positions.OutboxMark(sink);
    auto first = batch.outbox_first.find(sink);
    const std::pair<uint64_t, uint64_t> lowest =
        first == batch.outbox_first.end() ? last : first->second;
    if (lowest <= mark) {
      const std::pair<uint64_t, uint64_t> upto = std::min(last, mark);
      out.outbox[sink] = upto.second;
      out.outbox_txid[sink] = upto.first;
    }
  }
  return out;
}

std::function<Result<Summary>(const TableMetadata*)> Marks(BatchPositions batch) {
  return [batch = std::move(batch)](const TableMetadata* base) -> Result<Summary> {
    SINKD_ASSIGN_OR_RETURN(const Positions committed, CommittedPositions(base));
    const Positions again = AlreadyCommitted(committed, batch);
    if (!again.empty()) {
      return Status::Redeliver("iceberg: already committed by another writer: " + Describe(again));
    }
    return Summary{{kPositionsKey, PositionsJson(Merge(committed, batch.positions))}};
  };
}

}  // namespace sinkd::iceberg
