#include <gtest/gtest.h>

#include "support/support.h"

namespace sinkd {
namespace {

using testing::ReadFile;
using testing::RunCommand;
using testing::SinkdBinary;
using testing::SourceDir;

// The README's schema table is what users read to write queries; if it drifted from the column
// list the writer uses, their WHERE clauses would name columns that do not exist.
TEST(Readme, TheSchemaSectionIsExactlyWhatTheColumnListSays) {
  const std::string readme = ReadFile(SourceDir() / "README.md");
  const std::string begin = "<!-- schema:ledger begin -->\n", end = "<!-- schema:ledger end -->";
  const size_t b = readme.find(begin), e = readme.find(end);
  ASSERT_NE(b, std::string::npos) << "README lost its schema markers";
  ASSERT_NE(e, std::string::npos);
  const std::string documented = readme.substr(b + begin.size(), e - b - begin.size());
  auto printed = RunCommand({SinkdBinary().string(), "schema", "ledger"});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(documented, printed.out)
      << "regenerate the README block with: sinkd schema ledger";
  EXPECT_NE(printed.out.find("| 40 | `execution_subject` |"), std::string::npos);
}

}  // namespace
}  // namespace sinkd
