#include "md/mesh/window_scan.hpp"

#include <algorithm>
#include <cstring>

#include "base/error.hpp"
#include "md/force/eam_atom_kernels.hpp"

namespace wmd::md::mesh {

void scan_windows(const ScanInput& in, BandTransport& t, NeighbourSlots& slots,
                  const std::vector<char>* only) {
  const Mapping& map = in.map;
  const AllAtoms& g = in.g;
  const int npe = map.size(), b = in.b, pe0 = t.pe0(), pe1 = t.pe1();
  const bool fp64 = in.fp64;
  const int pw = fp64 ? 6 : 3, sw = pw + 2;
  // Every PE's record (the gathered atoms hold them all, so no halo exchange is needed here).
  std::vector<uint32_t> payload(static_cast<size_t>(npe) * sw, 0u);
  for (int p = 0; p < npe; ++p) {
    const int i = map.atom_of[p];
    uint32_t* r = &payload[static_cast<size_t>(p) * sw];
    if (i < 0) continue;
    if (fp64) {
      const double v[3] = {g.x[i], g.y[i], g.z[i]};
      std::memcpy(r, v, sizeof v);
    } else {
      const float v[3] = {static_cast<float>(g.x[i]), static_cast<float>(g.y[i]), static_cast<float>(g.z[i])};
      std::memcpy(r, v, sizeof v);
    }
    r[pw] = static_cast<uint32_t>(g.type[i]);
    r[pw + 1] = static_cast<uint32_t>(g.id[i]);
  }
  const int side = 2 * b + 1, nslot = side * side;
  const int chunk = std::max<int>(1, static_cast<int>(kWordBudget / (static_cast<size_t>(nslot) * sw)));
  const double cutsq = in.cutneigh * in.cutneigh;
  double L[3];
  bool per[3];
  for (int d = 0; d < 3; ++d) L[d] = in.box.prd(d), per[d] = in.box.periodic(d);
  const int nb = pe1 - pe0;
  // A partial scan keeps the slots of the PEs it does not scan.
  std::vector<int32_t> old_off, old_src;
  std::vector<int8_t> old_shift, old_type;
  if (only)
    old_off.swap(slots.off), old_src.swap(slots.src), old_shift.swap(slots.shift), old_type.swap(slots.type);
  slots.off.assign(nb + 1, 0);
  // Sized from the last scan (or, the first time, after the first chunk) so the slot arrays do not double.
  const size_t last = only ? old_src.size() : slots.src.size();
  slots.src.clear();
  slots.shift.clear();
  slots.type.clear();
  auto reserve = [&](size_t want) {
    slots.src.reserve(want), slots.shift.reserve(want), slots.type.reserve(want);
  };
  reserve(last + last / 16);
  struct Cand {
    int64_t id;
    int32_t slot;
    int8_t shift, type;
  };
  std::vector<Cand> cand;
  std::vector<uint32_t>& buf = t.receive_buffer(0);
  const fabric::MeshMap& mm = t.scan().map();
  for (int d0 = pe0; d0 < pe1;) {
    int d1 = std::min(pe1, d0 + chunk);
    if (only) {  // a run of PEs to scan, or of PEs that keep their slots
      const char scan = (*only)[d0 - pe0];
      int e = d0 + 1;
      while (e < d1 && (*only)[e - pe0] == scan) ++e;
      d1 = e;
      if (!scan) {
        for (int p = d0; p < d1; ++p) {
          const int q = p - pe0;
          slots.off[q] = static_cast<int32_t>(slots.src.size());
          slots.src.insert(slots.src.end(), old_src.begin() + old_off[q], old_src.begin() + old_off[q + 1]);
          slots.shift.insert(slots.shift.end(), old_shift.begin() + old_off[q],
                             old_shift.begin() + old_off[q + 1]);
          slots.type.insert(slots.type.end(), old_type.begin() + old_off[q],
                            old_type.begin() + old_off[q + 1]);
        }
        d0 = d1;
        continue;
      }
    }
    buf.resize(static_cast<size_t>(d1 - d0) * nslot * sw);
    t.scan().deliver_window_range(d0, d1, payload.data(), buf.data());
    for (int p = d0; p < d1; ++p) {
      slots.off[p - pe0] = static_cast<int32_t>(slots.src.size());
      const int i = map.atom_of[p];
      if (i < 0) continue;
      const uint32_t* own = &payload[static_cast<size_t>(p) * sw];
      const uint32_t* win = &buf[static_cast<size_t>(p - d0) * nslot * sw];
      cand.clear();
      for (int slot = 0; slot < nslot; ++slot) {
        if (slot == nslot / 2) continue;  // the PE itself
        const uint32_t* r = win + static_cast<size_t>(slot) * sw;
        if (r[pw] == 0) continue;  // empty PE or off the edge
        int sh[3] = {0, 0, 0};
        double rsq = 0;
        if (fp64) {
          double xi[3], xj[3];
          std::memcpy(xi, own, sizeof xi);
          std::memcpy(xj, r, sizeof xj);
          for (int d = 0; d < 3; ++d) {
            const double dd = xi[d] - xj[d];
            if (per[d]) sh[d] = dd > 0.5 * L[d] ? 1 : (dd < -0.5 * L[d] ? -1 : 0);
            const double e = periodic_delta(xi[d], xj[d], sh[d], L[d]);
            rsq += e * e;
          }
        } else {
          float xi[3], xj[3];
          std::memcpy(xi, own, sizeof xi);
          std::memcpy(xj, r, sizeof xj);
          float fr = 0.0f;
          for (int d = 0; d < 3; ++d) {
            const float Lf = static_cast<float>(L[d]);
            const float dd = xi[d] - xj[d];
            if (per[d]) sh[d] = dd > 0.5f * Lf ? 1 : (dd < -0.5f * Lf ? -1 : 0);
            const float e = dd - static_cast<float>(sh[d]) * Lf;
            fr += e * e;
          }
          rsq = fr;
        }
        if (rsq < cutsq)
          cand.push_back({static_cast<int64_t>(r[pw + 1]), slot, pack_shift(sh[0], sh[1], sh[2]),
                          static_cast<int8_t>(r[pw])});
      }
      std::sort(cand.begin(), cand.end(), [](const Cand& x, const Cand& y) { return x.id < y.id; });
      const int px = p % map.width, py = p / map.width;
      for (const Cand& c : cand) {
        const int dx = c.slot % side - b, dy = c.slot / side - b;
        slots.src.push_back(mm.y.step(py, dy) * map.width + mm.x.step(px, dx));
        slots.shift.push_back(c.shift);
        slots.type.push_back(c.type);
      }
    }
    if (last == 0 && d0 == pe0 && d1 > d0)
      reserve(slots.src.size() * static_cast<size_t>(nb) / static_cast<size_t>(d1 - d0) * 17 / 16 + 64);
    d0 = d1;
  }
  slots.off[nb] = static_cast<int32_t>(slots.src.size());
  if (!only) t.scan().charge();  // a partial scan reads the window from the positions multicast's flag word
  // Every request of the new slots is checked against the window multicast's coverage here, once: the slots
  // stay fixed until the next scan, so the per-step deliveries only copy.
  t.positions().approve_requests(pe0, pe1, slots.off.data(), slots.src.data());
  t.fp().approve_requests(pe0, pe1, slots.off.data(), slots.src.data());
}

int64_t audit_lists(const State& s, const BandPes& pes, const std::vector<int64_t>& pe_id,
                    const BandTransport& t, double cut) {
  if (t.comm().size() != 1) throw RunError("mesh: the list audit runs on one rank");
  const Atoms& a = s.atoms;
  const int n = static_cast<int>(a.size()), nb = t.band_pes();
  const NeighbourSlots& sl = pes.slots;
  std::vector<int> pe_of(n, -1);
  for (int q = 0; q < nb; ++q)
    if (pes.local[q] >= 0) pe_of[pes.local[q]] = q;
  auto listed = [&](int i, int j) {
    const int q = pe_of[i];
    const int64_t id = a.id[j];
    const int32_t* b = sl.src.data() + sl.off[q];
    const int32_t* e = sl.src.data() + sl.off[q + 1];
    const int32_t* it = std::lower_bound(b, e, id, [&](int32_t src, int64_t v) { return pe_id[src] < v; });
    return it != e && pe_id[*it] == id;
  };
  int64_t missing = 0;
  for_each_pair(s.box, a.x.data(), a.y.data(), a.z.data(), n, cut, [&](int i, int j) {
    missing += !listed(i, j);
    missing += !listed(j, i);
  });
  return missing;
}

}  // namespace wmd::md::mesh
