#include "compact/compactor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "compact/grace.h"
#include "compact/merge.h"
#include "compact/output.h"
#include "compact/policy.h"
#include "parquet/part_reader.h"
#include "table/footer.h"
#include "table/key.h"

namespace sinkd::compact {

Status CompactOptions::Validate() const {
  if (table == nullptr) return Status::Refuse("table: none given");
  if (!table::SafeKeyPrefix(prefix)) {
    return Status::Refuse("prefix \"" + prefix +
                          "\": use '/'-separated segments of letters, digits, '-', '_' and '.'");
  }
  // Dead letters live under dead-letters/<prefix>/ (table/key.h): never compacted.
  if (prefix == table::kDeadLettersRoot ||
      prefix.rfind(std::string(table::kDeadLettersRoot) + "/", 0) == 0) {
    return Status::Refuse("prefix \"" + prefix + "\": dead letters are never compacted");
  }
  if (target_bytes < (uint64_t{1} << 20)) {
    return Status::Refuse("target_bytes " + std::to_string(target_bytes) +
                          ": must be at least 1 MiB (1048576)");
  }
  if (min_parts < 2) {
    return Status::Refuse("min_parts " + std::to_string(min_parts) + ": must be at least 2");
  }
  if (settle_ms < 0) return Status::Refuse("settle: must not be negative");
  if (grace_ms < 0) return Status::Refuse("grace: must not be negative");
  if (merge_lanes < 1 || merge_lanes > 16) {
    return Status::Refuse("merge_lanes " + std::to_string(merge_lanes) + ": must be 1 to 16");
  }
  if (merge_lanes > 1 && !open_destination) {
    return Status::Refuse("merge_lanes " + std::to_string(merge_lanes) +
                          ": more than one lane needs open_destination");
  }
  if (lane_rows == 0) return Status::Refuse("lane_rows: must be at least 1");
  if (encode_threads < 1 || encode_threads > 256) {
    return Status::Refuse("encode_threads " + std::to_string(encode_threads) +
                          ": must be 1 to 256");
  }
  lake::LakeWriterOptions lake_options;
  lake_options.key_prefix = prefix;
  lake_options.instance = "compact";
  lake_options.parquet = parquet;
  return lake_options.Validate();
}

namespace {

struct Object {
  lake::StoredObject stored;
  table::ObjectKey parsed;
};

// What an output's footer says about the merge it belongs to.
struct OutputFooter {
  std::vector<table::SupersededObject> supersedes;
  uint64_t outputs = 0, index = 0, rows_out = 0, rows = 0;
};

Result<OutputFooter> ParseOutputFooter(const parquet::FileFooter& footer, const std::string& key) {
  auto source = footer.Find(table::kSourceKey);
  auto supersedes = footer.Find(table::kSupersedesKey);
  auto compaction = footer.Find(table::kCompactionKey);
  if (!source || *source != table::kCompactionSource || !supersedes || !compaction) {
    return Status::Refuse(key + ": named like a compaction output, but its footer is not one");
  }
  OutputFooter out;
  auto keys = table::ParseSupersedes(*supersedes);
  if (!keys.ok()) return keys.status().WithContext(key);
  out.supersedes = std::move(*keys);
  nlohmann::json c = nlohmann::json::parse(*compaction, nullptr, false);
  auto number = [&](const char* name, uint64_t* to) {
    if (!c.is_object() || !c.contains(name) || !c[name].is_number_unsigned()) return false;
    *to = c[name].get<uint64_t>();
    return true;
  };
  if (!number("outputs", &out.outputs) || !number("index", &out.index) ||
      !number("rows_out", &out.rows_out) || out.outputs == 0 || out.index >= out.outputs) {
    return Status::Refuse(key + ": sinkd.compaction is not a valid object");
  }
  out.rows = footer.rows;
  return out;
}

// The merge the pass would run over `live[merge…]`, named as compact/merge.cc names its outputs:
// the same hash of the inputs and, for a split, the count its estimate gives when no record has
// two rows.
PlannedStep PlanOf(const std::string& partition, const std::vector<size_t>& merge,
                   const std::vector<const Object*>& live, uint64_t target_bytes) {
  PlannedStep step;
  step.kind = PlannedStep::Kind::kMerge;
  step.partition = partition;
  std::vector<InputRef> refs;
  for (size_t i : merge) {
    const lake::StoredObject& in = live[i]->stored;
    step.inputs.push_back(in);
    step.input_bytes += in.size;
    refs.push_back(InputRef{in.key, in.size, in.version});
  }
  step.lone = merge.size() == 1;
  step.split = step.input_bytes > target_bytes;
  uint64_t outputs = 1;
  if (step.split) {
    outputs = std::max<uint64_t>(
        1, std::llround(static_cast<double>(step.input_bytes) / target_bytes));
  }
  const std::string hash = MergeHash(std::move(refs));
  for (uint64_t index = 0; index < outputs; ++index) {
    step.outputs.push_back(table::CompactionOutputKey(partition, hash, index, outputs));
  }
  return step;
}

}  // namespace

struct Compactor::Rep {
  // Footers read once per process: a key's bytes never change while its size and version stay
  // (never-replace; a key deleted and created again has another version).
  struct Cached {
    uint64_t size = 0;
    std::string version;
    std::optional<OutputFooter> output;  // set for a readable output
    Status refused;                      // set for an unreadable one
  };
  std::map<std::string, Cached> outputs;
  // Lone Parts found to need no rewrite (key → size), so a --follow process reads them once.
  std::map<std::string, uint64_t> left_alone;
  // One Destination per merge lane (merge_lanes > 1), opened by the first pass that merges and
  // kept: the Compactor's own is used only by the pass's bookkeeping meanwhile.
  std::vector<std::unique_ptr<lake::Destination>> lanes;
};

Compactor::Compactor(lake::Destination& destination, CompactOptions options)
    : destination_(destination), options_(std::move(options)), rep_(std::make_unique<Rep>()) {
  if (options_.encode_threads > 1 && options_.encode_threads <= 256) {
    pool_ = std::make_unique<WorkPool>(options_.encode_threads);
  }
  if (!options_.now_unix_ms) {
    options_.now_unix_ms = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
}

Compactor::~Compactor() = default;

// One pass, in the order its steps need: list; with a table, read what it holds; find the
// merges whose outputs are all there; delete what those supersede once past the grace; merge
// what the policy asks for, partition by partition. A partition whose delete or merge fails is
// reported and skipped for the rest of the pass; the others go on (one bad directory or key must
// not stall the whole lake).
namespace {

// With a table, a pass commits its merges as one replace snapshot per this many merges or this
// long, and at its end, not one per merge: a replace rewrites every manifest holding one of its
// inputs, and a table whose Parts one register (or many small flushes merged) put in one
// manifest rewrote it per merge: 41% of a full-scale compact_bench pass (issue 28 asks for 3%).
// Spark's rewrite_data_files commits once, or at most ten times with partial progress. A crash
// before the commit loses no row: the outputs are found in place, by name, by the next pass.
constexpr size_t kMergesPerReplace = 64;
constexpr std::chrono::seconds kReplaceEvery{30};

// Adds the wall time of the scope it lives in to PassReport::table_seconds.
class TableClock {
 public:
  explicit TableClock(PassReport& report)
      : report_(report), start_(std::chrono::steady_clock::now()) {}
  ~TableClock() {
    report_.table_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  TableClock(const TableClock&) = delete;
  TableClock& operator=(const TableClock&) = delete;

 private:
  PassReport& report_;
  const std::chrono::steady_clock::time_point start_;
};

}  // namespace

class Compactor::Pass {
 public:
  Pass(Compactor& compactor, const PassHooks& hooks, PassReport& report)
      : destination_(compactor.destination_),
        options_(compactor.options_),
        rep_(*compactor.rep_),
        pool_(compactor.pool_.get()),
        hooks_(hooks),
        report_(report),
        table_(*options_.table),
        dry_run_(static_cast<bool>(hooks.on_plan)) {
    // A merge reports its outputs from its lane's thread, without mu_ (held meanwhile by another
    // lane's bookkeeping, which may call the other hooks): the hooks are one thread's at a time.
    if (hooks_.on_output) {
      on_output_ = [this](const OutputReport& out) {
        std::lock_guard<std::mutex> lock(hooks_mu_);
        hooks_.on_output(out);
      };
    }
  }

  Result<PassReport> Run() {
    SINKD_RETURN_IF_ERROR(List());
    SINKD_ASSIGN_OR_RETURN(const bool table_exists, ReadTable());
    if (!table_exists) {
      report_.table_missing = true;
      report_.completed = true;
      return report_;
    }
    SINKD_RETURN_IF_ERROR(FindCompletedMerges());
    SINKD_RETURN_IF_ERROR(DeleteDue());
    SINKD_RETURN_IF_ERROR(MergePartitions());
    CommitWaiting();
    report_.completed = true;
    return Finish();
  }

 private:
  Status List() {
    Result<std::vector<lake::StoredObject>> listed = destination_.List(options_.prefix + "/");
    if (!listed.ok()) return listed.status().As(Status::Redeliver).WithContext("list lake");
    for (lake::StoredObject& stored : *listed) {
      std::optional<table::ObjectKey> parsed =
          table::ParseObjectKey(table_, options_.prefix, stored.key);
      if (!parsed) continue;
      objects_.push_back(stored);
      partitions_[parsed->partition].push_back(Object{std::move(stored), std::move(*parsed)});
    }
    report_.partitions = partitions_.size();
    // Footers of objects that are gone are forgotten, so a --follow process stays as large as
    // the lake.
    std::set<std::string> present;
    for (const lake::StoredObject& o : objects_) present.insert(o.key);
    for (auto it = rep_.outputs.begin(); it != rep_.outputs.end();) {
      it = present.count(it->first) ? std::next(it) : rep_.outputs.erase(it);
    }
    for (auto it = rep_.left_alone.begin(); it != rep_.left_alone.end();) {
      it = present.count(it->first) ? std::next(it) : rep_.left_alone.erase(it);
    }
    for (const auto& [partition, members] : partitions_) {
      for (const Object& o : members) key_partition_[o.stored.key] = partition;
    }
    return Status::OK();
  }

  // With a table, its current snapshot decides what merges (compactor.h); read after the
  // listing, so every Part it holds was listed (a Part is placed before it is committed).
  // False when a table is asked for and there is none.
  Result<bool> ReadTable() {
    if (options_.rewrite == nullptr) return true;
    const TableClock clock(report_);
    Result<table::LiveParts> live = options_.rewrite->Live(options_.prefix, table_);
    if (!live.ok()) return live.status().WithContext("read the table " + options_.prefix);
    if (!live->exists) return false;
    table_live_ = std::move(live->keys);
    for (const lake::StoredObject& o : objects_) {
      if (table_live_->count(o.key) == 0) ++report_.parts_outside_table;
    }
    return true;
  }

  // Outputs and the merges they complete. A merge's inputs count as superseded only once every
  // output of that merge is there: a split merge cut short by a crash covers only part of them.
  Status FindCompletedMerges() {
    for (auto& [partition, members] : partitions_) {
      std::map<std::string, std::vector<std::pair<const Object*, OutputFooter>>> merges;
      for (const Object& o : members) {
        if (!o.parsed.output) continue;
        auto stem = table::CompactionOutputStem(o.parsed.name);
        if (!stem) continue;
        SINKD_ASSIGN_OR_RETURN(const Rep::Cached* cached, OutputFooterOf(o));
        if (cached == nullptr) continue;  // deleted meanwhile
        if (!cached->refused.ok()) {
          Refuse(o.stored.key, cached->refused);
          continue;
        }
        if (stem->second.has_value() != (cached->output->outputs > 1) ||
            stem->second.value_or(0) != cached->output->index) {
          continue;  // a name that does not match its footer: not part of any merge
        }
        merges[stem->first].emplace_back(&o, *cached->output);
      }
      for (auto& [stem, parts] : merges) {
        const OutputFooter& first = parts.front().second;
        bool complete = parts.size() == first.outputs;
        std::set<uint64_t> indices;
        uint64_t rows = 0;
        const Object* youngest = nullptr;
        for (const auto& [object, footer] : parts) {
          complete = complete && footer.outputs == first.outputs &&
                     footer.supersedes == first.supersedes && footer.rows_out == first.rows_out;
          indices.insert(footer.index);
          rows += footer.rows;
          if (!youngest || object->stored.modified_unix_ms > youngest->stored.modified_unix_ms) {
            youngest = object;
          }
        }
        complete = complete && indices.size() == first.outputs && rows == first.rows_out;
        if (complete) supersedes_[youngest->stored.key] = first.supersedes;
      }
    }
    return Status::OK();
  }

  // An output's footer, read once per process while its size and version stay; nullptr when it
  // was deleted since the listing.
  Result<const Rep::Cached*> OutputFooterOf(const Object& o) {
    Rep::Cached& cached = rep_.outputs[o.stored.key];
    if (cached.size == o.stored.size && cached.version == o.stored.version &&
        (cached.output || !cached.refused.ok())) {
      return &cached;
    }
    cached = Rep::Cached{o.stored.size, o.stored.version, std::nullopt, Status::OK()};
    const std::string key = o.stored.key;
    auto footer = parquet::ReadFooter(
        [&](uint64_t offset, uint64_t length) {
          Result<std::string> bytes = destination_.Read(key, offset, length);
          if (bytes.ok()) report_.bytes_read += bytes->size();
          return bytes;
        },
        o.stored.size, key);
    if (!footer.ok() && footer.status().IsNotFound()) return nullptr;
    if (!footer.ok() && !footer.status().IsRefuse()) {
      rep_.outputs.erase(key);
      return footer.status().As(Status::Redeliver).WithContext("read footer");
    }
    Result<OutputFooter> parsed =
        footer.ok() ? ParseOutputFooter(*footer, key) : Result<OutputFooter>(footer.status());
    if (parsed.ok()) {
      cached.output = std::move(*parsed);
    } else {
      cached.refused = parsed.status();
    }
    return &cached;
  }

  // The inputs of completed merges past their grace, oldest first within a partition.
  Status DeleteDue() {
    now_ = options_.now_unix_ms();
    grace_ = PlanDeletions(GraceInputs{&objects_, &supersedes_, now_, options_.grace_ms});
    report_.kept.assign(grace_.changed.begin(), grace_.changed.end());
    std::map<std::string, const lake::StoredObject*> listed_object;
    for (const lake::StoredObject& o : objects_) listed_object[o.key] = &o;
    // With a table, an object a snapshot still names stays whatever its grace: `sinkd table
    // expire` deletes it once no retained snapshot does.
    std::set<std::string> retained;
    if (table_live_ && !grace_.due.empty()) {
      Result<std::set<std::string>> named = options_.rewrite->Referenced(options_.prefix, table_);
      if (!named.ok()) return named.status().WithContext("read the table " + options_.prefix);
      retained = std::move(*named);
    }
    for (const std::string& key : grace_.due) {
      if (retained.count(key) > 0) {
        ++report_.inputs_retained;
        continue;
      }
      if (dry_run_) {
        const lake::StoredObject& object = *listed_object[key];
        hooks_.on_plan(PlannedStep{PlannedStep::Kind::kDelete, key_partition_[key], {object},
                                   object.size, {}, false, false});
        continue;
      }
      // After a failure a partition's later deletions wait for a later pass, so an output is
      // still never gone before what it supersedes.
      const std::string& partition = key_partition_[key];
      if (failed_.count(partition)) continue;
      // Only while it is still the object that was merged: one re-created since the listing
      // stays (merged by a later pass).
      Result<bool> gone = destination_.DeleteIfUnchanged(*listed_object[key]);
      if (!gone.ok()) {
        Fail(partition, gone.status().WithContext("delete " + key));
        continue;
      }
      if (!*gone) {
        report_.kept.push_back(key);
        continue;
      }
      deleted_.insert(key);
      ++report_.inputs_deleted;
    }
    if (!deleted_.empty()) {
      Status s = destination_.Sync();
      if (!s.ok()) return s.As(Status::Redeliver).WithContext("sync lake after deletions");
    }
    return Status::OK();
  }

  // With a table: one merge committed as one replace (CommitWaiting's way when a replace of
  // several lost a race). A conflict (NotFound: another replace
  // removed an input first) drops the merge: its outputs are deleted unless a snapshot names them
  // (the other compactor's replace of the same inputs placed and committed the same keys).
  Status CommitReplace(const MergeSpec& spec, const MergeOutcome& outcome) {
    const TableClock clock(report_);
    Status committed = Replace({RewriteOf(spec, outcome)});
    if (committed.ok()) return committed;
    if (!committed.IsNotFound()) {
      return committed.WithContext("commit the replace of " +
                                   std::to_string(spec.inputs.size()) + " Parts of " +
                                   spec.partition);
    }
    ++report_.replaces_dropped;
    Result<std::set<std::string>> named = options_.rewrite->Referenced(options_.prefix, table_);
    if (!named.ok()) return named.status().WithContext("read the table " + options_.prefix);
    bool any = false;
    for (const OutputReport& out : outcome.outputs) {
      if (named->count(out.key) > 0) continue;
      Status gone = destination_.Delete(out.key);
      if (!gone.ok() && !gone.IsNotFound()) return gone.WithContext("delete " + out.key);
      any = true;
    }
    if (any) {
      Status synced = destination_.Sync();
      if (!synced.ok()) return synced.WithContext("sync lake after deletions");
    }
    return committed;
  }

  // `rewrites` as one replace snapshot; once it landed, their inputs are the table's no more.
  Status Replace(const std::vector<table::PartRewrite>& rewrites) {
    Status committed = options_.rewrite->Replace(options_.prefix, table_, rewrites);
    if (!committed.ok()) return committed;
    ++report_.replaces;
    for (const table::PartRewrite& r : rewrites) {
      for (const std::string& key : r.removed) table_live_->erase(key);
    }
    return committed;
  }

  static table::PartRewrite RewriteOf(const MergeSpec& spec, const MergeOutcome& outcome) {
    table::PartRewrite rewrite;
    for (const InputRef& in : spec.inputs) rewrite.removed.push_back(in.key);
    for (const OutputReport& out : outcome.outputs) {
      rewrite.added.push_back(table::RewrittenPart{out.key, out.bytes, out.statistics});
    }
    return rewrite;
  }

  // The merges waiting for the table, committed as one replace. When another replace took one
  // of their inputs first (NotFound), one replace per merge instead, so that only the merges
  // that lost are dropped (CommitReplace deletes their outputs). A failed commit fails the
  // partitions of its merges; their outputs stay, found in place by the next pass.
  void CommitWaiting() {
    if (waiting_.empty()) return;
    std::vector<Waiting> batch = std::move(waiting_);
    waiting_.clear();
    waiting_inputs_.clear();
    if (batch.size() > 1) {
      Status committed;
      {
        const TableClock clock(report_);
        std::vector<table::PartRewrite> rewrites;
        for (const Waiting& w : batch) rewrites.push_back(RewriteOf(w.spec, w.outcome));
        committed = Replace(rewrites);
        if (committed.ok()) return;
      }
      if (!committed.IsNotFound()) {
        for (const Waiting& w : batch) {
          Fail(w.partition, committed.WithContext("commit the replace of " +
                                                  std::to_string(batch.size()) + " merges"));
          Pending(w.partition);
        }
        return;
      }
    }
    for (const Waiting& w : batch) {
      Status committed = CommitReplace(w.spec, w.outcome);
      if (committed.ok()) continue;
      // NotFound: another compactor replaced these Parts; the next pass sees it.
      if (!committed.IsNotFound()) Fail(w.partition, committed);
      Pending(w.partition);
    }
  }

  // What one partition may merge now: neither deleted nor refused, and (with a table) what it
  // holds, even a Part an uncommitted output supersedes (merging it again meets that output's key
  // and bytes and commits them), never a Part it does not; (without) not superseded.
  std::vector<const Object*> Mergeable(const std::vector<Object>& members) const {
    std::vector<const Object*> live;
    for (const Object& o : members) {
      if (deleted_.count(o.stored.key) || refused_.count(o.stored.key)) continue;
      if (table_live_ ? table_live_->count(o.stored.key) == 0
                      : grace_.superseded.count(o.stored.key) > 0) {
        continue;
      }
      live.push_back(&o);
    }
    return live;
  }

  // Every partition, in key order, by merge_lanes lanes at once. A lane holds mu_ except while
  // its merge runs, so everything but the merges (plans, the report, the table, deletions, the
  // hooks) is one thread's at a time, as with one lane.
  Status MergePartitions() {
    std::vector<lake::Destination*> lanes;
    if (options_.merge_lanes > 1 && !dry_run_ && partitions_.size() > 1) {
      while (rep_.lanes.size() < options_.merge_lanes) {
        Result<std::unique_ptr<lake::Destination>> opened = options_.open_destination();
        if (!opened.ok()) return opened.status().WithContext("open a merge lane's destination");
        rep_.lanes.push_back(std::move(*opened));
      }
      for (size_t i = 0; i < options_.merge_lanes && i < partitions_.size(); ++i) {
        lanes.push_back(rep_.lanes[i].get());
      }
      budget_.emplace(options_.lane_rows);
    } else {
      lanes.push_back(&destination_);
    }
    auto next = partitions_.begin();
    uint64_t done = 0;
    const auto lane = [&](lake::Destination& destination) {
      std::unique_lock<std::mutex> lock(mu_);
      while (next != partitions_.end()) {
        const auto& [partition, members] = *next++;
        MergePartition(partition, members, destination, lock);
        if (hooks_.on_partition) {
          std::lock_guard<std::mutex> hooks_lock(hooks_mu_);
          hooks_.on_partition(++done, report_.partitions);
        }
      }
    };
    std::vector<std::thread> threads;
    for (size_t i = 1; i < lanes.size(); ++i) threads.emplace_back(lane, std::ref(*lanes[i]));
    lane(*lanes[0]);
    for (std::thread& t : threads) t.join();
    if (budget_) report_.merges_at_once = budget_->peak_leases();
    return Status::OK();
  }

  // What one merge of a plan did to the partition's round.
  enum class Step { kNext, kReplan, kStop };

  void MergePartition(const std::string& partition, const std::vector<Object>& members,
                      lake::Destination& destination, std::unique_lock<std::mutex>& lock) {
    if (!stopped_ && StopRequested()) stopped_ = true;
    if (failed_.count(partition)) {
      Pending(partition);
      return;
    }
    std::vector<const Object*> live = Mergeable(members);
    const int64_t end = *table::DateEndUnixMs(members.front().parsed.date);
    PolicyInputs policy{options_.target_bytes, options_.min_parts,
                        now_ >= end + options_.settle_ms};
    PartitionState state;
    // Re-planned after a refusal: the refused Part leaves the candidates, the rest still merge.
    for (size_t round = 0; round <= members.size() && !state.broken; ++round) {
      std::vector<Candidate> candidates;
      for (const Object* o : live) {
        candidates.push_back(Candidate{o->stored.key, o->stored.size, o->parsed.output});
      }
      std::vector<std::vector<size_t>> plan = PlanMerges(candidates, policy);
      if (plan.empty()) break;
      if (stopped_) {
        state.pending = true;
        break;
      }
      Step step = Step::kNext;
      for (const std::vector<size_t>& merge : plan) {
        if (StopRequested()) {
          stopped_ = state.pending = true;
          step = Step::kStop;
          break;
        }
        step = MergeOne(partition, members, merge, live, state, destination, lock);
        if (step != Step::kNext) break;
      }
      if (step != Step::kReplan || state.broken) break;
      state.pending = false;
    }
    if (state.merged) ++report_.partitions_merged;
    if (state.pending) Pending(partition);
  }

  bool StopRequested() {
    if (!hooks_.stop_requested) return false;
    std::lock_guard<std::mutex> lock(hooks_mu_);
    return hooks_.stop_requested();
  }

  // Counts `partition` in partitions_pending once, however many times something is left there.
  void Pending(const std::string& partition) {
    if (pending_.insert(partition).second) ++report_.partitions_pending;
  }

  struct PartitionState {
    bool merged = false;   // an output was written
    bool pending = false;  // something is left for a later pass
    bool broken = false;   // the partition failed: skipped for the rest of the pass
  };

  Step MergeOne(const std::string& partition, const std::vector<Object>& members,
                const std::vector<size_t>& merge, std::vector<const Object*>& live,
                PartitionState& state, lake::Destination& destination,
                std::unique_lock<std::mutex>& lock) {
    if (merge.size() == 1) {
      auto known = rep_.left_alone.find(live[merge[0]]->stored.key);
      if (known != rep_.left_alone.end() && known->second == live[merge[0]]->stored.size) {
        ++report_.parts_left_alone;
        return Step::kNext;
      }
    }
    if (dry_run_) {
      hooks_.on_plan(PlanOf(partition, merge, live, options_.target_bytes));
      return Step::kNext;
    }
    MergeSpec spec;
    spec.table = &table_;
    spec.partition = partition;
    spec.partition_values = members.front().parsed.values;
    spec.values_exact = members.front().parsed.exact;
    for (size_t i : merge) {
      const lake::StoredObject& in = live[i]->stored;
      spec.inputs.push_back(InputRef{in.key, in.size, in.version});
    }
    spec.target_bytes = options_.target_bytes;
    spec.parquet = options_.parquet;
    spec.pool = pool_;
    if (budget_) spec.budget = &*budget_;
    lock.unlock();
    Result<MergeOutcome> outcome = Merge(destination, spec, on_output_);
    lock.lock();
    if (!outcome.ok()) {
      Fail(partition, outcome.status());
      state.broken = state.pending = true;
      return Step::kStop;
    }
    report_.bytes_read += outcome->bytes_read;
    report_.bytes_written += outcome->bytes_written;
    report_.outputs += outcome->outputs.size();
    if (!outcome->outputs.empty()) state.merged = true;
    if (outcome->taken > 0) ++report_.merges_discarded;
    switch (outcome->kind) {
      case MergeOutcome::Kind::kLeftAlone:
        rep_.left_alone[outcome->input] = live[merge[0]]->stored.size;
        ++report_.parts_left_alone;
        return Step::kNext;
      case MergeOutcome::Kind::kMerged: {
        report_.rows_in += outcome->counts.rows_in;
        report_.rows_out += outcome->counts.rows_out;
        report_.duplicates_dropped += outcome->counts.duplicates_dropped;
        if (!table_live_) return Step::kNext;
        // An output whose key held another compactor's bytes has no statistics of ours: that
        // compactor commits the merge (the same inputs), or a later pass does.
        if (outcome->taken > 0 || outcome->outputs.size() != outcome->counts.outputs) {
          state.pending = true;
          return Step::kNext;
        }
        for (const InputRef& in : spec.inputs) waiting_inputs_.insert(in.key);
        if (waiting_.empty()) first_waiting_ = std::chrono::steady_clock::now();
        waiting_.push_back(Waiting{partition, std::move(spec), std::move(*outcome)});
        if (waiting_.size() >= kMergesPerReplace ||
            std::chrono::steady_clock::now() - first_waiting_ >= kReplaceEvery) {
          CommitWaiting();
        }
        return Step::kNext;
      }
      case MergeOutcome::Kind::kVanished:
        state.pending = true;
        ++report_.merges_discarded;
        return Step::kStop;  // another compactor is at work here: the next pass sees its result
      case MergeOutcome::Kind::kRefused:
        break;
    }
    state.pending = true;
    Refuse(outcome->input, outcome->why);
    const std::string refused_key = outcome->input;
    live.erase(std::remove_if(live.begin(), live.end(),
                              [&](const Object* o) {
                                // Parts a replace of this pass took, or a merge waiting for
                                // one, are the table's no more.
                                return o->stored.key == refused_key ||
                                       (table_live_ && table_live_->count(o->stored.key) == 0) ||
                                       waiting_inputs_.count(o->stored.key) > 0;
                              }),
               live.end());
    return Step::kReplan;
  }

  Result<PassReport> Finish() {
    std::string refusals;
    if (!report_.refused.empty()) {
      std::string all;
      for (const std::string& why : report_.refused) all += (all.empty() ? "" : "; ") + why;
      refusals = std::to_string(report_.refused.size()) +
                 " Part(s) cannot be read and were left in place: " + all;
    }
    report_.partitions_failed = report_.failed.size();
    if (!report_.failed.empty()) {
      std::string all;
      for (const std::string& why : report_.failed) all += (all.empty() ? "" : "; ") + why;
      return Status::Redeliver(std::to_string(report_.failed.size()) +
                               " partition(s) failed and were skipped: " + all +
                               (refusals.empty() ? "" : "; " + refusals));
    }
    if (!refusals.empty()) return Status::Refuse(refusals);
    return report_;
  }

  void Refuse(const std::string& key, const Status& why) {
    if (refused_.insert(key).second) report_.refused.push_back(why.message());
  }
  void Fail(const std::string& partition, const Status& why) {
    if (failed_.insert(partition).second) {
      report_.failed.push_back(partition + ": " + why.message());
    }
  }

  lake::Destination& destination_;
  const CompactOptions& options_;
  Rep& rep_;
  WorkPool* pool_;
  const PassHooks& hooks_;
  PassReport& report_;
  const row::ColumnTable& table_;
  const bool dry_run_;

  std::vector<lake::StoredObject> objects_;                   // the listing's, of this table
  std::map<std::string, std::vector<Object>> partitions_;    // partition → its objects
  std::map<std::string, std::string> key_partition_;          // key → partition
  std::optional<std::set<std::string>> table_live_;           // with a table: what it holds
  std::map<std::string, std::vector<table::SupersededObject>> supersedes_;  // youngest output →
  int64_t now_ = 0;
  GracePlan grace_;
  std::set<std::string> refused_;  // keys
  std::set<std::string> failed_;   // partitions
  std::set<std::string> deleted_;  // keys
  std::set<std::string> pending_;  // partitions counted in partitions_pending
  // With a table: merges placed and not yet committed (CommitWaiting), and their inputs.
  struct Waiting {
    std::string partition;
    MergeSpec spec;
    MergeOutcome outcome;
  };
  std::vector<Waiting> waiting_;
  std::set<std::string> waiting_inputs_;
  std::chrono::steady_clock::time_point first_waiting_;
  bool stopped_ = false;
  // Merge lanes (MergePartitions): mu_ guards everything above while lanes run; hooks_mu_ makes
  // the hooks one thread's at a time (on_output is called without mu_).
  std::mutex mu_;
  std::mutex hooks_mu_;
  std::function<void(const OutputReport&)> on_output_;
  std::optional<RowBudget> budget_;  // with more than one lane
};

Result<PassReport> Compactor::RunPass(const PassHooks& hooks, PassReport* out) {
  PassReport local;
  PassReport& report = out ? *out : local;
  report = PassReport{};
  SINKD_RETURN_IF_ERROR(options_.Validate());
  return Pass(*this, hooks, report).Run();
}

}  // namespace sinkd::compact
