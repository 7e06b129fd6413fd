#include "md/mesh/rebuild_trigger.hpp"

#include <algorithm>
#include <chrono>

namespace wmd::md::mesh {

// `check yes` without a vote costs every PE a flag check per window slot and step; the vote costs a chain
// reduction over the grid.
void RebuildTrigger::choose(const BandPes& pes, const BandTransport& t, const fabric::Grid& grid, bool wrap,
                            int b, bool fp64, const fabric::HardwareSpec& hw) {
  local_choice_ = forced_ != 0;
  if (!nb_.check || nb_.once || deterministic_ || forced_ >= 0) return;
  int cand = 0;
  for (int q = 0; q < t.band_pes(); ++q) cand = std::max(cand, pes.slots.count(q));
  StepWork w;
  w.grid = grid;
  w.wrap = wrap;
  w.b = b;
  w.position_words = fp64 ? 6 : 3;
  w.fp_words = fp64 ? 2 : 1;
  w.candidates = static_cast<double>(t.comm().max(static_cast<int64_t>(cand)));
  w.in_cut = 0.5 * w.candidates;  // [E] the in-cut share does not enter the choice: both pay the same passes
  w.rebuild_interval = 20;
  w.checks_per_step = 1.0 / std::max(1, nb_.every);
  const double vote = account_step(w, hw).total;
  w.local_trigger = true;
  local_choice_ = account_step(w, hw).total <= vote;
}

bool RebuildTrigger::rebuild_due(const Atoms& a, const BandPes& pes, BandTransport& t,
                                 CycleAccount& account) {
  ++ago_;
  if (nb_.once) return false;
  if (ago_ < nb_.delay || ago_ % nb_.every != 0) return false;
  if (!nb_.check) return true;
  // Each PE flags a displacement beyond skin/2 since the last build; a fabric max-reduction tells every PE.
  const auto t0 = std::chrono::steady_clock::now();
  const double trigger = 0.25 * nb_.skin * nb_.skin;
  const int nb = t.band_pes();
  std::vector<uint32_t>& flags = t.receive_buffer(1);
  flags.assign(nb, float_bits(0.0f));
  for (int q = 0; q < nb; ++q) {
    const int i = pes.local[q];
    if (i < 0) continue;
    const double dx = a.x[i] - pes.xhold[3 * q], dy = a.y[i] - pes.xhold[3 * q + 1],
                 dz = a.z[i] - pes.xhold[3 * q + 2];
    if (dx * dx + dy * dy + dz * dz > trigger) flags[q] = float_bits(1.0f);
  }
  uint32_t any = 0;
  t.reduce(t.vote(), flags.data(), &any);
  const bool rebuild = bits_float(any) > 0.5f;
  account.vote(rebuild, ago_ == std::max(nb_.every, nb_.delay));
  account.comm_seconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return rebuild;
}

int64_t RebuildTrigger::flag_moved(const Atoms& a, const BandPes& pes, const BandTransport& t, int npe,
                                   std::vector<uint32_t>& flag) {
  const int nb = t.band_pes(), pe0 = t.pe0();
  const double trigger = 0.25 * nb_.skin * nb_.skin;
  if (active_.size() != static_cast<size_t>(npe)) active_.assign(npe, 0u);
  flag.assign(npe, 0u);
  int64_t moved = 0;
  for (int q = 0; q < nb; ++q) {
    const int i = pes.local[q];
    if (i < 0) continue;
    const double dx = a.x[i] - pes.xhold[3 * q], dy = a.y[i] - pes.xhold[3 * q + 1],
                 dz = a.z[i] - pes.xhold[3 * q + 2];
    if (dx * dx + dy * dy + dz * dz > trigger) flag[pe0 + q] = 1u, ++moved;
  }
  return moved;
}

bool RebuildTrigger::any_active() const {
  for (const uint32_t f : active_)
    if (f != 0) return true;
  return false;
}

std::vector<char> RebuildTrigger::rescan_set(const std::vector<uint32_t>& flag, BandTransport& t, int b,
                                             int64_t& rescans) const {
  const int W = t.width(), npe = static_cast<int>(flag.size()), pe0 = t.pe0();
  std::vector<char> rescan(t.band_pes(), 0);
  const fabric::MeshMap& mm = t.scan().map();
  rescans = 0;
  for (int p = 0; p < npe; ++p) {
    if (!flag[p]) continue;
    const int px = p % W, py = p / W;
    for (int dy = -b; dy <= b; ++dy) {
      const int y = mm.y.step(py, dy);
      if (y < t.row0() || y >= t.row1()) continue;
      for (int dx = -b; dx <= b; ++dx) {
        const int x = mm.x.step(px, dx);
        if (x < 0) continue;
        char& r = rescan[y * W + x - pe0];
        rescans += r == 0;
        r = 1;
      }
    }
  }
  return rescan;
}

}  // namespace wmd::md::mesh
