// Counter-based random numbers: a uniform deviate from a hash of (seed, atom id, step, stream), the same
// whichever rank owns the atom (LAMMPS draws from one RanMars stream per rank instead, so its noise depends
// on the rank count).
#pragma once
#include <cstdint>

namespace wmd::md {

/// Uniform deviate in [0, 1) for atom `id` at `step`, component `stream`.
inline double hashed_uniform(uint64_t seed, int64_t id, int64_t step, int stream) {
  // splitmix64 finaliser: a bijective 64-bit mix with good avalanche, enough for thermostat noise.
  auto mix64 = [](uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  uint64_t h = mix64(seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL);
  h = mix64(h ^ static_cast<uint64_t>(id));
  h = mix64(h ^ (static_cast<uint64_t>(step) * 4 + static_cast<uint64_t>(stream)));
  return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace wmd::md
