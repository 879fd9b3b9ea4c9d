// Progress of long work (import, compact, lake verify) on a terminal: one line, redrawn in place
// at most every `interval`, "import: 1.5 GiB of 4.0 GiB (37%), 52.3 MiB/s, 49s left". When the
// stream is not a terminal (a pipe, a file, journald) nothing at all is written, so logs and
// scripted output stay exactly as they were.
// Threads: one thread at a time (the thread doing the work calls Update).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace sinkd {

enum class ProgressUnit { kBytes, kCount };

class Progress {
 public:
  // `total` 0 = unknown (no percentage, no time left). `noun` names a kCount ("rows", "files").
  Progress(std::FILE* out, std::string label, uint64_t total, ProgressUnit unit,
           std::string noun = "",
           std::chrono::milliseconds interval = std::chrono::milliseconds(200));
  ~Progress();  // Finish()
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Whether anything is drawn: `out` is a terminal.
  bool active() const { return active_; }
  void Update(uint64_t done);
  void Add(uint64_t n) { Update(done_ + n); }
  // Text drawn after the figures ("12 of 50 partitions"), from the next draw on.
  void SetNote(std::string note) { note_ = std::move(note); }
  // Draws the final figures and ends the line (once; only when something was drawn).
  void Finish();

  // The line for these figures, without the carriage return: what a terminal shows.
  static std::string Line(const std::string& label, uint64_t done, uint64_t total,
                          ProgressUnit unit, const std::string& noun, double seconds);

 private:
  void Draw();

  std::FILE* out_;
  std::string label_;
  uint64_t total_;
  ProgressUnit unit_;
  std::string noun_;
  std::string note_;
  std::chrono::milliseconds interval_;
  bool active_;
  bool drawn_ = false;
  bool finished_ = false;
  uint64_t done_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace sinkd
