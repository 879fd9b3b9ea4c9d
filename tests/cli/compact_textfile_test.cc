// `sinkd compact --metrics-textfile`: the one-shot passes of the hourly timer reach Prometheus
// through node_exporter's textfile collector. The file is written after each pass, whole (never
// half: temporary file and rename), promtool accepts it, its counters go on from the file before
// (one-shot runs would otherwise each write passes_total 1), and a run that cannot reach its
// lake counts a failed pass while keeping the last success's time.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "support/support.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using testing::RunCommand;
using testing::SinkdBinary;
using testing::TempDir;

testing::CommandResult CompactOnce(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {SinkdBinary().string(), "compact"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, "", 60s, {"LAKE_DIR=", "AWS_ENDPOINT_URL=", "S3_BUCKET="});
}

// "name{table=\"ledger\"}" → value, of every sample line in `text`.
std::map<std::string, double> Samples(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    out[line.substr(0, space)] = std::strtod(line.c_str() + space + 1, nullptr);
  }
  return out;
}

bool HasPromtool() { return RunCommand({"sh", "-c", "command -v promtool"}).exit_code == 0; }

TEST(CompactTextfile, EachOneShotPassWritesItsFiguresWholeAndTheCountersGoOnFromTheFileBefore) {
  TempDir dir;
  const std::string lake = (dir / "lake").string();
  const std::string wire = (dir / "ledger.bin").string();
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"generate", "ledger", "--messages", "30", "--events-per-batch", "50", "--seed", "5",
            "-o", wire},
           {"import", "ledger", "--lake-dir", lake, "--batch-max-rows", "100", wire}}) {
    std::vector<std::string> argv = {SinkdBinary().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto r = RunCommand(argv, "", 60s, {"LAKE_DIR="});
    ASSERT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
  }
  const std::filesystem::path collector = dir / "textfile_collector";
  std::filesystem::create_directories(collector);
  // One path for every table, as the one configuration file of the timer's units names it.
  const std::string config = (dir / "sinkd.toml").string();
  testing::WriteFile(config, "[lake]\ndir = \"" + lake +
                                 "\"\n[compaction]\nmin_parts = 2\ngrace = \"0s\"\n"
                                 "metrics_textfile = \"" +
                                 (collector / "sinkd-compact-{table}.prom").string() + "\"\n");
  const std::filesystem::path file = collector / "sinkd-compact-ledger.prom";
  const std::string key = "{table=\"ledger\"}";

  auto r = CompactOnce({"ledger", "--config", config});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string first = testing::ReadFile(file);
  ASSERT_FALSE(first.empty()) << "no textfile after the pass\n" << r.err;
  auto s = Samples(first);
  EXPECT_EQ(s["sinkd_compact_passes_total" + key], 1);
  EXPECT_GT(s["sinkd_compact_outputs_total" + key], 0) << first;
  EXPECT_GT(s["sinkd_compact_rows_in_total" + key], 0) << first;
  const double first_success = s["sinkd_compact_last_pass_success_timestamp_seconds" + key];
  EXPECT_GT(first_success, 1.7e9) << first;
  if (HasPromtool()) {
    const auto lint = RunCommand({"promtool", "check", "metrics"}, first);
    EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
    EXPECT_EQ(lint.out + lint.err, "") << "promtool's lint findings:\n" << lint.out << lint.err;
  }
  const double outputs = s["sinkd_compact_outputs_total" + key];

  // The second pass deletes the inputs (grace 0): its figures add to the first's.
  r = CompactOnce({"ledger", "--config", config});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  s = Samples(testing::ReadFile(file));
  EXPECT_EQ(s["sinkd_compact_passes_total" + key], 2) << "counters carried on from the file";
  EXPECT_GE(s["sinkd_compact_outputs_total" + key], outputs);
  EXPECT_GT(s["sinkd_compact_inputs_deleted_total" + key], 0);
  const double second_success = s["sinkd_compact_last_pass_success_timestamp_seconds" + key];
  EXPECT_GE(second_success, first_success);

  // A run whose lake cannot be reached (a file where the directory should be) is a failed pass;
  // the last success keeps its time, so the no-successful-pass alert measures from it.
  const std::string blocked = (dir / "not-a-dir").string();
  testing::WriteFile(blocked, "x");
  r = CompactOnce({"ledger", "--config", config, "--lake-dir", blocked});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  s = Samples(testing::ReadFile(file));
  EXPECT_EQ(s["sinkd_compact_pass_failures_total" + key], 1) << r.err;
  EXPECT_EQ(s["sinkd_compact_passes_total" + key], 2);
  EXPECT_EQ(s["sinkd_compact_last_pass_success_timestamp_seconds" + key], second_success);

  // The audit table's pass writes its own file beside; nothing but .prom files is left behind.
  r = CompactOnce({"audit", "--config", config});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(collector)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"sinkd-compact-audit.prom",
                                             "sinkd-compact-ledger.prom"}));
  EXPECT_EQ(std::filesystem::status(file).permissions() & std::filesystem::perms::others_read,
            std::filesystem::perms::others_read)
      << "node_exporter's user must be able to read it";
}

TEST(CompactTextfile, ATextfileInADirectoryThatDoesNotExistIsAUsageError) {
  TempDir dir;
  const auto r = CompactOnce({"ledger", "--lake-dir", (dir / "lake").string(),
                              "--metrics-textfile", (dir / "absent/ledger.prom").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--metrics-textfile"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("compaction pass"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sinkd
