#include "jetstream/connection.h"

#include <cstdlib>

#include "base/redact.h"
#include "jetstream/nkey.h"
#include "jetstream/nonce_signer.h"

namespace sinkd::jetstream {

std::string DefaultNatsUrl() {
  const char* env = std::getenv("NATS_URL");
  return env != nullptr && *env != '\0' ? env : "nats://127.0.0.1:4222";
}

Result<std::unique_ptr<Connection>> Connection::Connect(const ConnectOptions& options) {
  std::unique_ptr<Connection> c(new Connection());
  c->url_ = options.url;
  c->api_wait_ms_ = options.timeout.count();
  natsOptions* raw = nullptr;
  natsStatus s = natsOptions_Create(&raw);
  c->opts_.reset(raw);
  const std::string where = "connect to NATS at " + RedactPassword(options.url);
  if (s == NATS_OK) s = natsOptions_SetURL(raw, options.url.c_str());
  if (s == NATS_OK) s = natsOptions_SetName(raw, options.name.c_str());
  if (s == NATS_OK) s = natsOptions_SetTimeout(raw, options.timeout.count());
  if (s == NATS_OK) s = natsOptions_SetMaxReconnect(raw, options.reconnect_forever ? -1 : 0);
  if (s == NATS_OK) s = natsOptions_SetAllowReconnect(raw, options.reconnect_forever);
  if (s == NATS_OK) s = natsOptions_SetReconnectWait(raw, 250);
  // A broker restarted on the same port is the common case; another URL it gossips may not be
  // reachable from here.
  if (s == NATS_OK) s = natsOptions_SetIgnoreDiscoveredServers(raw, true);
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
  const bool tls = options.tls_required || !options.tls_ca.empty() || !options.tls_cert.empty() ||
                   !options.tls_key.empty() || options.url.rfind("tls://", 0) == 0;
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
  for (c->connects_ = 1;; ++c->connects_) {
    s = natsConnection_Connect(&nc, raw);
    if (s == NATS_OK || !c->signer_ || !c->signer_->TakeUnsendable() ||
        c->connects_ == kMaxConnects) {
      break;
    }
  }
  if (s != NATS_OK) return FromNats(s, where).As(Status::Retry);
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
bool Connection::connected() const {
  return natsConnection_Status(nc_.get()) == NATS_CONN_STATUS_CONNECTED;
}

Status Connection::FlushPending(std::chrono::milliseconds timeout) {
  return FromNats(natsConnection_FlushTimeout(nc_.get(), timeout.count()), "flush to NATS");
}

}  // namespace sinkd::jetstream
