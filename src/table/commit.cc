#include "table/commit.h"

namespace sinkd::table {

Commit& NoTableCommit() {
  static NoCommit none;
  return none;
}

}  // namespace sinkd::table
