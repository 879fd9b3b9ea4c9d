// Connection is one NATS connection plus its JetStream context: what provision, drain and tail
// share. It reconnects on its own (forever, unless told otherwise), so a broker restart costs a
// few failed fetches and nothing else; connected() says whether it is up right now.
// Ownership: owns the connection and the context; everything built from it (subscriptions,
// messages) must be destroyed before it. Threads: safe for concurrent use because libnats
// connections are.
// Errors: Connect returns Retry naming the URL when the server cannot be reached, Refuse when an
// authentication file is unreadable or malformed (never quoting a seed).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "base/result.h"
#include "jetstream/nats_error.h"

namespace sinkd::jetstream {

class NonceSigner;

struct ConnectOptions {
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
};

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
