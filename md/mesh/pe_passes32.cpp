// The fp32 PE passes: the hardware's arithmetic (md/mesh/pe_kernels32.cpp) over the band in chunks.
#include <algorithm>
#include <chrono>

#include "md/mesh/pe_passes.hpp"

namespace wmd::md::mesh {

// A wavefront over the band's chunks, as the PEs keep what they received: a chunk's force pass runs from the
// positions its density pass received, as soon as every PE within b rows has its F' (a ring of received
// chunks). Chunks whose window reaches past the band (or wraps) wait for the F' halo and receive their
// positions again.
void PePasses::pe_passes_fp32(const Box& box, Atoms& a, int b, bool tally, StepLoad& load) {
  double L[3];
  for (int d = 0; d < 3; ++d) L[d] = box.prd(d);
  const ShiftOffsets32 shifts = make_shift_offsets32(L);
  const std::vector<int> cb = chunk_bounds(3);
  const int nc = static_cast<int>(cb.size()) - 1, W = t_.width(), row0 = t_.row0(), row1 = t_.row1(),
            pe1 = t_.pe1();
  auto chunk_of = [&](int pe) {
    return static_cast<int>(std::upper_bound(cb.begin(), cb.end() - 1, pe) - cb.begin()) - 1;
  };
  std::vector<int> need(nc, -1);  // pass 1 of chunks up to need[c] gives chunk c its F'; −1: after the halo
  int ring = 1;
  for (int c = 0; c < nc; ++c) {
    const int lo = cb[c] / W - b, hi = (cb[c + 1] - 1) / W + b;
    if (lo < row0 || hi >= row1) continue;
    need[c] = chunk_of(std::min(pe1 - 1, (hi + 1) * W - 1));
    ring = std::max(ring, need[c] - c + 1);
  }
  std::vector<std::vector<uint32_t>>& held = ring_;
  if (static_cast<int>(held.size()) < ring) held.resize(ring);
  std::vector<int> later;
  int next = 0;
  for (int c = 0; c < nc; ++c) {
    density_chunk_fp32(cb[c], cb[c + 1], shifts, held[c % ring], load);
    while (next <= c && (need[next] < 0 || need[next] <= c)) {
      if (need[next] < 0)
        later.push_back(next);
      else
        force_chunk_fp32(cb[next], cb[next + 1], shifts, held[next % ring], tally, a, load);
      ++next;
    }
  }
  for (; next < nc; ++next) later.push_back(next);
  t_.positions().charge();
  const auto th = std::chrono::steady_clock::now();
  t_.halo_exchange(fp_payload_, 1);
  load.halo_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - th).count();
  std::vector<uint32_t>& buf = t_.receive_buffer(0);
  for (int c : later) {
    receive_positions_fp32(cb[c], cb[c + 1], buf);
    force_chunk_fp32(cb[c], cb[c + 1], shifts, buf, tally, a, load);
  }
}

// The positions of destinations [d0, d1)'s requests as x, y, z planes (request k at plane[k − k0]).
void PePasses::receive_positions_fp32(int d0, int d1, std::vector<uint32_t>& planes) {
  const int32_t* off = pes_.slots.off.data();
  const int p0 = t_.pe0();
  const size_t nreq = static_cast<size_t>(off[d1 - p0] - off[d0 - p0]);
  planes.resize(nreq * 3);
  t_.positions().deliver_approved_range(d0, d1, &off[d0 - p0], pes_.slots.src.data(), pos_payload_.data(),
                                        planes.data(), nreq);
}

// Pass 1 of destinations [d0, d1): their positions into `planes`, then each PE's density and embedding; its
// F' goes into the F' payload at once.
void PePasses::density_chunk_fp32(int d0, int d1, const ShiftOffsets32& shifts, std::vector<uint32_t>& planes,
                                  StepLoad& load) {
  const int p0 = t_.pe0();
  receive_positions_fp32(d0, d1, planes);
  const int cut_max = pe_density_pass32(pt_, shifts, band32(d0, planes, nullptr), d0 - p0, d1 - p0,
                                        rho_.data(), fp_.data(), epe_.data(), fp_payload_.data());
  load.busiest_cut = std::max(load.busiest_cut, cut_max);
}

// Pass 2 of destinations [d0, d1) from the positions pass 1 delivered into `planes`: F' of the slots, then
// each PE's force over its full neighbourhood (and its virial when tallied).
void PePasses::force_chunk_fp32(int d0, int d1, const ShiftOffsets32& shifts,
                                const std::vector<uint32_t>& planes, bool tally, Atoms& a, StepLoad& load) {
  const int p0 = t_.pe0();
  const int32_t* off = pes_.slots.off.data();
  const size_t nreq = static_cast<size_t>(off[d1 - p0] - off[d0 - p0]);
  std::vector<uint32_t>& fpv = t_.receive_buffer(1);
  fpv.resize(nreq);
  t_.fp().deliver_approved_range(d0, d1, &off[d0 - p0], pes_.slots.src.data(), fp_payload_.data(),
                                 fpv.data());
  const int zbl_max = pe_force_pass32(
      pt_, shifts, band32(d0, planes, reinterpret_cast<const float*>(fpv.data())), d0 - p0, d1 - p0,
      fp_.data(), epe_.data(), tally ? vpe_.data() : nullptr, a.fx.data(), a.fy.data(), a.fz.data());
  load.busiest_zbl = std::max(load.busiest_zbl, zbl_max);
}

// The slots of the chunk from destination d0 for the fp32 PE kernels: the position planes (one third of
// `planes` each) and, in the force pass, F'.
PeBand32 PePasses::band32(int d0, const std::vector<uint32_t>& planes, const float* fp) const {
  const NeighbourSlots& sl = pes_.slots;
  PeBand32 b;
  b.k0 = sl.off[d0 - t_.pe0()];
  const size_t nreq = planes.size() / 3;
  const float* bx = reinterpret_cast<const float*>(planes.data());
  b.off = sl.off.data(), b.shift = sl.shift.data(), b.type = sl.type.data();
  b.px = bx, b.py = bx + nreq, b.pz = bx + 2 * nreq, b.fp = fp;
  b.own = pos_payload_.data(), b.p0 = t_.pe0(), b.local = pes_.local.data(), b.atype = pes_.type.data();
  return b;
}

}  // namespace wmd::md::mesh
