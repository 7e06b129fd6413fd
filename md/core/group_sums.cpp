#include "md/core/group_sums.hpp"

#include <algorithm>
#include <cmath>

#include "base/units.hpp"
#include "md/core/kinetic_energy.hpp"
#include "md/core/unwrapped_position.hpp"

namespace wmd::md {
namespace {

// LAMMPS's Group: a determinant above this inverts I directly; principal moments below it (relative to the
// largest) count as zero.
constexpr double kEpsilon = 1.0e-6;
constexpr double kBig = 1.0e20;

// The unwrapped position of atom i (LAMMPS's domain->unmap, triclinic boxes too).
void unwrapped(const State& s, size_t i, double u[3]) {
  unwrapped_position(s, i, u);
}

void totals(const TermSum& sum, double* out, int n) {
  const std::vector<double> t = sum.total();
  for (int k = 0; k < n; ++k) out[k] = t[k];
}

// Eigenvalues d and eigenvectors (columns of v) of a symmetric 3×3 matrix by cyclic Jacobi rotations.
void symmetric_eigen(const double m[3][3], double d[3], double v[3][3]) {
  double a[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a[i][j] = m[i][j], v[i][j] = i == j ? 1.0 : 0.0;
  for (int sweep = 0; sweep < 100; ++sweep) {
    const double off = std::fabs(a[0][1]) + std::fabs(a[0][2]) + std::fabs(a[1][2]);
    if (off == 0.0) break;
    for (int p = 0; p < 2; ++p) {
      for (int q = p + 1; q < 3; ++q) {
        if (a[p][q] == 0.0) continue;
        const double theta = 0.5 * (a[q][q] - a[p][p]) / a[p][q];
        const double t = (theta >= 0.0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < 3; ++k) {  // A ← A·J
          const double akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - s * akq, a[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; ++k) {  // A ← Jᵀ·A
          const double apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - s * aqk, a[q][k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 3; ++k) {
          const double vkp = v[k][p], vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq, v[k][q] = s * vkp + c * vkq;
        }
      }
    }
  }
  for (int i = 0; i < 3; ++i) d[i] = a[i][i];
}

}  // namespace

int64_t group_count(const GroupSelection& g) {
  int64_t n = 0;
  for (size_t i = 0; i < g.s.atoms.size(); ++i) n += g.selected(i) ? 1 : 0;
  return g.comm.sum(n);
}

double group_mass(const GroupSelection& g) {
  TermSum sum(g.comm, 1);
  for (size_t i = 0; i < g.s.atoms.size(); ++i)
    if (g.selected(i)) sum.add(0, g.s.mass[g.s.atoms.type[i]]);
  return sum.total()[0];
}

void group_xcm(const GroupSelection& g, double mass, double cm[3]) {
  TermSum sum(g.comm, 3);
  for (size_t i = 0; i < g.s.atoms.size(); ++i) {
    if (!g.selected(i)) continue;
    double u[3];
    unwrapped(g.s, i, u);
    const double m = g.s.mass[g.s.atoms.type[i]];
    for (int d = 0; d < 3; ++d) sum.add(d, u[d] * m);
  }
  totals(sum, cm, 3);
  if (mass > 0.0)
    for (int d = 0; d < 3; ++d) cm[d] /= mass;
}

void group_vcm(const GroupSelection& g, double mass, double cm[3]) {
  const Atoms& a = g.s.atoms;
  TermSum sum(g.comm, 3);
  for (size_t i = 0; i < a.size(); ++i) {
    if (!g.selected(i)) continue;
    const double m = g.s.mass[a.type[i]];
    sum.add(0, a.vx[i] * m), sum.add(1, a.vy[i] * m), sum.add(2, a.vz[i] * m);
  }
  totals(sum, cm, 3);
  if (mass > 0.0)
    for (int d = 0; d < 3; ++d) cm[d] /= mass;
}

void group_fcm(const GroupSelection& g, double f[3]) {
  const Atoms& a = g.s.atoms;
  TermSum sum(g.comm, 3);
  for (size_t i = 0; i < a.size(); ++i)
    if (g.selected(i)) sum.add(0, a.fx[i]), sum.add(1, a.fy[i]), sum.add(2, a.fz[i]);
  totals(sum, f, 3);
}

void group_bounds(const GroupSelection& g, double minmax[6]) {
  const Atoms& a = g.s.atoms;
  const double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
  // Minima negated, so that one maximum reduces all six (exact at any rank count).
  double e[6] = {-kBig, -kBig, -kBig, -kBig, -kBig, -kBig};
  for (size_t i = 0; i < a.size(); ++i) {
    if (!g.selected(i)) continue;
    for (int d = 0; d < 3; ++d)
      e[2 * d] = std::max(e[2 * d], -pos[d][i]), e[2 * d + 1] = std::max(e[2 * d + 1], pos[d][i]);
  }
  g.comm.max(e, 6);
  for (int d = 0; d < 3; ++d) minmax[2 * d] = -e[2 * d], minmax[2 * d + 1] = e[2 * d + 1];
}

double group_gyration(const GroupSelection& g, double mass, const double cm[3]) {
  TermSum sum(g.comm, 1);
  for (size_t i = 0; i < g.s.atoms.size(); ++i) {
    if (!g.selected(i)) continue;
    double u[3];
    unwrapped(g.s, i, u);
    const double dx = u[0] - cm[0], dy = u[1] - cm[1], dz = u[2] - cm[2];
    sum.add(0, (dx * dx + dy * dy + dz * dz) * g.s.mass[g.s.atoms.type[i]]);
  }
  const double rg = sum.total()[0];
  return mass > 0.0 ? std::sqrt(rg / mass) : 0.0;
}

double group_ke(const GroupSelection& g) {
  const auto in = [&g](const Atoms&, size_t i) { return g.selected(i); };
  return kinetic_sums(g.s, g.comm, kKineticScalar, in).mv2 * 0.5 * units::mvv2e;
}

void group_angmom(const GroupSelection& g, const double cm[3], double l[3]) {
  const Atoms& a = g.s.atoms;
  TermSum sum(g.comm, 3);
  for (size_t i = 0; i < a.size(); ++i) {
    if (!g.selected(i)) continue;
    double u[3];
    unwrapped(g.s, i, u);
    const double dx = u[0] - cm[0], dy = u[1] - cm[1], dz = u[2] - cm[2], m = g.s.mass[a.type[i]];
    sum.add(0, m * (dy * a.vz[i] - dz * a.vy[i]));
    sum.add(1, m * (dz * a.vx[i] - dx * a.vz[i]));
    sum.add(2, m * (dx * a.vy[i] - dy * a.vx[i]));
  }
  totals(sum, l, 3);
}

void group_torque(const GroupSelection& g, const double cm[3], double t[3]) {
  const Atoms& a = g.s.atoms;
  TermSum sum(g.comm, 3);
  for (size_t i = 0; i < a.size(); ++i) {
    if (!g.selected(i)) continue;
    double u[3];
    unwrapped(g.s, i, u);
    const double dx = u[0] - cm[0], dy = u[1] - cm[1], dz = u[2] - cm[2];
    sum.add(0, dy * a.fz[i] - dz * a.fy[i]);
    sum.add(1, dz * a.fx[i] - dx * a.fz[i]);
    sum.add(2, dx * a.fy[i] - dy * a.fx[i]);
  }
  totals(sum, t, 3);
}

void group_inertia(const GroupSelection& g, const double cm[3], double inertia[3][3]) {
  const Atoms& a = g.s.atoms;
  TermSum sum(g.comm, 6);  // xx yy zz xy yz xz
  for (size_t i = 0; i < a.size(); ++i) {
    if (!g.selected(i)) continue;
    double u[3];
    unwrapped(g.s, i, u);
    const double dx = u[0] - cm[0], dy = u[1] - cm[1], dz = u[2] - cm[2], m = g.s.mass[a.type[i]];
    sum.add(0, m * (dy * dy + dz * dz)), sum.add(1, m * (dx * dx + dz * dz)),
        sum.add(2, m * (dx * dx + dy * dy));
    sum.add(3, -m * dx * dy), sum.add(4, -m * dy * dz), sum.add(5, -m * dx * dz);
  }
  double t[6];
  totals(sum, t, 6);
  inertia[0][0] = t[0], inertia[1][1] = t[1], inertia[2][2] = t[2];
  inertia[0][1] = inertia[1][0] = t[3];
  inertia[1][2] = inertia[2][1] = t[4];
  inertia[0][2] = inertia[2][0] = t[5];
}

void group_omega(const double l[3], const double in[3][3], double w[3]) {
  const double det = in[0][0] * in[1][1] * in[2][2] + in[0][1] * in[1][2] * in[2][0] +
                     in[0][2] * in[1][0] * in[2][1] - in[0][0] * in[1][2] * in[2][1] -
                     in[0][1] * in[1][0] * in[2][2] - in[2][0] * in[1][1] * in[0][2];
  if (det > kEpsilon) {
    // The adjugate over the determinant (LAMMPS's cofactor order, for its rounding).
    double inv[3][3];
    inv[0][0] = in[1][1] * in[2][2] - in[1][2] * in[2][1];
    inv[0][1] = -(in[0][1] * in[2][2] - in[0][2] * in[2][1]);
    inv[0][2] = in[0][1] * in[1][2] - in[0][2] * in[1][1];
    inv[1][0] = -(in[1][0] * in[2][2] - in[1][2] * in[2][0]);
    inv[1][1] = in[0][0] * in[2][2] - in[0][2] * in[2][0];
    inv[1][2] = -(in[0][0] * in[1][2] - in[0][2] * in[1][0]);
    inv[2][0] = in[1][0] * in[2][1] - in[1][1] * in[2][0];
    inv[2][1] = -(in[0][0] * in[2][1] - in[0][1] * in[2][0]);
    inv[2][2] = in[0][0] * in[1][1] - in[0][1] * in[1][0];
    for (auto& row : inv)
      for (double& x : row) x /= det;
    for (int d = 0; d < 3; ++d) w[d] = inv[d][0] * l[0] + inv[d][1] * l[1] + inv[d][2] * l[2];
    return;
  }
  // Singular: ω = Σ over principal axes e with a non-zero moment of (L·e)/I_e · e.
  double idiag[3], ev[3][3];
  symmetric_eigen(in, idiag, ev);
  const double mx = std::max({idiag[0], idiag[1], idiag[2]});
  w[0] = w[1] = w[2] = 0.0;
  for (int k = 0; k < 3; ++k) {
    if (idiag[k] < kEpsilon * mx || idiag[k] == 0.0) continue;
    const double lk = (l[0] * ev[0][k] + l[1] * ev[1][k] + l[2] * ev[2][k]) / idiag[k];
    for (int d = 0; d < 3; ++d) w[d] += lk * ev[d][k];
  }
}

}  // namespace wmd::md
