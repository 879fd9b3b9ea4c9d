// Size flags (--batch-max-bytes, --target-bytes, --s3-multipart-threshold, …): every flag that
// takes bytes is added through AddSizeOption, so each reads plain bytes and binary units ("1GiB",
// "256MiB"; base/size.h) the same way, from the command line and from its configuration key
// alike, and shows its default with a unit in --help. Its type name is SIZE, which the tests look
// for to try every size flag. Threads: main's thread only.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <type_traits>

#include "base/size.h"

namespace sinkd::cli {

// Rewrites a size to its digits before CLI11 converts it; a bad one fails the parse naming the
// flag (a usage error, exit 2).
CLI::Validator SizeTransform();

// Adds `name` to `cmd`, bound to `target` (an integer type). A value past the type's range is
// refused by CLI11's own conversion; ranges of meaning (1 MiB to 2 GiB) stay with the command.
template <typename T>
CLI::Option* AddSizeOption(CLI::App& cmd, const std::string& name, T& target,
                           const std::string& description) {
  static_assert(std::is_integral_v<T> && sizeof(T) == 8, "sizes are 64-bit integers");
  CLI::Option* option = cmd.add_option(name, target, description);
  option->transform(SizeTransform())->type_name("SIZE");
  option->default_function([&target] {
    if constexpr (std::is_signed_v<T>) {
      if (target < 0) return std::to_string(target);
    }
    return FormatSize(static_cast<uint64_t>(target));
  });
  option->capture_default_str();
  return option;
}

}  // namespace sinkd::cli
