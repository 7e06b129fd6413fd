// The one kinetic-energy sum of md/. LAMMPS routes thermo, the thermostats and barostats and every
// temperature through compute temp; here thermo's temp/ke/press, the temperature computes (temp, temp/com,
// temp/partial, temp/region, temp/deform), compute ke, the group function ke(), fix nvt/npt,
// press/berendsen, temp/berendsen and temp/rescale (through their temperature computes), fix ave/chunk's
// temp and `velocity … scale` all add their per-atom terms here: compute temp's arithmetic ((v·v)·m for the
// scalar, (m·v_a)·v_b for the tensor) into one TermSum, so the non-deterministic sums are LAMMPS's (each rank
// in its atom order, then the ranks in rank order) and the deterministic ones exact at any rank count.
#pragma once
#include <cstddef>
#include <cstdint>

#include "base/units.hpp"
#include "md/core/comm.hpp"
#include "md/core/state.hpp"

namespace wmd::md {

/// The velocity of atom i as it is (a temperature without a bias).
struct AtomVelocity {
  void operator()(const Atoms& a, size_t i, double v[3]) const {
    v[0] = a.vx[i], v[1] = a.vy[i], v[2] = a.vz[i];
  }
};

/// The atoms whose mask has one of these group bits.
struct InGroup {
  uint32_t bit;
  bool operator()(const Atoms& a, size_t i) const { return (a.mask[i] & bit) != 0; }
};

/// What kinetic_sums adds up.
enum KineticParts : unsigned {
  kKineticScalar = 1u,  // Σ (v·v) m
  kKineticTensor = 2u,  // Σ (m v_a) v_b
};

struct KineticSums {
  double mv2 = 0.0;  // Σ (v·v) m, amu Å²/ps² (× mvv2e: twice the kinetic energy, eV)
  double tensor[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};  // Σ m v_a v_b × mvv2e, eV: xx yy zz xy xz yz
};

/// One atom's term of Σ (v·v) m, compute temp's arithmetic (also for sums kept apart per chunk: fix
/// ave/chunk's temp).
inline double mv2_term(const double v[3], double m) {
  return (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) * m;
}

/// Collective: the kinetic sums of the atoms `in(a, i)` selects, with the velocities `thermal(a, i, v)` gives
/// (a temperature's bias removed), over every rank — one TermSum, so one global reduction of 1, 6 or 7
/// values.
template <class Select, class Thermal = AtomVelocity>
KineticSums kinetic_sums(const State& s, const Comm& comm, unsigned parts, const Select& in,
                         const Thermal& thermal = {}) {
  const bool scalar = parts & kKineticScalar, tensor = parts & kKineticTensor;
  const int t0 = scalar ? 1 : 0;  // the tensor's first component
  TermSum sum(comm, t0 + (tensor ? 6 : 0));
  const Atoms& a = s.atoms;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!in(a, i)) continue;
    const double m = s.mass[a.type[i]];
    double v[3];
    thermal(a, i, v);
    if (scalar) sum.add(0, mv2_term(v, m));
    if (tensor) {
      sum.add(t0 + 0, m * v[0] * v[0]), sum.add(t0 + 1, m * v[1] * v[1]), sum.add(t0 + 2, m * v[2] * v[2]);
      sum.add(t0 + 3, m * v[0] * v[1]), sum.add(t0 + 4, m * v[0] * v[2]), sum.add(t0 + 5, m * v[1] * v[2]);
    }
  }
  const std::vector<double> t = sum.total();
  KineticSums out;
  if (scalar) out.mv2 = t[0];
  if (tensor)
    for (int k = 0; k < 6; ++k) out.tensor[k] = t[t0 + k] * units::mvv2e;
  return out;
}

/// Σ (v·v) m of a group's atoms (amu Å²/ps²), collective.
inline double group_mv2(const State& s, const Comm& comm, uint32_t group) {
  return kinetic_sums(s, comm, kKineticScalar, InGroup{group}).mv2;
}

/// The kinetic energy tensor Σ m v_a v_b · mvv2e (eV; xx yy zz xy xz yz) of a group's atoms, collective:
/// LAMMPS compute temp's vector.
inline void kinetic_tensor(const State& s, const Comm& comm, uint32_t group, double t[6]) {
  const KineticSums k = kinetic_sums(s, comm, kKineticTensor, InGroup{group});
  for (int c = 0; c < 6; ++c) t[c] = k.tensor[c];
}

/// LAMMPS compute temp's scalar from Σ (v·v) m and the degrees of freedom: mv2 · mvv2e/(dof·k_B); 0 without
/// degrees of freedom.
inline double temperature_of(double mv2, double dof) {
  return dof > 0.0 ? mv2 * (units::mvv2e / (dof * units::boltz)) : 0.0;
}

/// LAMMPS compute pressure's scalar (bar): (dof·k_B·T + W_xx + W_yy + W_zz)/3 /V · nktv2p, the virial in eV.
inline double pressure_scalar(double dof, double t, const double* virial, double volume) {
  const double w = virial ? virial[0] + virial[1] + virial[2] : 0.0;
  return (dof * units::boltz * t + w) / 3.0 * (1.0 / volume) * units::nktv2p;
}

/// LAMMPS compute pressure's tensor (bar): (kinetic tensor + virial) /V · nktv2p, component by component.
inline void pressure_tensor(const double* ke, const double* virial, double volume, double p[6]) {
  const double inv_volume = 1.0 / volume;
  for (int k = 0; k < 6; ++k)
    p[k] = ((ke ? ke[k] : 0.0) + (virial ? virial[k] : 0.0)) * inv_volume * units::nktv2p;
}

}  // namespace wmd::md
