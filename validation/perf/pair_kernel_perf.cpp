// Times one rank's EAM force step (density, embedding, force passes and the image exchanges) on an fcc Cu
// crystal with thermal-size displacements, many times: the shortest step is the figure (this host's noise
// only ever slows a step down), so two builds compare by running this alternately. Usage:
// pair_kernel_perf [NX NY NZ [STEPS]], defaults 48 58 72 (the 801,792-atom in.cu801792) 40. WAFERMD_SIMD=NAME
// forces a SIMD target (base/simd.hpp).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "base/simd.hpp"
#include "md/cluster/cluster_backend.hpp"
#include "md/core/lattice.hpp"

using namespace wmd::md;
namespace pot = wmd::potentials;

namespace {

// An nx × ny × nz-cell fcc Cu crystal (a = 3.615 Å), every coordinate moved by up to ±0.1 Å.
State crystal(const int cells[3]) {
  State s;
  s.ntypes = 1;
  s.mass.assign(2, 63.546);
  Lattice lat;
  make_lattice("fcc", 3.615, lat);
  for (int d = 0; d < 3; ++d) s.box.lo[d] = 0.0, s.box.hi[d] = cells[d] * 3.615;
  s.box.defined = true;
  create_lattice_atoms(s, lat, std::vector<int>(lat.basis.size(), 1), nullptr);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-0.1, 0.1);
  for (size_t i = 0; i < s.atoms.size(); ++i)
    s.atoms.x[i] += u(rng), s.atoms.y[i] += u(rng), s.atoms.z[i] += u(rng);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int cells[3] = {48, 58, 72};
  for (int d = 0; d < 3 && d + 1 < argc; ++d) cells[d] = std::atoi(argv[d + 1]);
  const int steps = argc > 4 ? std::atoi(argv[4]) : 40;
  if (steps < 1 || cells[0] < 3 || cells[1] < 3 || cells[2] < 3) {
    std::fprintf(stderr, "usage: pair_kernel_perf [NX NY NZ [STEPS]] (cells >= 3)\n");
    return 2;
  }
  try {
    wmd::simd::use_environment();
  } catch (const wmd::InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  pot::EamBuilder b(pot::EamStyle::funcfl, 1);
  b.add_funcfl(1, 1, 1, 1, "Cu_u3.eam", {});
  const pot::EamTables tables = b.build();
  NeighborSettings nb;
  nb.skin = 1.0;
  State state = crystal(cells);
  ClusterBackend backend;
  backend.setup(state, tables, nb, false);
  std::vector<double> t(steps);
  for (int k = 0; k < steps; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    backend.compute(state, false, false);  // positions unchanged: the lists stay, no rebuild
    t[k] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  std::sort(t.begin(), t.end());
  const double natoms = static_cast<double>(state.atoms.size());
  std::printf("%.0f atoms, %d steps, SIMD %s: shortest %.5f s (%.3f M atom-steps/s), median %.5f s\n", natoms,
              steps, wmd::simd::active_target().c_str(), t[0], natoms / t[0] / 1e6, t[t.size() / 2]);
  return 0;
}
