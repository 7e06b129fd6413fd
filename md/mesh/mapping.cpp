#include "md/mesh/mapping.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "base/error.hpp"

namespace wmd::md::mesh {

void choose_grid(int64_t n, const Box& box, int max_w, int max_h, int64_t pe_count, const std::string& wafer,
                 int& width, int& height) {
  const SourcePos where{"<mesh>", 0};
  if (n > pe_count || n > static_cast<int64_t>(max_w) * max_h) {
    fail_input(where,
               fmt::format("{} atoms do not fit on the {} wafer's {} PEs ({}x{} grid); the mesh backend "
                           "places one atom per PE",
                           n, wafer, std::min<int64_t>(pe_count, static_cast<int64_t>(max_w) * max_h), max_w,
                           max_h));
  }
  const double aspect = box.prd(0) / std::max(box.prd(1), 1e-12);
  int w = static_cast<int>(std::lround(std::sqrt(static_cast<double>(n) * aspect)));
  w = std::clamp(w, 1, max_w);
  int64_t h = (n + w - 1) / w;
  if (h > max_h) {
    h = max_h;
    w = static_cast<int>((n + h - 1) / h);
  }
  if (w > max_w) {
    fail_input(where, fmt::format("{} atoms do not fit on the {} wafer's {}x{} grid with this box shape", n,
                                  wafer, max_w, max_h));
  }
  // On the folded torus the farthest PE is floor(n/2) away: odd sides let a window of that radius fit.
  const bool wrap = box.periodic(0) || box.periodic(1);
  if (wrap && w % 2 == 0 && w > 1) {
    --w;
    h = (n + w - 1) / w;
  }
  if (wrap && h % 2 == 0 && h + 1 <= max_h) ++h;
  width = w;
  height = static_cast<int>(std::max<int64_t>(h, 1));
}

namespace {

// Recursive coordinate bisection onto a rectangle of PEs: the longer side of the rectangle is halved, the
// atoms are split in proportion to the PEs on each side by the matching coordinate (x for columns, y for
// rows), and each half recurses. Ties break on z first (the folded direction), so a lattice plane that
// straddles a cut leaves each side a subset uniform in the other in-plane coordinate.
struct Bisector {
  const double* pos[3];
  const int64_t* id;
  int width;
  Mapping* m;

  void run(int32_t* first, int32_t* last, int c0, int c1, int r0, int r1) {
    const int64_t n = last - first, npe = static_cast<int64_t>(c1 - c0) * (r1 - r0);
    if (n == 0) return;
    if (npe == 1) {
      const int pe = r0 * width + c0;
      m->atom_of[pe] = *first;
      m->pe_of[*first] = pe;
      return;
    }
    const bool split_x = (c1 - c0) >= (r1 - r0);
    const int mid = split_x ? (c0 + c1) / 2 : (r0 + r1) / 2;
    const int64_t left_pe =
        split_x ? static_cast<int64_t>(mid - c0) * (r1 - r0) : static_cast<int64_t>(c1 - c0) * (mid - r0);
    int64_t nl = static_cast<int64_t>(std::llround(static_cast<double>(n) * left_pe / npe));
    nl = std::clamp<int64_t>(nl, std::max<int64_t>(0, n - (npe - left_pe)), std::min(n, left_pe));
    const int d = split_x ? 0 : 1, other = split_x ? 1 : 0;
    const double *kd = pos[d], *kz = pos[2], *ko = pos[other];
    std::nth_element(first, first + nl, last, [&](int32_t a, int32_t b) {
      if (kd[a] != kd[b]) return kd[a] < kd[b];
      if (kz[a] != kz[b]) return kz[a] < kz[b];
      if (ko[a] != ko[b]) return ko[a] < ko[b];
      return id[a] < id[b];
    });
    if (split_x) {
      run(first, first + nl, c0, mid, r0, r1);
      run(first + nl, last, mid, c1, r0, r1);
    } else {
      run(first, first + nl, c0, c1, r0, mid);
      run(first + nl, last, c0, c1, mid, r1);
    }
  }
};

}  // namespace

Mapping map_atoms_by_keys(bool wrap, const double* kx, const double* ky, const double* kz, const int64_t* id,
                          int n, int width, int height) {
  Mapping m;
  m.width = width;
  m.height = height;
  m.wrap = wrap;
  m.atom_of.assign(static_cast<size_t>(width) * height, -1);
  m.pe_of.assign(n, -1);
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  Bisector bis{{kx, ky, kz}, id, width, &m};
  bis.run(order.data(), order.data() + n, 0, width, 0, height);
  return m;
}

Mapping map_atoms(const Box& box, const double* x, const double* y, const double* z, const int64_t* id, int n,
                  int width, int height) {
  return map_atoms_by_keys(box.periodic(0) || box.periodic(1), x, y, z, id, n, width, height);
}

void check_single_image(const Box& box, double cutneigh) {
  static const char* axis[] = {"x", "y", "z"};
  for (int d = 0; d < 3; ++d) {
    if (box.periodic(d) && box.prd(d) < 2.0 * cutneigh) {
      fail_input(SourcePos{"<mesh>", 0},
                 fmt::format(
                     "the periodic box is {:.6g} A along {}, less than 2*(cutoff + skin) = {:.6g} A: an atom "
                     "would meet two images of one neighbour, which the mesh backend's one-slot-per-PE "
                     "window cannot hold (make the box thicker, use the cluster backend, or reduce the skin)",
                     box.prd(d), axis[d], 2.0 * cutneigh));
    }
  }
}

int pe_distance(const Mapping& m, int a, int b) {
  int dx = std::abs(a % m.width - b % m.width), dy = std::abs(a / m.width - b / m.width);
  if (m.wrap) {
    dx = std::min(dx, m.width - dx);
    dy = std::min(dy, m.height - dy);
  }
  return std::max(dx, dy);
}

int required_window(const Mapping& m, const Box& box, const double* x, const double* y, const double* z,
                    int n, double cut) {
  int b = 1;
  for_each_pair(box, x, y, z, n, cut,
                [&](int i, int j) { b = std::max(b, pe_distance(m, m.pe_of[i], m.pe_of[j])); });
  return b;
}

}  // namespace wmd::md::mesh
