#include "md/velocity.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "base/units.hpp"
#include "md/random_park.hpp"

namespace wmd::md {
namespace {
constexpr int kWarmup = 100;  // LAMMPS discards this many numbers after seeding a per-rank generator
}

int64_t group_count(const State& s, uint32_t group) {
  int64_t n = 0;
  for (uint32_t m : s.atoms.mask) n += (m & group) ? 1 : 0;
  return n;
}

double group_temperature(const State& s, uint32_t group, double* dof_out) {
  const Atoms& a = s.atoms;
  double t = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a.mask[i] & group)
      t += (a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i]) * s.mass[a.type[i]];
  }
  const double dof = 3.0 * static_cast<double>(group_count(s, group)) - 3.0;
  if (dof_out) *dof_out = dof;
  if (dof <= 0.0) return 0.0;
  const double tfactor = units::mvv2e / (dof * units::boltz);
  return t * tfactor;
}

void zero_group_momentum(State& s, uint32_t group) {
  Atoms& a = s.atoms;
  double masstotal = 0.0, p[3] = {0.0, 0.0, 0.0};
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a.mask[i] & group)) continue;
    masstotal += s.mass[a.type[i]];
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a.mask[i] & group)) continue;
    const double m = s.mass[a.type[i]];
    p[0] += a.vx[i] * m;
    p[1] += a.vy[i] * m;
    p[2] += a.vz[i] * m;
  }
  if (masstotal <= 0.0) return;
  const double vcm[3] = {p[0] / masstotal, p[1] / masstotal, p[2] / masstotal};
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a.mask[i] & group)) continue;
    a.vx[i] -= vcm[0];
    a.vy[i] -= vcm[1];
    a.vz[i] -= vcm[2];
  }
}

void zero_group_rotation(State& s, uint32_t group) {
  Atoms& a = s.atoms;
  const double L[3] = {s.box.prd(0), s.box.prd(1), s.box.prd(2)};
  auto unwrapped = [&](size_t i, double u[3]) {
    u[0] = a.x[i] + a.ix[i] * L[0];
    u[1] = a.y[i] + a.iy[i] * L[1];
    u[2] = a.z[i] + a.iz[i] * L[2];
  };
  double mtot = 0.0, cm[3] = {0, 0, 0};
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a.mask[i] & group)) continue;
    const double m = s.mass[a.type[i]];
    double u[3];
    unwrapped(i, u);
    for (int d = 0; d < 3; ++d) cm[d] += u[d] * m;
    mtot += m;
  }
  if (mtot <= 0.0) return;
  for (double& c : cm) c /= mtot;
  double ang[3] = {0, 0, 0}, in[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a.mask[i] & group)) continue;
    const double m = s.mass[a.type[i]];
    double u[3];
    unwrapped(i, u);
    const double dx = u[0] - cm[0], dy = u[1] - cm[1], dz = u[2] - cm[2];
    ang[0] += m * (dy * a.vz[i] - dz * a.vy[i]);
    ang[1] += m * (dz * a.vx[i] - dx * a.vz[i]);
    ang[2] += m * (dx * a.vy[i] - dy * a.vx[i]);
    in[0][0] += m * (dy * dy + dz * dz);
    in[1][1] += m * (dx * dx + dz * dz);
    in[2][2] += m * (dx * dx + dy * dy);
    in[0][1] -= m * dx * dy;
    in[1][2] -= m * dy * dz;
    in[0][2] -= m * dx * dz;
  }
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

void scale_group_temperature(State& s, uint32_t group, double t_new) {
  const double t_old = group_temperature(s, group);
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

void velocity_create(State& s, const VelocityCreate& opt) {
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
    // One stream over ids 1..N, so the result does not depend on how atoms are distributed.
    const int64_t natoms = static_cast<int64_t>(n);
    std::vector<int64_t> index_of(natoms + 1, -1);
    for (size_t i = 0; i < n; ++i) {
      if (a.id[i] < 1 || a.id[i] > natoms) {
        throw std::invalid_argument("atom ids must be consecutive 1..N for velocity create loop all");
      }
      index_of[a.id[i]] = static_cast<int64_t>(i);
    }
    RandomPark rng(opt.seed);
    for (int64_t id = 1; id <= natoms; ++id) {
      double v[3];
      draw(rng, v);
      const int64_t i = index_of[id];
      if (i >= 0 && (a.mask[i] & opt.group)) assign(static_cast<size_t>(i), v);
    }
  } else if (opt.loop == VelocityLoop::local) {
    RandomPark rng(opt.seed);  // one rank: LAMMPS seeds with seed + rank
    for (int k = 0; k < kWarmup; ++k) rng.uniform();
    for (size_t i = 0; i < n; ++i) {
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
  if (opt.zero_momentum) zero_group_momentum(s, opt.group);
  if (opt.zero_rotation) zero_group_rotation(s, opt.group);
  scale_group_temperature(s, opt.group, opt.temperature);
  if (opt.sum) {
    for (size_t i = 0; i < n; ++i) {
      a.vx[i] += hold[3 * i], a.vy[i] += hold[3 * i + 1], a.vz[i] += hold[3 * i + 2];
    }
  }
}

}  // namespace wmd::md
