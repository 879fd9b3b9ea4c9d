// OutputStream is where a PartWriter's bytes go: a file, a memory buffer, an object-store upload.
// Writes are sequential; the writer tracks offsets itself and never seeks or reads back.
// Threads: one thread at a time.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "base/status.h"

namespace sinkd::parquet {

class OutputStream {
 public:
  virtual ~OutputStream() = default;
  // Appends `bytes`. On failure the stream is broken: the caller abandons the Part.
  virtual Status Append(std::span<const uint8_t> bytes) = 0;
};

// Collects everything in memory; for tests, small parts and uploads that want one body.
class MemoryOutputStream final : public OutputStream {
 public:
  Status Append(std::span<const uint8_t> bytes) override {
    data_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return Status::OK();
  }
  const std::string& data() const { return data_; }
  std::string Release() { return std::move(data_); }

 private:
  std::string data_;
};

}  // namespace sinkd::parquet
