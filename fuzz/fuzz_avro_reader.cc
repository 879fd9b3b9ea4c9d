// Fuzz target for the Avro object container reader (avro::ReadContainer), which reads Iceberg
// manifests and manifest lists from storage: any bytes are either a file or a Reject — never a
// crash, a hang or another error kind. A file that is read is written again (null codec) and read
// once more; writing that second reading must give the same bytes (what the reader builds, the
// writer can encode, and the two agree on every value).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "avro/container.h"

namespace {

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_avro_reader: %s: %s\n", what, detail.c_str());
  std::abort();
}

std::string Rewrite(const sinkd::avro::ContainerFile& file) {
  sinkd::avro::WriterOptions options;
  options.codec = sinkd::avro::Codec::kNull;
  sinkd::avro::ContainerWriter writer(file.schema, {}, options);
  for (const sinkd::avro::Value& record : file.records) {
    sinkd::Status s = writer.Append(record);
    if (!s.ok()) Fail("a record read could not be written", s.ToString());
  }
  sinkd::Result<std::string> bytes = writer.Finish();
  if (!bytes.ok()) Fail("Finish failed", bytes.status().ToString());
  return *bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sinkd::avro::ReadLimits limits;
  limits.max_block_bytes = 1 << 20;  // keep each run small; the bounds are what is under test
  limits.max_values = 1 << 16;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  sinkd::Result<sinkd::avro::ContainerFile> file = sinkd::avro::ReadContainer(bytes, limits);
  if (!file.ok()) {
    if (!file.status().IsReject()) Fail("an error other than Reject", file.status().ToString());
    return 0;
  }
  const std::string once = Rewrite(*file);
  sinkd::Result<sinkd::avro::ContainerFile> again = sinkd::avro::ReadContainer(once, limits);
  if (!again.ok()) Fail("our own rewrite did not read", again.status().ToString());
  if (Rewrite(*again) != once) Fail("a second round trip changed the bytes", "");
  return 0;
}
