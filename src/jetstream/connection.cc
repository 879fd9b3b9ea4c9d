#include "jetstream/connection.h"

#include <cstdlib>
#include <random>
#include <thread>

#include "base/duration.h"
#include "base/redact.h"
#include "jetstream/nkey.h"
#include "jetstream/nonce_signer.h"

namespace sinkd::jetstream {

std::string DefaultNatsUrl() {
  const char* env = std::getenv("NATS_URL");
  return env != nullptr && *env != '\0' ? env : "nats://127.0.0.1:4222";
}

Backoff ConnectBackoff() {
  return Backoff{.initial = std::chrono::milliseconds(500),
                 .cap = std::chrono::seconds(10),
                 .factor = 2.0,
                 .jitter = 0.2};
}

Result<std::vector<std::string>> SplitServerList(const std::string& list) {
  std::vector<std::string> urls;
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    std::string url = list.substr(start, comma == std::string::npos ? comma : comma - start);
    const size_t first = url.find_first_not_of(" \t");
    const size_t last = url.find_last_not_of(" \t");
    url = first == std::string::npos ? "" : url.substr(first, last + 1 - first);
    if (url.empty()) {
      return Status::Refuse("NATS server list \"" + RedactPassword(list) + "\": entry " +
                            std::to_string(urls.size() + 1) + " is empty");
    }
    urls.push_back(std::move(url));
    if (comma == std::string::npos) return urls;
    start = comma + 1;
  }
}

namespace {

// The failures a later attempt may cure: no server answered, or one went away mid-handshake.
// Anything else (authorization, TLS, a malformed URL) is a configuration error and is returned
// at once rather than retried forever.
bool ServerUnreachable(natsStatus s) {
  return s == NATS_NO_SERVER || s == NATS_TIMEOUT || s == NATS_IO_ERROR ||
         s == NATS_CONNECTION_CLOSED || s == NATS_STALE_CONNECTION;
}

// Sleeps `wait` in short slices; false as soon as `stop` is set.
bool SleepUnlessStopped(std::chrono::milliseconds wait, const std::atomic<bool>* stop) {
  const auto until = std::chrono::steady_clock::now() + wait;
  while (std::chrono::steady_clock::now() < until) {
    if (stop != nullptr && stop->load()) return false;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(std::chrono::milliseconds(50),
                                                      until - std::chrono::steady_clock::now()));
  }
  return stop == nullptr || !stop->load();
}

}  // namespace

Status RetryAtStart(const ConnectOptions& options, std::string_view what,
                    const std::function<StartAttempt()>& step) {
  const auto started = std::chrono::steady_clock::now();
  BackoffCounter backoff(ConnectBackoff());
  std::mt19937_64 random(std::random_device{}());
  for (int attempt = 1;; ++attempt) {
    StartAttempt tried = step();
    if (tried.status.ok() || !tried.retry) return tried.status;
    const std::chrono::milliseconds wait =
        backoff.Next(std::uniform_real_distribution<double>(0.0, 1.0)(random));
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started);
    const bool out_of_time = options.connect_timeout != kConnectForever &&
                             elapsed + wait > options.connect_timeout;
    if (out_of_time && attempt == 1) return tried.status;
    const std::string gave_up = " (gave up after " + std::to_string(attempt) + " attempts in " +
                                FormatDuration(elapsed) + ")";
    if (out_of_time) return Status::Retry(tried.status.message() + gave_up);
    Logger to_stderr;
    (options.log != nullptr ? *options.log : to_stderr)
        .Warn(std::string(what) + " failed; retrying", {{"nats", RedactPassword(options.url)},
                                                        {"attempt", attempt},
                                                        {"error", tried.status.message()},
                                                        {"retry_in", FormatDuration(wait)}});
    if (!SleepUnlessStopped(wait, options.stop)) {
      return Status::Retry(std::string(what) + ": stopped before it succeeded" + gave_up);
    }
  }
}

