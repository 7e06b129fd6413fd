// The fp64 PE passes (comparison mode): the cluster's deterministic per-atom arithmetic
// (md/force/eam_atom_kernels.hpp) over each PE's slots, in slot order.
#include <fmt/format.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstring>

#include "base/error.hpp"
#include "md/force/eam_atom_kernels.hpp"
#include "md/mesh/pe_kernels.hpp"
#include "md/mesh/pe_passes.hpp"

namespace wmd::md::mesh {
namespace {

using Policy = Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>;

// Neighbour slots an fp64 PE kernel holds on its stack.
constexpr int kHood = 512;

}  // namespace

// An fp64 PE's neighbourhood: its slots' displacements from positions received at rx (request k at
// rx[(k − k0)·3]) with each slot's periodic image, and their types. Plain pointers, copied into the kernels.
struct PePasses::Hood64 {
  const double* own;  // the positions payload: 3 per PE of the grid
  int p0;             // the band's first PE
  const int32_t* off;
  const int8_t* shift;
  const int8_t* type;
  double lx, ly, lz;
  // Fills PE q's (band index) slots into hx, hy, hz, ht and returns their count.
  int operator()(int q, int32_t k0, const double* rx, double* hx, double* hy, double* hz, int* ht) const {
    double xi[3];
    std::memcpy(xi, own + 3 * static_cast<size_t>(p0 + q), sizeof xi);
    const int32_t b = off[q], e = off[q + 1];
    for (int32_t k = b; k < e; ++k) {
      const double* xj = rx + 3 * static_cast<size_t>(k - k0);
      const int code = shift[k];
      hx[k - b] = pe_delta(xi[0], xj[0], code % 3 - 1, lx);
      hy[k - b] = pe_delta(xi[1], xj[1], (code / 3) % 3 - 1, ly);
      hz[k - b] = pe_delta(xi[2], xj[2], code / 9 - 1, lz);
      ht[k - b] = type[k];
    }
    return static_cast<int>(e - b);
  }
};

// The density pass over the band, the F' halo, then the force pass (positions received again). Kernels over
// PEs with each PE's displacements on its stack (the sums run in slot order, as the cluster's deterministic
// mode).
void PePasses::pe_passes_fp64(const Box& box, Atoms& a, StepLoad& load) {
  if (load.busiest_cand > kHood)
    throw RunError(
        fmt::format("mesh fp64: a PE has {} neighbour slots, more than the {} its kernel holds "
                    "(use fp32, or a smaller skin)",
                    load.busiest_cand, kHood));
  const NeighbourSlots& sl = pes_.slots;
  const Hood64 hood{reinterpret_cast<const double*>(pos_payload_.data()),
                    t_.pe0(),
                    sl.off.data(),
                    sl.shift.data(),
                    sl.type.data(),
                    box.prd(0),
                    box.prd(1),
                    box.prd(2)};
  const std::vector<int> cb = chunk_bounds(6);
  const int nc = static_cast<int>(cb.size()) - 1;
  for (int c = 0; c < nc; ++c) density_chunk_fp64(cb[c], cb[c + 1], hood, load);
  t_.positions().charge();
  const auto th = std::chrono::steady_clock::now();
  t_.halo_exchange(fp_payload_, 2);
  load.halo_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - th).count();
  for (int c = 0; c < nc; ++c) force_chunk_fp64(cb[c], cb[c + 1], hood, a, load);
}

