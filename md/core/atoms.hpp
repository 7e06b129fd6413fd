// Per-atom state in structure-of-arrays form: what every backend and the run loop share.
#pragma once
#include <cstddef>
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
  // The atom's index in one-rank LAMMPS's atom arrays (creation order, then LAMMPS's deletions and spatial
  // sorts): what `delete_atoms … compress`, porosity and random subsets follow (md/core/lammps_order.hpp).
  std::vector<int64_t> order;

  /// Number of atoms.
  size_t size() const { return x.size(); }
  /// Appends one atom at rest with no force; `slot` is its place in LAMMPS's one-rank order (default: by id).
  void add(int64_t tag, int t, double px, double py, double pz, int64_t slot = -1) {
    x.push_back(px), y.push_back(py), z.push_back(pz);
    vx.push_back(0.0), vy.push_back(0.0), vz.push_back(0.0);
    fx.push_back(0.0), fy.push_back(0.0), fz.push_back(0.0);
    type.push_back(t), id.push_back(tag);
    ix.push_back(0), iy.push_back(0), iz.push_back(0);
    mask.push_back(1u);
    order.push_back(slot >= 0 ? slot : tag - 1);
  }
  /// Doubles `pack` writes per atom. Every per-atom field travels when atoms migrate between ranks: a field
  /// added above must be added to pack/unpack too.
  static constexpr int kPackSize = 16;
  /// Writes atom i's fields into out[0..kPackSize) (integers are exact in a double up to 2^53).
  void pack(size_t i, double* out) const {
    const double v[kPackSize] = {x[i],
                                 y[i],
                                 z[i],
                                 vx[i],
                                 vy[i],
                                 vz[i],
                                 fx[i],
                                 fy[i],
                                 fz[i],
                                 static_cast<double>(type[i]),
                                 static_cast<double>(id[i]),
                                 static_cast<double>(ix[i]),
                                 static_cast<double>(iy[i]),
                                 static_cast<double>(iz[i]),
                                 static_cast<double>(mask[i]),
                                 static_cast<double>(order[i])};
    for (int k = 0; k < kPackSize; ++k) out[k] = v[k];
  }
  /// Appends an atom written by pack.
  void unpack(const double* in) {
    x.push_back(in[0]), y.push_back(in[1]), z.push_back(in[2]);
    vx.push_back(in[3]), vy.push_back(in[4]), vz.push_back(in[5]);
    fx.push_back(in[6]), fy.push_back(in[7]), fz.push_back(in[8]);
    type.push_back(static_cast<int>(in[9])), id.push_back(static_cast<int64_t>(in[10]));
    ix.push_back(static_cast<int>(in[11])), iy.push_back(static_cast<int>(in[12])),
        iz.push_back(static_cast<int>(in[13]));
    mask.push_back(static_cast<uint32_t>(in[14]));
    order.push_back(static_cast<int64_t>(in[15]));
  }
  /// Keeps the atoms with keep[i] true, in their order.
  void compact(const std::vector<char>& keep) {
    size_t n = 0;
    while (n < size() && keep[n]) ++n;  // atoms before the first removed one stay where they are
    for (size_t i = n; i < size(); ++i) {
      if (!keep[i]) continue;
      x[n] = x[i], y[n] = y[i], z[n] = z[i], vx[n] = vx[i], vy[n] = vy[i], vz[n] = vz[i];
      fx[n] = fx[i], fy[n] = fy[i], fz[n] = fz[i], type[n] = type[i], id[n] = id[i];
      ix[n] = ix[i], iy[n] = iy[i], iz[n] = iz[i], mask[n] = mask[i], order[n] = order[i];
      ++n;
    }
    for (auto* v : {&x, &y, &z, &vx, &vy, &vz, &fx, &fy, &fz}) v->resize(n);
    type.resize(n), id.resize(n), ix.resize(n), iy.resize(n), iz.resize(n), mask.resize(n), order.resize(n);
  }
  /// Puts atom perm[k] at position k (perm is a permutation of 0..size()−1).
  void reorder(const std::vector<int>& perm) {
    auto apply = [&](auto& v) {
      auto old = v;
      for (size_t k = 0; k < perm.size(); ++k) v[k] = old[perm[k]];
    };
    for (auto* v : {&x, &y, &z, &vx, &vy, &vz, &fx, &fy, &fz}) apply(*v);
    apply(type), apply(id), apply(ix), apply(iy), apply(iz), apply(mask), apply(order);
  }
  /// Largest atom id (0 when empty).
  int64_t max_id() const {
    int64_t m = 0;
    for (int64_t t : id) m = t > m ? t : m;
    return m;
  }
};

}  // namespace wmd::md
