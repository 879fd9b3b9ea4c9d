// SHA-256 (FIPS 180-4) of a byte string, as 64 lowercase hex digits. Used only to turn a sink id
// that is not lease-safe into a lease key; a few lines here spare the outbox a crypto library.
// Threads: pure function.
#pragma once

#include <string>
#include <string_view>

namespace sinkd::outbox {

std::string Sha256Hex(std::string_view bytes);

}  // namespace sinkd::outbox
