// What every fuzz harness shares: wafermd's own errors (bad input, failed run) are the expected answers to
// hostile bytes; anything else escaping the parser (another exception, a crash) is a finding.
#pragma once
#include <cstdint>
#include <string>

#include "base/error.hpp"

namespace wmd::fuzz {

/// Runs `parse` on the input; InputError and RunError are expected outcomes and are swallowed.
template <class F>
int guarded(F&& parse) {
  try {
    parse();
  } catch (const wmd::InputError&) {
  } catch (const wmd::RunError&) {
  }
  return 0;
}

inline std::string as_text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace wmd::fuzz
