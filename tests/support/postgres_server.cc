#include "support/postgres_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/support.h"

namespace sinkd::testing {

namespace {

namespace fs = std::filesystem;

std::string PgBin() {
  const char* env = std::getenv("PGBIN");
  return env && *env ? env : "/usr/lib/postgresql/15/bin";
}

struct Identity {
  bool switch_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

// initdb and postgres refuse to run as root: as root, run them as `postgres`.
Identity ServerIdentity() {
  Identity id;
  if (geteuid() != 0) return id;
  const passwd* pw = getpwnam("postgres");
  if (pw == nullptr) return id;
  id.switch_user = true;
  id.uid = pw->pw_uid;
  id.gid = pw->pw_gid;
  return id;
}

// In the child after fork: become the server's user, send output to `log`, exec argv.
[[noreturn]] void ExecAs(const Identity& id, const std::vector<std::string>& argv,
                         const fs::path& log, bool die_with_parent, pid_t parent,
                         const fs::path& input = "/dev/null") {
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd >= 0) {
    dup2(fd, 1);
    dup2(fd, 2);
  }
  const int in_fd = open(input.c_str(), O_RDONLY);
  if (in_fd >= 0) dup2(in_fd, 0);
  if (id.switch_user) {
    if (setgroups(0, nullptr) != 0 || setgid(id.gid) != 0 || setuid(id.uid) != 0) _exit(126);
  }
  // After setuid: a credential change clears the death signal, so it is set last.
  if (die_with_parent) {
    prctl(PR_SET_PDEATHSIG, SIGQUIT);
    if (getppid() != parent) _exit(125);
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  _exit(127);
}

int RunAs(const Identity& id, const std::vector<std::string>& argv, const fs::path& log,
          const fs::path& input = "/dev/null") {
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) ExecAs(id, argv, log, false, parent, input);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}


// A directory the server's user can write, whose parents it can traverse.
fs::path TempRoot() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

// The cached initdb result, made on first use under an exclusive lock: <root>/data plus a
// `ready` marker written only after initdb succeeded. "" and `error` set when initdb fails.
fs::path TemplateDataDir(const Identity& id, std::string* error) {
  const fs::path root = TempRoot() / ("sinkd-pg-template-15-v2-" + std::to_string(geteuid()));
  const fs::path data = root / "data";
  const fs::path ready = root / "ready";
  std::error_code ec;
  fs::create_directories(root, ec);
  chmod(root.c_str(), 0755);
  const int lock = open((root / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0 || flock(lock, LOCK_EX) != 0) {
    *error = "cannot lock " + root.string();
    if (lock >= 0) close(lock);
    return {};
  }
  fs::path result = data;
  if (!fs::exists(ready)) {
    fs::remove_all(data, ec);
    fs::create_directory(data, ec);
    if (id.switch_user && chown(data.c_str(), id.uid, id.gid) != 0) *error = "chown failed";
    chmod(data.c_str(), 0700);
    const fs::path log = root / "initdb.log";
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) close(fd);
    if (id.switch_user && chown(log.c_str(), id.uid, id.gid) != 0) *error = "chown failed";
    int rc = RunAs(id,
                   {PgBin() + "/initdb", "-D", data.string(), "-U", "postgres", "--auth=trust",
                    "-E", "UTF8", "--locale=C.UTF-8", "--no-sync", "--wal-segsize=1"},
                   log);
    // Every server copies this directory, so it is slimmed once: 1 MB WAL segments, and no
    // template databases (tests take schemas, never CREATE DATABASE): 14 MB instead of 40.
    // Single-user mode runs the statements with no server and no port.
    const fs::path slim = root / "slim.sql";
    std::ofstream(slim) << "UPDATE pg_database SET datistemplate = false WHERE datname IN "
                           "('template0', 'template1')\nDROP DATABASE template0\n"
                           "DROP DATABASE template1\nCHECKPOINT\n";
    if (rc == 0) {
      rc = RunAs(id, {PgBin() + "/postgres", "--single", "-D", data.string(), "postgres"}, log,
                 slim);
    }
    if (rc != 0 || !error->empty()) {
      *error = "initdb exited " + std::to_string(rc) + ": " + *error + Slurp(log);
      result.clear();
    } else {
      std::ofstream(ready) << "ok\n";
    }
  }
  flock(lock, LOCK_UN);
  close(lock);
  return result;
}

}  // namespace

PostgresServer& PostgresServer::Shared() {
  static PostgresServer server;  // the one server of this test binary, stopped at exit
  return server;
}

PostgresServer::PostgresServer() {
  if (!Start()) ADD_FAILURE() << "PostgreSQL did not start: " << error_;
}

PostgresServer::~PostgresServer() {
  Stop();
  std::error_code ec;
  if (!base_.empty()) fs::remove_all(base_, ec);
}

bool PostgresServer::Start() {
  std::string pattern = (TempRoot() / "sinkd-pg-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    error_ = "mkdtemp failed";
    return false;
  }
  base_ = pattern;
  data_ = base_ / "data";
  const Identity id = ServerIdentity();
  // Every parent of the data directory must be traversable by the server's user.
  chmod(base_.c_str(), 0755);
  // initdb takes seconds and every ctest entry is its own process with its own server, so the
  // initdb'd directory is made once per machine (under a lock) and copied for each server.
  std::string template_error;
  const fs::path templ = TemplateDataDir(id, &template_error);
  if (templ.empty()) {
    error_ = template_error;
    return false;
  }
  if (RunAs(Identity{}, {"/bin/cp", "-a", templ.string(), data_.string()}, base_ / "cp.log") != 0) {
    error_ = "copying the template data directory failed: " + Slurp(base_ / "cp.log");
    return false;
  }
  const fs::path log = data_ / "server.log";
  for (int attempt = 0; attempt < 3; ++attempt) {
    port_ = FreeLoopbackPort();
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid == 0) {
      ExecAs(id,
             {PgBin() + "/postgres", "-D", data_.string(), "-p", std::to_string(port_), "-k",
              data_.string(), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c",
              "synchronous_commit=off", "-c", "full_page_writes=off", "-c",
              "max_connections=300", "-c", "shared_buffers=256MB"},
             log, true, parent);
    }
    pid_ = pid;
    const std::string probe =
        "host=127.0.0.1 port=" + std::to_string(port_) + " user=postgres dbname=postgres";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      if (PQping(probe.c_str()) == PQPING_OK) return true;
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) break;  // exited: maybe the port was taken
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    Stop();
    error_ = "postgres did not become ready on port " + std::to_string(port_) + ": " + Slurp(log);
  }
  return false;
}

void PostgresServer::Stop() {
  if (pid_ > 0) {
    kill(pid_, SIGQUIT);  // immediate shutdown: the data is thrown away, no checkpoint needed
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pid_ = -1;
  }
}

std::string PostgresServer::ConnInfo(const std::string& database) const {
  return "host=127.0.0.1 port=" + std::to_string(port_) + " user=postgres dbname=" + database;
}

std::string PostgresServer::FreshDatabase() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!running()) {
    ADD_FAILURE() << "PostgreSQL is not running: " << error_;
    return "";
  }
  // A schema, not a database: CREATE DATABASE costs most of a second, a schema a millisecond,
  // and every statement of the code under test names its tables unqualified.
  std::string name = "t";
  name += std::to_string(++databases_);
  PGconn* conn = PQconnectdb(ConnInfo("postgres").c_str());
  PGresult* r = PQexec(conn, ("CREATE SCHEMA " + name).c_str());
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  if (!ok) ADD_FAILURE() << "CREATE SCHEMA failed: " << PQerrorMessage(conn);
  PQclear(r);
  PQfinish(conn);
  return ok ? ConnInfo("postgres") + " options=-csearch_path=" + name : "";
}

}  // namespace sinkd::testing
