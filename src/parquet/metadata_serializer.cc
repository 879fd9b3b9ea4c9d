#include "parquet/metadata_serializer.h"

#include "parquet/thrift_compact_writer.h"

namespace sinkd::parquet {
namespace {

int32_t Enum(auto value) { return static_cast<int32_t>(value); }

// LogicalType union (SchemaElement field 10): STRING is member 1 (empty StringType); TIMESTAMP is
// member 8 = TimestampType{1 isAdjustedToUTC, 2 unit = TimeUnit union, member 2 MICROS}.
void WriteLogicalType(CompactWriter& w, LogicalKind kind) {
  w.BeginStructField(10);
  switch (kind) {
    case LogicalKind::kString:
      w.EmptyStructField(1);
      break;
    case LogicalKind::kTimestampMicrosUtc:
      w.BeginStructField(8);
      w.BoolField(1, true);
      w.BeginStructField(2);
      w.EmptyStructField(2);
      w.EndStruct();
      w.EndStruct();
      break;
  }
  w.EndStruct();
}

void WriteSchemaElement(CompactWriter& w, const SchemaElement& e) {
  w.BeginStruct();
  if (e.type) w.I32Field(1, Enum(*e.type));
  if (e.repetition) w.I32Field(3, Enum(*e.repetition));
  w.BinaryField(4, e.name);
  if (e.num_children) w.I32Field(5, *e.num_children);
  if (e.converted_type) w.I32Field(6, Enum(*e.converted_type));
  if (e.field_id) w.I32Field(9, *e.field_id);
  if (e.logical_type) WriteLogicalType(w, *e.logical_type);
  w.EndStruct();
}

void WriteStatistics(CompactWriter& w, int16_t id, const Statistics& s) {
  w.BeginStructField(id);
  if (s.max) w.BinaryField(1, *s.max);
  if (s.min) w.BinaryField(2, *s.min);
  if (s.null_count) w.I64Field(3, *s.null_count);
  if (s.distinct_count) w.I64Field(4, *s.distinct_count);
  if (s.max_value) w.BinaryField(5, *s.max_value);
  if (s.min_value) w.BinaryField(6, *s.min_value);
  if (s.is_max_value_exact) w.BoolField(7, *s.is_max_value_exact);
  if (s.is_min_value_exact) w.BoolField(8, *s.is_min_value_exact);
  w.EndStruct();
}

void WriteColumnMetaData(CompactWriter& w, const ColumnMetaData& m) {
  w.BeginStructField(3);
  w.I32Field(1, Enum(m.type));
  w.ListField(2, CompactType::kI32, m.encodings.size());
  for (Encoding e : m.encodings) w.I32Element(Enum(e));
  w.ListField(3, CompactType::kBinary, m.path_in_schema.size());
  for (const std::string& p : m.path_in_schema) w.BinaryElement(p);
  w.I32Field(4, Enum(m.codec));
  w.I64Field(5, m.num_values);
  w.I64Field(6, m.total_uncompressed_size);
  w.I64Field(7, m.total_compressed_size);
  w.I64Field(9, m.data_page_offset);
  if (m.dictionary_page_offset) w.I64Field(11, *m.dictionary_page_offset);
  if (m.statistics) WriteStatistics(w, 12, *m.statistics);
  if (!m.encoding_stats.empty()) {
    w.ListField(13, CompactType::kStruct, m.encoding_stats.size());
    for (const PageEncodingStats& s : m.encoding_stats) {
      w.BeginStruct();
      w.I32Field(1, Enum(s.page_type));
      w.I32Field(2, Enum(s.encoding));
      w.I32Field(3, s.count);
      w.EndStruct();
    }
  }
  if (m.bloom_filter_offset) w.I64Field(14, *m.bloom_filter_offset);
  if (m.bloom_filter_length) w.I32Field(15, *m.bloom_filter_length);
  w.EndStruct();
}

void WriteRowGroup(CompactWriter& w, const RowGroup& g) {
  w.BeginStruct();
  w.ListField(1, CompactType::kStruct, g.columns.size());
  for (const ColumnChunk& c : g.columns) {
    w.BeginStruct();
    w.I64Field(2, c.file_offset);
    WriteColumnMetaData(w, c.meta_data);
    w.EndStruct();
  }
  w.I64Field(2, g.total_byte_size);
  w.I64Field(3, g.num_rows);
  if (g.file_offset) w.I64Field(5, *g.file_offset);
  if (g.total_compressed_size) w.I64Field(6, *g.total_compressed_size);
  if (g.ordinal) w.I16Field(7, *g.ordinal);
  w.EndStruct();
}

}  // namespace

void SerializeFileMetaData(const FileMetaData& m, ByteBuffer& out) {
  CompactWriter w(out);
  w.BeginStruct();
  w.I32Field(1, m.version);
  w.ListField(2, CompactType::kStruct, m.schema.size());
  for (const SchemaElement& e : m.schema) WriteSchemaElement(w, e);
  w.I64Field(3, m.num_rows);
  w.ListField(4, CompactType::kStruct, m.row_groups.size());
  for (const RowGroup& g : m.row_groups) WriteRowGroup(w, g);
  if (!m.key_value_metadata.empty()) {
    w.ListField(5, CompactType::kStruct, m.key_value_metadata.size());
    for (const KeyValueEntry& kv : m.key_value_metadata) {
      w.BeginStruct();
      w.BinaryField(1, kv.key);
      if (kv.value) w.BinaryField(2, *kv.value);
      w.EndStruct();
    }
  }
  if (m.created_by) w.BinaryField(6, *m.created_by);
  if (m.type_defined_column_orders) {
    const size_t leaves = m.schema.empty() ? 0 : m.schema.size() - 1;
    w.ListField(7, CompactType::kStruct, leaves);
    for (size_t i = 0; i < leaves; ++i) {
      w.BeginStruct();
      w.EmptyStructField(1);  // ColumnOrder.TYPE_ORDER
      w.EndStruct();
    }
  }
  w.EndStruct();
}

void SerializePageHeader(const PageHeader& h, ByteBuffer& out) {
  CompactWriter w(out);
  w.BeginStruct();
  w.I32Field(1, Enum(h.type));
  w.I32Field(2, h.uncompressed_page_size);
  w.I32Field(3, h.compressed_page_size);
  if (h.data_page_header) {
    const DataPageHeader& d = *h.data_page_header;
    w.BeginStructField(5);
    w.I32Field(1, d.num_values);
    w.I32Field(2, Enum(d.encoding));
    w.I32Field(3, Enum(d.definition_level_encoding));
    w.I32Field(4, Enum(d.repetition_level_encoding));
    w.EndStruct();
  }
  if (h.dictionary_page_header) {
    w.BeginStructField(7);
    w.I32Field(1, h.dictionary_page_header->num_values);
    w.I32Field(2, Enum(h.dictionary_page_header->encoding));
    w.EndStruct();
  }
  w.EndStruct();
}

void SerializeBloomFilterHeader(const BloomFilterHeader& h, ByteBuffer& out) {
  CompactWriter w(out);
  w.BeginStruct();
  w.I32Field(1, h.num_bytes);
  w.BeginStructField(2);  // algorithm: BLOCK
  w.EmptyStructField(1);
  w.EndStruct();
  w.BeginStructField(3);  // hash: XXHASH
  w.EmptyStructField(1);
  w.EndStruct();
  w.BeginStructField(4);  // compression: UNCOMPRESSED
  w.EmptyStructField(1);
  w.EndStruct();
  w.EndStruct();
}

}  // namespace sinkd::parquet
