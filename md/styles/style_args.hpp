// Arguments that several fix and compute styles read the same way, with the same errors.
#pragma once
#include <map>
#include <string>

#include "io/command.hpp"
#include "md/core/region.hpp"

namespace wmd::md {

/// The region named by the cursor's next word (a style's `region ID`); one the script has not defined fails
/// at the command's line as "WHO: region ID does not exist".
inline const Region& region_arg(io::ArgCursor& a, const std::map<std::string, Region>& regions,
                                const std::string& who) {
  const std::string id = a.word("a region ID");
  const auto it = regions.find(id);
  if (it == regions.end()) a.fail(who + ": region " + id + " does not exist");
  return it->second;
}

/// fx fy fz of fix setforce and fix aveforce: each a number, or NULL to leave that component alone (set[d]
/// false). Variable components (v_NAME) are refused.
inline void force_components_arg(io::ArgCursor& a, const std::string& who, bool set[3], double value[3]) {
  for (int d = 0; d < 3; ++d) {
    const std::string w = a.word("three force components (eV/Å, or NULL)");
    set[d] = w != "NULL";
    value[d] = 0.0;
    if (w.rfind("v_", 0) == 0) a.fail(who + ": variable components (" + w + ") are not supported");
    if (set[d] && !io::parse_double(w, value[d])) a.fail(who + " expected a number or NULL, got '" + w + "'");
  }
}

}  // namespace wmd::md
