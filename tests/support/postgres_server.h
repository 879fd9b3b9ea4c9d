// A real PostgreSQL 15 for the tests of one binary: initdb into a fresh temporary directory (as the
// `postgres` user when the tests run as root, because initdb and postgres refuse root), then the
// server on a free loopback port with its socket in the data directory, fsync off for speed.
// Shared() starts it on first use and stops it when the binary exits; the server is also told to
// quit (SIGQUIT through PR_SET_PDEATHSIG) if the test binary dies without stopping it, so a crashed
// test never leaves a postmaster behind. Each test takes a fresh schema from FreshDatabase().
// initdb runs once per machine into $TMPDIR/sinkd-pg-template-15-v2-<uid> (under a lock) and each
// server starts from a copy, because ctest runs every test in a process of its own.
// A server that cannot start is a test failure (ADD_FAILURE + empty conninfo), never a skip.
// Threads: Shared() must first be called from the main thread (the death signal follows the thread
// that started the server); FreshDatabase is safe from any thread (it serialises itself).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <mutex>
#include <string>

namespace sinkd::testing {

class PostgresServer {
 public:
  static PostgresServer& Shared();

  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;
  ~PostgresServer();

  bool running() const { return pid_ > 0; }
  // Why the server is not running ("" when it is).
  const std::string& error() const { return error_; }
  int port() const { return port_; }

  // Creates an empty schema and returns a conninfo whose search_path is that schema
  // ("host=… port=… user=postgres dbname=postgres options=-csearch_path=tN").
  // Returns "" after an ADD_FAILURE when the server is not running.
  std::string FreshDatabase();
  // The conninfo of an existing database.
  std::string ConnInfo(const std::string& database) const;

 private:
  PostgresServer();
  bool Start();
  void Stop();

  std::filesystem::path base_;  // mode 0755, holds data/
  std::filesystem::path data_;  // owned by postgres, mode 0700
  pid_t pid_ = -1;
  int port_ = 0;
  std::string error_;
  std::mutex mu_;
  int databases_ = 0;
};

}  // namespace sinkd::testing
