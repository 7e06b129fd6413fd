#include "md/cluster/ghost_images.hpp"

#include <cmath>
#include <cstdio>

#include "base/memory_budget.hpp"

namespace wmd::md {

void check_ghost_budget(const Box& box, const int grid[3], int64_t nlocal, double cut) {
  if (!std::isfinite(cut) || cut < 0.0)
    fail_input(SourcePos{}, "the neighbour cutoff (pair cutoff + skin) is not a finite distance");
  if (nlocal <= 0) return;
  // Records: owned atoms times, per direction, the sub-domain widened by the cutoff on both sides.
  double records = static_cast<double>(nlocal), volume = 1.0;
  for (int d = 0; d < 3; ++d) {
    const double sub = box.prd(d) / grid[d];
    volume *= sub;
    if (box.periodic(d) || grid[d] > 1) records *= 1.0 + 2.0 * cut / sub;
  }
  // Half-list pairs: each atom's neighbours within the cutoff at the sub-domain's density, at most all.
  const double sphere = 4.18879 * cut * cut * cut * static_cast<double>(nlocal) / volume;
  const double pairs = 0.5 * static_cast<double>(nlocal) * std::fmin(records, sphere);
  // 32-byte records, their shifts, bin keys and sorted copies (~88 bytes); 4 bytes per pair.
  char what[96];
  std::snprintf(what, sizeof what, "the ghost atoms and neighbour list for a cutoff of %.4g Å", cut);
  memory::check_allocation(what, 88.0 * records + 4.0 * pairs);
}

void build_ghost_images(const Box& box, const double* x, const double* y, const double* z, const int* type,
                        int nlocal, double cut, GhostImages& out) {
  const int grid[3] = {1, 1, 1};
  check_ghost_budget(box, grid, nlocal, cut);
  out.nlocal = nlocal;
  out.rec.resize(nlocal);
  out.shift.clear();
  for (int i = 0; i < nlocal; ++i) out.rec[i] = PosRec{x[i], y[i], z[i], type[i], i};
  std::vector<int> shift_all(3 * static_cast<size_t>(nlocal), 0);
  // One direction at a time, imaging owned atoms and the images made so far, as LAMMPS's swaps do.
  for (int d = 0; d < 3; ++d) {
    if (!box.periodic(d)) continue;
    const double len = box.prd(d);
    const int kmax = static_cast<int>(std::ceil(cut / len)) + 1;
    const int n = static_cast<int>(out.rec.size());
    for (int a = 0; a < n; ++a) {
      for (int k = -kmax; k <= kmax; ++k) {
        if (k == 0) continue;
        PosRec r = out.rec[a];
        double* c = d == 0 ? &r.x : d == 1 ? &r.y : &r.z;
        *c += k * len;
        if (*c < box.lo[d] - cut || *c >= box.hi[d] + cut) continue;
        out.rec.push_back(r);
        shift_all.insert(shift_all.end(), {shift_all[3 * a], shift_all[3 * a + 1], shift_all[3 * a + 2]});
        shift_all[shift_all.size() - 3 + d] += k;
      }
    }
  }
  out.shift.assign(shift_all.begin() + 3 * static_cast<size_t>(nlocal), shift_all.end());
}

void update_ghost_positions(const Box& box, const double* x, const double* y, const double* z,
                            GhostImages& g) {
  for (int i = 0; i < g.nlocal; ++i) {
    g.rec[i].x = x[i];
    g.rec[i].y = y[i];
    g.rec[i].z = z[i];
  }
  const double lx = box.prd(0), ly = box.prd(1), lz = box.prd(2);
  const int nall = g.nall();
  for (int j = g.nlocal; j < nall; ++j) {
    const int* s = g.shift_of(j);
    const int o = g.rec[j].owner;
    g.rec[j].x = x[o] + s[0] * lx;
    g.rec[j].y = y[o] + s[1] * ly;
    g.rec[j].z = z[o] + s[2] * lz;
  }
}

}  // namespace wmd::md