// Density pass of destinations [d0, d1): their positions, then each PE's density and embedding; its F' goes
// into the F' payload at once.
void PePasses::density_chunk_fp64(int d0, int d1, const Hood64& hood, StepLoad& load) {
  const int p0 = t_.pe0();
  const int* local = pes_.local.data();
  const int* type = pes_.type.data();
  const int32_t* off = pes_.slots.off.data();
  double* rho = rho_.data();
  double* fpv = fp_.data();
  double* epe = epe_.data();
  const potentials::EamTables* tab = tables_;
  const double cutsq = tables_->cutmax * tables_->cutmax;
  uint32_t* fpay = fp_payload_.data();
  const int32_t k0 = off[d0 - p0];
  std::vector<uint32_t>& buf = t_.receive_buffer(0);
  buf.resize(static_cast<size_t>(off[d1 - p0] - k0) * 6);
  t_.positions().deliver_approved_range(d0, d1, &off[d0 - p0], pes_.slots.src.data(), pos_payload_.data(),
                                        buf.data());
  const double* rx = reinterpret_cast<const double*>(buf.data());
  int cut_max = 0;
  Kokkos::parallel_reduce(
      "mesh_pe_density64", Policy(d0 - p0, d1 - p0),
      [=](const int q, int& busiest) {
        if (local[q] < 0) return;
        double hx[kHood], hy[kHood], hz[kHood];
        int ht[kHood];
        const int n = hood(q, k0, rx, hx, hy, hz, ht);
        int in_cut = 0;
        for (int k = 0; k < n; ++k) in_cut += hx[k] * hx[k] + hy[k] * hy[k] + hz[k] * hz[k] < cutsq;
        busiest = std::max(busiest, in_cut);
        double fpi = 0.0;
        const double r = atom_density(*tab, type[q], n, hx, hy, hz, ht);
        rho[q] = r;
        epe[q] = atom_embed(*tab, type[q], r, fpi);
        fpv[q] = fpi;
        std::memcpy(fpay + 2 * static_cast<size_t>(p0 + q), &fpi, sizeof fpi);
      },
      Kokkos::Max<int>(cut_max));
  load.busiest_cut = std::max(load.busiest_cut, cut_max);
}

// Force pass of destinations [d0, d1): their positions again and their F', then each PE's force and virial
// over its full neighbourhood.
void PePasses::force_chunk_fp64(int d0, int d1, const Hood64& hood, Atoms& a, StepLoad& load) {
  const int p0 = t_.pe0();
  const int* local = pes_.local.data();
  const int* type = pes_.type.data();
  const int32_t* off = pes_.slots.off.data();
  const double* fpv = fp_.data();
  double* epe = epe_.data();
  double* vpe = vpe_.data();
  const potentials::EamTables* tab = tables_;
  double* fx = a.fx.data();
  double* fy = a.fy.data();
  double* fz = a.fz.data();
  const int32_t k0 = off[d0 - p0];
  const size_t nreq = static_cast<size_t>(off[d1 - p0] - k0);
  std::vector<uint32_t>& buf = t_.receive_buffer(0);
  std::vector<uint32_t>& buf2 = t_.receive_buffer(1);
  buf.resize(nreq * 6);
  buf2.resize(nreq * 2);
  t_.positions().deliver_approved_range(d0, d1, &off[d0 - p0], pes_.slots.src.data(), pos_payload_.data(),
                                        buf.data());
  t_.fp().deliver_approved_range(d0, d1, &off[d0 - p0], pes_.slots.src.data(), fp_payload_.data(),
                                 buf2.data());
  const double* rx = reinterpret_cast<const double*>(buf.data());
  const double* rfp = reinterpret_cast<const double*>(buf2.data());
  int zbl_max = 0;
  Kokkos::parallel_reduce(
      "mesh_pe_force64", Policy(d0 - p0, d1 - p0),
      [=](const int q, int& busiest) {
        const int i = local[q];
        if (i < 0) return;
        double hx[kHood], hy[kHood], hz[kHood];
        int ht[kHood];
        const int n = hood(q, k0, rx, hx, hy, hz, ht);
        double f[3] = {0, 0, 0};
        int nz = 0;
        epe[q] += atom_force(*tab, type[q], fpv[q], n, hx, hy, hz, ht, rfp + (off[q] - k0), f,
                             vpe + 6 * static_cast<size_t>(q), &nz);
        busiest = std::max(busiest, nz);
        fx[i] = f[0], fy[i] = f[1], fz[i] = f[2];
      },
      Kokkos::Max<int>(zbl_max));
  load.busiest_zbl = std::max(load.busiest_zbl, zbl_max);
}

}  // namespace wmd::md::mesh
