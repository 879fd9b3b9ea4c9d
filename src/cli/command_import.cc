#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "backfill/backfill.h"
#include "base/log.h"
#include "base/progress.h"
#include "partition/partition_cap.h"
#include "cli/command.h"
#include "cli/config_flags.h"
#include "cli/destination_flags.h"
#include "cli/lake_flags.h"
#include "cli/size_flags.h"
#include "cli/stream_origin.h"
#include "contract/delimited.h"
#include "iceberg/table_format.h"
#include "row/row_buffer.h"

namespace sinkd::cli {

namespace {

struct ImportFlags {
  LogFlags log;
  DestinationFlags destination;
  LakeFlags lake;
  size_t batch_max_rows = 250'000;
  size_t batch_max_bytes = row::kDefaultBatchBytes;
  size_t max_partitions_per_flush = partition::kDefaultMaxPartitionsPerFlush;
  std::vector<std::string> files;
};

// One input, read as a stream (standard input for "-"): a replay of any size holds one buffer.
class Input {
 public:
  static Result<std::unique_ptr<Input>> Open(const std::string& name) {
    if (name == "-") return std::unique_ptr<Input>(new Input(0, false));
    int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::Refuse("import " + name + ": " + std::strerror(errno));
    struct stat st;
    if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
      ::close(fd);
      return Status::Refuse("import " + name + ": not a file");
    }
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    return std::unique_ptr<Input>(new Input(fd, true));
  }
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;
  ~Input() {
    if (owned_) ::close(fd_);
  }
  contract::DelimitedStreamReader& reader() { return reader_; }
  // Bytes read so far (what the reader pulled in; 0 when the input cannot seek, a pipe).
  uint64_t Position() const {
    const off_t at = ::lseek(fd_, 0, SEEK_CUR);
    return at < 0 ? 0 : static_cast<uint64_t>(at);
  }

