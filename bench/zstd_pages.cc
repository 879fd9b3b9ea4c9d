// zstd_pages: what ZSTD alone costs a lake's Parts, against the limit lake_bench compares with.
//
// Every page of every Part under --lake is read back and decompressed, then compressed again,
// page by page as the writer does (one frame per page, one reused context), at --zstd-level
// (default 3), --rounds times (default 3, interleaved with the limit). Prints, per column, the
// uncompressed and compressed bytes and the seconds of the last round, and the median with
// min–max of the whole. With --wire FILE (the delimited wire messages the lake was imported from)
// it also times lake_bench's limit on one thread: one ZSTD pass over those bytes at the same level,
// in two halves, and prints pages / limit: the share of the limit's time that the Parts' own
// compression takes before a single row is decoded, partitioned or encoded.
// Usage: zstd_pages --lake DIR [--wire FILE] [--zstd-level L] [--rounds R]
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_flags.h"
#include "bench_support.h"
#include "parquet/footer_decoder.h"
#include "parquet/page_header_decoder.h"

namespace {

namespace fs = std::filesystem;
using sinkd::bench::Clock;
using sinkd::bench::Seconds;

struct Page {
  std::string bytes;  // uncompressed payload
  size_t column;
};

int Fail(const std::string& what) {
  std::fprintf(stderr, "zstd_pages: %s\n", what.c_str());
  return 1;
}

// Appends the uncompressed payload of every page of `file` (a Part) to `pages`.
std::string ReadPages(const fs::path& path, std::vector<Page>& pages,
                      std::vector<std::string>& names) {
  const std::string file = sinkd::bench::ReadFile(path.string());
  const sinkd::parquet::ReadAt read = [&](uint64_t offset, uint64_t length)
      -> sinkd::Result<std::string> { return file.substr(offset, length); };
  auto footer = sinkd::parquet::ReadDecodedFooter(read, file.size(), path.string());
  if (!footer.ok()) return footer.status().ToString();
  if (names.empty()) {
    for (const auto& c : footer->footer.columns) names.push_back(c.name);
  }
  for (const auto& row_group : footer->chunks) {
    for (size_t c = 0; c < row_group.size(); ++c) {
      std::string_view chunk(file.data() + row_group[c].offset, row_group[c].length);
      while (!chunk.empty()) {
        auto header = sinkd::parquet::DecodePageHeader(chunk);
        if (!header.ok()) return path.string() + ": " + header.status().ToString();
        const std::string_view payload = chunk.substr(header->header_bytes, header->compressed);
        std::string raw(header->uncompressed, '\0');
        const size_t n =
            ZSTD_decompress(raw.data(), raw.size(), payload.data(), payload.size());
        if (ZSTD_isError(n) || n != raw.size()) return path.string() + ": a page does not inflate";
        pages.push_back({std::move(raw), c});
        chunk.remove_prefix(header->header_bytes + header->compressed);
      }
    }
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  std::string lake, wire_path;
  int level = 3, rounds = 3;
  sinkd::bench::BenchFlags flags(
      "zstd_pages",
      "What ZSTD alone costs a lake's Parts: every page compressed again as the writer does, "
      "against lake_bench's limit (one ZSTD pass over the wire bytes).");
  flags.Require("lake", &lake, "the directory lake whose Parts are read")
      .Add("wire", &wire_path, "the delimited wire messages the lake was imported from")
      .Add("zstd-level", &level, "ZSTD level")
      .AddAtLeast("rounds", &rounds, 1, "rounds, interleaved with the limit");
  flags.Parse(argc, argv);
  sinkd::bench::PrintMachine("zstd_pages");

  std::vector<Page> pages;
  std::vector<std::string> names;
  size_t parts = 0;
  for (const auto& e : fs::recursive_directory_iterator(lake)) {
    if (!e.is_regular_file() || e.path().extension() != ".parquet") continue;
    const std::string error = ReadPages(e.path(), pages, names);
    if (!error.empty()) return Fail(error);
    ++parts;
  }
  if (pages.empty()) return Fail("no Parts under " + lake);
  const std::string wire = wire_path.empty() ? std::string() : sinkd::bench::ReadFile(wire_path);

  struct Column {
    size_t raw = 0, compressed = 0;  // bytes (compressed: the last round's)
    double seconds = 0;              // the last round's
  };
  std::vector<Column> columns(names.size());
  size_t largest = 0, raw_total = 0;
  for (const Page& p : pages) {
    largest = std::max(largest, p.bytes.size());
    raw_total += p.bytes.size();
    columns[p.column].raw += p.bytes.size();
  }
  std::string out(ZSTD_compressBound(std::max(largest, wire.size() / 2 + 1)), '\0');
  ZSTD_CCtx* context = ZSTD_createCCtx();
  std::vector<double> page_s, wire_s;
  size_t compressed_total = 0;
  for (int round = 0; round < rounds; ++round) {
    for (Column& c : columns) c.compressed = 0, c.seconds = 0;
    compressed_total = 0;
    const auto start = Clock::now();
    for (const Page& p : pages) {
      const auto t = Clock::now();
      const size_t n = ZSTD_compressCCtx(context, out.data(), out.size(), p.bytes.data(),
                                         p.bytes.size(), level);
      if (ZSTD_isError(n)) return Fail(ZSTD_getErrorName(n));
      columns[p.column].compressed += n;
      columns[p.column].seconds += Seconds(t);
      compressed_total += n;
    }
    page_s.push_back(Seconds(start));
    if (!wire.empty()) {
      const auto t = Clock::now();
      const size_t half = wire.size() / 2;
      for (size_t at : {size_t{0}, half}) {
        const size_t len = at == 0 ? half : wire.size() - half;
        const size_t n =
            ZSTD_compressCCtx(context, out.data(), out.size(), wire.data() + at, len, level);
        if (ZSTD_isError(n)) return Fail(ZSTD_getErrorName(n));
      }
      wire_s.push_back(Seconds(t));
    }
  }
  ZSTD_freeCCtx(context);

  std::printf("%zu Parts, %zu pages, %.1f MB uncompressed -> %.1f MB at zstd level %d, one thread\n",
              parts, pages.size(), raw_total / 1e6, compressed_total / 1e6, level);
  std::printf("  %-24s %12s %12s %9s\n", "column (last round)", "bytes in", "bytes out", "seconds");
  for (size_t c = 0; c < columns.size(); ++c) {
    std::printf("  %-24s %12zu %12zu %9.3f\n", names[c].c_str(), columns[c].raw,
                columns[c].compressed, columns[c].seconds);
  }
  const sinkd::bench::Spread pages_spread = sinkd::bench::SpreadOf(page_s);
  std::printf("pages, every one compressed again:   %s s (%.0f MB/s of page bytes)\n",
              sinkd::bench::Format(pages_spread, "%.3f").c_str(),
              raw_total / pages_spread.median / 1e6);
  if (!wire.empty()) {
    std::printf("limit, the wire bytes in two halves: %s s (%.1f MB)\n",
                sinkd::bench::Format(sinkd::bench::SpreadOf(wire_s), "%.3f").c_str(),
                wire.size() / 1e6);
    std::printf("pages / limit, per round:            %s\n",
                sinkd::bench::Format(sinkd::bench::RatioSpread(page_s, wire_s), "%.2f").c_str());
  }
  sinkd::bench::PrintLoadAfter();
  return 0;
}
