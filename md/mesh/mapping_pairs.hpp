// Cell-binned pair enumeration for the mapper (host side: choosing b, checking that a mapping still covers
// every pair). Included by mapping.hpp.
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

namespace wmd::md::mesh {

template <class F>
void for_each_pair(const Box& box, const double* x, const double* y, const double* z, int n, double cut,
                   F f) {
  if (n <= 1) return;
  const double* pos[3] = {x, y, z};
  double lo[3], len[3];
  int nc[3];
  bool per[3];
  for (int d = 0; d < 3; ++d) {
    per[d] = box.periodic(d);
    lo[d] = box.lo[d];
    len[d] = box.prd(d);
    if (!per[d]) {  // non-periodic: bin the atoms' extent
      const auto [mn, mx] = std::minmax_element(pos[d], pos[d] + n);
      lo[d] = std::min(lo[d], *mn);
      len[d] = std::max(box.hi[d], *mx) - lo[d] + 1e-9;
    }
    nc[d] = std::max(1, static_cast<int>(len[d] / cut));
    nc[d] = std::min(nc[d], 1024);
  }
  const int64_t ncell = static_cast<int64_t>(nc[0]) * nc[1] * nc[2];
  std::vector<int> head(ncell, -1), next(n, -1), cell(n);
  for (int i = n - 1; i >= 0; --i) {
    int c[3];
    for (int d = 0; d < 3; ++d) {
      double u = pos[d][i] - lo[d];
      if (per[d]) u -= len[d] * std::floor(u / len[d]);  // an atom not yet wrapped bins with its image
      c[d] = static_cast<int>(u / len[d] * nc[d]);
      c[d] = std::clamp(c[d], 0, nc[d] - 1);
    }
    cell[i] = (c[2] * nc[1] + c[1]) * nc[0] + c[0];
    next[i] = head[cell[i]];
    head[cell[i]] = i;
  }
  const double cutsq = cut * cut;
  std::vector<int64_t> seen;
  for (int i = 0; i < n; ++i) {
    const int ci = cell[i];
    const int c0 = ci % nc[0], c1 = (ci / nc[0]) % nc[1], c2 = ci / (nc[0] * nc[1]);
    seen.clear();
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          int c[3] = {c0 + dx, c1 + dy, c2 + dz};
          bool ok = true;
          for (int d = 0; d < 3; ++d) {
            if (c[d] < 0 || c[d] >= nc[d]) {
              if (!per[d]) ok = false;
              c[d] = (c[d] + nc[d]) % nc[d];
            }
          }
          if (!ok) continue;
          const int64_t cj = (static_cast<int64_t>(c[2]) * nc[1] + c[1]) * nc[0] + c[0];
          if (std::find(seen.begin(), seen.end(), cj) != seen.end()) continue;  // 1 or 2 cells: visit once
          seen.push_back(cj);
          for (int j = head[cj]; j >= 0; j = next[j]) {
            if (j <= i) continue;
            double r2 = 0;
            for (int d = 0; d < 3; ++d) {
              double dd = pos[d][i] - pos[d][j];
              if (per[d]) dd = dd > 0.5 * len[d] ? dd - len[d] : (dd < -0.5 * len[d] ? dd + len[d] : dd);
              r2 += dd * dd;
            }
            if (r2 < cutsq) f(i, j);
          }
        }
  }
}

}  // namespace wmd::md::mesh
