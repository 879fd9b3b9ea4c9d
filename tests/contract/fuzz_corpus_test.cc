// The fuzzer's committed seeds replayed through both decoders in every build (the fuzzer itself
// needs clang), so a regression on a known corner shows up in `make test-release` and under ASan.
#include <gtest/gtest.h>

#include <filesystem>

#include "decode_support.h"
#include "support/support.h"

namespace sinkd::contract::testing {
namespace {

TEST(FuzzCorpus, EverySeedDecodesTheSameThroughBothDecoders) {
  const std::filesystem::path dir = sinkd::testing::SourceDir() / "fuzz" / "corpus" / "decoder";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir << " is missing";
  int seeds = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string bytes = sinkd::testing::ReadFile(entry.path());
    SCOPED_TRACE(entry.path().filename().string());
    DecodeBoth(Envelope::kBatch, bytes);
    DecodeBoth(Envelope::kEvent, bytes);
    ++seeds;
  }
  EXPECT_GE(seeds, 10) << "the seed corpus lost its files";
}

}  // namespace
}  // namespace sinkd::contract::testing
