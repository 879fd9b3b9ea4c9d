#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>

#include "backfill/backfill.h"
#include "base/log.h"
#include "cli/command.h"
#include "cli/destination_flags.h"
#include "cli/lake_flags.h"
#include "contract/delimited.h"

namespace sinkd::cli {

namespace {

struct ImportFlags {
  DestinationFlags destination;
  LakeFlags lake;
  size_t batch_max_rows = 250'000;
  std::vector<std::string> files;
};

// The bytes of one input: a read-only mapping of a file, or all of standard input. Mapping keeps a
// multi-gigabyte replay from being copied into memory first.
class Input {
 public:
  static Result<std::unique_ptr<Input>> Open(const std::string& name) {
    auto in = std::unique_ptr<Input>(new Input());
    if (name == "-") {
      in->owned_.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
      in->view_ = in->owned_;
      return in;
    }
    int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::Refuse("import " + name + ": " + std::strerror(errno));
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      return Status::Refuse("import " + name + ": not a regular file");
    }
    if (st.st_size > 0) {
      void* p = ::mmap(nullptr, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        ::close(fd);
        return Status::Refuse("import " + name + ": mmap: " + std::strerror(errno));
      }
      ::madvise(p, st.st_size, MADV_SEQUENTIAL);
      in->map_ = p;
      in->map_size_ = static_cast<size_t>(st.st_size);
      in->view_ = std::string_view(static_cast<const char*>(p), in->map_size_);
    }
    ::close(fd);
    return in;
  }
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;
  ~Input() {
    if (map_) ::munmap(map_, map_size_);
  }
  std::string_view bytes() const { return view_; }

 private:
  Input() = default;
  std::string owned_;
  void* map_ = nullptr;
  size_t map_size_ = 0;
  std::string_view view_;
};

Status RunImport(const ImportFlags& flags, const std::string& origin, contract::Envelope envelope) {
  if (flags.files.empty()) return Status::Refuse("import needs at least one FILE (or - for stdin)");
  if (flags.batch_max_rows < 1) return Status::Refuse("--batch-max-rows must be at least 1");
  SINKD_ASSIGN_OR_RETURN(lake::LakeWriterOptions lake_options,
                         LakeWriterOptionsFrom(flags.lake, origin));
  SINKD_ASSIGN_OR_RETURN(std::unique_ptr<lake::Destination> destination,
                         MakeDestination(flags.destination));
  SINKD_RETURN_IF_ERROR(destination->Ensure());

  Logger log;
  log.AddContext("origin", origin);
  log.Info("sinkd import started", {{"destination", destination->Describe()},
                                    {"key_prefix", lake_options.key_prefix},
                                    {"instance", lake_options.instance},
                                    {"batch_max_rows", static_cast<uint64_t>(flags.batch_max_rows)}});
  backfill::BackfillOptions options;
  options.envelope = envelope;
  options.batch_max_rows = flags.batch_max_rows;
  options.lake = lake_options;
  backfill::Backfill backfill(*destination, options, log);
  for (const std::string& name : flags.files) {
    SINKD_ASSIGN_OR_RETURN(std::unique_ptr<Input> input, Input::Open(name));
    contract::DelimitedReader reader(input->bytes());
    while (true) {
      auto next = reader.Next();
      if (!next.ok()) return next.status().WithContext("import " + name);
      if (!next->has_value()) break;
      SINKD_RETURN_IF_ERROR(backfill.Add(**next, name));
    }
  }
  SINKD_RETURN_IF_ERROR(backfill.Finish());
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
  cmd->add_option("--batch-max-rows", flags->batch_max_rows,
                  "flush after this many ROWS; one ledger message holds many")
      ->capture_default_str();
  cmd->add_option("files", flags->files,
                  "files of varint-length-delimited wire messages; - reads standard input");
  cmd->callback([flags, &invocation, origin, envelope] {
    invocation.run = [flags, origin, envelope] { return RunImport(*flags, origin, envelope); };
  });
}

}  // namespace

void AddImportCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* parent = AddParent(
      root, "import", "write recorded wire messages into a lake exactly as a drain would");
  AddImportOrigin(*parent, invocation, "ledger", contract::Envelope::kBatch,
                  "import GARM_LEDGER messages (each a garm.ledger.v1.Batch)");
  AddImportOrigin(*parent, invocation, "audit", contract::Envelope::kEvent,
                  "import GARM_AUDIT messages (each one garm.ledger.v1.Event)");
}

}  // namespace sinkd::cli
