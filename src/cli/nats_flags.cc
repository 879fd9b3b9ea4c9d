#include "cli/nats_flags.h"

namespace sinkd::cli {

void AddNatsFlags(CLI::App& cmd, NatsFlags& flags, ConfigFlags& config) {
  cmd.add_option("--nats-url", flags.url, "NATS server URL (env NATS_URL)")->capture_default_str();
  cmd.add_option("--nats-creds", flags.creds_file, "a .creds file (user JWT and seed)");
  cmd.add_option("--nats-nkey-seed", flags.nkey_seed_file, "a file holding an nkey user seed (SU…)");
  cmd.add_option("--nats-tls-ca", flags.tls_ca, "CA certificate(s) that verify the NATS server");
  cmd.add_option("--nats-tls-cert", flags.tls_cert, "client certificate for NATS TLS");
  cmd.add_option("--nats-tls-key", flags.tls_key, "the client certificate's private key");
  cmd.add_flag("--nats-tls", flags.tls_required, "require TLS (implied by the options above)");
  config.Bind("--nats-url", {"nats.url"}, "NATS_URL");
  config.Bind("--nats-creds", {"nats.creds_file"});
  config.Bind("--nats-nkey-seed", {"nats.nkey_seed_file"});
  config.Bind("--nats-tls-ca", {"nats.tls_ca"});
  config.Bind("--nats-tls-cert", {"nats.tls_cert"});
  config.Bind("--nats-tls-key", {"nats.tls_key"});
  config.Bind("--nats-tls", {"nats.tls_required"});
}

jetstream::ConnectOptions ConnectOptionsFrom(const NatsFlags& flags) {
  jetstream::ConnectOptions o;
  o.url = flags.url;
  o.creds_file = flags.creds_file;
  o.nkey_seed_file = flags.nkey_seed_file;
  o.tls_ca = flags.tls_ca;
  o.tls_cert = flags.tls_cert;
  o.tls_key = flags.tls_key;
  o.tls_required = flags.tls_required;
  return o;
}

}  // namespace sinkd::cli
