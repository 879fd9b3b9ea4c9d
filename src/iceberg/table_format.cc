#include "iceberg/table_format.h"

#include <utility>

#include "iceberg/iceberg_commit.h"

namespace sinkd::iceberg {

Result<std::unique_ptr<table::Commit>> MakeTableCommit(std::string_view format,
                                                       lake::Destination& destination,
                                                       std::string stream_created) {
  SINKD_RETURN_IF_ERROR(table::CheckTableFormat(format));
  if (format == kIcebergCommitFormat) {
    return std::unique_ptr<table::Commit>(
        std::make_unique<IcebergCommit>(destination, std::move(stream_created)));
  }
  return std::unique_ptr<table::Commit>(std::make_unique<table::NoCommit>());
}

}  // namespace sinkd::iceberg
