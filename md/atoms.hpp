// Per-atom state in structure-of-arrays form: what every backend and the run loop share.
#pragma once
#include <cstdint>
#include <vector>

namespace wmd::md {

struct Atoms {
  std::vector<double> x, y, z;     // positions, Å
  std::vector<double> vx, vy, vz;  // velocities, Å/ps
  std::vector<double> fx, fy, fz;  // forces, eV/Å
  std::vector<int> type;           // 1..ntypes
  std::vector<int64_t> id;         // 1..N, unique
  std::vector<int> ix, iy, iz;     // periodic image counts
  std::vector<uint32_t> mask;      // group membership bits (bit 0: all)

  /// Number of atoms.
  size_t size() const { return x.size(); }
  /// Appends one atom at rest with no force.
  void add(int64_t tag, int t, double px, double py, double pz) {
    x.push_back(px), y.push_back(py), z.push_back(pz);
    vx.push_back(0.0), vy.push_back(0.0), vz.push_back(0.0);
    fx.push_back(0.0), fy.push_back(0.0), fz.push_back(0.0);
    type.push_back(t), id.push_back(tag);
    ix.push_back(0), iy.push_back(0), iz.push_back(0);
    mask.push_back(1u);
  }
  /// Largest atom id (0 when empty).
  int64_t max_id() const {
    int64_t m = 0;
    for (int64_t t : id) m = t > m ? t : m;
    return m;
  }
};

}  // namespace wmd::md
