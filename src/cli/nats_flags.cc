#include "cli/nats_flags.h"

#include "base/duration.h"
#include "jetstream/streams.h"

namespace sinkd::cli {

Result<std::chrono::milliseconds> ParseConnectTimeout(const std::string& text) {
  if (text == "forever") return jetstream::kConnectForever;
  auto d = ParseDuration(text);
  if (!d.ok()) return d.status().WithContext("--connect-timeout (a duration or \"forever\")");
  return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

void AddNatsFlags(CLI::App& cmd, jetstream::ConnectOptions& options, ConfigFlags& config,
                  const std::string& connect_timeout_default) {
  options.url = jetstream::DefaultNatsUrl();
  options.connect_timeout = *ParseConnectTimeout(connect_timeout_default);
  cmd.add_option("--nats-url", options.url,
                 "NATS server URL, or a comma-separated list of one cluster's servers (env "
                 "NATS_URL)")
      ->capture_default_str();
  cmd.add_option("--nats-creds", options.creds_file, "a .creds file (user JWT and seed)");
  cmd.add_option("--nats-nkey-seed", options.nkey_seed_file,
                 "a file holding an nkey user seed (SU…)");
  cmd.add_option("--nats-tls-ca", options.tls_ca, "CA certificate(s) that verify the NATS server");
  cmd.add_option("--nats-tls-cert", options.tls_cert, "client certificate for NATS TLS");
  cmd.add_option("--nats-tls-key", options.tls_key, "the client certificate's private key");
  cmd.add_flag("--nats-tls", options.tls_required, "require TLS (implied by the options above)");
  cmd.add_flag("--nats-use-discovered-servers", options.use_discovered_servers,
               "also reconnect to the servers the cluster advertises, beyond --nats-url's list");
  // Parsed as it is given (flag or file), so a bad value is refused before anything connects.
  cmd.add_option_function<std::string>(
         "--connect-timeout",
         [&options](const std::string& text) {
           options.connect_timeout = *ParseConnectTimeout(text);
         },
         "how long to retry a first connect that reaches no server, with a log line per attempt "
         "(a duration, 0 = try each server once, or forever)")
      ->default_str(connect_timeout_default)
      ->check(CLI::Validator(
          [](std::string& text) {
            auto parsed = ParseConnectTimeout(text);
            return parsed.ok() ? std::string() : parsed.status().message();
          },
          "DURATION|forever"));
  config.Bind("--nats-url", {"nats.url"}, "NATS_URL");
  config.Bind("--nats-creds", {"nats.creds_file"});
  config.Bind("--nats-nkey-seed", {"nats.nkey_seed_file"});
  config.Bind("--nats-tls-ca", {"nats.tls_ca"});
  config.Bind("--nats-tls-cert", {"nats.tls_cert"});
  config.Bind("--nats-tls-key", {"nats.tls_key"});
  config.Bind("--nats-tls", {"nats.tls_required"});
  config.Bind("--nats-use-discovered-servers", {"nats.use_discovered_servers"});
  config.Bind("--connect-timeout", {"nats.connect_timeout"});
}

std::vector<Status> ReachNats(jetstream::ConnectOptions options,
                              const std::vector<std::string>& streams) {
  options.name = "sinkd validate";
  options.reconnect_forever = false;
  options.timeout = std::chrono::seconds(5);
  options.connect_timeout = std::chrono::milliseconds(0);  // each server once: a check, not a wait
  auto connection = jetstream::Connection::Connect(options);
  if (!connection.ok()) {
    return {connection.status().WithContext("--nats-url")};  // its message names the URL
  }
  std::vector<Status> failures;
  for (const std::string& stream : streams) {
    auto state = jetstream::GetStreamState(**connection, stream);
    if (state.ok()) continue;
    const std::string hint =
        state.status().IsNotFound() ? " (`sinkd provision` creates it)" : "";
    failures.push_back(Status::Refuse(state.status().message() + hint));
  }
  return failures;
}

}  // namespace sinkd::cli
