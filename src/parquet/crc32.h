// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum of PageHeader.crc.
// Threads: a pure function.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sinkd::parquet {

uint32_t Crc32(const uint8_t* data, size_t size);

}  // namespace sinkd::parquet
