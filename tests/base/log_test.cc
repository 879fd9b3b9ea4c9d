#include "base/log.h"

#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace sinkd {
namespace {

// Logs are JSON lines read by machines: a line that does not parse, or keys out of order, breaks
// every shipper and grep downstream.
TEST(Logger, EachLineIsOneJsonObjectWithKeysInTheOrderGiven) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  Logger log(out, LogLevel::kInfo,
             [] { return std::chrono::system_clock::time_point(std::chrono::seconds(1)); });
  log.AddContext("origin", "ledger");
  log.Info("flushed batch", {{"rows", int64_t{8}}, {"note", std::string_view("a \"quoted\"\nline")}});
  log.Debug("dropped below the level");
  std::fclose(out);
  std::string text(buffer, size);
  free(buffer);
  ASSERT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << "debug must be filtered: " << text;
  EXPECT_EQ(text.rfind("{\"time\":\"1970-01-01T00:00:01.000Z\",\"level\":\"INFO\",\"msg\":\"flushed "
                       "batch\",\"origin\":\"ledger\",\"rows\":8,",
                       0),
            0u)
      << text;
  auto parsed = nlohmann::json::parse(text);
  EXPECT_EQ(parsed["note"], "a \"quoted\"\nline");
}

// The process's level and format reach every Logger made without a level of its own: text lines
// for a terminal (a value quoted only when it must be), and warn hiding info.
TEST(Logger, TheProcessLevelAndFormatGovernEveryLoggerWithoutItsOwnLevel) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  Logger log(out, std::nullopt,
             [] { return std::chrono::system_clock::time_point(std::chrono::seconds(1)); });
  log.AddContext("origin", "ledger");
  SetProcessLogging(LogLevel::kWarn, LogFormat::kText);
  log.Info("hidden at warn");
  log.Warn("flush failed", {{"rows", int64_t{8}}, {"error", std::string_view("503 SlowDown: a=b")},
                            {"empty", std::string_view("")}, {"ok", false}});
  SetProcessLogging(LogLevel::kDebug, LogFormat::kJson);
  log.Debug("shown at debug");
  SetProcessLogging(LogLevel::kInfo, LogFormat::kJson);  // as every other test expects
  log.Debug("hidden again");
  std::fclose(out);
  const std::string text(buffer, size);
  free(buffer);
  EXPECT_EQ(text,
            "1970-01-01T00:00:01.000Z WARN  flush failed origin=ledger rows=8 "
            "error=\"503 SlowDown: a=b\" empty=\"\" ok=false\n"
            "{\"time\":\"1970-01-01T00:00:01.000Z\",\"level\":\"DEBUG\",\"msg\":\"shown at "
            "debug\",\"origin\":\"ledger\"}\n");
}

TEST(Logger, LevelAndFormatNamesParseAndNothingElseDoes) {
  LogLevel level = LogLevel::kInfo;
  LogFormat format = LogFormat::kJson;
  EXPECT_TRUE(ParseLogLevel("debug", &level));
  EXPECT_EQ(level, LogLevel::kDebug);
  EXPECT_TRUE(ParseLogLevel("error", &level));
  EXPECT_EQ(level, LogLevel::kError);
  EXPECT_FALSE(ParseLogLevel("verbose", &level));
  EXPECT_FALSE(ParseLogLevel("INFO", &level));
  EXPECT_TRUE(ParseLogFormat("text", &format));
  EXPECT_EQ(format, LogFormat::kText);
  EXPECT_FALSE(ParseLogFormat("logfmt", &format));
}

}  // namespace
}  // namespace sinkd
