#include "thrift_decoder.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <cstring>

namespace sinkd::parquet {
namespace {

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  size_t position() const { return at_; }
  bool failed() const { return failed_; }

  uint8_t Byte() {
    if (at_ >= bytes_.size()) {
      failed_ = true;
      return 0;
    }
    return static_cast<uint8_t>(bytes_[at_++]);
  }
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 70 && !failed_; shift += 7) {
      const uint8_t b = Byte();
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
    failed_ = true;
    return 0;
  }
  int64_t Zigzag() {
    const uint64_t u = Varint();
    return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
  }
  std::string Binary() {
    const uint64_t n = Varint();
    if (n > bytes_.size() - at_) {
      failed_ = true;
      return {};
    }
    std::string s(bytes_.substr(at_, n));
    at_ += n;
    return s;
  }

  ThriftValue Value(int type) {
    ThriftValue v;
    switch (type) {
      case 1: case 2: v.kind = ThriftValue::Kind::kBool; v.b = type == 1; break;
      case 3: v.i = static_cast<int8_t>(Byte()); break;
      case 4: case 5: case 6: v.i = Zigzag(); break;
      case 7: {
        v.kind = ThriftValue::Kind::kDouble;
        uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) bits |= static_cast<uint64_t>(Byte()) << (8 * k);
        std::memcpy(&v.d, &bits, 8);
        break;
      }
      case 8: v.kind = ThriftValue::Kind::kBinary; v.bin = Binary(); break;
      case 9: case 10: v = List(); break;
      case 12: v = Struct(); break;
      default: failed_ = true;
    }
    return v;
  }
  ThriftValue List() {
    ThriftValue v;
    v.kind = ThriftValue::Kind::kList;
    const uint8_t header = Byte();
    uint64_t size = header >> 4;
    if (size == 15) size = Varint();
    const int element = header & 0x0F;
    for (uint64_t i = 0; i < size && !failed_; ++i) {
      if (element == 1 || element == 2) {  // bool elements: one byte each
        ThriftValue b;
        b.kind = ThriftValue::Kind::kBool;
        b.b = Byte() == 1;
        v.list.push_back(b);
      } else {
        v.list.push_back(Value(element));
      }
    }
    return v;
  }
  ThriftValue Struct() {
    ThriftValue v;
    v.kind = ThriftValue::Kind::kStruct;
    v.fields = std::make_shared<ThriftStruct>();
    int16_t last = 0;
    while (!failed_) {
      const uint8_t header = Byte();
      if (header == 0) break;
      const int type = header & 0x0F;
      const int delta = header >> 4;
      const int16_t id = delta ? static_cast<int16_t>(last + delta) : static_cast<int16_t>(Zigzag());
      EXPECT_GT(id, last) << "field ids must ascend";
      last = id;
      (*v.fields)[id] = Value(type);
    }
    return v;
  }

 private:
  std::string_view bytes_;
  size_t at_ = 0;
  bool failed_ = false;
};

}  // namespace

const ThriftValue& ThriftValue::operator[](int16_t id) const {
  static const ThriftValue kMissing;
  if (!Has(id)) {
    ADD_FAILURE() << "thrift field " << id << " is missing";
    return kMissing;
  }
  return fields->at(id);
}

ThriftValue DecodeStruct(std::string_view bytes, size_t* consumed) {
  Reader r(bytes);
  ThriftValue v = r.Struct();
  EXPECT_FALSE(r.failed()) << "malformed thrift";
  if (consumed) *consumed = r.position();
  return v;
}

ThriftValue DecodeFooter(std::string_view file) {
  if (file.size() < 12 || file.substr(0, 4) != "PAR1" || file.substr(file.size() - 4) != "PAR1") {
    ADD_FAILURE() << "not a Parquet file";
    return {};
  }
  uint32_t length;
  std::memcpy(&length, file.data() + file.size() - 8, 4);
  if (length > file.size() - 12) {
    ADD_FAILURE() << "footer length " << length << " past the file";
    return {};
  }
  size_t consumed = 0;
  ThriftValue footer = DecodeStruct(file.substr(file.size() - 8 - length, length), &consumed);
  EXPECT_EQ(consumed, length) << "the footer length must cover exactly the FileMetaData";
  return footer;
}

std::string PageInFile::Uncompressed(std::string_view file) const {
  const size_t size = static_cast<size_t>(header.Int(2));
  std::string out(size, '\0');
  const size_t n = ZSTD_decompress(out.data(), out.size(), file.data() + payload_offset,
                                   compressed_bytes);
  EXPECT_FALSE(ZSTD_isError(n)) << "a page is not one valid zstd frame";
  EXPECT_EQ(n, size) << "uncompressed_page_size must be exact";
  return out;
}

std::vector<PageInFile> ChunkPages(std::string_view file, const ThriftValue& meta) {
  std::vector<PageInFile> pages;
  const int64_t start = meta.Has(11) ? meta.Int(11) : meta.Int(9);
  const int64_t end = start + meta.Int(7);
  for (int64_t at = start; at < end;) {
    PageInFile page;
    page.offset = static_cast<size_t>(at);
    page.header = DecodeStruct(file.substr(page.offset), &page.header_bytes);
    page.payload_offset = page.offset + page.header_bytes;
    page.compressed_bytes = static_cast<size_t>(page.header.Int(3));
    at = static_cast<int64_t>(page.payload_offset + page.compressed_bytes);
    if (page.header_bytes == 0) break;
    pages.push_back(std::move(page));
  }
  return pages;
}

}  // namespace sinkd::parquet