 private:
  Input(int fd, bool owned) : fd_(fd), owned_(owned), reader_(fd) {}
  int fd_;
  bool owned_;
  contract::DelimitedStreamReader reader_;
};

// The flags checked before anything is read or written: a refusal is a usage error (exit 2).
Status CheckImportFlags(const ImportFlags& flags) {
  if (flags.files.empty()) return Status::Refuse("import needs at least one FILE (or - for stdin)");
  if (flags.batch_max_rows < 1) return Status::Refuse("--batch-max-rows must be at least 1");
  SINKD_RETURN_IF_ERROR(row::CheckBatchMaxBytes("--batch-max-bytes", flags.batch_max_bytes));
  if (flags.max_partitions_per_flush < 1) {
    return Status::Refuse("--max-partitions-per-flush must be at least 1");
  }
  return Status::OK();
}

Status RunImport(const ImportFlags& flags, const std::string& origin, contract::Envelope envelope,
                 Invocation& invocation) {
  SINKD_RETURN_IF_ERROR(invocation.Usage(CheckImportFlags(flags)));
  SINKD_ASSIGN_OR_RETURN(lake::LakeWriterOptions lake_options,
                         invocation.Usage(LakeWriterOptionsFrom(flags.lake, origin)));
  SINKD_ASSIGN_OR_RETURN(std::unique_ptr<lake::Destination> destination,
                         invocation.Usage(MakeDestination(flags.destination)));
  SINKD_RETURN_IF_ERROR(destination->Ensure());
  // Import's positions are its run's (numbered from 1 each run): none is a stream's. The table is
  // the one the flags' catalog names, as for the drain: committing to the files catalog when
  // --iceberg-catalog sql was given made a second table that no engine reading the sql row sees.
  SINKD_ASSIGN_OR_RETURN(std::unique_ptr<table::Commit> commit,
                         invocation.Usage(iceberg::MakeTableCommit(flags.lake.table_format,
                                                                   *destination, "",
                                                                   TableCatalogFrom(flags.lake))));

  Logger log;
  log.AddContext("origin", origin);
  if (commit->format() != table::kNoCommitFormat) {
    // As the drain: a commit is the never-replace create of the next metadata version.
    SINKD_RETURN_IF_ERROR(RequireExclusiveCreates(
        *destination, lake_options.key_prefix, flags.destination,
        "sinkd import --table-format " + std::string(commit->format()), log));
  }
  log.Info("sinkd import started", {{"destination", destination->Describe()},
                                    {"key_prefix", lake_options.key_prefix},
                                    {"table_format", commit->format()},
                                    {"instance", lake_options.instance},
                                    {"batch_max_rows", static_cast<uint64_t>(flags.batch_max_rows)},
                                    {"batch_max_bytes",
                                     static_cast<uint64_t>(flags.batch_max_bytes)}});
  backfill::BackfillOptions options;
  options.envelope = envelope;
  options.batch_max_rows = flags.batch_max_rows;
  options.batch_max_bytes = flags.batch_max_bytes;
  options.max_partitions_per_flush = flags.max_partitions_per_flush;
  options.lake = lake_options;
  options.decode_threads = lake_options.encode_threads;
  backfill::Backfill backfill(*destination, options, log, *commit);
  // Progress in bytes of input when every input is a file of known size; otherwise in messages.
  uint64_t total_bytes = 0;
  bool sized = true;
  for (const std::string& name : flags.files) {
    struct stat st;
    if (name == "-" || ::stat(name.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
      sized = false;
    } else {
      total_bytes += static_cast<uint64_t>(st.st_size);
    }
  }
  Progress progress(stderr, "import " + origin, sized ? total_bytes : 0,
                    sized ? ProgressUnit::kBytes : ProgressUnit::kCount, "messages");
  uint64_t before = 0, messages = 0;
  for (const std::string& name : flags.files) {
    SINKD_ASSIGN_OR_RETURN(std::unique_ptr<Input> input, Input::Open(name));
    while (true) {
      // Runs decoded in the buffer they were read into (Backfill::AddRun).
      auto run = input->reader().NextRun(backfill.run_messages(), backfill::Backfill::kRunBytes);
      if (!run.ok()) return run.status().WithContext("import " + name);
      if (run->empty()) break;
      SINKD_RETURN_IF_ERROR(backfill.AddRun(*run, name));
      messages += run->size();
      if (progress.active()) progress.Update(sized ? before + input->Position() : messages);
    }
    if (sized) before += input->Position();
  }
  SINKD_RETURN_IF_ERROR(backfill.Finish());
  progress.Finish();
  const backfill::BackfillReport& r = backfill.report();
  log.Info("sinkd import finished", {{"messages", r.messages}, {"rows", r.rows},
                                     {"dead_letters", r.rejects}, {"parts", r.parts},
                                     {"bytes", r.bytes}});
  std::printf("imported %llu messages: %llu rows in %llu parts (%llu bytes), %llu dead letters\n",
              static_cast<unsigned long long>(r.messages), static_cast<unsigned long long>(r.rows),
              static_cast<unsigned long long>(r.parts), static_cast<unsigned long long>(r.bytes),
              static_cast<unsigned long long>(r.rejects));
  for (const std::string& key : r.dead_letter_keys) {
    std::printf("dead letters: %s\n", key.c_str());
  }
  return Status::OK();
}

void AddImportOrigin(CLI::App& parent, Invocation& invocation, const std::string& origin,
                     contract::Envelope envelope, const std::string& description) {
  auto flags = std::make_shared<ImportFlags>();
  CLI::App* cmd = parent.add_subcommand(origin, description);
  AddDestinationFlags(*cmd, flags->destination);
  AddLakeFlags(*cmd, flags->lake);
  AddTableFormatFlag(*cmd, flags->lake);
  cmd->add_option("--batch-max-rows", flags->batch_max_rows,
                  "flush after this many ROWS; one ledger message holds many")
      ->capture_default_str();
  AddSizeOption(*cmd, "--batch-max-bytes", flags->batch_max_bytes,
                "flush once the decoded rows hold this many bytes (1 MiB to 2 GiB)");
  cmd->add_option("--max-partitions-per-flush", flags->max_partitions_per_flush,
                  "write at most this many partitions (date and app) per flush; the events of "
                  "one message past it go to the dead-letter file")
      ->capture_default_str();
  cmd->add_option("files", flags->files,
                  "files of varint-length-delimited wire messages; - reads standard input");
  flags->log.Add(*cmd);
  cmd->callback([flags, &invocation, origin, envelope] {
    invocation.run = [flags, origin, envelope, &invocation] {
      SINKD_RETURN_IF_ERROR(flags->log.Apply());
      return RunImport(*flags, origin, envelope, invocation);
    };
  });
}

}  // namespace

void AddImportCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* parent = AddParent(
      root, "import", "write recorded wire messages into a lake exactly as a drain would");
  const auto origins = StreamOrigins();
  AddImportOrigin(*parent, invocation, origins[0].name, origins[0].envelope,
                  "import GARM_LEDGER messages (each a garm.ledger.v1.Batch)");
  AddImportOrigin(*parent, invocation, origins[1].name, origins[1].envelope,
                  "import GARM_AUDIT messages (each one garm.ledger.v1.Event)");
}

}  // namespace sinkd::cli
