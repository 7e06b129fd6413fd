#include "md/core/balance.hpp"

#include <algorithm>

#include "md/core/boundaries.hpp"

namespace wmd::md {
namespace {

// Cuts at least w apart (as fractions), kept as close to `f` as the two ends allow: forward then backward.
void keep_apart(std::vector<double>& f, double w) {
  const size_t p = f.size() - 1;
  for (size_t c = 1; c < p; ++c) f[c] = std::max(f[c], f[c - 1] + w);
  for (size_t c = p - 1; c >= 1; --c) f[c] = std::min(f[c], f[c + 1] - w);
}

// The atoms' positions in fractional coordinates (LAMMPS's x2lamda, which its balance applies first).
Atoms lamda_positions(const Box& box, const Atoms& a) {
  Atoms l = a;
  atoms_to_lamda(box, l);
  return l;
}

}  // namespace

double imbalance_factor(const Comm& comm, const Decomposition& dec, const Box& box, const Atoms& a) {
  if (box.triclinic) return imbalance_factor(comm, dec, box.lamda_frame(), lamda_positions(box, a));
  const int n = dec.ranks();
  std::vector<int64_t> count(n, 0);
  for (size_t i = 0; i < a.size(); ++i) {
    const std::array<int, 3> c = {dec.cell_of(box, 0, a.x[i]), dec.cell_of(box, 1, a.y[i]),
                                  dec.cell_of(box, 2, a.z[i])};
    ++count[dec.rank_of(c)];
  }
  comm.sum(count.data(), n);
  int64_t total = 0, most = 0;
  for (const int64_t k : count) total += k, most = std::max(most, k);
  return total > 0 ? static_cast<double>(most) * n / static_cast<double>(total) : 1.0;
}

namespace {

// balance_shift with the least slab width along each direction as a fraction of the box (`frame`: the box,
// or a triclinic box's unit frame with the atoms in fractional coordinates).
BalanceReport balance_fractions(const Comm& comm, Decomposition& dec, const Box& box, const Atoms& a,
                                const ShiftBalance& b, const double width[3]) {
  BalanceReport r;
  r.initial = r.final = imbalance_factor(comm, dec, box, a);
  if (r.initial <= b.thresh) return r;
  const double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
  for (int d = 0; d < 3; ++d) {
    const int p = dec.grid()[d];
    if (p == 1 || b.dims.find("xyz"[d]) == std::string::npos) continue;
    // This rank's atoms as sorted fractions of the box along d: a count below a cut is one binary search.
    std::vector<double> f(a.size());
    for (size_t i = 0; i < a.size(); ++i) f[i] = (pos[d][i] - box.lo[d]) / box.prd(d);
    std::sort(f.begin(), f.end());
    int64_t total = static_cast<int64_t>(a.size());
    total = comm.sum(total);
    // Bisection for every cut at once, one global sum of the p − 1 counts per round.
    std::vector<double> lo(p + 1, 0.0), hi(p + 1, 1.0), mid(p + 1), cut = dec.cuts(d);
    std::vector<int64_t> below(p + 1);
    for (int it = 0; it < b.niter; ++it) {
      for (int c = 1; c < p; ++c) {
        mid[c] = 0.5 * (lo[c] + hi[c]);
        below[c] = std::lower_bound(f.begin(), f.end(), mid[c]) - f.begin();
      }
      comm.sum(below.data() + 1, p - 1);
      for (int c = 1; c < p; ++c) {
        // Target: c/p of the atoms below cut c (integer arithmetic, the same on every rank).
        if (below[c] * p < total * c)
          lo[c] = mid[c];
        else
          hi[c] = mid[c];
      }
    }
    for (int c = 1; c < p; ++c) cut[c] = 0.5 * (lo[c] + hi[c]);
    cut[0] = 0.0, cut[p] = 1.0;
    const double w = width[d];
    if (w * p < 1.0)
      keep_apart(cut, w);
    else
      cut = dec.cuts(d);  // the box is too thin for p slabs of min_width: leave it as it is
    bool increasing = true;
    for (int c = 1; c <= p; ++c) increasing = increasing && cut[c] > cut[c - 1];
    if (!increasing || cut == dec.cuts(d)) continue;
    dec.set_cuts(d, cut);
    r.final = imbalance_factor(comm, dec, box, a);
    if (r.final <= b.stop) break;
  }
  return r;
}

}  // namespace

BalanceReport balance_shift(const Comm& comm, Decomposition& dec, const Box& box, const Atoms& a,
                            const ShiftBalance& b, double min_width) {
  double width[3];
  // Rounding must not bring a slab below the width (1e-9 to spare).
  for (int d = 0; d < 3; ++d)
    width[d] = min_width / (box.triclinic ? box.plane_spacing(d) : box.prd(d)) * (1.0 + 1e-9);
  if (box.triclinic)
    return balance_fractions(comm, dec, box.lamda_frame(), lamda_positions(box, a), b, width);
  return balance_fractions(comm, dec, box, a, b, width);
}

}  // namespace wmd::md
