// Random names that nothing else may share: an S3 upload's token, a probe's key, a directory
// upload's temporary file. Drawn from the kernel's generator (std::random_device), never seeded
// from the clock or the pid, so two hosts sharing one lake or bucket draw independently.
// Threads: safe from any thread.
#pragma once

#include <cstddef>
#include <string>

namespace sinkd {

// `hex_digits` random lowercase hex digits (4 bits each); 32 (128 bits) unless told.
std::string RandomToken(size_t hex_digits = 32);

}  // namespace sinkd
