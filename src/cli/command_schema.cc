#include <cstdio>

#include "cli/command.h"
#include "row/ledger_columns.h"
#include "row/schema_doc.h"

namespace sinkd::cli {

void AddSchemaCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* parent = AddParent(root, "schema", "print the columns of a lake");
  CLI::App* ledger = parent->add_subcommand(
      "ledger", "the columns of the ledger and audit lakes (garm.ledger.v1.Event)");
  ledger->callback([&invocation] {
    invocation.run = [] {
      std::fputs(row::SchemaMarkdown(row::kLedgerColumns).c_str(), stdout);
      return Status::OK();
    };
  });
}

}  // namespace sinkd::cli
