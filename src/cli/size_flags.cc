#include "cli/size_flags.h"

namespace sinkd::cli {

CLI::Validator SizeTransform() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const Result<uint64_t> bytes = ParseSize(text);
        if (!bytes.ok()) return bytes.status().message();
        text = std::to_string(*bytes);
        return "";
      },
      "", "SIZE");
}

}  // namespace sinkd::cli
