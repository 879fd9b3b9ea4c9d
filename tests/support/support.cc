#include "support/support.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <linux/fs.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

extern char** environ;

namespace sinkd::testing {

std::filesystem::path SourceDir() { return SINKD_SOURCE_DIR; }
std::filesystem::path BuildDir() { return SINKD_BINARY_DIR; }
std::filesystem::path SinkdBinary() { return BuildDir() / "src" / "cli" / "sinkd"; }

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::filesystem::path root = base && *base ? base : "/tmp";
  std::random_device rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto candidate = root / ("sinkd-test-" + std::to_string(getpid()) + "-" + std::to_string(rd()));
    std::error_code ec;
    if (std::filesystem::create_directory(candidate, ec)) {
      path_ = candidate;
      return;
    }
  }
  std::abort();
}

TempDir::~TempDir() {
  std::error_code ec;
  // A test may leave read-only entries behind (crash tests do); make them removable first.
  for (auto it = std::filesystem::recursive_directory_iterator(path_, ec);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    std::filesystem::permissions(it->path(), std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
  }
  std::filesystem::remove_all(path_, ec);
}

namespace {

// Whether this process can create a file in `dir` (the probe is removed again).
bool CanCreateIn(const std::filesystem::path& dir) {
  const std::filesystem::path probe = dir / ".sinkd-writable-probe";
  const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return false;
  close(fd);
  unlink(probe.c_str());
  return true;
}

// Sets or clears the immutable attribute of `dir` (chattr +i / -i); false when refused.
bool SetImmutable(const std::filesystem::path& dir, bool on) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return false;
  int flags = 0;
  bool ok = ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
  if (ok) {
    flags = on ? (flags | FS_IMMUTABLE_FL) : (flags & ~FS_IMMUTABLE_FL);
    ok = ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
  }
  close(fd);
  return ok;
}

}  // namespace

UnwritableDir::UnwritableDir(std::filesystem::path dir) : dir_(std::move(dir)) {
  std::filesystem::permissions(dir_, std::filesystem::perms::owner_write |
                                         std::filesystem::perms::group_write |
                                         std::filesystem::perms::others_write,
                               std::filesystem::perm_options::remove);
  if (!CanCreateIn(dir_)) return;
  immutable_ = SetImmutable(dir_, true);
  if (!immutable_ || CanCreateIn(dir_)) {
    ADD_FAILURE() << dir_ << " stays writable: neither mode 0555 nor the immutable attribute "
                  << "holds here (root on a file system without chattr +i?)";
  }
}

UnwritableDir::~UnwritableDir() {
  if (immutable_) SetImmutable(dir_, false);
  std::error_code ec;
  std::filesystem::permissions(dir_, std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::add, ec);
}

CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& input,
                         std::chrono::milliseconds timeout,
                         const std::vector<std::string>& extra_env) {
  CommandResult result;
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) || pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC)) {
    result.err = "pipe failed";
    return result;
  }
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
  for (const std::string& kv : extra_env) {
    const std::string key = kv.substr(0, kv.find('=') + 1);
    std::erase_if(env_strings, [&](const std::string& s) { return s.rfind(key, 0) == 0; });
    if (kv.find('=') != std::string::npos) env_strings.push_back(kv);
  }
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pid_t pid = fork();
  if (pid == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    setpgid(0, 0);
    execvpe(args[0], args.data(), envp.data());
    dprintf(2, "exec %s: %s\n", args[0], strerror(errno));
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  // Feed stdin from a thread so a child that writes a lot before reading cannot deadlock us.
  std::thread feeder([fd = in_pipe[1], &input] {
    signal(SIGPIPE, SIG_IGN);
    size_t done = 0;
    while (done < input.size()) {
      ssize_t n = write(fd, input.data() + done, input.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    close(fd);
  });
  auto deadline = std::chrono::steady_clock::now() + timeout;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  bool timed_out = false;
  char buf[65536];
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, static_cast<int>(std::min<long>(left.count(), 1000))) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        (i == 0 ? result.out : result.err).append(buf, static_cast<size_t>(n));
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  feeder.join();
  if (timed_out) {
    result.exit_code = -1;
    result.err += "\n[test harness: killed after timeout]";
  } else if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.exit_code = 128 + WTERMSIG(status);
  }
  return result;
}

