// Logger writes one JSON object per line to stderr: {"time":…,"level":…,"msg":…, key: value…},
// or, with the text format, one line for a terminal: `<time> <LEVEL> <msg> key=value …` (a value
// quoted when it holds a blank, a quote or an equals sign). Keys keep the order given, so an
// operator's eye and a log shipper see the same shape. A Logger made without a level follows the
// process's level and format (SetProcessLogging: --log-level and --log-format, config [log]).
// Threads: safe for concurrent use because each line is formatted first and written under a mutex.
// Never logs a secret: callers must not pass one (credentials are logged by name only).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace sinkd {

struct LogField {
  using Value = std::variant<std::string_view, std::string, int64_t, uint64_t, int, double, bool>;
  std::string_view key;
  Value value;
};

enum class LogLevel { kDebug, kInfo, kWarn, kError };
enum class LogFormat { kJson, kText };

// The process's level and format, set once from the command line or the file before the command
// runs (they are atomics, so a Logger on another thread sees them). Default: info, JSON.
void SetProcessLogging(LogLevel min, LogFormat format);
LogLevel ProcessLogLevel();
LogFormat ProcessLogFormat();
// "debug", "info", "warn", "error"; "json", "text". Anything else: false.
bool ParseLogLevel(std::string_view text, LogLevel* level);
bool ParseLogFormat(std::string_view text, LogFormat* format);

class Logger {
 public:
  using Clock = std::function<std::chrono::system_clock::time_point()>;
  // `min` unset: the process's level (and always its format) at each line.
  explicit Logger(std::FILE* out = stderr, std::optional<LogLevel> min = std::nullopt,
                  Clock clock = nullptr);

  void Log(LogLevel level, std::string_view msg, std::initializer_list<LogField> fields = {});
  void Debug(std::string_view msg, std::initializer_list<LogField> f = {}) { Log(LogLevel::kDebug, msg, f); }
  void Info(std::string_view msg, std::initializer_list<LogField> f = {}) { Log(LogLevel::kInfo, msg, f); }
  void Warn(std::string_view msg, std::initializer_list<LogField> f = {}) { Log(LogLevel::kWarn, msg, f); }
  void Error(std::string_view msg, std::initializer_list<LogField> f = {}) { Log(LogLevel::kError, msg, f); }

  // Fields added to every line after time/level/msg (e.g. {"origin","ledger"}).
  void AddContext(std::string_view key, std::string value);

 private:
  std::FILE* out_;
  std::optional<LogLevel> min_;
  Clock clock_;
  // The AddContext fields, kept as given: each line renders them in its format.
  std::vector<std::pair<std::string, std::string>> context_;
  std::mutex mu_;
};

// Appends `text` as a JSON string literal (quotes included) with standard JSON escaping.
void AppendJsonString(std::string& out, std::string_view text);

// RFC 3339 UTC with millisecond precision, e.g. 2026-11-30T20:28:46.123Z.
std::string FormatLogTime(std::chrono::system_clock::time_point t);

}  // namespace sinkd
