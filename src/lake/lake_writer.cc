#include "lake/lake_writer.h"

#include "batch/part_schema.h"
#include "batch/partitioner.h"
#include "lake/key.h"

namespace sinkd::lake {

LakeWriter::LakeWriter(Destination& destination, LakeWriterOptions options)
    : destination_(destination), options_(std::move(options)) {}

Result<FlushReport> LakeWriter::Flush(const row::RowBatch& batch, const Provenance& provenance) {
  FlushReport report;
  if (batch.empty()) return report;

  const row::ColumnTable& table = batch.table();
  const parquet::Schema schema = batch::FileSchema(table);
  const parquet::TableView view = batch::FileView(batch);
  const std::vector<parquet::KeyValue> metadata = {
      {"sinkd.table", std::string(table.name)},
      {"sinkd.schema_version", std::to_string(table.schema_version)},
      {"sinkd.source", provenance.source},
      {"sinkd.first_sequence", std::to_string(provenance.first_sequence)},
      {"sinkd.last_sequence", std::to_string(provenance.last_sequence)},
  };

  PartKeyFields key_fields;
  key_fields.prefix = options_.key_prefix;
  for (int c : batch::PartitionColumns(table)) {
    key_fields.columns.emplace_back(table.columns[c].name);
  }
  key_fields.instance = options_.instance;
  key_fields.first_sequence = provenance.first_sequence;
  key_fields.last_sequence = provenance.last_sequence;

  const std::vector<batch::Partition> partitions = batch::PartitionRows(batch);
  for (size_t n = 0; n < partitions.size(); ++n) {
    const batch::Partition& partition = partitions[n];
    key_fields.date = partition.date;
    key_fields.values = partition.values;
    key_fields.number = n;
    const std::string key = PartKey(key_fields);

    SINKD_ASSIGN_OR_RETURN(std::unique_ptr<PartUpload> upload, destination_.Begin(key));
    parquet::PartWriter writer(schema, options_.parquet, *upload);
    Status s = writer.WriteRows(view, partition.rows);
    if (s.ok()) s = writer.Finish(metadata);
    if (s.ok()) s = upload->Commit();
    if (!s.ok()) {
      writer.Abandon();
      upload->Abort();
      // Rows the writer can never encode stay a Reject and a bug stays Internal (the drain reports
      // it as one); any other failure is worth a redelivery.
      return (s.IsReject() || s.IsInternal() ? s : s.As(Status::Redeliver))
          .WithContext("flush part " + key);
    }
    report.parts.push_back(PartReport{key, partition.rows.size(), writer.bytes_written()});
    report.rows += partition.rows.size();
    report.bytes += writer.bytes_written();
  }
  SINKD_RETURN_IF_ERROR(destination_.Sync().As(Status::Redeliver).WithContext("sync lake"));
  return report;
}

}  // namespace sinkd::lake
