// Hides the password of a connection string so the rest can be shown in a log or `config show`:
// "postgresql://app:***@db/app", "nats://u:***@host:4222", "host=db password=*** dbname=app",
// and a password= in a URL's query. Anything else comes back unchanged.
// Threads: a pure function.
#pragma once

#include <string>

namespace sinkd {

std::string RedactPassword(const std::string& conninfo);

}  // namespace sinkd
