// The cluster decomposition's grid choice and ownership rule, and order-independent deterministic sums.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <stdexcept>

#include "md/core/balance.hpp"
#include "md/core/comm.hpp"
#include "md/core/decomposition.hpp"
#include "md/core/point_grid.hpp"

namespace {

using wmd::md::Box;
using wmd::md::Decomposition;

Box box_of(double lx, double ly, double lz) {
  Box b;
  b.hi[0] = lx, b.hi[1] = ly, b.hi[2] = lz;
  return b;
}

TEST(Decomposition, BestGridMinimisesSurfaceWithLammpsTieOrder) {
  const Box cube = box_of(64.0, 64.0, 64.0);  // exact areas: true ties
  EXPECT_EQ(Decomposition::best_grid(cube, 1), (std::array<int, 3>{1, 1, 1}));
  EXPECT_EQ(Decomposition::best_grid(cube, 2), (std::array<int, 3>{1, 1, 2}));
  EXPECT_EQ(Decomposition::best_grid(cube, 4), (std::array<int, 3>{1, 2, 2}));
  EXPECT_EQ(Decomposition::best_grid(cube, 8), (std::array<int, 3>{2, 2, 2}));
  // A slab long in x is cut across x.
  EXPECT_EQ(Decomposition::best_grid(box_of(400.0, 20.0, 20.0), 4), (std::array<int, 3>{4, 1, 1}));
}

// `processors Px Py Pz` with * for free directions: the least-surface grid among those with the fixed counts.
TEST(Decomposition, BestGridKeepsFixedCounts) {
  const Box cube = box_of(50.0, 50.0, 50.0);
  EXPECT_EQ(Decomposition::best_grid(cube, 4, {4, 0, 0}), (std::array<int, 3>{4, 1, 1}));
  EXPECT_EQ(Decomposition::best_grid(cube, 4, {0, 0, 1}), (std::array<int, 3>{2, 2, 1}));
  EXPECT_EQ(Decomposition::best_grid(cube, 8, {0, 1, 0}), (std::array<int, 3>{2, 1, 4}));
  EXPECT_EQ(Decomposition::best_grid(cube, 2, {1, 2, 1}), (std::array<int, 3>{1, 2, 1}));
  EXPECT_EQ(Decomposition::best_grid(box_of(400.0, 20.0, 20.0), 4, {0, 2, 0}), (std::array<int, 3>{2, 2, 1}));
}

TEST(Decomposition, ParsesGrids) {
  std::array<int, 3> g{};
  EXPECT_TRUE(Decomposition::parse_grid("2x3x1", g));
  EXPECT_EQ(g, (std::array<int, 3>{2, 3, 1}));
  EXPECT_FALSE(Decomposition::parse_grid("2x3", g));
  EXPECT_FALSE(Decomposition::parse_grid("2x0x1", g));
  EXPECT_FALSE(Decomposition::parse_grid("2xax1", g));
}

TEST(Decomposition, EveryPointHasExactlyOneOwner) {
  const Box b = box_of(25.305, 17.0, 31.1);
  const std::array<int, 3> grid = {3, 2, 5};
  std::vector<Decomposition> ranks;
  for (int r = 0; r < 30; ++r) ranks.emplace_back(grid, r);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-0.1, 1.1);
  std::vector<std::array<double, 3>> pts;
  for (int k = 0; k < 2000; ++k) pts.push_back({u(rng) * b.hi[0], u(rng) * b.hi[1], u(rng) * b.hi[2]});
  // Points exactly on internal boundaries belong to the upper cell.
  for (int c = 0; c <= grid[0]; ++c) pts.push_back({ranks[0].bound(b, 0, c), 1.0, 1.0});
  for (const auto& p : pts) {
    int owners = 0;
    for (const auto& d : ranks) owners += d.owns(b, p[0], p[1], p[2]) ? 1 : 0;
    EXPECT_EQ(owners, 1) << p[0] << " " << p[1] << " " << p[2];
  }
  const Decomposition d(grid, 0);
  EXPECT_EQ(d.cell_of(b, 0, d.bound(b, 0, 1)), 1);
  EXPECT_EQ(d.cell_of(b, 0, std::nextafter(d.bound(b, 0, 1), 0.0)), 0);
}

