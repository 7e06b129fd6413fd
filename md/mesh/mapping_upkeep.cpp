#include "md/mesh/mapping_upkeep.hpp"

#include <fmt/format.h>

#include <cmath>

#include "base/error.hpp"

namespace wmd::md::mesh {

void wrap_or_lose(Atoms& a, const Box& box, int64_t step, int i) {
  static const char* axis[] = {"x", "y", "z"};
  double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
  int* img[3] = {a.ix.data(), a.iy.data(), a.iz.data()};
  for (int d = 0; d < 3; ++d) {
    if (!std::isfinite(pos[d][i]))
      throw RunError(
          fmt::format("atom {} has a non-finite {} coordinate at step {}", a.id[i], axis[d], step));
    if (box.periodic(d)) {
      const int before = img[d][i];
      wrap_periodic(pos[d][i], img[d][i], box.lo[d], box.hi[d]);
      remap_velocity(box, d, a.mask[i], before, img[d][i], d == 0 ? a.vx[i] : d == 1 ? a.vy[i] : a.vz[i]);
    } else if (pos[d][i] < box.lo[d] || pos[d][i] >= box.hi[d]) {
      throw RunError(
          fmt::format("lost atom {}: it left the box through the non-periodic {} boundary at step {} "
                      "({} = {})",
                      a.id[i], axis[d], step, axis[d], pos[d][i]));
    }
  }
}

void link_gathered(Mapping& map, const std::vector<int64_t>& pe_id, const AllAtoms& g) {
  const int npe = map.size();
  const IdIndex where(g.id);
  map.atom_of.assign(npe, -1);
  map.pe_of.assign(g.size(), -1);
  for (int p = 0; p < npe; ++p) {
    if (!pe_id[p]) continue;
    const int32_t k = where.find(pe_id[p]);
    if (k < 0) throw RunError(fmt::format("mesh: atom {} of PE {} is missing", pe_id[p], p));
    map.atom_of[p] = k, map.pe_of[k] = p;
  }
}

void index_band(const Atoms& a, const std::vector<int64_t>& pe_id, const BandTransport& t, BandPes& pes) {
  const IdIndex where(a.id);
  const int nb = t.band_pes(), pe0 = t.pe0(), rank = t.comm().rank();
  pes.local.assign(nb, -1);
  pes.type.assign(nb, 0);
  int placed = 0;
  for (int q = 0; q < nb; ++q) {
    const int64_t id = pe_id[pe0 + q];
    if (!id) continue;
    const int32_t i = where.find(id);
    if (i < 0)
      throw RunError(fmt::format("mesh: rank {} holds PE {} but not its atom {}", rank, pe0 + q, id));
    pes.local[q] = i, pes.type[q] = a.type[i];
    ++placed;
  }
  if (placed != static_cast<int>(a.size()))
    throw RunError(
        fmt::format("mesh: rank {} holds {} atoms but its band's PEs hold {}", rank, a.size(), placed));
}

// x pairs from even then odd columns, then y pairs likewise. A pair swaps its atoms when they are out of
// order along that axis, keeping the mapping sorted (and so local) as atoms move. Every rank runs the whole
// grid's round on the gathered atoms.
void swap_round(Mapping& map, const Box& box, const AllAtoms& g, const LatticePlanes& planes,
                fabric::FastTransport& swap, CycleAccount& account, const std::vector<uint32_t>* active,
                std::vector<uint32_t>* swapped) {
  bool exchanged = false;
  int64_t swaps = 0;
  const int W = map.width, H = map.height, npe = map.size();
  std::vector<uint32_t> payload(static_cast<size_t>(npe) * kSwapWords, 0u);
  std::vector<int32_t> off(npe + 1), src;
  std::vector<uint32_t> got;
  // A periodic key is unwrapped around the column's (row's) share of the axis, so the wrap pair compares.
  auto key = [&](int atom, int axis, int coord) {
    const AxisPlanes& ap = planes.axis[axis];
    const double u = axis == 0 ? g.x[atom] : g.y[atom];
    const double v = ap.swap_key(u);
    if (!box.periodic(axis)) return v;
    const double n = axis == 0 ? W : H;
    const double len = ap.found() ? static_cast<double>(ap.centre.size()) : box.prd(axis);
    const double ref = ap.found() ? (coord + 0.5) * len / n - 0.5 : box.lo[axis] + (coord + 0.5) * len / n;
    double d = v - ref;
    d -= len * std::round(d / len);
    return ref + d;
  };
  for (int phase = 0; phase < 4; ++phase) {
    const int axis = phase / 2, parity = phase % 2;
    for (int p = 0; p < npe; ++p) {
      const int i = map.atom_of[p];
      uint32_t* r = &payload[static_cast<size_t>(p) * kSwapWords];
      if (i < 0) {
        std::fill(r, r + kSwapWords, 0u);
        r[0] = 0xffffffffu;
        continue;
      }
      // The record a PE hands over (velocity words travel too on the wafer; the emulator charges them).
      r[0] = static_cast<uint32_t>(i);
      r[1] = float_bits(static_cast<float>(g.x[i])), r[2] = float_bits(static_cast<float>(g.y[i]));
      r[3] = float_bits(static_cast<float>(g.z[i]));
      r[7] = static_cast<uint32_t>(g.type[i]), r[8] = static_cast<uint32_t>(g.id[i]);
    }
    std::vector<int> partner(npe, -1);
    src.clear();
    for (int p = 0; p < npe; ++p) {
      off[p] = static_cast<int32_t>(src.size());
      const int c = p % W, row = p / W, coord = axis == 0 ? c : row, n = axis == 0 ? W : H;
      const int q = ((coord % 2) == parity) ? coord + 1 : coord - 1;
      if (q < 0 || q >= n || map.atom_of[p] < 0) continue;
      const int qpe = axis == 0 ? row * W + q : q * W + c;
      if (map.atom_of[qpe] < 0) continue;
      // Under the local trigger a pair exchanges only when one of its PEs reset its atom's reference at the
      // last check: both learnt that from the flag word of the positions multicast.
      if (active && !(*active)[p] && !(*active)[qpe]) continue;
      partner[p] = qpe;
      exchanged = true;
      src.push_back(qpe);
    }
    off[npe] = static_cast<int32_t>(src.size());
    got.resize(src.size() * kSwapWords);
    swap.deliver_requested_range(0, npe, off.data(), src.data(), payload.data(), got.data());
    std::vector<int32_t> next = map.atom_of;
    for (int p = 0; p < npe; ++p) {
      if (partner[p] < 0) continue;
      const uint32_t* r = &got[static_cast<size_t>(off[p]) * kSwapWords];
      const int mine = map.atom_of[p], theirs = static_cast<int>(r[0]);
      const int q = partner[p];
      const int cp = axis == 0 ? p % W : p / W, cq = axis == 0 ? q % W : q / W;
      const double km = key(mine, axis, cp), kt = key(theirs, axis, cq);
      const bool lower = cp < cq;
      if (lower ? km > kt : kt > km) {
        next[p] = theirs;
        if (lower) ++swaps;
        if (swapped) (*swapped)[p] = 1;
      }
    }
    map.atom_of.swap(next);
  }
  if (exchanged || !active) swap.charge();  // the schedule's four phases are the four rounds above
  account.swaps(swaps);
  for (int p = 0; p < npe; ++p)
    if (map.atom_of[p] >= 0) map.pe_of[map.atom_of[p]] = p;
}

namespace {

// A remap is priced as the swap rounds that carry the farthest atom to its new PE.
void charge_remap(const Mapping& from, const Mapping& to, const fabric::FastTransport& swap,
                  CycleAccount& account) {
  int rounds = 0;
  for (std::size_t i = 0; i < from.pe_of.size(); ++i) {
    const int p = from.pe_of[i], q = to.pe_of[i];
    int dx = std::abs(p % from.width - q % from.width), dy = std::abs(p / from.width - q / from.width);
    if (from.wrap) dx = std::min(dx, from.width - dx), dy = std::min(dy, from.height - dy);
    rounds = std::max(rounds, dx + dy);
  }
  account.remap(static_cast<double>(rounds) * static_cast<double>(swap.schedule_cycles()));
}

}  // namespace

bool remap_if_needed(Mapping& map, const Box& box, const AllAtoms& g, double cutneigh, int& b,
                     const std::function<Mapping()>& fresh_mapping, const fabric::FastTransport& swap,
                     CycleAccount& account) {
  const int n = g.size();
  const int need = required_window(map, box, g.x.data(), g.y.data(), g.z.data(), n, cutneigh);
  if (need <= b) return false;
  Mapping fresh = fresh_mapping();
  charge_remap(map, fresh, swap, account);
  map = std::move(fresh);
  const int need2 = required_window(map, box, g.x.data(), g.y.data(), g.z.data(), n, cutneigh);
  if (need2 <= b) return false;
  b = need2;
  return true;
}

LatticePlanes follow_planes(const LatticePlanes& planes, const Mapping& map, const AllAtoms& g) {
  if (!planes.found()) return planes;
  std::vector<double> x, y, z;
  x.reserve(g.size()), y.reserve(g.size()), z.reserve(g.size());
  for (const int32_t i : map.atom_of)
    if (i >= 0) x.push_back(g.x[i]), y.push_back(g.y[i]), z.push_back(g.z[i]);
  return follow_lattice_planes(planes, x.data(), y.data(), z.data(), static_cast<int>(x.size()));
}

void charge_edit_remap(const std::vector<int64_t>& old_pe_id, int old_width, int old_height,
                       const std::vector<int64_t>& pe_id, const Mapping& map,
                       const fabric::FastTransport& swap, CycleAccount& account) {
  std::vector<std::pair<int64_t, int>> old_at;  // (id, old PE), sorted by id
  for (size_t p = 0; p < old_pe_id.size(); ++p)
    if (old_pe_id[p]) old_at.push_back({old_pe_id[p], static_cast<int>(p)});
  std::sort(old_at.begin(), old_at.end());
  int rounds = 0;
  for (size_t q = 0; q < pe_id.size(); ++q) {
    if (!pe_id[q]) continue;
    const auto it = std::lower_bound(old_at.begin(), old_at.end(), std::pair<int64_t, int>{pe_id[q], -1});
    if (it == old_at.end() || it->first != pe_id[q]) continue;
    const int p = it->second;
    int dx = std::abs(p % old_width - static_cast<int>(q) % map.width);
    int dy = std::abs(p / old_width - static_cast<int>(q) / map.width);
    if (map.wrap && old_width == map.width && old_height == map.height)
      dx = std::min(dx, map.width - dx), dy = std::min(dy, map.height - dy);
    rounds = std::max(rounds, dx + dy);
  }
  account.remap(static_cast<double>(rounds) * static_cast<double>(swap.schedule_cycles()));
}

}  // namespace wmd::md::mesh
