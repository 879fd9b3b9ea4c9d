// BenchFlags is the one command line of every benchmark: `--name value` options with a default
// each, `--help` that prints what the benchmark measures and every option with its default (and
// runs nothing: a mistyped --help must never start a 3-minute run), and a usage error (exit 2)
// for a flag it does not know, a missing value or a value that does not parse.
// CLI11 does the parsing, compiled once here rather than in each benchmark.
// Threads: one thread. The targets must outlive Parse().
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace sinkd::bench {

class BenchFlags {
 public:
  // `program` is the executable's name, `purpose` one paragraph of what it measures.
  BenchFlags(const std::string& program, const std::string& purpose);
  ~BenchFlags();
  BenchFlags(const BenchFlags&) = delete;
  BenchFlags& operator=(const BenchFlags&) = delete;

  // An option `--<name> <value>` that sets *target; its current value is the default --help shows.
  BenchFlags& Add(const std::string& name, int* target, const std::string& help);
  BenchFlags& Add(const std::string& name, int64_t* target, const std::string& help);
  BenchFlags& Add(const std::string& name, uint64_t* target, const std::string& help);  // size_t
  BenchFlags& Add(const std::string& name, std::string* target, const std::string& help);
  // An option the benchmark cannot run without.
  BenchFlags& Require(const std::string& name, std::string* target, const std::string& help);
  // An integer option that must be at least `min` (a count of runs, rows, rounds).
  BenchFlags& AddAtLeast(const std::string& name, int* target, int min, const std::string& help);

  // Parses the command line. Exits 0 after printing the help for --help/-h, and 2 with the
  // problem and a pointer to --help on a usage error; returns only when the run should go on.
  void Parse(int argc, char** argv);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sinkd::bench