// Cuts moved by `balance`: ownership stays exclusive, bounds and widths follow the cuts, uniform cuts keep
// the bits of c/p, and bad cut lists are refused.
TEST(Decomposition, MovedCutsKeepOneOwnerPerPoint) {
  const Box b = box_of(25.305, 17.0, 31.1);
  const std::array<int, 3> grid = {3, 2, 5};
  const std::vector<double> x = {0.0, 0.05, 0.9, 1.0}, z = {0.0, 0.1, 0.15, 0.5, 0.51, 1.0};
  std::vector<Decomposition> ranks;
  for (int r = 0; r < 30; ++r) {
    ranks.emplace_back(grid, r);
    ranks.back().set_cuts(0, x);
    ranks.back().set_cuts(2, z);
  }
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-0.1, 1.1);
  for (int k = 0; k < 4000; ++k) {
    const double p[3] = {u(rng) * b.hi[0], u(rng) * b.hi[1], u(rng) * b.hi[2]};
    int owners = 0;
    for (const auto& d : ranks) owners += d.owns(b, p[0], p[1], p[2]) ? 1 : 0;
    EXPECT_EQ(owners, 1) << p[0] << " " << p[1] << " " << p[2];
  }
  const Decomposition& d = ranks[0];
  for (int c = 0; c <= grid[2]; ++c) {
    EXPECT_DOUBLE_EQ(d.bound(b, 2, c), z[c] * b.hi[2]);
    if (c < grid[2]) {
      EXPECT_EQ(d.cell_of(b, 2, d.bound(b, 2, c)), c);
      if (c > 0) {
        EXPECT_EQ(d.cell_of(b, 2, std::nextafter(d.bound(b, 2, c), 0.0)), c - 1);
      }
    }
  }
  EXPECT_NEAR(d.min_width(b, 2), 0.01 * b.hi[2], 1e-12);
  EXPECT_NEAR(d.min_width(b, 0), 0.05 * b.hi[0], 1e-12);
  EXPECT_NE(d.cuts(2), Decomposition::uniform_cuts(5));
  const Decomposition fresh(grid, 0);
  EXPECT_EQ(fresh.cuts(2), Decomposition::uniform_cuts(5));
  EXPECT_EQ(fresh.bound(b, 2, 3),
            b.lo[2] + b.prd(2) * (3 * (1.0 / 5)));  // LAMMPS's uniform split, to the bit
  Decomposition bad(grid, 0);
  EXPECT_THROW(bad.set_cuts(0, {0.0, 0.5, 1.0}), std::invalid_argument);       // grid 3 needs 4 values
  EXPECT_THROW(bad.set_cuts(0, {0.0, 0.5, 0.4, 1.0}), std::invalid_argument);  // not increasing
  EXPECT_THROW(bad.set_cuts(0, {0.1, 0.2, 0.5, 1.0}), std::invalid_argument);  // not from 0
  EXPECT_EQ(bad.cuts(0), Decomposition::uniform_cuts(3));  // refused cuts leave the old ones
}

// `balance` on a triclinic box (atoms in box coordinates): the cuts are fractional coordinates, as LAMMPS
// cuts them, so each slab of the tilted box gets its share of the atoms; the imbalance factor counts them so.
TEST(Decomposition, BalanceCutsATriclinicBoxInFractionalCoordinates) {
  Box b = box_of(30.0, 30.0, 30.0);
  b.triclinic = true, b.xy = 12.0, b.xz = -6.0, b.yz = 5.0;
  wmd::md::Atoms atoms;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int k = 0; k < 600; ++k) {
    // Crowded at small fractional x; spread over y and z, where the tilts move the box coordinate x.
    const double l[3] = {0.4 * u(rng) * u(rng), u(rng), u(rng)};
    double x[3];
    b.from_lamda(l, x);
    atoms.add(k + 1, 1, x[0], x[1], x[2], k);
  }
  Decomposition dec({3, 1, 1}, 0);
  wmd::md::ShiftBalance sb;
  sb.thresh = 1.0, sb.dims = "x", sb.niter = 30, sb.stop = 1.0;
  const auto r = wmd::md::balance_shift(wmd::md::Comm::local(), dec, b, atoms, sb, 1.0);
  EXPECT_GT(r.initial, 1.5);
  EXPECT_LT(r.final, 1.02);
  // Each slab's owner (its sub-domain in fractional coordinates) holds a third of the atoms.
  for (int c = 0; c < 3; ++c) {
    Decomposition own({3, 1, 1}, c);
    own.set_cuts(0, dec.cuts(0));
    int count = 0;
    for (size_t i = 0; i < atoms.size(); ++i)
      count += own.owns(b, atoms.x[i], atoms.y[i], atoms.z[i]) ? 1 : 0;
    EXPECT_NEAR(count, 200, 4) << "slab " << c;
  }
}

