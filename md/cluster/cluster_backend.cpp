#include "md/cluster/cluster_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "base/error.hpp"
#include "md/eam_half_kernels.hpp"

namespace wmd::md {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

const char* axis_name(int d) {
  return d == 0 ? "x" : d == 1 ? "y" : "z";
}

// Applies periodic wrapping, fixed-face loss checks and shrink-wrapping, as LAMMPS does at reneighbouring.
void enforce_boundaries(State& s) {
  Atoms& a = s.atoms;
  const size_t n = a.size();
  double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
  int* img[3] = {a.ix.data(), a.iy.data(), a.iz.data()};
  for (size_t i = 0; i < n; ++i) {
    for (int d = 0; d < 3; ++d) {
      if (!std::isfinite(pos[d][i])) {
        throw RunError("atom " + std::to_string(a.id[i]) + " has a non-finite " + axis_name(d) +
                       " coordinate at step " + std::to_string(s.step));
      }
    }
  }
  for (int d = 0; d < 3; ++d) {
    Box& b = s.box;
    if (b.periodic(d)) {
      for (size_t i = 0; i < n; ++i) wrap_periodic(pos[d][i], img[d][i], b.lo[d], b.hi[d]);
      continue;
    }
    double lo = b.lo[d], hi = b.hi[d];
    if (n > 0 && (b.face[d][0] != Face::fixed || b.face[d][1] != Face::fixed)) {
      const auto [mn, mx] = std::minmax_element(pos[d], pos[d] + n);
      const double small = 1.0e-4 * std::max(b.prd(d), 1.0e-10);
      if (b.face[d][0] == Face::shrink) lo = *mn - small;
      if (b.face[d][0] == Face::shrink_min) lo = std::min(*mn - small, b.min_lo[d]);
      if (b.face[d][1] == Face::shrink) hi = *mx + small;
      if (b.face[d][1] == Face::shrink_min) hi = std::max(*mx + small, b.min_hi[d]);
      b.lo[d] = lo, b.hi[d] = hi;
    }
    for (size_t i = 0; i < n; ++i) {
      if (pos[d][i] < b.lo[d] || pos[d][i] >= b.hi[d]) {
        throw RunError("lost atom " + std::to_string(a.id[i]) +
                       ": it left the box through the non-periodic " + axis_name(d) + " boundary at step " +
                       std::to_string(s.step) + " (" + axis_name(d) + " = " + std::to_string(pos[d][i]) +
                       ")");
      }
    }
  }
}

}  // namespace

void ClusterBackend::setup(State& s, const potentials::EamTables& tables, const NeighborSettings& nb,
                           bool eatom) {
  ensure_kokkos();
  if (tables_ != &tables || pair_tables_.nr != tables.nr || pair_tables_.rdr != tables.rdr) {
    pair_tables_ = pack_pair_tables(tables, precision_ != PairPrecision::fp64);
  }
  tables_ = &tables;
  nb_ = nb;
  stats_ = NeighborStats{};
  times_ = PhaseTimes{};
  rebuild(s);
  forces(s, eatom);
}

void ClusterBackend::compute(State& s, bool eatom) {
  if (rebuild_due(s)) {
    rebuild(s);
  } else {
    const auto t0 = std::chrono::steady_clock::now();
    update_ghost_positions(s.box, s.atoms.x.data(), s.atoms.y.data(), s.atoms.z.data(), images_);
    times_.comm += seconds_since(t0);
  }
  forces(s, eatom);
}

bool ClusterBackend::rebuild_due(const State& s) {
  ++ago_;
  if (nb_.once) return false;
  if (ago_ < nb_.delay || ago_ % nb_.every != 0) return false;
  if (!nb_.check) return true;
  const double trigger = 0.25 * nb_.skin * nb_.skin;
  const Atoms& a = s.atoms;
  for (size_t i = 0; i < a.size(); ++i) {
    const double dx = a.x[i] - xhold_[3 * i], dy = a.y[i] - xhold_[3 * i + 1],
                 dz = a.z[i] - xhold_[3 * i + 2];
    if (dx * dx + dy * dy + dz * dz > trigger) {
      if (ago_ == std::max(nb_.every, nb_.delay)) ++stats_.dangerous;
      return true;
    }
  }
  return false;
}

