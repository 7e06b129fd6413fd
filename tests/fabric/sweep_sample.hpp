// The model-against-simulator sweeps run every mesh size with WAFERMD_FULL_SWEEPS=1; by default a sample of
// sizes covers what the sweeps exist for (the smallest meshes, odd and even sizes, both sides of a power of
// two, the largest) and the other sizes report Skipped, so the test command stays short on a 2-core machine.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <string>

namespace wmd::test {

inline bool full_sweeps() {
  const char* v = std::getenv("WAFERMD_FULL_SWEEPS");
  return v && *v && std::string(v) != "0";
}

inline bool in_sample(int n, std::initializer_list<int> sample) {
  return std::find(sample.begin(), sample.end(), n) != sample.end();
}

}  // namespace wmd::test

/// Skips this sweep instance unless it is in the default sample or WAFERMD_FULL_SWEEPS is set.
#define WMD_SWEEP_SAMPLE(n, ...)                                                        \
  do {                                                                                  \
    if (!::wmd::test::full_sweeps() && !::wmd::test::in_sample((n), {__VA_ARGS__}))     \
      GTEST_SKIP() << "mesh size " << (n)                                               \
                   << " is outside the default sample (WAFERMD_FULL_SWEEPS=1 runs it)"; \
  } while (0)