QueryResult DuckDb(const std::vector<std::string>& statements) {
  std::vector<std::string> argv = {"node", (SourceDir() / "tools" / "duckdb-query.mjs").string()};
  argv.insert(argv.end(), statements.begin(), statements.end());
  CommandResult run = RunCommand(argv);
  QueryResult q;
  if (run.exit_code != 0) {
    q.error = run.err.empty() ? "duckdb-query exited " + std::to_string(run.exit_code) : run.err;
    return q;
  }
  auto doc = nlohmann::json::parse(run.out, nullptr, false);
  if (doc.is_discarded()) {
    q.error = "duckdb-query printed no JSON: " + run.out;
    return q;
  }
  q.ok = true;
  q.columns = doc["columns"].get<std::vector<std::string>>();
  q.types = doc["types"].get<std::vector<std::string>>();
  for (const auto& row : doc["rows"]) {
    std::vector<std::string> values;
    for (const auto& v : row) values.push_back(v.is_null() ? "<NULL>" : v.get<std::string>());
    q.rows.push_back(std::move(values));
  }
  return q;
}

int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  ::close(fd);
  return port;
}

bool WaitUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout,
               std::chrono::milliseconds step) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (done()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return done();
    std::this_thread::sleep_for(step);
  }
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string HeadingAnchor(const std::string& heading) {
  std::string anchor;
  for (char c : heading) {
    if (c == ' ') {
      anchor += '-';
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-') {
      anchor += c;
    } else if (c >= 'A' && c <= 'Z') {
      anchor += static_cast<char>(c - 'A' + 'a');
    }
  }
  return anchor;
}

void WriteFile(const std::filesystem::path& path, const std::string& content) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << content;
}

std::vector<std::pair<std::string, std::string>> FooterValues(const std::string& glob,
                                                              const std::string& key) {
  QueryResult q = DuckDb("SELECT file_name, decode(value) FROM parquet_kv_metadata(" +
                         SqlQuote(glob) + ") WHERE decode(key) = " + SqlQuote(key) +
                         " ORDER BY file_name");
  EXPECT_TRUE(q.ok) << q.error;
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& row : q.rows) out.emplace_back(row[0], row[1]);
  return out;
}

std::string SqlQuote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') quoted += '\'';
    quoted += c;
  }
  return quoted + "'";
}

std::string WithLongFooterList(const std::string& parquet, uint64_t elements) {
  if (parquet.size() < 12 || parquet.compare(parquet.size() - 4, 4, "PAR1") != 0) return "";
  uint32_t length = 0;
  std::memcpy(&length, parquet.data() + parquet.size() - 8, 4);
  if (length + 12 > parquet.size()) return "";
  const size_t footer_end = parquet.size() - 8;  // one past the FileMetaData's stop byte
  if (parquet[footer_end - 1] != '\0') return "";
  std::string out = parquet.substr(0, footer_end - 1);
  const size_t footer_start = footer_end - length;
  auto varint = [&out](uint64_t v) {
    for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    out.push_back(static_cast<char>(v));
  };
  out.push_back('\x09');  // a list field whose id follows (above every parquet.thrift id)
  varint(100 << 1);       // field id 100, zigzag
  out.push_back('\xF3');  // list of i8, its size in a varint
  varint(elements);
  out.append(elements, '\0');
  out.push_back('\0');  // the FileMetaData's stop
  const uint32_t new_length = static_cast<uint32_t>(out.size() - footer_start);
  out.append(reinterpret_cast<const char*>(&new_length), 4);
  out += "PAR1";
  return out;
}

}  // namespace sinkd::testing
