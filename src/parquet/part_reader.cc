#include "parquet/part_reader.h"

#include "parquet/footer_decoder.h"

namespace sinkd::parquet {

size_t ColumnValues::size() const {
  switch (physical) {
    case PhysicalType::kBoolean: return bools.size();
    case PhysicalType::kInt32: return int32s.size();
    case PhysicalType::kInt64: return int64s.size();
    case PhysicalType::kDouble: return doubles.size();
    case PhysicalType::kByteArray: return offsets.empty() ? 0 : offsets.size() - 1;
  }
  return 0;
}

struct PartReader::Rep {
  ReadAt read;
  std::string name;
  DecodedFooter decoded;
};

PartReader::PartReader(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
PartReader::~PartReader() = default;

Result<std::unique_ptr<PartReader>> PartReader::Open(ReadAt read, uint64_t file_size,
                                                     std::string name) {
  SINKD_ASSIGN_OR_RETURN(DecodedFooter decoded, ReadDecodedFooter(read, file_size, name));
  auto rep = std::make_unique<Rep>();
  rep->read = std::move(read);
  rep->name = std::move(name);
  rep->decoded = std::move(decoded);
  return std::unique_ptr<PartReader>(new PartReader(std::move(rep)));
}

const FileFooter& PartReader::footer() const { return rep_->decoded.footer; }

Result<std::vector<ColumnValues>> PartReader::ReadRowGroup(size_t, std::span<const int>) {
  return Status::Refuse(rep_->name + ": decoding row groups is not implemented yet");
}

}  // namespace sinkd::parquet
