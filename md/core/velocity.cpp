#include "md/core/velocity.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "base/units.hpp"
#include "md/core/kinetic_energy.hpp"
#include "md/core/random_park.hpp"
#include "md/core/unwrapped_position.hpp"

namespace wmd::md {
namespace {
constexpr int kWarmup = 100;  // LAMMPS discards this many numbers after seeding a per-rank generator
}

int64_t group_count(const State& s, const Comm& comm, uint32_t group) {
  int64_t n = 0;
  for (uint32_t m : s.atoms.mask) n += (m & group) ? 1 : 0;
  return comm.sum(n);
}

double group_temperature(const State& s, const Comm& comm, uint32_t group, double* dof_out) {
  const double mv2 = group_mv2(s, comm, group);
  const double dof = 3.0 * static_cast<double>(group_count(s, comm, group)) - 3.0;
  if (dof_out) *dof_out = dof;
  return temperature_of(mv2, dof);
}

void zero_group_momentum(State& s, const Comm& comm, uint32_t group) {
  Atoms& a = s.atoms;
  TermSum mass(comm, 1), mom(comm, 3);
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a.mask[i] & group)) continue;
    mass.add(0, s.mass[a.type[i]]);
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a.mask[i] & group)) continue;
    const double m = s.mass[a.type[i]];
    mom.add(0, a.vx[i] * m);
    mom.add(1, a.vy[i] * m);
    mom.add(2, a.vz[i] * m);
  }
  const double masstotal = mass.total()[0];
  const std::vector<double> p = mom.total();
  if (masstotal <= 0.0) return;
  const double vcm[3] = {p[0] / masstotal, p[1] / masstotal, p[2] / masstotal};
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a.mask[i] & group)) continue;
    a.vx[i] -= vcm[0];
    a.vy[i] -= vcm[1];
    a.vz[i] -= vcm[2];
  }
}

void zero_group_rotation(State& s, const Comm& comm, uint32_t group) {
  Atoms& a = s.atoms;
  // LAMMPS's domain->unmap (triclinic boxes too).
  auto unwrapped = [&](size_t i, double u[3]) { unwrapped_position(s, i, u); };
  TermSum cms(comm, 4);
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a.mask[i] & group)) continue;
    const double m = s.mass[a.type[i]];
    double u[3];
    unwrapped(i, u);
    for (int d = 0; d < 3; ++d) cms.add(d, u[d] * m);
    cms.add(3, m);
  }
  const std::vector<double> cmt = cms.total();
  const double mtot = cmt[3];
  if (mtot <= 0.0) return;
  const double cm[3] = {cmt[0] / mtot, cmt[1] / mtot, cmt[2] / mtot};
  // Angular momentum (3) and the inertia tensor's xx yy zz xy yz xz (6), summed over all ranks.
  TermSum li(comm, 9);
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a.mask[i] & group)) continue;
    const double m = s.mass[a.type[i]];
    double u[3];
    unwrapped(i, u);
    const double dx = u[0] - cm[0], dy = u[1] - cm[1], dz = u[2] - cm[2];
    li.add(0, m * (dy * a.vz[i] - dz * a.vy[i]));
    li.add(1, m * (dz * a.vx[i] - dx * a.vz[i]));
    li.add(2, m * (dx * a.vy[i] - dy * a.vx[i]));
    li.add(3, m * (dy * dy + dz * dz));
    li.add(4, m * (dx * dx + dz * dz));
    li.add(5, m * (dx * dx + dy * dy));
    li.add(6, -m * dx * dy);
    li.add(7, -m * dy * dz);
    li.add(8, -m * dx * dz);
  }
  const std::vector<double> t = li.total();
  const double ang[3] = {t[0], t[1], t[2]};
  double in[3][3] = {{t[3], t[6], t[8]}, {0, t[4], t[7]}, {0, 0, t[5]}};
  in[1][0] = in[0][1], in[2][1] = in[1][2], in[2][0] = in[0][2];
  // ω = I⁻¹ L via the adjugate; a singular tensor (collinear atoms) leaves velocities unchanged.
  const double det = in[0][0] * (in[1][1] * in[2][2] - in[1][2] * in[2][1]) -
                     in[0][1] * (in[1][0] * in[2][2] - in[1][2] * in[2][0]) +
                     in[0][2] * (in[1][0] * in[2][1] - in[1][1] * in[2][0]);
  if (std::fabs(det) < 1e-12) return;
  double inv[3][3];
  inv[0][0] = (in[1][1] * in[2][2] - in[1][2] * in[2][1]) / det;
  inv[0][1] = -(in[0][1] * in[2][2] - in[0][2] * in[2][1]) / det;
  inv[0][2] = (in[0][1] * in[1][2] - in[0][2] * in[1][1]) / det;
  inv[1][0] = -(in[1][0] * in[2][2] - in[1][2] * in[2][0]) / det;
  inv[1][1] = (in[0][0] * in[2][2] - in[0][2] * in[2][0]) / det;
  inv[1][2] = -(in[0][0] * in[1][2] - in[0][2] * in[1][0]) / det;
  inv[2][0] = (in[1][0] * in[2][1] - in[1][1] * in[2][0]) / det;
  inv[2][1] = -(in[0][0] * in[2][1] - in[0][1] * in[2][0]) / det;
  inv[2][2] = (in[0][0] * in[1][1] - in[0][1] * in[1][0]) / det;
  double w[3];
  for (int r = 0; r < 3; ++r) w[r] = inv[r][0] * ang[0] + inv[r][1] * ang[1] + inv[r][2] * ang[2];
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a.mask[i] & group)) continue;
    double u[3];
    unwrapped(i, u);
    const double dx = u[0] - cm[0], dy = u[1] - cm[1], dz = u[2] - cm[2];
    a.vx[i] -= w[1] * dz - w[2] * dy;
    a.vy[i] -= w[2] * dx - w[0] * dz;
    a.vz[i] -= w[0] * dy - w[1] * dx;
  }
}

