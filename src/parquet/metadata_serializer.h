// Serialises the metadata structs of metadata.h in the Thrift compact protocol, appending to a
// ByteBuffer. Field ids and order follow parquet.thrift; optional fields that are empty are
// omitted; required fields are always written.
// Threads: free functions, no state.
#pragma once

#include "parquet/byte_buffer.h"
#include "parquet/metadata.h"

namespace sinkd::parquet {

void SerializeFileMetaData(const FileMetaData& metadata, ByteBuffer& out);
void SerializePageHeader(const PageHeader& header, ByteBuffer& out);
void SerializeBloomFilterHeader(const BloomFilterHeader& header, ByteBuffer& out);

}  // namespace sinkd::parquet
