// The two JetStream origins a command can name (`drain ledger`, `tail audit`, …): which stream,
// which subjects and which envelope its messages carry. Defined once so drain and tail cannot
// disagree about them.
#pragma once

#include <array>
#include <string>

#include "contract/reject.h"
#include "jetstream/streams.h"

namespace sinkd::cli {

struct StreamOrigin {
  std::string name;  // ledger | audit: the subcommand, log context and dead-letter subject
  std::string stream;
  std::string filter;
  contract::Envelope envelope;
};

inline std::array<StreamOrigin, 2> StreamOrigins() {
  return {StreamOrigin{"ledger", jetstream::kLedgerStream, jetstream::kLedgerFilter,
                       contract::Envelope::kBatch},
          StreamOrigin{"audit", jetstream::kAuditStream, jetstream::kAuditFilter,
                       contract::Envelope::kEvent}};
}

}  // namespace sinkd::cli
