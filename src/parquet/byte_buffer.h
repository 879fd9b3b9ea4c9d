// ByteBuffer is the growable byte array every encoder appends to: pages, chunks, the footer.
// Unlike std::vector<uint8_t> or std::string, growing it does not zero the new bytes, so an
// encoder can reserve a page's worst case and write straight into it (the hot path of PLAIN
// numerics and bit-packing).
// Ownership: owns its bytes; a pointer or span into it is valid until the next call that grows it.
// Threads: one thread at a time.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>

namespace sinkd::parquet {

class ByteBuffer {
 public:
  ByteBuffer() = default;
  ByteBuffer(ByteBuffer&&) noexcept = default;
  ByteBuffer& operator=(ByteBuffer&&) noexcept = default;
  ByteBuffer(const ByteBuffer&) = delete;
  ByteBuffer& operator=(const ByteBuffer&) = delete;

  const uint8_t* data() const { return data_.get(); }
  uint8_t* data() { return data_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  std::span<const uint8_t> span() const { return {data_.get(), size_}; }
  std::string_view view() const { return {reinterpret_cast<const char*>(data_.get()), size_}; }

  // Keeps the capacity: buffers are reused across pages and row groups.
  void Clear() { size_ = 0; }

  void Reserve(size_t capacity) {
    if (capacity > capacity_) Grow(capacity);
  }

  // Appends `n` uninitialised bytes and returns where they start; the caller fills them.
  uint8_t* Extend(size_t n) {
    Reserve(size_ + n);
    uint8_t* at = data_.get() + size_;
    size_ += n;
    return at;
  }

  // Drops bytes from the end, e.g. after writing less than a reserved worst case.
  void Resize(size_t n) {
    Reserve(n);
    size_ = n;
  }

  void Append(const void* bytes, size_t n) {
    if (n == 0) return;
    std::memcpy(Extend(n), bytes, n);
  }
  void Append(std::span<const uint8_t> bytes) { Append(bytes.data(), bytes.size()); }
  void Append(std::string_view bytes) { Append(bytes.data(), bytes.size()); }
  void PushBack(uint8_t byte) {
    if (size_ == capacity_) Grow(size_ + 1);
    data_[size_++] = byte;
  }
  void AppendU32(uint32_t v) {
    const uint8_t le[4] = {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8),
                           static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 24)};
    Append(le, 4);
  }

 private:
  void Grow(size_t at_least) {
    size_t next = capacity_ < 64 ? 64 : capacity_ * 2;
    if (next < at_least) next = at_least;
    // new[] without () leaves the bytes uninitialised: that is the point of this class.
    std::unique_ptr<uint8_t[]> bigger(new uint8_t[next]);
    if (size_ > 0) std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    capacity_ = next;
  }

  std::unique_ptr<uint8_t[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace sinkd::parquet
