// Shared test harness: temporary directories, running programs, DuckDB queries, bounded waits.
// Every helper fails loudly (gtest assertion or a message in the result) rather than skipping:
// a missing node, DuckDB or server is a test failure, never a pass.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace sinkd::testing {

// The repository root and the build directory of the running test binary.
std::filesystem::path SourceDir();
std::filesystem::path BuildDir();
// The `sinkd` executable built next to the tests.
std::filesystem::path SinkdBinary();

// A fresh directory under $TMPDIR, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// Makes an existing directory unwritable for this process until destruction: nothing can be
// created in, renamed into or deleted from it. Mode 0555 for an ordinary user; root ignores modes,
// so as root the directory is made immutable (chattr +i). Fails the test when neither takes hold
// (root on a file system without the attribute), never skips it.
class UnwritableDir {
 public:
  explicit UnwritableDir(std::filesystem::path dir);
  ~UnwritableDir();
  UnwritableDir(const UnwritableDir&) = delete;
  UnwritableDir& operator=(const UnwritableDir&) = delete;

 private:
  std::filesystem::path dir_;
  bool immutable_ = false;
};

struct CommandResult {
  int exit_code = -1;  // the exit status, or 128+signal when killed
  std::string out;
  std::string err;
};

// Runs argv[0] (searched on PATH) with the rest as arguments, feeding `input` on stdin, and waits
// at most `timeout`; a program still running then is killed and exit_code is -1.
CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& input = "",
                         std::chrono::milliseconds timeout = std::chrono::seconds(120),
                         const std::vector<std::string>& extra_env = {});

struct QueryResult {
  bool ok = false;
  std::string error;  // DuckDB's message when !ok
  std::vector<std::string> columns;
  std::vector<std::string> types;
  // Values in DuckDB's own text form; a NULL is the string "<NULL>".
  std::vector<std::vector<std::string>> rows;
};

// Runs the statements in one in-memory DuckDB (through @duckdb/node-api, TimeZone UTC) and returns
// the rows of the last one.
QueryResult DuckDb(const std::vector<std::string>& statements);
// The same for one statement; convenience for the common case.
inline QueryResult DuckDb(const std::string& sql) { return DuckDb(std::vector<std::string>{sql}); }

// A port on 127.0.0.1 that nothing listened on a moment ago (bound to 0, read back, closed): for
// a server that must come back on the same port, or that the test starts after its client.
int FreeLoopbackPort();

// Polls `done` every `step` until it returns true or `timeout` passes; returns its last answer.
bool WaitUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout,
               std::chrono::milliseconds step = std::chrono::milliseconds(20));

// Reads a whole file ("" if it cannot be read); writes one, creating parent directories.
std::string ReadFile(const std::filesystem::path& path);
void WriteFile(const std::filesystem::path& path, const std::string& content);

// GitHub's anchor of a Markdown heading's text: lower case, spaces to hyphens, other punctuation
// (and any byte outside ASCII) dropped: "#### `sinkd compact`" links as #sinkd-compact.
std::string HeadingAnchor(const std::string& heading);

// Single quotes doubled, for building SQL string literals from paths.
std::string SqlQuote(const std::string& text);

// The value of footer key `key` in every Parquet file matching `glob`, as DuckDB reads it
// (parquet_kv_metadata): pairs of (file path, value), sorted by path. A reader that shares no code
// with sinkd's writer, for the tests of what goes into footers (flush stamps).
std::vector<std::pair<std::string, std::string>> FooterValues(const std::string& glob,
                                                              const std::string& key);

// `parquet` (a whole Parquet file) with one more field in its FileMetaData: an unknown field id
// holding a list of `elements` one-byte (i8) values, the footer length and magic rewritten. A
// reader that skips unknown fields reads the same file; one that builds every value it decodes
// spends ~100 bytes per footer byte (the hostile footer of issue 25, 4.2). "" if `parquet` does
// not end in a footer.
std::string WithLongFooterList(const std::string& parquet, uint64_t elements);

}  // namespace sinkd::testing
