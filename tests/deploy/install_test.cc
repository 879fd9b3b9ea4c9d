// `make install` (cmake --install): what lands where under the prefix and DESTDIR, that it
// compiles nothing, and sinkd(1) generated from the binary's own help with its own sections.
#include <gtest/gtest.h>

#include "deploy/deploy_support.h"

namespace sinkd::testing {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kUnitFiles = {"sinkd-drain@.service", "sinkd-dispatch.service",
                                             "sinkd-compact.service", "sinkd-compact.timer",
                                             "sinkd-table-expire.service",
                                             "sinkd-table-expire.timer",
                                             "sinkd-table-orphans.service",
                                             "sinkd-table-orphans.timer"};

TEST(Install, PutsTheBinaryUnitsManPageCompletionAndExamplesUnderThePrefixInsideDestdir) {
  TempDir destdir;
  ASSERT_TRUE(InstallBuild("/usr/local", destdir.path()));
  const fs::path root = destdir / "usr/local";
  for (const char* file :
       {"bin/sinkd", "lib/sysusers.d/sinkd.conf", "share/man/man1/sinkd.1",
        "share/bash-completion/completions/sinkd",
        "share/doc/sinkd/sinkd-alerts.yml", "share/doc/sinkd/sinkd-dashboard.json",
        "share/doc/sinkd/README.md", "share/doc/sinkd/examples/sinkd.toml",
        "share/doc/sinkd/examples/secrets.env", "share/doc/sinkd/docs/pipeline.svg",
        "share/doc/sinkd/docs/design.md"}) {
    EXPECT_TRUE(fs::is_regular_file(root / file)) << file;
  }
  for (const std::string& unit : kUnitFiles) {
    // At the default prefix the installed unit is the file in deploy/, byte for byte.
    EXPECT_EQ(ReadFile(root / "lib/systemd/system" / unit),
              ReadFile(DeployDir() / "systemd" / unit))
        << unit;
  }
  for (const auto& entry : fs::recursive_directory_iterator(destdir.path())) {
    if (entry.is_regular_file()) {
      EXPECT_EQ(fs::relative(entry.path(), destdir.path()).string().rfind("usr/local/", 0), 0u)
          << entry.path() << " is outside DESTDIR/prefix";
    }
  }
  const CommandResult version = RunCommand({(root / "bin/sinkd").string(), "version"});
  EXPECT_EQ(version.exit_code, 0) << version.err;
  EXPECT_EQ(version.out.rfind("sinkd version 0.1.0 ", 0), 0u) << version.out;
  // The completion installed is the one the installed binary generates: it cannot lag the flags.
  const CommandResult completion =
      RunCommand({(root / "bin/sinkd").string(), "completion", "bash"});
  EXPECT_EQ(completion.exit_code, 0) << completion.err;
  EXPECT_EQ(ReadFile(root / "share/bash-completion/completions/sinkd"), completion.out);
}

TEST(Install, AnotherPrefixPointsEveryUnitAtItsOwnBinary) {
  TempDir destdir;
  ASSERT_TRUE(InstallBuild("/opt/sinkd", destdir.path()));
  EXPECT_TRUE(fs::is_regular_file(destdir / "opt/sinkd/bin/sinkd"));
  const std::string exec = "\nExecStart=/opt/sinkd/bin/sinkd ";
  size_t exec_lines = 0;
  for (const std::string& unit : kUnitFiles) {
    const std::string text = ReadFile(destdir / "opt/sinkd/lib/systemd/system" / unit);
    EXPECT_EQ(text.find("/usr/local"), std::string::npos) << unit << "\n" << text;
    for (size_t at = text.find("\nExecStart="); at != std::string::npos;
         at = text.find("\nExecStart=", at + 1)) {
      EXPECT_EQ(text.compare(at, exec.size(), exec), 0) << unit;
      ++exec_lines;
    }
  }
  EXPECT_EQ(exec_lines, 10u)
      << "drain@, dispatch, the four passes of compact, expire's and orphans' two";
}

// `sudo make install` must not compile as root into the checkout: it installs what `make build`
// built, so its recipe runs cmake --install and nothing that builds.
TEST(Install, MakeInstallInstallsWhatWasBuiltAndCompilesNothing) {
  SINKD_REQUIRE_TOOL("make", "make");
  const CommandResult r = RunCommand({"make", "-C", SourceDir().string(), "-n", "install"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("cmake --install build/release"), std::string::npos) << r.out;
  for (const char* builds : {"ninja", "cmake -S", "install-deps.sh"}) {
    EXPECT_EQ(r.out.find(builds), std::string::npos) << "make install runs " << builds << ":\n"
                                                     << r.out;
  }
}

// Every verb the binary lists, and every flag of `drain ledger` and `dispatch`, is on the page;
// `man` finds it through MANPATH, as systemd's Documentation=man:sinkd(1) does.
TEST(ManPage, IsGeneratedFromTheBinarysHelpWithEveryVerbAndFlag) {
  SINKD_REQUIRE_TOOL("man", "man-db");
  TempDir prefix;
  ASSERT_TRUE(InstallBuild(prefix.path()));
  const fs::path page = prefix / "share/man/man1/sinkd.1";
  const std::vector<std::string> env = {"MANPATH=" + (prefix / "share/man").string(), "LC_ALL=C",
                                        "MANWIDTH=200", "MAN_KEEP_FORMATTING="};
  const CommandResult where = RunCommand({"man", "-w", "sinkd"}, "", std::chrono::seconds(30), env);
  EXPECT_EQ(where.out, page.string() + "\n") << where.err;
  const CommandResult shown =
      RunCommand({"man", "-l", page.string()}, "", std::chrono::seconds(30), env);
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const std::string& text = shown.out;
  EXPECT_NE(text.find("sinkd - drain NATS JetStream streams and a PostgreSQL outbox"),
            std::string::npos)
      << text.substr(0, 400);
  EXPECT_NE(text.find("0.1.0"), std::string::npos) << "the version is in the footer";
  EXPECT_NE(text.find("ENVIRONMENT"), std::string::npos);
  EXPECT_NE(text.find("/etc/sinkd/sinkd.toml"), std::string::npos);
  // FILES names the internals installed beside the README, each there under that name.
  EXPECT_NE(text.find("share/doc/sinkd/docs"), std::string::npos) << "FILES omits docs/";
  for (const char* doc : {"design.md", "pipeline.svg"}) {
    EXPECT_NE(text.find(doc), std::string::npos) << "FILES omits " << doc;
    EXPECT_TRUE(fs::is_regular_file(prefix / "share/doc/sinkd/docs" / doc)) << doc;
  }
  // The exit codes every command shares, the signals and the configuration file have sections.
  for (const char* section : {"\nCONFIGURATION\n", "\nSIGNALS\n", "\nEXIT STATUS\n"}) {
    EXPECT_NE(text.find(section), std::string::npos) << section;
  }
  const std::string exit_status = text.substr(text.find("\nEXIT STATUS\n"));
  for (const char* code : {"\n       0      done", "\n       1      failed",
                           "\n       2      wrong usage"}) {
    EXPECT_NE(exit_status.find(code), std::string::npos) << code << "\n" << exit_status;
  }
  EXPECT_NE(text.find("SIGTERM, SIGINT"), std::string::npos);
  EXPECT_NE(text.find("256MiB"), std::string::npos) << "sizes with units, in CONFIGURATION";

  const CommandResult root_help = RunCommand({SinkdBinary().string(), "--help"});
  size_t verbs = 0;
  bool listed = false;
  for (const std::string& line : Lines(root_help.out)) {
    if (line == "Subcommands:") listed = true;
    if (!listed || line.rfind("  ", 0) != 0) continue;
    const std::string verb = WordAt(line, 2);
    ++verbs;
    EXPECT_NE(text.find("   sinkd " + verb), std::string::npos) << "no COMMANDS entry for " << verb;
  }
  EXPECT_GE(verbs, 10u) << root_help.out;
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"drain", "ledger"}, std::vector<std::string>{"dispatch"}}) {
    std::vector<std::string> argv = {SinkdBinary().string()};
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    argv.push_back("--help");
    const std::string help = RunCommand(argv).out;
    size_t flags = 0;
    for (size_t at = help.find("--"); at != std::string::npos; at = help.find("--", at + 2)) {
      const std::string flag = "--" + WordAt(help, at + 2, "-");
      ++flags;
      EXPECT_NE(text.find(flag), std::string::npos) << cmd[0] << ": " << flag;
    }
    EXPECT_GE(flags, 2u) << help;
  }
}

}  // namespace
}  // namespace sinkd::testing
