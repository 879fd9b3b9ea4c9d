#include <cstdio>

#include "base/build_info.h"

int main() {
  std::printf("sinkd version %s (build %s)\n", sinkd::kVersion, sinkd::kBuildId);
  return 0;
}
