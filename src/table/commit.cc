#include "table/commit.h"

namespace sinkd::table {

Commit& NoTableCommit() {
  static NoCommit none;
  return none;
}

std::vector<std::string> TableFormats() { return {"none", "iceberg"}; }

Status CheckTableFormat(std::string_view format) {
  for (const std::string& known : TableFormats()) {
    if (format == known) return Status::OK();
  }
  return Status::Refuse("table format \"" + std::string(format) +
                        "\" is not one sinkd writes: use none (the hive layout alone) or iceberg");
}

}  // namespace sinkd::table