void scale_group_temperature(State& s, const Comm& comm, uint32_t group, double t_new) {
  const double t_old = group_temperature(s, comm, group);
  if (t_old <= 0.0) return;
  const double factor = std::sqrt(t_new / t_old);
  Atoms& a = s.atoms;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a.mask[i] & group)) continue;
    a.vx[i] *= factor;
    a.vy[i] *= factor;
    a.vz[i] *= factor;
  }
}

void velocity_create(State& s, const Comm& comm, const VelocityCreate& opt) {
  Atoms& a = s.atoms;
  const size_t n = a.size();
  std::vector<double> hold;
  if (opt.sum) {
    hold.reserve(3 * n);
    for (size_t i = 0; i < n; ++i) hold.insert(hold.end(), {a.vx[i], a.vy[i], a.vz[i]});
  }
  auto draw = [&](RandomPark& rng, double v[3]) {
    for (int d = 0; d < 3; ++d) v[d] = opt.gaussian ? rng.gaussian() : rng.uniform() - 0.5;
  };
  auto assign = [&](size_t i, const double v[3]) {
    const double factor = 1.0 / std::sqrt(s.mass[a.type[i]]);
    a.vx[i] = v[0] * factor;
    a.vy[i] = v[1] * factor;
    a.vz[i] = v[2] * factor;
  };
  if (opt.loop == VelocityLoop::all) {
    // One stream over ids 1..N on every rank, so the result does not depend on how atoms are distributed.
    const int64_t natoms = comm.sum(static_cast<int64_t>(n));
    bool bad = false;
    for (size_t i = 0; i < n; ++i) bad = bad || a.id[i] < 1 || a.id[i] > natoms;
    if (comm.any(bad))
      throw std::invalid_argument("atom ids must be consecutive 1..N for velocity create loop all");
    std::vector<int64_t> index_of(natoms + 1, -1);
    for (size_t i = 0; i < n; ++i) index_of[a.id[i]] = static_cast<int64_t>(i);
    RandomPark rng(opt.seed);
    for (int64_t id = 1; id <= natoms; ++id) {
      double v[3];
      draw(rng, v);
      const int64_t i = index_of[id];
      if (i >= 0 && (a.mask[i] & opt.group)) assign(static_cast<size_t>(i), v);
    }
  } else if (opt.loop == VelocityLoop::local) {
    RandomPark rng(opt.seed + comm.rank());  // LAMMPS: seed + rank, so it depends on the rank count
    for (int k = 0; k < kWarmup; ++k) rng.uniform();
    // In LAMMPS's array order (Atoms::order), which one-rank LAMMPS's stream follows.
    std::vector<size_t> by_order(n);
    for (size_t i = 0; i < n; ++i) by_order[i] = i;
    std::sort(by_order.begin(), by_order.end(), [&](size_t p, size_t q) { return a.order[p] < a.order[q]; });
    for (size_t i : by_order) {
      if (!(a.mask[i] & opt.group)) continue;
      double v[3];
      draw(rng, v);
      assign(i, v);
    }
  } else {
    RandomPark rng(opt.seed);
    for (size_t i = 0; i < n; ++i) {
      if (!(a.mask[i] & opt.group)) continue;
      const double coord[3] = {a.x[i], a.y[i], a.z[i]};
      rng.reset(opt.seed, coord);
      double v[3];
      draw(rng, v);
      assign(i, v);
    }
  }
  if (opt.zero_momentum) zero_group_momentum(s, comm, opt.group);
  if (opt.zero_rotation) zero_group_rotation(s, comm, opt.group);
  if (opt.temperature_of) {
    const double t_old = opt.temperature_of();
    if (t_old > 0.0) {
      const double factor = std::sqrt(opt.temperature / t_old);
      for (size_t i = 0; i < n; ++i)
        if (a.mask[i] & opt.group) a.vx[i] *= factor, a.vy[i] *= factor, a.vz[i] *= factor;
    }
  } else {
    scale_group_temperature(s, comm, opt.group, opt.temperature);
  }
  if (opt.sum) {
    for (size_t i = 0; i < n; ++i) {
      a.vx[i] += hold[3 * i], a.vy[i] += hold[3 * i + 1], a.vz[i] += hold[3 * i + 2];
    }
  }
}

}  // namespace wmd::md
