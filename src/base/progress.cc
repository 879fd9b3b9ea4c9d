#include "base/progress.h"

#include <unistd.h>

#include <fmt/format.h>

namespace sinkd {

namespace {

std::string Amount(double v, ProgressUnit unit, const std::string& noun) {
  if (unit == ProgressUnit::kCount) {
    return fmt::format("{:.0f}{}{}", v, noun.empty() ? "" : " ", noun);
  }
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  while (v >= 1024 && i < 4) v /= 1024, ++i;
  return i == 0 ? fmt::format("{:.0f} B", v) : fmt::format("{:.1f} {}", v, kUnits[i]);
}

std::string Seconds(double s) {
  const auto t = static_cast<uint64_t>(s + 0.5);
  if (t >= 3600) return fmt::format("{}h{:02}m", t / 3600, (t / 60) % 60);
  if (t >= 60) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}s", t);
}

}  // namespace

Progress::Progress(std::FILE* out, std::string label, uint64_t total, ProgressUnit unit,
                   std::string noun, std::chrono::milliseconds interval)
    : out_(out),
      label_(std::move(label)),
      total_(total),
      unit_(unit),
      noun_(std::move(noun)),
      interval_(interval),
      active_(out != nullptr && ::isatty(::fileno(out)) == 1),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

Progress::~Progress() { Finish(); }

std::string Progress::Line(const std::string& label, uint64_t done, uint64_t total,
                           ProgressUnit unit, const std::string& noun, double seconds) {
  std::string line = label + ": " + Amount(static_cast<double>(done), unit, noun);
  if (total > 0) {
    line += fmt::format(" of {} ({:.0f}%)", Amount(static_cast<double>(total), unit, noun),
                        100.0 * static_cast<double>(done) / static_cast<double>(total));
  }
  if (seconds > 0) {
    const double rate = static_cast<double>(done) / seconds;
    line += ", " + Amount(rate, unit, noun) + "/s";
    if (total > 0 && rate > 0 && done <= total) {
      line += ", " + Seconds(static_cast<double>(total - done) / rate) + " left";
    }
  }
  return line;
}

void Progress::Update(uint64_t done) {
  done_ = done;
  if (!active_ || finished_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < interval_) return;
  last_draw_ = now;
  Draw();
}

void Progress::Draw() {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // \r and erase-to-end-of-line: the new line replaces the last one in place.
  std::string line = Line(label_, done_, total_, unit_, noun_, seconds);
  if (!note_.empty()) line += ", " + note_;
  std::fprintf(out_, "\r%s\x1b[K", line.c_str());
  std::fflush(out_);
  drawn_ = true;
}

void Progress::Finish() {
  if (!active_ || finished_) return;
  finished_ = true;
  Draw();
  std::fputc('\n', out_);
  std::fflush(out_);
}

}  // namespace sinkd
