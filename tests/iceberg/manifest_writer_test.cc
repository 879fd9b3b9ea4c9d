// The manifest and list writers encode each entry straight into the Avro block, in the schema's
// field order. Their bytes must be those of the generic Avro encoder (avro::ContainerWriter
// given a value tree of every field) for the same entries, the same schema text, header and sync:
// the value tree below is built field by field from the Iceberg schema, independently of the
// writers' encoders.
#include <gtest/gtest.h>

#include "iceberg/ledger_table.h"

namespace sinkd::iceberg {
namespace {

avro::Value OrNull(const std::optional<int64_t>& v) { return v ? avro::Value(*v) : avro::Value(); }
avro::Value OrNull(const std::optional<std::string>& v) {
  return v ? avro::Value(*v) : avro::Value();
}

// An int-keyed map of a data file's columns; a column without the value is left out.
template <typename Get>
avro::Value ColumnPairs(const DataFile& file, Get get) {
  avro::Array out;
  for (const ColumnMetrics& c : file.columns) {
    avro::Value v = get(c);
    if (!v.is_null()) out.items.push_back(avro::Record{{{"key", c.field_id}, {"value", v}}});
  }
  return out;
}

avro::Value EntryTree(const TableSpec& spec, const ManifestEntry& e) {
  const DataFile& file = e.file;
  avro::Record partition;
  partition.fields.push_back({spec.partition[0].name, file.day});
  for (size_t i = 1; i < spec.partition.size(); ++i) {
    partition.fields.push_back({spec.partition[i].name, file.values[i - 1]});
  }
  avro::Array offsets;
  for (uint64_t o : file.split_offsets) offsets.items.push_back(static_cast<int64_t>(o));
  const auto n = [](uint64_t v) { return avro::Value(static_cast<int64_t>(v)); };
  avro::Record data_file{{
      {"content", 0},
      {"file_path", file.path},
      {"file_format", "PARQUET"},
      {"partition", std::move(partition)},
      {"record_count", n(file.records)},
      {"file_size_in_bytes", n(file.file_size)},
      {"column_sizes", ColumnPairs(file, [&](const ColumnMetrics& c) { return n(c.bytes); })},
      {"value_counts", ColumnPairs(file, [&](const ColumnMetrics& c) { return n(c.values); })},
      {"null_value_counts",
       ColumnPairs(file,
                   [&](const ColumnMetrics& c) { return c.nulls ? n(*c.nulls) : avro::Value(); })},
      {"lower_bounds", ColumnPairs(file, [](const ColumnMetrics& c) { return OrNull(c.lower); })},
      {"upper_bounds", ColumnPairs(file, [](const ColumnMetrics& c) { return OrNull(c.upper); })},
      {"split_offsets", std::move(offsets)},
      {"sort_order_id", kSortOrderId},
  }};
  return avro::Record{{{"status", static_cast<int32_t>(e.status)},
                       {"snapshot_id", OrNull(e.snapshot_id)},
                       {"sequence_number", OrNull(e.sequence_number)},
                       {"file_sequence_number", OrNull(e.file_sequence_number)},
                       {"data_file", std::move(data_file)}}};
}

avro::Value ListEntryTree(const ManifestFile& m) {
  avro::Array partitions;
  for (const FieldSummary& s : m.partitions) {
    partitions.items.push_back(avro::Record{{{"contains_null", s.contains_null},
                                             {"contains_nan", avro::Value()},
                                             {"lower_bound", OrNull(s.lower)},
                                             {"upper_bound", OrNull(s.upper)}}});
  }
  return avro::Record{{
      {"manifest_path", m.path},
      {"manifest_length", static_cast<int64_t>(m.length)},
      {"partition_spec_id", m.spec_id},
      {"content", 0},
      {"sequence_number", m.sequence_number},
      {"min_sequence_number", m.min_sequence_number},
      {"added_snapshot_id", m.added_snapshot_id},
      {"added_files_count", m.added_files},
      {"existing_files_count", m.existing_files},
      {"deleted_files_count", m.deleted_files},
      {"added_rows_count", m.added_rows},
      {"existing_rows_count", m.existing_rows},
      {"deleted_rows_count", m.deleted_rows},
      {"partitions", std::move(partitions)},
  }};
}

// `written` encoded again by the generic encoder: its schema text, its header keys and sync
// marker, `records` as the values.
std::string GenericallyEncoded(const std::string& written, const std::vector<avro::Value>& records,
                               avro::Codec codec) {
  Result<avro::ContainerFile> file = avro::ReadContainer(written);
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  if (!file.ok()) return {};
  avro::Metadata header;
  for (const auto& [k, v] : file->metadata) {
    if (k.rfind("avro.", 0) != 0) header.emplace_back(k, v);
  }
  avro::WriterOptions options;
  options.codec = codec;
  options.deflate_level = kManifestDeflateLevel;
  options.sync = file->sync;
  avro::ContainerWriter writer(file->schema, header, options);
  for (const avro::Value& r : records) EXPECT_TRUE(writer.Append(r).ok());
  Result<std::string> bytes = writer.Finish();
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : std::string();
}

// Entries with every statistic, and with some left out: a column without null count or bounds,
// a file without columns or split offsets, ADDED, EXISTING and DELETED entries, counts past an
// int, a bound holding every byte value.
std::vector<ManifestEntry> EveryKindOfEntry(const TableSpec& spec, int count) {
  std::string every_byte;
  for (int b = 0; b < 256; ++b) every_byte.push_back(static_cast<char>(b));
  std::vector<ManifestEntry> out;
  for (int i = 0; i < count; ++i) {
    ManifestEntry e;
    e.status = static_cast<EntryStatus>(i % 3);
    if (e.status != EntryStatus::kAdded) {
      e.snapshot_id = 7000000000LL + i;
      e.sequence_number = 3 + i % 2;
      e.file_sequence_number = 3;
    }
    DataFile& f = e.file;
    f.path = "s3://bucket/lake/ledger/app=app-" + std::to_string(i % 4) + "/part-" +
             std::to_string(i) + ".parquet";
    f.file_size = 5000000000ULL + static_cast<uint64_t>(i);
    f.records = 200 + static_cast<uint64_t>(i);
    f.day = 20470 + i % 5 - (i == 7 ? 30000 : 0);  // one before 1970
    for (size_t p = 1; p < spec.partition.size(); ++p)
      f.values.push_back("app-" + std::to_string(i % 4));
    if (i % 5 != 4) {
      for (int32_t id = 1; id <= spec.last_column_id; ++id) {
        ColumnMetrics c{id, 1000u * static_cast<uint64_t>(id) + 3000000000ULL, f.records, {}, {},
                        {}};
        if (id % 3 != 0) c.nulls = static_cast<uint64_t>(id % 2);
        if (id % 4 != 0) {
          c.lower = id == 2 ? every_byte : "lo" + std::to_string(id);
          c.upper = "hi" + std::to_string(i * id);
        }
        f.columns.push_back(std::move(c));
      }
    }
    if (i % 2 == 0) f.split_offsets = {4, 1 << 20, 5000000000ULL};
    out.push_back(std::move(e));
  }
  return out;
}

TEST(IcebergManifest, TheDirectWritersBytesAreTheGenericAvroEncodersForEveryStatistic) {
  const TableSpec spec = SpecOf(row::kLedgerColumns);
  ASSERT_GE(spec.partition.size(), 2u);
  // 2,000 entries fill several 64 KiB blocks, so block boundaries are compared too.
  const std::vector<ManifestEntry> entries = EveryKindOfEntry(spec, 2000);
  std::vector<avro::Value> trees;
  for (const ManifestEntry& e : entries) trees.push_back(EntryTree(spec, e));
  for (const avro::Codec codec : {avro::Codec::kNull, avro::Codec::kDeflate}) {
    Result<Manifest> m =
        WriteManifest(spec, "s3://bucket/lake/ledger/metadata/m.avro", 9, 4, entries, codec);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const std::string expected = GenericallyEncoded(m->bytes, trees, codec);
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(m->bytes.size(), expected.size());
    EXPECT_TRUE(m->bytes == expected) << "codec " << static_cast<int>(codec);
    Result<std::vector<ManifestEntry>> back = ReadManifest(m->bytes, spec);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ASSERT_EQ(back->size(), entries.size());
    for (size_t i = 0; i < entries.size(); ++i) {
      const ManifestEntry& a = (*back)[i];
      const ManifestEntry& b = entries[i];
      EXPECT_TRUE(a.status == b.status && a.snapshot_id == b.snapshot_id &&
                  a.sequence_number == b.sequence_number &&
                  a.file_sequence_number == b.file_sequence_number && a.file == b.file)
          << i;
    }
  }

  std::vector<ManifestFile> listed;
  for (int i = 0; i < 300; ++i) {
    ManifestFile f;
    f.path = "s3://bucket/lake/ledger/metadata/m" + std::to_string(i) + ".avro";
    f.length = 9000 + static_cast<uint64_t>(i);
    f.sequence_number = 5000000000LL + i;
    f.min_sequence_number = i;
    f.added_snapshot_id = -1 - i;
    f.added_files = i, f.existing_files = 2 * i, f.deleted_files = i % 3;
    f.added_rows = 3000000000LL * i, f.existing_rows = i, f.deleted_rows = 0;
    if (i % 4 != 3) {
      f.partitions = {{false, DayBytes(20470 + i), DayBytes(20471 + i)},
                      {i % 2 == 1, "app-0", std::nullopt}};
    }
    listed.push_back(std::move(f));
  }
  std::vector<avro::Value> list_trees;
  for (const ManifestFile& m : listed) list_trees.push_back(ListEntryTree(m));
  for (const std::optional<int64_t> parent :
       {std::optional<int64_t>(), std::optional<int64_t>(8)}) {
    for (const avro::Codec codec : {avro::Codec::kNull, avro::Codec::kDeflate}) {
      Result<std::string> list = WriteManifestList(listed, 9, parent, 4, codec);
      ASSERT_TRUE(list.ok()) << list.status().ToString();
      const std::string expected = GenericallyEncoded(*list, list_trees, codec);
      ASSERT_FALSE(expected.empty());
      EXPECT_TRUE(*list == expected) << "codec " << static_cast<int>(codec);
      Result<std::vector<ManifestFile>> back = ReadManifestList(*list);
      ASSERT_TRUE(back.ok()) << back.status().ToString();
      EXPECT_TRUE(*back == listed);
    }
  }
}

TEST(IcebergManifest, OnAPoolAManifestIsWrittenAndReadAsOnOneThread) {
  const TableSpec spec = SpecOf(row::kLedgerColumns);
  const std::vector<ManifestEntry> entries = EveryKindOfEntry(spec, 600);
  WorkPool pool(2);
  std::vector<BorrowedEntry> borrowed;
  for (const ManifestEntry& e : entries) {
    borrowed.push_back(
        BorrowedEntry{e.status, e.snapshot_id, e.sequence_number, e.file_sequence_number, &e.file});
  }
  Result<Manifest> one = WriteManifest(spec, "s3://bucket/m.avro", 9, 4, entries);
  Result<Manifest> two =
      WriteManifest(spec, "s3://bucket/m.avro", 9, 4, borrowed, avro::Codec::kDeflate, &pool);
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_EQ(two->bytes, one->bytes);
  EXPECT_EQ(two->file, one->file);
  Result<std::vector<ManifestEntry>> serial = ReadManifest(one->bytes, spec);
  Result<std::vector<ManifestEntry>> parallel = ReadManifest(one->bytes, spec, &pool);
  ASSERT_TRUE(serial.ok() && parallel.ok()) << parallel.status().ToString();
  ASSERT_EQ(parallel->size(), entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    EXPECT_EQ((*parallel)[i].file.path, entries[i].file.path) << i;
    EXPECT_EQ((*parallel)[i].file.columns.size(), (*serial)[i].file.columns.size()) << i;
    EXPECT_EQ((*parallel)[i].snapshot_id, (*serial)[i].snapshot_id) << i;
  }
}

TEST(IcebergManifest, AStringThatIsNotUtf8IsRefusedNamingWhichOne) {
  const TableSpec spec = SpecOf(row::kLedgerColumns);
  std::vector<ManifestEntry> entries = EveryKindOfEntry(spec, 3);
  entries[1].file.path = "file:///lake/\xff.parquet";
  Result<Manifest> m = WriteManifest(spec, "file:///lake/m.avro", 9, 4, entries);
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(m.status().IsRefuse()) << m.status().ToString();
  EXPECT_NE(m.status().message().find("a data file's path is not UTF-8"), std::string::npos)
      << m.status().ToString();
  entries[1].file.path = "file:///lake/a.parquet";
  entries[2].file.values[0] = "app-\xc3";
  m = WriteManifest(spec, "file:///lake/m.avro", 9, 4, entries);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("a partition value is not UTF-8"), std::string::npos)
      << m.status().ToString();
  ManifestFile listed;
  listed.path = "file:///lake/\xfe.avro";
  Result<std::string> list = WriteManifestList({listed}, 9, std::nullopt, 4);
  ASSERT_FALSE(list.ok());
  EXPECT_NE(list.status().message().find("a manifest's path is not UTF-8"), std::string::npos)
      << list.status().ToString();
}

}  // namespace
}  // namespace sinkd::iceberg
