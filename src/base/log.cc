#include "base/log.h"

#include <atomic>
#include <ctime>

#include <fmt/format.h>

namespace sinkd {

void AppendJsonString(std::string& out, std::string_view text) {
  out.push_back('"');
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}

std::string FormatLogTime(std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch());
  const std::time_t secs = static_cast<std::time_t>(ms.count() / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms.count() % 1000);
}

namespace {

std::atomic<LogLevel> g_level{LogLevel::kInfo};
std::atomic<LogFormat> g_format{LogFormat::kJson};

}  // namespace

void SetProcessLogging(LogLevel min, LogFormat format) {
  g_level.store(min);
  g_format.store(format);
}
LogLevel ProcessLogLevel() { return g_level.load(); }
LogFormat ProcessLogFormat() { return g_format.load(); }

bool ParseLogLevel(std::string_view text, LogLevel* level) {
  static constexpr std::pair<std::string_view, LogLevel> kLevels[] = {
      {"debug", LogLevel::kDebug}, {"info", LogLevel::kInfo},
      {"warn", LogLevel::kWarn},   {"error", LogLevel::kError}};
  for (const auto& [name, value] : kLevels) {
    if (text == name) {
      *level = value;
      return true;
    }
  }
  return false;
}

bool ParseLogFormat(std::string_view text, LogFormat* format) {
  if (text == "json" || text == "text") {
    *format = text == "json" ? LogFormat::kJson : LogFormat::kText;
    return true;
  }
  return false;
}

Logger::Logger(std::FILE* out, std::optional<LogLevel> min, Clock clock)
    : out_(out), min_(min), clock_(clock ? std::move(clock) : [] {
        return std::chrono::system_clock::now();
      }) {}

void Logger::AddContext(std::string_view key, std::string value) {
  std::lock_guard<std::mutex> lock(mu_);
  context_.emplace_back(std::string(key), std::move(value));
}

namespace {

// A text-format value: bare when it is one plain word, else quoted with \" \\ \n escaped.
void AppendTextString(std::string& out, std::string_view text) {
  const bool bare = !text.empty() && text.find_first_of(" \"=\\\n\r\t") == std::string_view::npos;
  if (bare) {
    out += text;
    return;
  }
  AppendJsonString(out, text);
}

void AppendValue(std::string& out, const LogField::Value& value, LogFormat format) {
  std::visit(
      [&out, format](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string_view> || std::is_same_v<T, std::string>) {
          if (format == LogFormat::kText) {
            AppendTextString(out, v);
          } else {
            AppendJsonString(out, v);
          }
        } else if constexpr (std::is_same_v<T, bool>) {
          out += v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, double>) {
          out += fmt::format("{}", v);
        } else {
          out += std::to_string(v);
        }
      },
      value);
}

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "DEBUG";
    case LogLevel::kInfo: return "INFO";
    case LogLevel::kWarn: return "WARN";
    case LogLevel::kError: return "ERROR";
  }
  return "INFO";
}

}  // namespace

void Logger::Log(LogLevel level, std::string_view msg, std::initializer_list<LogField> fields) {
  if (level < (min_ ? *min_ : g_level.load())) return;
  const LogFormat format = g_format.load();
  std::string line;
  std::lock_guard<std::mutex> lock(mu_);
  if (format == LogFormat::kText) {
    line = fmt::format("{} {:<5} {}", FormatLogTime(clock_()), LevelName(level), msg);
    for (const auto& [key, value] : context_) {
      line += ' ' + key + '=';
      AppendTextString(line, value);
    }
    for (const LogField& f : fields) {
      line += ' ';
      line += f.key;
      line += '=';
      AppendValue(line, f.value, format);
    }
    line += '\n';
  } else {
    line = "{\"time\":\"" + FormatLogTime(clock_()) + "\",\"level\":\"" + LevelName(level) +
           "\",\"msg\":";
    AppendJsonString(line, msg);
    for (const auto& [key, value] : context_) {
      line += ',';
      AppendJsonString(line, key);
      line += ':';
      AppendJsonString(line, value);
    }
    for (const LogField& f : fields) {
      line += ',';
      AppendJsonString(line, f.key);
      line += ':';
      AppendValue(line, f.value, format);
    }
    line += "}\n";
  }
  std::fwrite(line.data(), 1, line.size(), out_);
  std::fflush(out_);
}

}  // namespace sinkd
