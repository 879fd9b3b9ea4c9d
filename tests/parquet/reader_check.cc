#include "reader_check.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "support/support.h"

namespace sinkd::parquet {
namespace {

std::vector<std::string> TextRow(const nlohmann::json& row) {
  std::vector<std::string> out;
  for (const auto& v : row) out.push_back(v.is_null() ? "<NULL>" : v.get<std::string>());
  return out;
}

bool SameDouble(double expected, const std::string& text) {
  char* end = nullptr;
  const double read = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return false;
  if (std::isnan(expected)) return std::isnan(read);
  return std::memcmp(&expected, &read, sizeof read) == 0;
}

class FileStream final : public OutputStream {
 public:
  explicit FileStream(const std::filesystem::path& path) : out_(path, std::ios::binary) {}
  Status Append(std::span<const uint8_t> bytes) override {
    out_.write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    return out_ ? Status::OK() : Status::Retry("write failed");
  }

 private:
  std::ofstream out_;
};

}  // namespace

std::string Numbered(std::string_view prefix, uint64_t n) {
  std::string out(prefix);
  out += std::to_string(n);
  return out;
}

ReaderOutput ReadWith(const std::string& reader, const std::filesystem::path& file) {
  ReaderOutput out;
  const testing::CommandResult run = testing::RunCommand(
      {"node", (testing::SourceDir() / "tools" / "read-parquet.mjs").string(), reader,
       file.string()});
  if (run.exit_code != 0) {
    out.error = "exit " + std::to_string(run.exit_code) + ": " + run.err;
    return out;
  }
  const nlohmann::json j = nlohmann::json::parse(run.out, nullptr, false);
  if (j.is_discarded()) {
    out.error = "unparseable output: " + run.out.substr(0, 200);
    return out;
  }
  out.num_rows = j["num_rows"].get<int64_t>();
  out.columns = j["columns"].get<std::vector<std::string>>();
  for (const auto& row : j["rows"]) out.rows.push_back(TextRow(row));
  out.ok = true;
  return out;
}

ReaderOutput ReadWithDuckDb(const Schema& schema, const std::filesystem::path& file) {
  std::string select;
  for (const Field& f : schema) {
    if (!select.empty()) select += ", ";
    const std::string col = "\"" + f.name + "\"";
    if (f.annotation == Annotation::kTimestampMicrosUtc) {
      select += "epoch_us(" + col + ")";
    } else if (f.physical == PhysicalType::kDouble) {
      select += col + "::VARCHAR";
    } else {
      select += col;
    }
  }
  const testing::QueryResult q = testing::DuckDb(
      "SELECT " + select + " FROM read_parquet(" + testing::SqlQuote(file.string()) + ")");
  ReaderOutput out;
  out.ok = q.ok;
  out.error = q.error;
  out.rows = q.rows;
  out.num_rows = static_cast<int64_t>(q.rows.size());
  for (const Field& f : schema) out.columns.push_back(f.name);
  return out;
}

SampleTable::SampleTable(Schema schema) : schema_(std::move(schema)), columns_(schema_.size()) {}

void SampleTable::String(size_t c, std::string_view v) {
  columns_[c].bytes.append(v);
  columns_[c].offsets.push_back(static_cast<uint32_t>(columns_[c].bytes.size()));
  Defined(c, 1);
}

void SampleTable::Null(size_t c, std::string_view placeholder) {
  const std::string text(placeholder);
  switch (schema_[c].physical) {
    case PhysicalType::kBoolean: Bool(c, text == "true"); break;
    case PhysicalType::kInt32: Int32(c, text.empty() ? 0 : std::stoi(text)); break;
    case PhysicalType::kInt64: Int64(c, text.empty() ? 0 : std::stoll(text)); break;
    case PhysicalType::kDouble: Double(c, text.empty() ? 0.0 : std::strtod(text.c_str(), nullptr)); break;
    case PhysicalType::kByteArray: String(c, text); break;
  }
  columns_[c].defined.back() = 0;
  columns_[c].has_null = true;
}

std::string_view SampleTable::StringAt(size_t c, size_t row) const {
  const Column& col = columns_[c];
  return std::string_view(col.bytes).substr(col.offsets[row], col.offsets[row + 1] - col.offsets[row]);
}

TableView SampleTable::View() const {
  TableView view;
  view.rows = rows_;
  for (size_t c = 0; c < schema_.size(); ++c) {
    const Column& col = columns_[c];
    switch (schema_[c].physical) {
      case PhysicalType::kBoolean: view.columns.emplace_back(std::span<const uint8_t>(col.bools)); break;
      case PhysicalType::kInt32: view.columns.emplace_back(std::span<const int32_t>(col.i32)); break;
      case PhysicalType::kInt64: view.columns.emplace_back(std::span<const int64_t>(col.i64)); break;
      case PhysicalType::kDouble: view.columns.emplace_back(std::span<const double>(col.f64)); break;
      case PhysicalType::kByteArray:
        view.columns.emplace_back(StringArray{col.offsets, col.bytes});
        break;
    }
  }
  const bool any_null = std::any_of(columns_.begin(), columns_.end(),
                                    [](const Column& col) { return col.has_null; });
  if (any_null) {
    for (const Column& col : columns_) {
      view.defined.push_back(col.has_null ? std::span<const uint8_t>(col.defined)
                                          : std::span<const uint8_t>());
    }
  }
  return view;
}

std::string SampleTable::Text(size_t c, size_t row) const {
  const Column& col = columns_[c];
  if (IsNull(c, row)) return "<NULL>";
  switch (schema_[c].physical) {
    case PhysicalType::kBoolean: return col.bools[row] ? "true" : "false";
    case PhysicalType::kInt32: return std::to_string(col.i32[row]);
    case PhysicalType::kInt64: return std::to_string(col.i64[row]);
    case PhysicalType::kDouble: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", col.f64[row]);
      return buf;
    }
    case PhysicalType::kByteArray: return std::string(StringAt(c, row));
  }
  return "";
}

