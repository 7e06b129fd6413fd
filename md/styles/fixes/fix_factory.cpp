// make_fix: dispatch from a fix style name to its constructor.
#include <cstdint>

#include "md/styles/fixes/fix_styles.hpp"

namespace wmd::md {

const std::vector<std::string>& fix_styles() {
  static const std::vector<std::string> s = {"nve",      "langevin",          "nvt",
                                             "npt",      "temp/berendsen",    "press/berendsen",
                                             "dt/reset", "electron/stopping", "balance"};
  return s;
}

std::unique_ptr<Fix> make_fix(const std::string& id, uint32_t group, const std::string& style,
                              io::ArgCursor& a, const FixBuildContext& ctx) {
  if (style == "nve") return make_fix_nve(id, group, a);
  if (style == "langevin") return make_fix_langevin(id, group, a);
  if (style == "nvt" || style == "npt") return make_fix_nh(id, group, style, a);
  if (style == "temp/berendsen") return make_fix_temp_berendsen(id, group, a);
  if (style == "press/berendsen") return make_fix_press_berendsen(id, group, a);
  if (style == "dt/reset") return make_fix_dt_reset(id, group, a, ctx);
  if (style == "electron/stopping") return make_fix_electron_stopping(id, group, a, ctx);
  if (style == "balance") return make_fix_balance(id, group, a, ctx);
  std::string list;
  for (const auto& s : fix_styles()) list += (list.empty() ? "" : ", ") + s;
  a.fail("fix style '" + style + "' is not supported (supported: " + list + ")");
}

// splitmix64 finaliser: a bijective 64-bit mix with good avalanche, enough for thermostat noise.
static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double hashed_uniform(uint64_t seed, int64_t id, int64_t step, int stream) {
  uint64_t h = mix64(seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL);
  h = mix64(h ^ static_cast<uint64_t>(id));
  h = mix64(h ^ (static_cast<uint64_t>(step) * 4 + static_cast<uint64_t>(stream)));
  return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace wmd::md
