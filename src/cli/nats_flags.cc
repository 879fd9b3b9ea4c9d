#include "cli/nats_flags.h"

namespace sinkd::cli {

void AddNatsFlags(CLI::App& cmd, jetstream::ConnectOptions& options, ConfigFlags& config) {
  options.url = jetstream::DefaultNatsUrl();
  cmd.add_option("--nats-url", options.url, "NATS server URL (env NATS_URL)")
      ->capture_default_str();
  cmd.add_option("--nats-creds", options.creds_file, "a .creds file (user JWT and seed)");
  cmd.add_option("--nats-nkey-seed", options.nkey_seed_file,
                 "a file holding an nkey user seed (SU…)");
  cmd.add_option("--nats-tls-ca", options.tls_ca, "CA certificate(s) that verify the NATS server");
  cmd.add_option("--nats-tls-cert", options.tls_cert, "client certificate for NATS TLS");
  cmd.add_option("--nats-tls-key", options.tls_key, "the client certificate's private key");
  cmd.add_flag("--nats-tls", options.tls_required, "require TLS (implied by the options above)");
  config.Bind("--nats-url", {"nats.url"}, "NATS_URL");
  config.Bind("--nats-creds", {"nats.creds_file"});
  config.Bind("--nats-nkey-seed", {"nats.nkey_seed_file"});
  config.Bind("--nats-tls-ca", {"nats.tls_ca"});
  config.Bind("--nats-tls-cert", {"nats.tls_cert"});
  config.Bind("--nats-tls-key", {"nats.tls_key"});
  config.Bind("--nats-tls", {"nats.tls_required"});
}

}  // namespace sinkd::cli