bool SampleTable::Matches(size_t c, size_t row, const std::string& read) const {
  if (IsNull(c, row)) return read == "<NULL>";
  if (schema_[c].physical == PhysicalType::kDouble) return SameDouble(columns_[c].f64[row], read);
  return Text(c, row) == read;
}

std::vector<uint32_t> SampleTable::AllRows() const {
  std::vector<uint32_t> rows(rows_);
  for (size_t i = 0; i < rows_; ++i) rows[i] = static_cast<uint32_t>(i);
  return rows;
}

::testing::AssertionResult SameRows(const SampleTable& table, const std::vector<uint32_t>& rows,
                                    const ReaderOutput& read) {
  if (!read.ok) return ::testing::AssertionFailure() << "the reader failed: " << read.error;
  if (read.rows.size() != rows.size()) {
    return ::testing::AssertionFailure() << "read " << read.rows.size() << " rows, wrote "
                                         << rows.size();
  }
  const size_t width = table.schema().size();
  for (size_t i = 0; i < rows.size(); ++i) {
    if (read.rows[i].size() != width) {
      return ::testing::AssertionFailure() << "row " << i << " has " << read.rows[i].size()
                                           << " values, the schema " << width;
    }
    for (size_t c = 0; c < width; ++c) {
      if (!table.Matches(c, rows[i], read.rows[i][c])) {
        std::string expected = table.Text(c, rows[i]);
        std::string got = read.rows[i][c];
        if (expected.size() > 80) expected = expected.substr(0, 80) + "…";
        if (got.size() > 80) got = got.substr(0, 80) + "…";
        return ::testing::AssertionFailure()
               << "row " << i << " column " << table.schema()[c].name << ": read '" << got
               << "', wrote '" << expected << "'";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

void ExpectAllReadersAgree(const SampleTable& table, const std::vector<uint32_t>& rows,
                           const std::filesystem::path& path) {
  EXPECT_TRUE(SameRows(table, rows, ReadWithDuckDb(table.schema(), path))) << "DuckDB";
  EXPECT_TRUE(SameRows(table, rows, ReadWith("hyparquet", path))) << "hyparquet";
  EXPECT_TRUE(SameRows(table, rows, ReadWith("parquet-wasm", path))) << "parquet-wasm";
}

Result<std::string> EncodeParquet(const SampleTable& table, const std::vector<uint32_t>& rows,
                                  const WriterOptions& options,
                                  const std::vector<KeyValue>& metadata) {
  MemoryOutputStream out;
  PartWriter writer(table.schema(), options, out);
  Status s = writer.WriteRows(table.View(), rows);
  if (s.ok()) s = writer.Finish(metadata);
  if (!s.ok()) {
    writer.Abandon();
    return s;
  }
  if (writer.bytes_written() != out.data().size()) {
    return Status::Internal("bytes_written disagrees with the stream");
  }
  return out.Release();
}

std::string EncodeAll(const SampleTable& table, const WriterOptions& options) {
  Result<std::string> bytes = EncodeParquet(table, table.AllRows(), options);
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : std::string();
}

Status WriteParquet(const SampleTable& table, const std::vector<uint32_t>& rows,
                    const WriterOptions& options, const std::filesystem::path& file,
                    const std::vector<KeyValue>& metadata) {
  FileStream out(file);
  PartWriter writer(table.schema(), options, out);
  Status s = writer.WriteRows(table.View(), rows);
  if (s.ok()) s = writer.Finish(metadata);
  if (!s.ok()) writer.Abandon();
  return s;
}

SampleTable MixedTable(size_t rows, uint64_t seed, bool with_nan) {
  Schema schema = {
      {"id", PhysicalType::kByteArray, Annotation::kString, 1, true},
      {"tenant", PhysicalType::kByteArray, Annotation::kString, 2, false},
      {"note", PhysicalType::kByteArray, Annotation::kString, 3, false},
      {"count", PhysicalType::kInt32, Annotation::kNone, 4, false},
      {"amount", PhysicalType::kInt64, Annotation::kNone, 5, true},
      {"cost", PhysicalType::kDouble, Annotation::kNone, 6, false},
      {"flag", PhysicalType::kBoolean, Annotation::kNone, 7, false},
      {"ts", PhysicalType::kInt64, Annotation::kTimestampMicrosUtc, 8, false},
  };
  SampleTable t(schema);
  std::mt19937_64 rng(seed);
  const char* tenants[] = {"acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne"};
  const std::string notes[] = {"", "ok", "naïve café", "日本語のテキスト", "emoji 🎉🚀",
                               "Ωmega ≠ alpha", std::string(300, 'x') + "é"};
  const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, 5e-324, -1.7976931348623157e308,
                             0.1, 1e21, 123.456};
  int64_t ts = -86'400'000'000LL * 3;  // three days before the epoch
  for (size_t r = 0; r < rows; ++r) {
    char id[48];
    std::snprintf(id, sizeof id, "evt-%08zu-%016llx", r, static_cast<unsigned long long>(rng()));
    t.String(0, id);
    t.String(1, tenants[rng() % 7]);
    t.String(2, notes[rng() % 7]);
    t.Int32(3, static_cast<int32_t>(rng() % 2000) - 1000);
    const int64_t extremes[] = {INT64_MIN, INT64_MAX, 0, -1};
    t.Int64(4, r % 997 == 1 ? extremes[(r / 997) % 4] : static_cast<int64_t>(rng() % 100000));
    double cost = static_cast<double>(rng() % 1000000) / 1000.0;
    if (r % 101 == 3) cost = specials[(r / 101) % 9];
    if (with_nan && r % 1009 == 7) cost = NAN;
    t.Double(5, cost);
    t.Bool(6, rng() % 3 == 0);
    ts += static_cast<int64_t>(rng() % 5'000'000);
    t.Int64(7, ts);
    t.EndRow();
  }
  return t;
}

SampleTable LedgerLikeTable(size_t rows, uint64_t seed) {
  SampleTable t({
      {"event_id", PhysicalType::kByteArray, Annotation::kString},
      {"time", PhysicalType::kInt64, Annotation::kTimestampMicrosUtc},
      {"tenant", PhysicalType::kByteArray, Annotation::kString},
      {"feature", PhysicalType::kByteArray, Annotation::kString},
      {"run_id", PhysicalType::kByteArray, Annotation::kString},
      {"model", PhysicalType::kByteArray, Annotation::kString},
      {"outcome", PhysicalType::kByteArray, Annotation::kString},
      {"input_tokens", PhysicalType::kInt64},
      {"output_tokens", PhysicalType::kInt64},
      {"cached_tokens", PhysicalType::kInt64},
      {"latency_ms", PhysicalType::kInt64},
      {"cost_usd", PhysicalType::kDouble},
      {"chain_depth", PhysicalType::kInt32},
      {"model_overridden", PhysicalType::kBoolean},
      {"error_detail", PhysicalType::kByteArray, Annotation::kString},
  });
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  const auto zipf = [&](int k) { return static_cast<int>(std::pow(unit(rng), 3) * k); };
  const char* models[] = {"gpt-4o", "gpt-4o-mini", "claude-sonnet", "claude-haiku", "llama-70b",
                          "mistral-large", "o3", "o4-mini", "gemini-pro", "gemini-flash"};
  const char* outcomes[] = {"ok", "ok", "ok", "ok", "ok", "ok", "error", "interrupted", "denied"};
  int64_t time = 1'767'225'600'000'000LL;
  std::string run;
  char buf[64];
  for (size_t r = 0; r < rows; ++r) {
    const uint64_t a = rng(), b = rng();
    std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<uint32_t>(a),
                  static_cast<uint32_t>(a >> 32) & 0xFFFF, static_cast<uint32_t>(a >> 48),
                  static_cast<uint32_t>(b) & 0xFFFF, static_cast<unsigned long long>(b >> 16));
    t.String(0, buf);
    time += static_cast<int64_t>(rng() % 20000);
    t.Int64(1, time);
    std::snprintf(buf, sizeof buf, "tenant-%03d", zipf(50));
    t.String(2, buf);
    std::snprintf(buf, sizeof buf, "feature/%d/summarise", zipf(200));
    t.String(3, buf);
    if (r % 50 == 0) {
      std::snprintf(buf, sizeof buf, "run-%016llx", static_cast<unsigned long long>(rng()));
      run = buf;
    }
    t.String(4, run);
    t.String(5, models[zipf(10)]);
    const int outcome = static_cast<int>(rng() % 9);
    t.String(6, outcomes[outcome]);
    const auto input = static_cast<int64_t>(rng() % 5000);
    const auto output = static_cast<int64_t>(rng() % 2000);
    t.Int64(7, input);
    t.Int64(8, output);
    t.Int64(9, rng() % 10 == 0 ? static_cast<int64_t>(rng() % 1000) : 0);
    t.Int64(10, 200 + static_cast<int64_t>(rng() % 3000));
    t.Double(11, static_cast<double>(input) * 2.5e-6 + static_cast<double>(output) * 1e-5);
    t.Int32(12, zipf(4));
    t.Bool(13, rng() % 20 == 0);
    t.String(14, outcome == 6 ? "upstream timeout after 30s calling the provider" : "");
    t.EndRow();
  }
  return t;
}

}  // namespace sinkd::parquet
