#include <cstdio>

#include "base/duration.h"
#include "cli/command.h"
#include "cli/config_flags.h"
#include "lake/sweep.h"

namespace sinkd::cli {

namespace {

struct SweepFlags {
  LogFlags log;
  std::string lake_dir;
  std::string older_than = "1h";
  bool dry_run = false;
};

Status RunSweep(const SweepFlags& flags, Invocation& invocation) {
  if (flags.lake_dir.empty()) return invocation.Usage(Status::Refuse("sweep needs --lake-dir"));
  auto older_than = ParseDuration(flags.older_than);
  if (!older_than.ok()) return invocation.Usage(older_than.status().WithContext("--older-than"));
  auto report = lake::SweepIncomplete(
      flags.lake_dir, std::chrono::duration_cast<std::chrono::seconds>(*older_than),
      std::filesystem::file_time_type::clock::now(), flags.dry_run);
  if (!report.ok()) return report.status();
  const char* verb = flags.dry_run ? "would remove" : "removed";
  for (const auto& path : report->removed) std::printf("%s %s\n", verb, path.c_str());
  std::printf("sweep: %s %zu stale .incomplete file(s); kept %zu younger than %s%s\n", verb,
              report->removed.size(), report->kept_young, flags.older_than.c_str(),
              flags.dry_run ? "; nothing was removed (--dry-run)" : "");
  return Status::OK();
}

}  // namespace

void AddSweepCommand(CLI::App& root, Invocation& invocation) {
  auto flags = std::make_shared<SweepFlags>();
  CLI::App* cmd = root.add_subcommand(
      "sweep", "remove the .incomplete files a crash left in a directory lake");
  cmd->add_option("--lake-dir", flags->lake_dir, "the lake directory")->required();
  cmd->add_option("--older-than", flags->older_than,
                  "only files last written longer ago than this (a younger one may be in flight)")
      ->capture_default_str();
  cmd->add_flag("--dry-run", flags->dry_run, "print what would be removed and remove nothing");
  flags->log.Add(*cmd);
  cmd->callback([flags, &invocation] {
    invocation.run = [flags, &invocation] {
      SINKD_RETURN_IF_ERROR(flags->log.Apply());
      return RunSweep(*flags, invocation);
    };
  });
}

}  // namespace sinkd::cli
