#include "verify/verify.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "table/key.h"

namespace sinkd::verify {

using lake::FlushStamp;
using lake::SequenceRange;

std::string SpaceOf(const std::string& source, const std::string& scope,
                    const std::string& instance) {
  return scope == "run" ? source + "@" + instance : source;
}

std::string SpaceOf(const FlushStamp& stamp) {
  return SpaceOf(stamp.source, stamp.scope, stamp.instance);
}

std::vector<SequenceRange> Merge(std::vector<SequenceRange> ranges) {
  std::sort(ranges.begin(), ranges.end(), [](const SequenceRange& a, const SequenceRange& b) {
    return a.first < b.first || (a.first == b.first && a.last < b.last);
  });
  std::vector<SequenceRange> out;
  for (const SequenceRange& r : ranges) {
    if (!out.empty() && (r.first <= out.back().last ||
                         (out.back().last != UINT64_MAX && r.first == out.back().last + 1))) {
      out.back().last = std::max(out.back().last, r.last);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

std::vector<SequenceRange> Subtract(const std::vector<SequenceRange>& from,
                                    const std::vector<SequenceRange>& minus) {
  std::vector<SequenceRange> out;
  size_t j = 0;
  for (const SequenceRange& r : from) {
    uint64_t at = r.first;
    bool done = false;
    while (j < minus.size() && minus[j].last < at) ++j;
    for (size_t k = j; k < minus.size() && minus[k].first <= r.last; ++k) {
      if (minus[k].first > at) out.push_back({at, minus[k].first - 1});
      if (minus[k].last >= r.last) {
        done = true;
        break;
      }
      at = std::max(at, minus[k].last + 1);
    }
    if (!done) out.push_back({at, r.last});
  }
  return out;
}

std::string MissingPart::Describe() const {
  std::string where;
  if (!after_dir.empty() && !before_dir.empty()) {
    where = " (a partition after " + after_dir + "/ and before " + before_dir + "/)";
  } else if (!after_dir.empty()) {
    where = " (a partition after " + after_dir + "/)";
  } else if (!before_dir.empty()) {
    where = " (a partition before " + before_dir + "/)";
  }
  return name + where;
}

namespace {

// Everything a stamp says about its flush, not about its Part.
std::string FlushId(const FlushStamp& s) {
  std::string id = s.instance;
  for (const std::string* part : {&s.source, &s.scope}) {
    id += '\x1f';
    id += *part;
  }
  for (uint64_t v : {s.first, s.last, s.first_txid.value_or(0), s.last_txid.value_or(0), s.parts,
                     s.rows}) {
    id += '\x1f';
    id += std::to_string(v);
  }
  id += '\x1f';
  id += lake::FormatRanges(s.acked);
  return id;
}

struct PartSeen {
  uint64_t copies = 0;
  uint64_t rows = 0;
  std::string key;  // the stamp's key
};

struct FlushSeen {
  FlushStamp sample;
  std::map<uint64_t, PartSeen> parts;  // by n
};

std::string Dir(const std::string& key) {
  const size_t slash = key.rfind('/');
  return slash == std::string::npos ? "" : key.substr(0, slash);
}

std::string Name(const std::string& key) {
  const size_t slash = key.rfind('/');
  return slash == std::string::npos ? key : key.substr(slash + 1);
}

// How many sequences lie in two or more of `ranges_per_flush` (each one flush's merged ranges).
uint64_t Overlap(const std::vector<std::vector<SequenceRange>>& ranges_per_flush) {
  std::vector<std::pair<uint64_t, int>> edges;  // (position, +1 open / -1 close after)
  for (const auto& ranges : ranges_per_flush) {
    for (const SequenceRange& r : ranges) {
      edges.push_back({r.first, +1});
      edges.push_back({r.last, -1});
    }
  }
  // Opens before closes at one position: [5,5] and [5,9] overlap at 5.
  std::sort(edges.begin(), edges.end(), [](const auto& a, const auto& b) {
    return a.first < b.first || (a.first == b.first && a.second > b.second);
  });
  uint64_t overlap = 0, since = 0;
  int depth = 0;
  for (const auto& [at, delta] : edges) {
    if (delta > 0) {
      ++depth;
      if (depth == 2) since = at;
    } else {
      if (depth == 2) overlap += at - since + 1;
      --depth;
    }
  }
  return overlap;
}

}  // namespace

VerifyReport Verify(const VerifyInput& input) {
  VerifyReport report;
  std::vector<table::PresentObject> listed;
  for (const ObjectInfo& o : input.objects) {
    listed.push_back({o.key, o.size, o.version, o.supersedes});
  }
  const std::set<std::string> superseded = table::SupersededKeys(listed);

  std::map<std::string, FlushSeen> flushes;
  std::map<std::string, std::string> scope_of;
  for (const ObjectInfo& o : input.objects) {
    ++report.objects;
    report.bytes += o.size;
    if (!o.error.empty()) {
      report.unreadable.emplace_back(o.key, o.error);
      continue;
    }
    if (superseded.count(o.key) > 0) {
      ++report.superseded;  // its stamps are in the output that supersedes it
      continue;
    }
    report.rows += o.rows;
    if (o.size < input.small_part_bytes) ++report.small_parts;
    if (o.stamps.empty()) ++report.unstamped;
    for (const FlushStamp& s : o.stamps) {
      FlushSeen& f = flushes[FlushId(s)];
      if (f.parts.empty()) f.sample = s;
      PartSeen& p = f.parts[s.n];
      ++p.copies;
      p.rows = s.part_rows;
      p.key = s.key;
      scope_of[SpaceOf(s)] = s.scope;
    }
  }
  report.flushes = flushes.size();

  std::map<std::string, std::vector<SequenceRange>> covered;
  std::map<std::string, std::vector<std::vector<SequenceRange>>> per_flush;
  std::map<std::string, uint64_t> complete_flushes;
  for (auto& [id, f] : flushes) {
    for (const auto& [n, p] : f.parts) {
      if (p.copies > 1) {
        report.duplicate_parts += p.copies - 1;
        report.duplicate_rows += p.rows * (p.copies - 1);
      }
    }
    const std::string space = SpaceOf(f.sample);
    if (f.parts.size() == f.sample.parts) {
      std::vector<SequenceRange>& c = covered[space];
      c.insert(c.end(), f.sample.acked.begin(), f.sample.acked.end());
      per_flush[space].push_back(Merge(f.sample.acked));
      ++complete_flushes[space];
      continue;
    }
    IncompleteFlush incomplete;
    incomplete.flush = f.sample;
    const std::string sibling_name = Name(f.parts.begin()->second.key);
    for (uint64_t n = 0; n < f.sample.parts; ++n) {
      if (f.parts.count(n) > 0) continue;
      MissingPart m;
      m.n = n;
      m.name = table::PartNameWithNumber(sibling_name, n);
      auto after = f.parts.lower_bound(n);
      if (after != f.parts.end()) m.before_dir = Dir(after->second.key);
      if (after != f.parts.begin()) m.after_dir = Dir(std::prev(after)->second.key);
      incomplete.missing.push_back(std::move(m));
    }
    report.incomplete.push_back(std::move(incomplete));
  }
  for (const auto& [space, ranges] : input.dead_letters) {
    std::vector<SequenceRange>& c = covered[space];
    c.insert(c.end(), ranges.begin(), ranges.end());
  }
  for (const auto& [space, flush_ranges] : per_flush) report.duplicate_sequences += Overlap(flush_ranges);

  std::set<std::string> spaces;
  for (const auto& [space, ranges] : covered) spaces.insert(space);
  for (const auto& [space, ranges] : input.expected) spaces.insert(space);
  for (const IncompleteFlush& f : report.incomplete) spaces.insert(SpaceOf(f.flush));
  for (const std::string& space : spaces) {
    SpaceReport sr;
    sr.space = space;
    sr.covered = Merge(covered[space]);
    sr.flushes = complete_flushes[space];
    auto given = input.expected.find(space);
    if (given != input.expected.end()) {
      sr.expected = Merge(given->second);
    } else if (scope_of[space] != "outbox") {
      // Lowest to highest sequence any stamp or dead letter names, incomplete flushes included:
      // a lost Part at either end is a gap too.
      uint64_t low = UINT64_MAX, high = 0;
      for (const SequenceRange& r : sr.covered) {
        low = std::min(low, r.first);
        high = std::max(high, r.last);
      }
      for (const IncompleteFlush& f : report.incomplete) {
        if (SpaceOf(f.flush) != space) continue;
        low = std::min(low, f.flush.first);
        high = std::max(high, f.flush.last);
      }
      if (input.from) low = *input.from;
      if (input.to) high = *input.to;
      if (low <= high) sr.expected = {{low, high}};
    }
    if ((input.from || input.to) && !sr.expected.empty()) {
      const uint64_t low = input.from.value_or(0), high = input.to.value_or(UINT64_MAX);
      std::vector<SequenceRange> clamped;
      for (SequenceRange r : sr.expected) {
        r.first = std::max(r.first, low);
        r.last = std::min(r.last, high);
        if (r.first <= r.last) clamped.push_back(r);
      }
      sr.expected = std::move(clamped);
    }
    for (const SequenceRange& r : Subtract(sr.expected, sr.covered)) report.gaps.push_back({space, r});
    report.spaces.push_back(std::move(sr));
  }
  return report;
}

}  // namespace sinkd::verify
