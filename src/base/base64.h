// Standard base64 (RFC 4648, with padding): dead-letter payloads in JSON, Content-MD5 headers.
#pragma once

#include <string>
#include <string_view>

namespace sinkd {

std::string Base64Encode(std::string_view bytes);

}  // namespace sinkd
