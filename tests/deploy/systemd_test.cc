// The systemd units as `make install` writes them, checked by systemd itself: `systemd-analyze
// verify` (syntax, every directive known, the ExecStart binary and the man page found, the
// timer's service present) and `systemd-analyze security` (the sandbox holds).
#include <gtest/gtest.h>

#include "deploy/deploy_support.h"

namespace sinkd::testing {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kUnits = {"sinkd-drain@ledger.service", "sinkd-drain@audit.service",
                                         "sinkd-dispatch.service", "sinkd-compact.service",
                                         "sinkd-compact.timer", "sinkd-table-expire.service",
                                         "sinkd-table-expire.timer", "sinkd-table-orphans.service",
                                         "sinkd-table-orphans.timer"};

std::vector<std::string> VerifyCommand(const fs::path& unit_dir,
                                       const std::vector<std::string>& units) {
  std::vector<std::string> argv = {"systemd-analyze", "verify"};
  for (const std::string& unit : units) argv.push_back((unit_dir / unit).string());
  return argv;
}

// Installed under a prefix of its own, every unit names a binary that exists there, so verify
// checks the files exactly as installed; MANPATH lets it find the installed sinkd(1).
TEST(Systemd, EveryUnitAsInstalledPassesSystemdAnalyzeVerify) {
  SINKD_REQUIRE_TOOL("systemd-analyze", "systemd");
  SINKD_REQUIRE_TOOL("man", "man-db");
  TempDir prefix;
  ASSERT_TRUE(InstallBuild(prefix.path()));
  const fs::path unit_dir = prefix / "lib/systemd/system";
  const CommandResult r = RunCommand(VerifyCommand(unit_dir, kUnits), "", std::chrono::seconds(60),
                                     {"MANPATH=" + (prefix / "share/man").string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "") << "verify warns on stderr (an unknown directive, a bad value) and still "
                          "exits 0, so any warning fails the test";
  EXPECT_NE(ReadFile(unit_dir / "sinkd-drain@.service")
                .find("ExecStart=" + (prefix / "bin/sinkd").string() + " drain %i"),
            std::string::npos);
}

// The check above is not vacuous: without the binary, or with a directive systemd does not know,
// verify says so.
TEST(Systemd, VerifyRefusesAMissingBinaryAndAnUnknownDirective) {
  SINKD_REQUIRE_TOOL("systemd-analyze", "systemd");
  TempDir prefix;
  ASSERT_TRUE(InstallBuild(prefix.path()));
  const fs::path unit_dir = prefix / "lib/systemd/system";
  fs::remove(prefix / "bin/sinkd");
  CommandResult r = RunCommand(VerifyCommand(unit_dir, {"sinkd-dispatch.service"}), "",
                               std::chrono::seconds(60), {"SYSTEMD_LOG_COLOR=0"});
  EXPECT_NE(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("sinkd is not executable"), std::string::npos) << r.err;

  ASSERT_TRUE(InstallBuild(prefix.path()));
  std::string unit = ReadFile(unit_dir / "sinkd-dispatch.service");
  unit.replace(unit.find("NoNewPrivileges=yes"), 19, "NoNewPrivilege=yes");
  WriteFile(unit_dir / "sinkd-dispatch.service", unit);
  r = RunCommand(VerifyCommand(unit_dir, {"sinkd-dispatch.service"}), "", std::chrono::seconds(60),
                 {"SYSTEMD_LOG_COLOR=0"});
  EXPECT_NE(r.err.find("Unknown key 'NoNewPrivilege'"), std::string::npos) << r.err;
}

// `systemd-analyze security` scores what a compromised process could still do, from 0 (nothing)
// to 10; every sinkd service stays at 2.0 or below ("OK"). The services write only their
// StateDirectory, as the sinkd user, with no new privileges and a read-only system.
TEST(Systemd, EveryServiceIsSandboxedToAnExposureOfAtMostTwo) {
  SINKD_REQUIRE_TOOL("systemd-analyze", "systemd");
  TempDir prefix;
  ASSERT_TRUE(InstallBuild(prefix.path()));
  const fs::path unit_dir = prefix / "lib/systemd/system";
  for (const std::string& unit : kUnits) {
    if (!unit.ends_with(".service")) continue;
    const CommandResult r = RunCommand({"systemd-analyze", "security", "--offline=yes",
                                        "--threshold=20", "--no-pager", (unit_dir / unit).string()},
                                       "", std::chrono::seconds(60), {"SYSTEMD_LOG_COLOR=0"});
    const std::string overall = "Overall exposure level for " + unit + ": ";
    const size_t at = r.out.find(overall);
    ASSERT_NE(at, std::string::npos) << unit << "\n" << r.out << r.err;
    EXPECT_LE(std::stod(r.out.substr(at + overall.size())), 2.0) << unit << "\n" << r.out;
    EXPECT_EQ(r.exit_code, 0) << unit << ": above the threshold\n" << r.out << r.err;
    const std::string text =
        ReadFile(unit_dir / (unit.find('@') == std::string::npos ? unit : "sinkd-drain@.service"));
    for (const char* line : {"\nProtectSystem=strict\n", "\nNoNewPrivileges=yes\n",
                             "\nStateDirectory=sinkd\n", "\nUser=sinkd\n"}) {
      EXPECT_NE(text.find(line), std::string::npos) << unit << " lacks " << line;
    }
  }
}

// The units run as User=sinkd; the installed sysusers.d entry is what creates that user, and
// systemd-sysusers reads it (a dry run into an empty root).
TEST(Systemd, TheInstalledSysusersEntryCreatesTheUserTheUnitsRunAs) {
  SINKD_REQUIRE_TOOL("systemd-sysusers", "systemd");
  TempDir prefix;
  ASSERT_TRUE(InstallBuild(prefix.path()));
  TempDir root;
  fs::create_directories(root / "etc");
  const CommandResult r = RunCommand({"systemd-sysusers", "--root=" + root.path().string(),
                                      "--dry-run", (prefix / "lib/sysusers.d/sinkd.conf").string()},
                                     "", std::chrono::seconds(30), {"SYSTEMD_LOG_COLOR=0"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("Creating user 'sinkd'"), std::string::npos) << r.out << r.err;
  EXPECT_FALSE(fs::exists(root / "etc/passwd")) << "a dry run writes nothing";
}

}  // namespace
}  // namespace sinkd::testing
