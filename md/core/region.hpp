// `region ID block xlo xhi ylo yhi zlo zhi [side in|out]`: the only region shape the LAMMPS subset needs.
#pragma once
#include <string>

namespace wmd::md {

struct Region {
  std::string id;
  double lo[3] = {0, 0, 0};
  double hi[3] = {0, 0, 0};
  bool inside = true;  // side in (true) or out

  /// LAMMPS block match: closed interval on every side, inverted for side out.
  bool match(double x, double y, double z) const {
    const bool in = x >= lo[0] && x <= hi[0] && y >= lo[1] && y <= hi[1] && z >= lo[2] && z <= hi[2];
    return in == inside;
  }
};

}  // namespace wmd::md
