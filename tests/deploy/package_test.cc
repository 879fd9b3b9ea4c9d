// `make deb` (deploy/debian/build-deb.sh): the package lintian accepts, what it holds, and the
// package installed by dpkg into a fresh root directory, where its maintainer scripts run and
// `systemd-analyze verify` checks the installed units against the installed binary and man page.
// The root is always a directory of the test's own (`dpkg --root`, the maintainer scripts run
// chrootless with DPKG_ROOT), also when CI=true: installing on the machine itself would create a
// user and units on a machine other test runs share, race them for dpkg's lock, and leave
// behind what a failed run did not remove; the root gets the same unpacking, conffile handling
// and scripts, with this machine's package list, so Depends are checked against what is here.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "deploy/deploy_support.h"

namespace sinkd::testing {
namespace {

namespace fs = std::filesystem;

std::string DebArch() {
  const CommandResult r = RunCommand({"dpkg", "--print-architecture"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out.substr(0, r.out.find('\n'));
}

// Builds the package from this build into `out` and returns its path ("" after a failure).
fs::path BuildDeb(const fs::path& out) {
  const CommandResult r = RunCommand(
      {"bash", (DeployDir() / "debian/build-deb.sh").string(), BuildDir().string(), out.string()},
      "", std::chrono::seconds(300), {std::string("CMAKE=") + SINKD_CMAKE_COMMAND});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  if (r.exit_code != 0) return {};
  const fs::path deb = out / ("sinkd_0.1.0_" + DebArch() + ".deb");
  EXPECT_EQ(r.out, deb.string() + "\n");
  EXPECT_TRUE(fs::is_regular_file(deb)) << deb;
  return deb;
}

// lintian's findings at every level, overrides applied; "" when there are none.
std::string LintianFindings(const fs::path& deb, int* exit_code) {
  const CommandResult r =
      RunCommand({"lintian", "--fail-on", "error,warning,info,pedantic", "--tag-display-limit", "0",
                  "-I", "-E", "--pedantic", deb.string()},
                 "", std::chrono::seconds(300));
  *exit_code = r.exit_code;
  std::string findings;
  for (const std::string& line : Lines(r.out + r.err)) {
    if (line.find("running with root privileges") != std::string::npos) continue;
    findings += line + "\n";
  }
  return findings;
}

// A root for `dpkg --root`: this machine's package list (each package with an empty file list,
// so dpkg checks Depends against what is installed here without claiming its files) and this
// machine's systemd units under /lib (what sinkd's units are ordered after: sysinit.target,
// network-online.target, …), so systemd-analyze verify resolves them inside the root.
void PrepareRoot(const fs::path& root) {
  const fs::path admin = root / "var/lib/dpkg";
  for (const char* dir : {"info", "updates", "triggers"}) fs::create_directories(admin / dir);
  fs::copy_file("/var/lib/dpkg/status", admin / "status");
  WriteFile(admin / "available", "");
  const CommandResult packages = RunCommand({"dpkg-query", "-W", "-f=${binary:Package}\\n"});
  ASSERT_EQ(packages.exit_code, 0) << packages.err;
  for (const std::string& package : Lines(packages.out)) {
    if (!package.empty()) WriteFile(admin / "info" / (package + ".list"), "");
  }
  fs::create_directories(root / "lib/systemd");
  fs::copy("/usr/lib/systemd/system", root / "lib/systemd/system",
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
}

CommandResult Dpkg(const fs::path& root, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"dpkg", "--root=" + root.string(), "--force-not-root",
                                   "--force-script-chrootless"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, "", std::chrono::seconds(120));
}

// Each test gets the package freshly built from this build, in a directory of its own.
class Package : public ::testing::Test {
 protected:
  void SetUp() override {
    SINKD_REQUIRE_TOOL("dpkg-deb", "dpkg");
    SINKD_REQUIRE_TOOL("dpkg-shlibdeps", "dpkg-dev");
    deb_ = BuildDeb(out_.path());
    ASSERT_FALSE(deb_.empty());
  }
  TempDir out_;
  fs::path deb_;
};

const std::vector<std::string> kInstalledUnits = {
    "sinkd-drain@ledger.service", "sinkd-drain@audit.service", "sinkd-dispatch.service",
    "sinkd-compact.service", "sinkd-compact.timer", "sinkd-table-expire.service",
    "sinkd-table-expire.timer", "sinkd-table-orphans.service", "sinkd-table-orphans.timer"};

// What a reader of the package (lintian, Debian's policy) checks: no error, warning, info or
// pedantic finding beyond the justified overrides it ships. And lintian is no rubber stamp: the
// same package without its copyright file is refused.
TEST_F(Package, MakeDebBuildsAPackageLintianAcceptsWithoutAFinding) {
  SINKD_REQUIRE_TOOL("lintian", "lintian");
  const fs::path& deb = deb_;
  const TempDir& out = out_;
  int code = -1;
  const std::string findings = LintianFindings(deb, &code);
  EXPECT_EQ(findings, "") << "lintian " << deb.filename();
  EXPECT_EQ(code, 0) << findings;

  const fs::path tree = out / "tree";
  ASSERT_EQ(RunCommand({"dpkg-deb", "-R", deb.string(), tree.string()}).exit_code, 0);
  fs::remove(tree / "usr/share/doc/sinkd/copyright");
  const fs::path bad = out / "bad.deb";
  ASSERT_EQ(
      RunCommand({"dpkg-deb", "--root-owner-group", "-b", tree.string(), bad.string()}).exit_code,
      0);
  const std::string refused = LintianFindings(bad, &code);
  EXPECT_NE(refused.find("E: sinkd: no-copyright-file"), std::string::npos) << refused;
  EXPECT_NE(code, 0);
}

// One file, one package: the binary, sinkd(1), the units, the sysusers entry, the completion,
// the README the alerts link, and /etc/sinkd/sinkd.toml (the shipped example) as a conffile.
TEST_F(Package, HoldsTheBinaryUnitsManPageCompletionAndTheSettingsAsAConffile) {
  const fs::path& deb = deb_;
  const TempDir& out = out_;
  const CommandResult listing = RunCommand({"dpkg-deb", "-c", deb.string()});
  ASSERT_EQ(listing.exit_code, 0) << listing.err;
  for (const char* file :
       {"./usr/bin/sinkd", "./usr/share/man/man1/sinkd.1.gz",
        "./usr/lib/systemd/system/sinkd-drain@.service",
        "./usr/lib/systemd/system/sinkd-dispatch.service",
        "./usr/lib/systemd/system/sinkd-compact.service",
        "./usr/lib/systemd/system/sinkd-compact.timer",
        "./usr/lib/systemd/system/sinkd-table-expire.service",
        "./usr/lib/systemd/system/sinkd-table-expire.timer",
        "./usr/lib/systemd/system/sinkd-table-orphans.service",
        "./usr/lib/systemd/system/sinkd-table-orphans.timer", "./usr/lib/sysusers.d/sinkd.conf",
        "./usr/share/bash-completion/completions/sinkd", "./etc/sinkd/sinkd.toml",
        "./usr/share/doc/sinkd/README.md", "./usr/share/doc/sinkd/copyright",
        "./usr/share/doc/sinkd/changelog.gz", "./usr/share/doc/sinkd/sinkd-alerts.yml",
        "./usr/share/doc/sinkd/examples/secrets.env", "./usr/share/doc/sinkd/docs/pipeline.svg",
        "./usr/share/doc/sinkd/docs/design.md"}) {
    EXPECT_NE(listing.out.find(std::string(" ") + file + "\n"), std::string::npos) << file;
  }
  EXPECT_EQ(listing.out.find("/usr/local"), std::string::npos) << listing.out;
  const CommandResult name = RunCommand({"dpkg-deb", "-f", deb.string(), "Package"});
  EXPECT_EQ(name.out, "sinkd\n");
  const fs::path control = out / "control";
  ASSERT_EQ(RunCommand({"dpkg-deb", "-e", deb.string(), control.string()}).exit_code, 0);
  EXPECT_EQ(ReadFile(control / "conffiles"), "/etc/sinkd/sinkd.toml\n");
  const std::string fields = ReadFile(control / "control");
  EXPECT_NE(fields.find("\nDepends: libc6 (>= "), std::string::npos) << fields;
  EXPECT_NE(fields.find("libnats3.4"), std::string::npos) << "dpkg-shlibdeps found the libraries";
  EXPECT_NE(fields.find(", systemd\n"), std::string::npos) << fields;
  const CommandResult toml = RunCommand(
      {"bash", "-c",
       "dpkg-deb --fsys-tarfile '" + deb.string() + "' | tar -xO ./etc/sinkd/sinkd.toml"});
  EXPECT_EQ(toml.out, ReadFile(DeployDir() / "examples/sinkd.toml"));
}

// Installed with dpkg into a fresh root: the postinst creates the sinkd user and hands it the
// settings, the installed binary runs, systemd-analyze verify passes on the installed units
// (their ExecStart binary and man page found inside the root); an edited conffile survives a
// reinstall and a removal, and a purge removes it.
TEST_F(Package, InstalledByDpkgIntoAFreshRootItsUnitsPassSystemdAnalyzeVerify) {
  SINKD_REQUIRE_TOOL("systemd-analyze", "systemd");
  SINKD_REQUIRE_TOOL("systemd-sysusers", "systemd");
  const fs::path& deb = deb_;
  const TempDir& out = out_;
  const fs::path root = out / "root";
  PrepareRoot(root);
  const CommandResult installed = Dpkg(root, {"-i", deb.string()});
  ASSERT_EQ(installed.exit_code, 0) << installed.out << installed.err;
  EXPECT_NE(installed.err.find("Creating user 'sinkd'"), std::string::npos) << installed.err;
  EXPECT_EQ(installed.err.find("warning"), std::string::npos) << installed.err;

  std::string group_line;
  for (const std::string& line : Lines(ReadFile(root / "etc/group"))) {
    if (line.rfind("sinkd:", 0) == 0) group_line = line;
  }
  ASSERT_FALSE(group_line.empty()) << "the postinst created no sinkd group";
  const gid_t gid = static_cast<gid_t>(std::stoul(group_line.substr(group_line.find(":x:") + 3)));
  struct stat st {};
  ASSERT_EQ(::stat((root / "etc/sinkd/sinkd.toml").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(st.st_gid, gid) << "the sinkd user must read its settings";
  EXPECT_NE(ReadFile(root / "etc/passwd").find("sinkd:x:"), std::string::npos);

  const CommandResult version = RunCommand({(root / "usr/bin/sinkd").string(), "--version"});
  EXPECT_EQ(version.out.rfind("sinkd version 0.1.0 (build ", 0), 0u) << version.out << version.err;

  std::vector<std::string> verify = {"systemd-analyze", "verify", "--root=" + root.string()};
  verify.insert(verify.end(), kInstalledUnits.begin(), kInstalledUnits.end());
  const std::vector<std::string> env = {"MANPATH=" + (root / "usr/share/man").string(),
                                        "SYSTEMD_LOG_COLOR=0"};
  CommandResult r = RunCommand(verify, "", std::chrono::seconds(60), env);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "") << "verify warns on stderr and still exits 0";
  // The same verify sees a unit whose binary is missing from the root: it checks the root.
  fs::rename(root / "usr/bin/sinkd", out / "sinkd.moved");
  r = RunCommand(verify, "", std::chrono::seconds(60), env);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("/usr/bin/sinkd is not executable"), std::string::npos) << r.err;
  fs::rename(out / "sinkd.moved", root / "usr/bin/sinkd");

  const std::string edited = ReadFile(root / "etc/sinkd/sinkd.toml") + "# edited\n";
  WriteFile(root / "etc/sinkd/sinkd.toml", edited);
  r = Dpkg(root, {"-i", deb.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(ReadFile(root / "etc/sinkd/sinkd.toml"), edited) << "a reinstall kept the edit";
  r = Dpkg(root, {"-r", "sinkd"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_FALSE(fs::exists(root / "usr/bin/sinkd"));
  EXPECT_EQ(ReadFile(root / "etc/sinkd/sinkd.toml"), edited) << "a removal keeps the settings";
  r = Dpkg(root, {"-P", "sinkd"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_FALSE(fs::exists(root / "etc/sinkd/sinkd.toml")) << "a purge removes the conffile";
}

}  // namespace
}  // namespace sinkd::testing
