#include "md/mesh/pe_passes.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace wmd::md::mesh {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void PePasses::configure(const potentials::EamTables& tables, bool fp64, int chunk_pes) {
  tables_ = &tables;
  fp64_ = fp64;
  chunk_pes_ = chunk_pes;
  if (!fp64) pt_ = make_pe_tables32(tables);
}

StepLoad PePasses::step(const Box& box, Atoms& a, int b, bool tally, bool eatom, ForceResult& result) {
  // fp64 always tallies: its per-PE virial is part of the kernel, and the host reads the sums out anyway.
  if (fp64_) tally = true;
  StepLoad load;
  if (fp64_)
    multicast_positions<double>(a, load);
  else
    multicast_positions<float>(a, load);
  const int nb = t_.band_pes();
  rho_.assign(nb, 0.0);
  fp_.assign(nb, 0.0);
  epe_.assign(nb, 0.0);
  if (tally) vpe_.assign(6 * static_cast<size_t>(nb), 0.0);
  for (int q = 0; q < nb; ++q) load.busiest_cand = std::max(load.busiest_cand, pes_.slots.count(q));
  if (fp64_)
    pe_passes_fp64(box, a, load);
  else
    pe_passes_fp32(box, a, b, tally, load);
  t_.fp().charge();
  // The busiest PE anywhere prices the step.
  int most[3] = {load.busiest_cand, load.busiest_cut, load.busiest_zbl};
  t_.comm().max(most, 3);
  load.busiest_cand = most[0], load.busiest_cut = most[1], load.busiest_zbl = most[2];
  result = ForceResult{};
  result.tallied = tally;
  if (fp64_)
    sum_energy_virial_fp64(result);
  else if (tally)  // the wafer, too, sums energy and virial only on the steps that report them
    sum_energy_virial_fp32(result);
  if (eatom) {
    result.eatom.assign(a.size(), 0.0);
    for (int q = 0; q < nb; ++q)
      if (pes_.local[q] >= 0) result.eatom[pes_.local[q]] = epe_[q];
  }
  return load;
}

// Each PE loads its own atom's position: the state row of an atom is that PE's memory. The payload spans the
// whole grid; this rank fills its band and receives the halo rows. Only occupied PEs are ever requested, so
// stale words elsewhere are never read: no clearing per step (nor of the F' payload, sized here too).
template <class Real>
void PePasses::multicast_positions(const Atoms& a, StepLoad& load) {
  constexpr int pw = 3 * sizeof(Real) / 4, fw = sizeof(Real) / 4;
  const int npe = t_.grid_pes(), nb = t_.band_pes(), pe0 = t_.pe0();
  pos_payload_.resize(static_cast<size_t>(npe) * pw);
  fp_payload_.resize(static_cast<size_t>(npe) * fw);
  for (int q = 0; q < nb; ++q) {
    const int i = pes_.local[q];
    if (i < 0) continue;
    const Real v[3] = {static_cast<Real>(a.x[i]), static_cast<Real>(a.y[i]), static_cast<Real>(a.z[i])};
    std::memcpy(&pos_payload_[static_cast<size_t>(pe0 + q) * pw], v, sizeof v);
  }
  const auto th = std::chrono::steady_clock::now();
  t_.halo_exchange(pos_payload_, pw);
  load.halo_seconds += seconds_since(th);
}

// The band's destinations in chunks whose requests (pw words each) fit the buffer budget: chunk c is
// [bounds[c], bounds[c + 1]).
std::vector<int> PePasses::chunk_bounds(int pw) const {
  const int32_t* off = pes_.slots.off.data();
  const int p0 = t_.pe0(), p1 = t_.pe1();
  std::vector<int> bounds;
  for (int d0 = p0; d0 < p1;) {
    int d1 = d0 + 1;
    while (d1 < p1 && d1 - d0 < chunk_pes_ &&
           static_cast<size_t>(off[d1 + 1 - p0] - off[d0 - p0]) * pw < kWordBudget)
      ++d1;
    bounds.push_back(d0);
    d0 = d1;
  }
  bounds.push_back(p1);
  return bounds;
}

// fp64: the fabric's words are fp32 and cannot carry an fp64 sum, so the host reads the per-PE energy and
// virial out and sums them row by row in PE order, then the rows in order (the thermo read-out; the same bits
// for any tiling in bands of rows).
void PePasses::sum_energy_virial_fp64(ForceResult& result) {
  const int W = t_.width(), H = t_.height(), pe0 = t_.pe0();
  std::vector<double> rows(7 * static_cast<size_t>(H), 0.0);
  for (int y = t_.row0(); y < t_.row1(); ++y) {
    double* r = &rows[7 * static_cast<size_t>(y)];
    for (int p = y * W; p < (y + 1) * W; ++p) {
      const int q = p - pe0;
      r[0] += epe_[q];
      for (int c = 0; c < 6; ++c) r[1 + c] += vpe_[6 * static_cast<size_t>(q) + c];
    }
  }
  // Each row is summed on exactly one rank and the others hold +0.0, so the rank-ordered sum is exact.
  t_.comm().sum_in_rank_order(rows.data(), static_cast<int>(rows.size()));
  for (int y = 0; y < H; ++y) {
    result.energy += rows[7 * static_cast<size_t>(y)];
    for (int c = 0; c < 6; ++c) result.virial[c] += rows[7 * static_cast<size_t>(y) + 1 + c];
  }
}

// fp32: the per-PE energy and virial as fp32 words through the fabric's 7-word sum, as the wafer would.
void PePasses::sum_energy_virial_fp32(ForceResult& result) {
  const int nb = t_.band_pes();
  std::vector<uint32_t>& words = t_.receive_buffer(1);
  words.assign(7 * static_cast<size_t>(nb), 0u);
  for (int q = 0; q < nb; ++q) {
    words[7 * static_cast<size_t>(q)] = float_bits(static_cast<float>(epe_[q]));
    for (int c = 0; c < 6; ++c)
      words[7 * static_cast<size_t>(q) + 1 + c] =
          float_bits(static_cast<float>(vpe_[6 * static_cast<size_t>(q) + c]));
  }
  uint32_t out[7];
  t_.reduce(t_.sum(), words.data(), out);
  result.energy = bits_float(out[0]);
  for (int c = 0; c < 6; ++c) result.virial[c] = bits_float(out[1 + c]);
}

}  // namespace wmd::md::mesh
