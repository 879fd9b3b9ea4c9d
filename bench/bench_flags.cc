#include "bench_flags.h"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace sinkd::bench {

struct BenchFlags::Impl {
  CLI::App app;
  // Checked after parsing, not by CLI11: its missing-option error comes before its unknown-flag
  // one, so a misspelt flag would be reported as the required option it did not set.
  std::vector<std::pair<std::string, const std::string*>> required;
  Impl(const std::string& program, const std::string& purpose) : app(purpose, program) {}
};

BenchFlags::BenchFlags(const std::string& program, const std::string& purpose)
    : impl_(std::make_unique<Impl>(program, purpose)) {
  // `--name=value` and `--name value` both; no positional arguments: a stray word is an error.
  impl_->app.allow_extras(false);
}

BenchFlags::~BenchFlags() = default;

namespace {
template <typename T>
void AddOption(CLI::App& app, const std::string& name, T* target, const std::string& help) {
  app.add_option("--" + name, *target, help)->capture_default_str();
}
}  // namespace

BenchFlags& BenchFlags::Add(const std::string& name, int* target, const std::string& help) {
  AddOption(impl_->app, name, target, help);
  return *this;
}
BenchFlags& BenchFlags::Add(const std::string& name, int64_t* target, const std::string& help) {
  AddOption(impl_->app, name, target, help);
  return *this;
}
BenchFlags& BenchFlags::Add(const std::string& name, uint64_t* target, const std::string& help) {
  AddOption(impl_->app, name, target, help);
  return *this;
}
BenchFlags& BenchFlags::Add(const std::string& name, std::string* target,
                            const std::string& help) {
  AddOption(impl_->app, name, target, help);
  return *this;
}

BenchFlags& BenchFlags::Require(const std::string& name, std::string* target,
                                const std::string& help) {
  impl_->app.add_option("--" + name, *target, help + " (required)");
  impl_->required.emplace_back(name, target);
  return *this;
}

BenchFlags& BenchFlags::AddAtLeast(const std::string& name, int* target, int min,
                                   const std::string& help) {
  impl_->app.add_option("--" + name, *target, help)
      ->capture_default_str()
      ->check(CLI::Range(min, std::numeric_limits<int>::max()));
  return *this;
}

void BenchFlags::Parse(int argc, char** argv) {
  try {
    impl_->app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(impl_->app.help().c_str(), stdout);
    std::exit(0);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s: %s\nRun with --help for the options.\n",
                 impl_->app.get_name().c_str(), e.what());
    std::exit(2);
  }
  for (const auto& [name, target] : impl_->required) {
    if (target->empty()) {
      std::fprintf(stderr, "%s: --%s is required\nRun with --help for the options.\n",
                   impl_->app.get_name().c_str(), name.c_str());
      std::exit(2);
    }
  }
}

}  // namespace sinkd::bench
