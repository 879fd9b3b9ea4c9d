#include "jetstream/connection.h"

#include <cstdlib>

#include "base/redact.h"
#include "jetstream/nkey.h"

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
  if (!options.creds_file.empty()) {
    s = natsOptions_SetUserCredentialsFromFiles(raw, options.creds_file.c_str(), nullptr);
    if (s != NATS_OK) return FromNats(s, "NATS creds file " + options.creds_file).As(Status::Refuse);
  }
  if (!options.nkey_seed_file.empty()) {
    SINKD_ASSIGN_OR_RETURN(std::string seed, ReadNkeySeedFile(options.nkey_seed_file));
    auto pub = NkeyPublicFromSeed(seed);
    if (!pub.ok()) return pub.status().WithContext("NATS nkey seed file " + options.nkey_seed_file);
    s = natsOptions_SetNKeyFromSeed(raw, pub->c_str(), options.nkey_seed_file.c_str());
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
  s = natsConnection_Connect(&nc, raw);
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
