#include "thrift_decoder.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <cstring>

namespace sinkd::parquet {

ThriftValue DecodeStruct(std::string_view bytes, size_t* consumed) {
  Result<ThriftValue> v = DecodeThriftStruct(bytes, consumed);
  EXPECT_TRUE(v.ok()) << v.status().ToString();
  if (!v.ok()) {
    if (consumed) *consumed = 0;
    return ThriftValue{};
  }
  return std::move(v).value();
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