// PointGrid on a triclinic box (create_atoms … overlap, delete_atoms overlap): every image along the edge
// vectors within the cutoff, as a brute-force sum over shifts finds them, and overlap by LAMMPS's minimum
// image.
TEST(PointGrid, TriclinicImagesMatchBruteForce) {
  Box b = box_of(14.0, 12.0, 13.0);
  b.triclinic = true, b.xy = 3.5, b.xz = -4.0, b.yz = 3.0;
  b.face[2][0] = b.face[2][1] = wmd::md::Face::fixed;  // one direction without images
  const double cut = 4.2;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::array<double, 3>> pts;
  wmd::md::PointGrid grid(b, cut);
  for (int k = 0; k < 150; ++k) {
    const double l[3] = {u(rng), u(rng), u(rng)};
    std::array<double, 3> x;
    b.from_lamda(l, x.data());
    pts.push_back(x);
    grid.add(k, x[0], x[1], x[2]);
  }
  for (int q = 0; q < 60; ++q) {
    const double l[3] = {u(rng), u(rng), u(rng)};
    double p[3];
    b.from_lamda(l, p);
    std::multiset<std::pair<int, long>> want, got;
    bool near = false;
    for (int k = 0; k < static_cast<int>(pts.size()); ++k) {
      for (int sx = -3; sx <= 3; ++sx)
        for (int sy = -3; sy <= 3; ++sy) {
          double v[3];
          b.unwrap(pts[k].data(), sx, sy, 0, v);
          const double r2 =
              (p[0] - v[0]) * (p[0] - v[0]) + (p[1] - v[1]) * (p[1] - v[1]) + (p[2] - v[2]) * (p[2] - v[2]);
          if (r2 < cut * cut) want.insert({k, std::lround(r2 * 1e9)});
        }
      double dx = p[0] - pts[k][0], dy = p[1] - pts[k][1], dz = p[2] - pts[k][2];
      b.minimum_image(dx, dy, dz);
      near = near || dx * dx + dy * dy + dz * dz < cut * cut;
    }
    grid.visit(p[0], p[1], p[2], [&](int k, double r2, bool) { got.insert({k, std::lround(r2 * 1e9)}); });
    EXPECT_EQ(got, want) << "point " << q;
    EXPECT_EQ(grid.any_within(p[0], p[1], p[2]), near) << "point " << q;
  }
}

TEST(Decomposition, NeighboursWrapOnlyInPeriodicDirections) {
  Box b = box_of(30, 30, 30);
  b.face[2][0] = b.face[2][1] = wmd::md::Face::fixed;
  const Decomposition d({2, 1, 2}, 0);  // cell (0, 0, 0)
  EXPECT_EQ(d.neighbor(b, 0, -1), d.rank_of({1, 0, 0}));
  EXPECT_EQ(d.neighbor(b, 1, +1), 0);  // one cell along y: itself
  EXPECT_EQ(d.neighbor(b, 2, -1), -1);
  EXPECT_EQ(d.neighbor(b, 2, +1), d.rank_of({0, 0, 1}));
}

TEST(TermSum, DeterministicSumsDoNotDependOnOrder) {
  wmd::md::Comm comm;  // MPI is not initialised here: one rank
  comm.set_deterministic(true);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-5.0, 5.0);
  std::vector<double> v(5000);
  for (double& x : v) x = u(rng) * std::pow(10.0, static_cast<int>(u(rng)));
  auto total = [&](const std::vector<double>& terms) {
    wmd::md::TermSum s(comm, 1);
    for (double x : terms) s.add(0, x);
    return s.total()[0];
  };
  const double a = total(v);
  std::shuffle(v.begin(), v.end(), rng);
  const double b = total(v);
  std::reverse(v.begin(), v.end());
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, total(v));
  double plain = 0.0;
  for (double x : v) plain += x;
  EXPECT_NEAR(a, plain, 1e-9 * std::fabs(plain) + 1e-9);
}

}  // namespace
