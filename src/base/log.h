// Logger writes one JSON object per line to stderr: {"time":…,"level":…,"msg":…, key: value…}.
// Keys keep the order given, so an operator's eye and a log shipper see the same shape.
// Threads: safe for concurrent use because each line is formatted first and written under a mutex.
// Never logs a secret: callers must not pass one (credentials are logged by name only).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <string>
#include <string_view>
#include <variant>

namespace sinkd {

struct LogField {
  using Value = std::variant<std::string_view, std::string, int64_t, uint64_t, int, double, bool>;
  std::string_view key;
  Value value;
};

enum class LogLevel { kDebug, kInfo, kWarn, kError };

class Logger {
 public:
  using Clock = std::function<std::chrono::system_clock::time_point()>;
  explicit Logger(std::FILE* out = stderr, LogLevel min = LogLevel::kInfo, Clock clock = nullptr);

  void Log(LogLevel level, std::string_view msg, std::initializer_list<LogField> fields = {});
  void Debug(std::string_view msg, std::initializer_list<LogField> f = {}) { Log(LogLevel::kDebug, msg, f); }
  void Info(std::string_view msg, std::initializer_list<LogField> f = {}) { Log(LogLevel::kInfo, msg, f); }
  void Warn(std::string_view msg, std::initializer_list<LogField> f = {}) { Log(LogLevel::kWarn, msg, f); }
  void Error(std::string_view msg, std::initializer_list<LogField> f = {}) { Log(LogLevel::kError, msg, f); }

  // Fields added to every line after time/level/msg (e.g. {"origin","ledger"}).
  void AddContext(std::string_view key, std::string value);

 private:
  std::FILE* out_;
  LogLevel min_;
  Clock clock_;
  std::string context_;  // pre-rendered ,"k":"v" pairs
  std::mutex mu_;
};

// Appends `text` as a JSON string literal (quotes included) with standard JSON escaping.
void AppendJsonString(std::string& out, std::string_view text);

// RFC 3339 UTC with millisecond precision, e.g. 2026-11-30T20:28:46.123Z.
std::string FormatLogTime(std::chrono::system_clock::time_point t);

}  // namespace sinkd
