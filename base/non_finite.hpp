// Whether an array holds an infinity or a NaN, in one branch-free pass over the exponent bits (all ones),
// which the compiler vectorises: the per-step checks of forces, velocities and densities on large runs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace wmd {

inline bool any_non_finite(const double* v, size_t n) {
  constexpr uint64_t kExponent = 0x7ff0000000000000ull;
  uint64_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    uint64_t bits;
    std::memcpy(&bits, v + i, sizeof bits);
    bad |= (bits & kExponent) == kExponent;
  }
  return bad != 0;
}

}  // namespace wmd
