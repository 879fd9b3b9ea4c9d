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

}  // namespace
}  // namespace sinkd