void ClusterBackend::rebuild(State& s) {
  const auto t0 = std::chrono::steady_clock::now();
  enforce_boundaries(s);
  Atoms& a = s.atoms;
  const int n = static_cast<int>(a.size());
  const double cutneigh = tables_->cutmax + nb_.skin;
  build_ghost_images(s.box, a.x.data(), a.y.data(), a.z.data(), a.type.data(), n, cutneigh, images_);
  build_half_list(images_, cutneigh, list_);
  xhold_.resize(3 * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    xhold_[3 * i] = a.x[i], xhold_[3 * i + 1] = a.y[i], xhold_[3 * i + 2] = a.z[i];
  }
  ago_ = 0;
  ++stats_.builds;
  stats_.pairs = list_.size();
  stats_.ghosts = images_.nall() - images_.nlocal;
  times_.neigh += seconds_since(t0);
}

void ClusterBackend::forces(State& s, bool eatom) {
  const auto t0 = std::chrono::steady_clock::now();
  const int nall = images_.nall(), nlocal = images_.nlocal;
  if (rho_.extent(0) < static_cast<size_t>(nall)) {
    // Grow with slack so small changes in the ghost count do not reallocate at every rebuild.
    const size_t cap = static_cast<size_t>(nall) + nall / 8 + 64;
    rho_ =
        Kokkos::View<double*, Kokkos::HostSpace>(Kokkos::view_alloc("rho", Kokkos::WithoutInitializing), cap);
    fp_ =
        Kokkos::View<double*, Kokkos::HostSpace>(Kokkos::view_alloc("fp", Kokkos::WithoutInitializing), cap);
    f_ = Kokkos::View<double*, Kokkos::HostSpace>(Kokkos::view_alloc("f", Kokkos::WithoutInitializing),
                                                  3 * cap);
  }
  const HostView<double> rho(rho_.data(), nall), fp(fp_.data(), nall),
      f(f_.data(), 3 * static_cast<size_t>(nall));
  double* ea = nullptr;
  if (eatom) {
    eatom_.assign(nall, 0.0);
    ea = eatom_.data();
  }
  const HalfPairs hp = half_pairs(images_, list_);
  eam_density_half(pair_tables_, hp, precision_, rho);
  times_.pair += seconds_since(t0);
  reverse_density();
  const auto t1 = std::chrono::steady_clock::now();
  result_ = ForceResult{};
  result_.energy = eam_embed(*tables_, hp, rho, fp, ea);
  times_.pair += seconds_since(t1);
  forward_fp();
  const auto t2 = std::chrono::steady_clock::now();
  Kokkos::deep_copy(f, 0.0);
  result_.energy += eam_force_half(pair_tables_, hp, precision_, fp, f, result_.virial, ea);
  times_.pair += seconds_since(t2);
  reverse_forces(ea);
  Atoms& a = s.atoms;
  for (int i = 0; i < nlocal; ++i) {
    a.fx[i] = f(3 * i), a.fy[i] = f(3 * i + 1), a.fz[i] = f(3 * i + 2);
  }
  if (eatom) result_.eatom.assign(eatom_.begin(), eatom_.begin() + nlocal);
}

void ClusterBackend::reverse_density() {
  const auto t0 = std::chrono::steady_clock::now();
  for (int j = images_.nlocal; j < images_.nall(); ++j) rho_(images_.rec[j].owner) += rho_(j);
  times_.comm += seconds_since(t0);
}

void ClusterBackend::forward_fp() {
  const auto t0 = std::chrono::steady_clock::now();
  for (int j = images_.nlocal; j < images_.nall(); ++j) fp_(j) = fp_(images_.rec[j].owner);
  times_.comm += seconds_since(t0);
}

void ClusterBackend::reverse_forces(double* eatom) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int j = images_.nlocal; j < images_.nall(); ++j) {
    const int o = images_.rec[j].owner;
    f_(3 * o) += f_(3 * j), f_(3 * o + 1) += f_(3 * j + 1), f_(3 * o + 2) += f_(3 * j + 2);
    if (eatom) eatom[o] += eatom[j];
  }
  times_.comm += seconds_since(t0);
}

}  // namespace wmd::md
