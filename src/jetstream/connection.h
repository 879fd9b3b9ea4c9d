// Connection is one NATS connection plus its JetStream context: what provision, drain and tail
// share. It is given a list of servers (one URL or several, comma-separated: the nodes of one
// cluster) and reconnects on its own to any of them (forever, unless told otherwise), so a broker
// restart, or the death of the node it was on, costs a few failed fetches and nothing else;
// connected() says whether it is up right now. A first connect that finds no server may be
// retried with a backoff until a deadline (connect_timeout), one log line per failed attempt.
// Ownership: owns the connection and the context; everything built from it (subscriptions,
// messages) must be destroyed before it. Threads: safe for concurrent use because libnats
// connections are.
// Errors: Connect returns Retry naming the servers (passwords and tokens masked) when none can be
// reached in time, Refuse when the list has an empty entry or an authentication file is
// unreadable or malformed (never quoting a seed).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/backoff.h"
#include "base/log.h"
#include "base/result.h"
#include "jetstream/nats_error.h"

namespace sinkd::jetstream {

class NonceSigner;

struct ConnectOptions {
  // One server URL or a comma-separated list of them (blanks around commas allowed), tried in
  // random order (libnats' default, so drains given one list spread over the nodes) at the first
  // connect and at every reconnect.
  std::string url = "nats://127.0.0.1:4222";
  std::string name = "sinkd";  // the client name the server shows
  // How long the first connect and each JetStream API call may take.
  std::chrono::milliseconds timeout{5000};
  // Reconnect forever after the first connect succeeded (a drain); false for one-shot commands.
  bool reconnect_forever = true;
  // Authentication beyond the URL (all paths; empty = not used). A .creds file carries a user JWT
  // and its seed; an nkey seed file alone signs the server's challenge as that nkey user.
  std::string creds_file;
  std::string nkey_seed_file;
  // TLS: on when any of these is set, or the URL says tls://. tls_ca verifies the server (else the
  // system's roots); tls_cert and tls_key, given together, are the client's certificate.
  std::string tls_ca;
  std::string tls_cert;
  std::string tls_key;
  bool tls_required = false;
  // Also (re)connect to the servers the cluster advertises (its INFO's connect_urls) beyond the
  // list. Off by default: the addresses a cluster advertises are what its nodes see themselves
  // as, which a client behind NAT or on another network may not reach.
  bool use_discovered_servers = false;
  // How long a first connect that found no server is retried: zero tries each server once;
  // kConnectForever never gives up. Waits follow ConnectBackoff(); each failed attempt is logged
  // to `log` (else to a Logger on stderr), and `stop` (when set) ends the wait early, returning
  // Retry.
  std::chrono::milliseconds connect_timeout{0};
  Logger* log = nullptr;
  const std::atomic<bool>* stop = nullptr;
};

inline constexpr std::chrono::milliseconds kConnectForever = std::chrono::milliseconds::max();

// The waits between first-connect attempts: 500 ms doubling to 10 s, a fifth of each random, so
// drains restarted together (a whole cluster back after an outage) do not knock in step.
Backoff ConnectBackoff();

// One try of a start-up step for RetryAtStart: its status, and whether a later try may succeed.
struct StartAttempt {
  Status status;
  bool retry = false;
};

// Runs `step` until it succeeds or fails for good, waiting ConnectBackoff() between tries, for at
// most options.connect_timeout (zero: once; kConnectForever: until options.stop), with one log
// line per failed try ("<what> failed; retrying", to options.log or stderr). The status of the
// last try comes back, with "gave up after N attempts in D" when it was tried more than once.
// Connect uses it for the first connect; a drain for the start-up calls that a cluster still
// electing a stream's leader (a node just died) answers with a timeout.
Status RetryAtStart(const ConnectOptions& options, std::string_view what,
                    const std::function<StartAttempt()>& step);

// The URLs of a comma-separated list, trimmed; Refuse naming the position of an empty entry.
Result<std::vector<std::string>> SplitServerList(const std::string& list);

// "nats://127.0.0.1:4222", or NATS_URL when it is set and non-empty.
std::string DefaultNatsUrl();

class Connection {
 public:
  static Result<std::unique_ptr<Connection>> Connect(const ConnectOptions& options);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  natsConnection* nc() const { return nc_.get(); }
  jsCtx* js() const { return js_.get(); }
  const std::string& url() const { return url_; }
  // The server it is connected to now, its password or token masked ("" while disconnected).
  std::string connected_url() const;
  // The JetStream API wait, in milliseconds, for jsOptions.Wait.
  int64_t api_wait_ms() const { return api_wait_ms_; }
  bool connected() const;
  // How many connections Connect opened to get this one: more than one only when an nkey or
  // .creds signature could not be sent (see NonceSigner).
  int connects() const { return connects_; }
  // Sends whatever the client still buffers (acks, naks) and waits up to `timeout` for the server
  // to have read it.
  Status FlushPending(std::chrono::milliseconds timeout);

 private:
  Connection();

  // Declared before the connection: libnats calls it until the connection is closed.
  std::unique_ptr<NonceSigner> signer_;
  OptionsPtr opts_;
  ConnectionPtr nc_;
  JsPtr js_;
  std::string url_;
  int64_t api_wait_ms_ = 5000;
  int connects_ = 0;
};

}  // namespace sinkd::jetstream
