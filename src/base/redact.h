// Hides every secret a connection string can carry, so the rest can be shown in a log, an error
// or `config show`:
//   - a URL's password: "postgresql://app:***@db/app", "nats://u:***@host:4222";
//   - a URL's lone user part where it is a token (every scheme but postgres/postgresql, which
//     read it as a user name): "nats://***@host:4222";
//   - each URL of a comma-separated list ("nats://a:***@h1,nats://***@h2"), and a password
//     containing '@' (the last '@' before the host ends the user part);
//   - a password keyword in libpq's keyword form, with or without blanks around '=' and quoted
//     or backslash-escaped ("host=db password = *** dbname=app"), sslpassword too, and a
//     password= in a URL's query.
// Anything else comes back unchanged. Masking more than the secret is acceptable; less is not.
// Threads: a pure function.
#pragma once

#include <string>

namespace sinkd {

std::string RedactPassword(const std::string& conninfo);

}  // namespace sinkd