Result<std::unique_ptr<Connection>> Connection::Connect(const ConnectOptions& options) {
  std::unique_ptr<Connection> c(new Connection());
  c->url_ = options.url;
  c->api_wait_ms_ = options.timeout.count();
  SINKD_ASSIGN_OR_RETURN(const std::vector<std::string> urls, SplitServerList(options.url));
  std::vector<const char*> servers;
  for (const std::string& url : urls) servers.push_back(url.c_str());
  natsOptions* raw = nullptr;
  natsStatus s = natsOptions_Create(&raw);
  c->opts_.reset(raw);
  const std::string where = "connect to NATS at " + RedactPassword(options.url);
  // The list alone (no SetURL, which libnats would put in front of it).
  if (s == NATS_OK) {
    s = natsOptions_SetServers(raw, servers.data(), static_cast<int>(servers.size()));
  }
  if (s == NATS_OK) s = natsOptions_SetName(raw, options.name.c_str());
  if (s == NATS_OK) s = natsOptions_SetTimeout(raw, options.timeout.count());
  if (s == NATS_OK) s = natsOptions_SetMaxReconnect(raw, options.reconnect_forever ? -1 : 0);
  if (s == NATS_OK) s = natsOptions_SetAllowReconnect(raw, options.reconnect_forever);
  if (s == NATS_OK) s = natsOptions_SetReconnectWait(raw, 250);
  // The operator's list is what is known to be reachable from here (see use_discovered_servers).
  if (s == NATS_OK) {
    s = natsOptions_SetIgnoreDiscoveredServers(raw, !options.use_discovered_servers);
  }
  if (s != NATS_OK) return FromNats(s, where);
  if (!options.creds_file.empty() && !options.nkey_seed_file.empty()) {
    return Status::Refuse("NATS: give a creds file or an nkey seed file, not both");
  }
  // Both files are read once here, so that a missing or malformed one is refused before any
  // connection; NonceSigner reads them again at each (re)connect, as libnats would.
  if (!options.creds_file.empty()) {
    SINKD_RETURN_IF_ERROR(ReadCredsJwt(options.creds_file).status());
    SINKD_ASSIGN_OR_RETURN(std::string seed, ReadNkeySeedFile(options.creds_file));
    auto checked = DecodeNkeySeed(seed);
    if (!checked.ok()) return checked.status().WithContext("NATS creds file " + options.creds_file);
    c->signer_ = std::make_unique<NonceSigner>(options.creds_file, options.creds_file);
    s = natsOptions_SetUserCredentialsCallbacks(raw, &NonceSigner::Jwt, c->signer_.get(),
                                                &NonceSigner::Sign, c->signer_.get());
    if (s != NATS_OK) return FromNats(s, "NATS creds file " + options.creds_file);
  }
  if (!options.nkey_seed_file.empty()) {
    SINKD_ASSIGN_OR_RETURN(std::string seed, ReadNkeySeedFile(options.nkey_seed_file));
    auto pub = NkeyPublicFromSeed(seed);
    if (!pub.ok()) return pub.status().WithContext("NATS nkey seed file " + options.nkey_seed_file);
    c->signer_ = std::make_unique<NonceSigner>(options.nkey_seed_file, "");
    s = natsOptions_SetNKey(raw, pub->c_str(), &NonceSigner::Sign, c->signer_.get());
    if (s != NATS_OK) return FromNats(s, "NATS nkey seed file " + options.nkey_seed_file);
  }
  // libnats has one TLS setting for the whole list: a tls:// URL anywhere in it puts every server
  // behind TLS, so a plain connection is never made to a server the operator meant to reach
  // securely.
  bool tls = options.tls_required || !options.tls_ca.empty() || !options.tls_cert.empty() ||
             !options.tls_key.empty();
  for (const std::string& url : urls) tls = tls || url.rfind("tls://", 0) == 0;
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    return Status::Refuse("NATS TLS: give the client certificate and its key together");
  }
  if (tls) {
    s = natsOptions_SetSecure(raw, true);
    if (s == NATS_OK && !options.tls_ca.empty()) {
      s = natsOptions_LoadCATrustedCertificates(raw, options.tls_ca.c_str());
      if (s != NATS_OK) return FromNats(s, "NATS TLS CA " + options.tls_ca).As(Status::Refuse);
    }
    if (s == NATS_OK && !options.tls_cert.empty()) {
      s = natsOptions_LoadCertificatesChain(raw, options.tls_cert.c_str(), options.tls_key.c_str());
      if (s != NATS_OK) {
        return FromNats(s, "NATS TLS client certificate " + options.tls_cert).As(Status::Refuse);
      }
    }
    if (s != NATS_OK) return FromNats(s, where);
  }

  natsConnection* nc = nullptr;
  // See NonceSigner: a connection refused for an unsendable signature is opened again, with a new
  // nonce; eight in a row happen once in 2^64.
  constexpr int kMaxConnects = 8;
  SINKD_RETURN_IF_ERROR(RetryAtStart(options, "NATS connect", [&] {
    for (c->connects_ = 1;; ++c->connects_) {
      s = natsConnection_Connect(&nc, raw);
      if (s == NATS_OK || !c->signer_ || !c->signer_->TakeUnsendable() ||
          c->connects_ == kMaxConnects) {
        break;
      }
    }
    return StartAttempt{s == NATS_OK ? Status::OK() : FromNats(s, where).As(Status::Retry),
                        ServerUnreachable(s)};
  }));
  c->nc_.reset(nc);
  jsOptions jo;
  jsOptions_Init(&jo);
  jo.Wait = options.timeout.count();
  jsCtx* js = nullptr;
  s = natsConnection_JetStream(&js, nc, &jo);
  if (s != NATS_OK) return FromNats(s, "JetStream context on " + RedactPassword(options.url));
  c->js_.reset(js);
  return c;
}

Connection::Connection() = default;

Connection::~Connection() {
  js_.reset();
  if (nc_) natsConnection_Close(nc_.get());
  nc_.reset();
}

// Asked of the connection rather than tracked through disconnected/reconnected callbacks: libnats
// runs those on its own thread, possibly after this object is gone.
std::string Connection::connected_url() const {
  char buffer[1024] = {0};
  if (natsConnection_GetConnectedUrl(nc_.get(), buffer, sizeof buffer) != NATS_OK) return "";
  return RedactPassword(buffer);
}

bool Connection::connected() const {
  return natsConnection_Status(nc_.get()) == NATS_CONN_STATUS_CONNECTED;
}

Status Connection::FlushPending(std::chrono::milliseconds timeout) {
  return FromNats(natsConnection_FlushTimeout(nc_.get(), timeout.count()), "flush to NATS");
}

}  // namespace sinkd::jetstream
