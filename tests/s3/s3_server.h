// Test servers for the S3 destination, each a node program started per fixture on a port the OS
// chooses: s3rver behind our SigV4-verifying layer (tools/s3/run-s3rver-verify.js) and the
// fault-injecting proxy (tools/s3/fault-proxy.js). A server that does not start fails the test
// (ok() is false and error() says why); nothing is skipped.
// Ownership: each owns its process (SIGTERM, then SIGKILL, on destruction) and its temp dir.
// Threads: one thread at a time.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "s3/s3_destination.h"
#include "support/support.h"

namespace sinkd::testing {

inline constexpr char kTestKey[] = "AKTEST";
inline constexpr char kTestSecret[] = "SKTEST-do-not-print-me";

// A child process that prints "<name> listening on 127.0.0.1:<port>" when ready.
class NodeProcess {
 public:
  // Starts `node <node_flags> <args>` (args[0]: the script); waits up to 20 s for the listening
  // line. stderr goes to `stderr_file`.
  NodeProcess(const std::vector<std::string>& args, const std::filesystem::path& stderr_file,
              const std::vector<std::string>& node_flags = {});
  // Stops the process. One that already ended by itself fails the running test with its exit
  // status and stderr: every request after its death fails to connect, which alone says nothing.
  ~NodeProcess();
  NodeProcess(const NodeProcess&) = delete;
  NodeProcess& operator=(const NodeProcess&) = delete;

  bool ok() const { return port_ > 0; }
  const std::string& error() const { return error_; }
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string error_;
  std::string script_;
  std::filesystem::path stderr_file_;
};

struct S3ServerOptions {
  std::string access_key = kTestKey;
  std::string secret = kTestSecret;
  std::string bucket = "garm-lake";  // created at start; "" creates none
  bool allow_anonymous = false;
  std::string session_token;         // required of signed requests when set
  std::string if_none_match = "enforce";  // enforce | reject | ignore | ignore-multipart
  bool s3rver_abort = false;         // leave multipart abort to s3rver (405)
  std::string last_modified;         // when set, every listing's LastModified says this
  std::string tls_cert, tls_key;     // https when set
};

class S3Server {
 public:
  explicit S3Server(S3ServerOptions options = {});
  bool ok() const { return process_->ok(); }
  std::string error() const;
  int port() const { return process_->port(); }
  std::string endpoint() const { return "127.0.0.1:" + std::to_string(port()); }
  const S3ServerOptions& options() const { return options_; }

  // s3rver's backing file for an object: DIR/<bucket>/<key>._S3rver_object.
  std::filesystem::path ObjectPath(const std::string& key) const;
  // Every object key in the bucket, sorted.
  std::vector<std::string> Keys() const;
  // The root of the bucket's backing files (for DuckDB globs).
  std::filesystem::path BucketDir() const { return dir_.path() / "data" / options_.bucket; }
  // One JSON object per request the verifying layer saw: method, url, headers, status, note.
  std::vector<nlohmann::json> Requests() const;

 private:
  S3ServerOptions options_;
  TempDir dir_;
  std::unique_ptr<NodeProcess> process_;
};

struct FaultRates {
  double internal_error = 0, slow_down = 0, reset = 0, reset_after = 0, error_after = 0;
  double latency = 0;
  int latency_ms = 20;
  int seed = 1;
  std::string stall;  // a request whose URL contains this is never answered ("": none)
};

class FaultProxy {
 public:
  FaultProxy(int upstream_port, const FaultRates& rates);
  bool ok() const { return process_->ok(); }
  std::string error() const;
  int port() const { return process_->port(); }
  std::string endpoint() const { return "127.0.0.1:" + std::to_string(port()); }
  // One JSON object per request: method, url, fault ("none", "500", "503", "reset", …), delay.
  std::vector<nlohmann::json> Log() const;

 private:
  TempDir dir_;
  std::unique_ptr<NodeProcess> process_;
};

// Options for an S3Destination on `endpoint` signed with the test key, retrying fast (1-10 ms).
s3::S3Options TestOptions(const std::string& endpoint, const std::string& bucket = "garm-lake");

}  // namespace sinkd::testing
