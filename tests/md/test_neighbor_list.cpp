// The binned half list with images equals a brute-force enumeration over all image shifts — also in boxes
// smaller than twice the cutoff, where an atom meets several images of one neighbour (and of itself).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <tuple>

#include "md/cluster/ghost_exchange.hpp"
#include "md/cluster/ghost_images.hpp"
#include "md/cluster/half_neighbor_list.hpp"

namespace {

using wmd::md::Box;
using Key = std::tuple<int, int, int, int, int>;  // (min atom, max atom, image shift of the pair) canonical

// Canonical key of the pair (i, j + s·L): ordered so (i, j, s) and (j, i, −s) coincide.
Key canonical(int i, int j, int sx, int sy, int sz) {
  if (i > j || (i == j && std::make_tuple(sz, sy, sx) < std::make_tuple(0, 0, 0))) {
    return Key{j, i, -sx, -sy, -sz};
  }
  return Key{i, j, sx, sy, sz};
}

// exchange: ghosts from the cluster decomposition's exchange (one rank, its own neighbour), keyed by id =
// index+1.
void check_box(double L, int n, double cut, unsigned seed, bool periodic_z, bool exchange = false) {
  Box box;
  for (int d = 0; d < 3; ++d) box.lo[d] = 0.0, box.hi[d] = L;
  if (!periodic_z) box.face[2][0] = box.face[2][1] = wmd::md::Face::fixed;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, L);
  std::vector<double> x(n), y(n), z(n);
  std::vector<int> type(n, 1);
  for (int i = 0; i < n; ++i) x[i] = u(rng), y[i] = u(rng), z[i] = u(rng);

  wmd::md::GhostImages g;
  if (exchange) {
    wmd::md::Atoms atoms;
    for (int i = 0; i < n; ++i) atoms.add(i + 1, 1, x[i], y[i], z[i]);
    wmd::md::GhostExchange ex;
    ex.build(wmd::md::Comm::local(), wmd::md::Decomposition(), box, atoms, cut, g);
    for (auto& r : g.rec) r.owner -= 1;  // ids back to indices for the comparison below
  } else {
    wmd::md::build_ghost_images(box, x.data(), y.data(), z.data(), type.data(), n, cut, g);
  }
  wmd::md::HalfNeighborList list;
  wmd::md::build_half_list(g, cut, list);
  std::multiset<Key> got;
  for (int i = 0; i < n; ++i) {
    for (int64_t k = list.offset[i]; k < list.offset[i + 1]; ++k) {
      const int j = list.nbr[k];
      int s[3] = {0, 0, 0};
      if (j >= g.nlocal) s[0] = g.shift_of(j)[0], s[1] = g.shift_of(j)[1], s[2] = g.shift_of(j)[2];
      got.insert(canonical(i, g.rec[j].owner, s[0], s[1], s[2]));
    }
  }
  std::set<Key> want;
  const int m = static_cast<int>(std::ceil(cut / L)) + 1;
  const int mz = periodic_z ? m : 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      for (int sx = -m; sx <= m; ++sx) {
        for (int sy = -m; sy <= m; ++sy) {
          for (int sz = -mz; sz <= mz; ++sz) {
            if (i == j && sx == 0 && sy == 0 && sz == 0) continue;
            const double dx = x[i] - (x[j] + sx * L), dy = y[i] - (y[j] + sy * L),
                         dz = z[i] - (z[j] + sz * L);
            if (dx * dx + dy * dy + dz * dz < cut * cut) want.insert(canonical(i, j, sx, sy, sz));
          }
        }
      }
    }
  }
  EXPECT_EQ(got.size(), want.size()) << "each pair exactly once";
  EXPECT_EQ(std::set<Key>(got.begin(), got.end()), want);
}

TEST(HalfNeighborList, MatchesBruteForceInALargeBox) {
  check_box(20.0, 300, 5.0, 1, true);
}
TEST(HalfNeighborList, MatchesBruteForceInABoxSmallerThanTwiceTheCutoff) {
  check_box(7.0, 20, 6.0, 2, true);
}
TEST(HalfNeighborList, MatchesBruteForceInABoxSmallerThanTheCutoff) {
  check_box(4.0, 6, 6.5, 3, true);
}
TEST(HalfNeighborList, MatchesBruteForceWithANonPeriodicDirection) {
  check_box(9.0, 80, 5.0, 4, false);
}

TEST(GhostExchange, OneRankMatchesBruteForceInALargeBox) {
  check_box(20.0, 300, 5.0, 1, true, true);
}
TEST(GhostExchange, OneRankMatchesBruteForceInABoxSmallerThanTheCutoff) {
  check_box(4.0, 6, 6.5, 3, true, true);
}
TEST(GhostExchange, OneRankMatchesBruteForceWithANonPeriodicDirection) {
  check_box(9.0, 80, 5.0, 4, false, true);
}

// The per-step exchanges on one rank (every direction its own neighbour): the record forward gives the
// owner-coordinate forward's bits; values reach every image of their owner; reverse sums reach the owner.
void check_exchanges(double L, int n, double cut, unsigned seed, bool periodic_z) {
  Box box;
  for (int d = 0; d < 3; ++d) box.lo[d] = 0.0, box.hi[d] = L;
  if (!periodic_z) box.face[2][0] = box.face[2][1] = wmd::md::Face::fixed;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, L), kick(-0.3, 0.3);
  wmd::md::Atoms atoms;
  for (int i = 0; i < n; ++i) atoms.add(i + 1, 1, u(rng), u(rng), u(rng));
  const wmd::md::Comm& comm = wmd::md::Comm::local();
  wmd::md::GhostExchange ex;
  wmd::md::GhostImages g;
  ex.build(comm, wmd::md::Decomposition(), box, atoms, cut, g);
  ASSERT_GT(g.nall(), 2 * n) << "the box is small enough for images of images";
  for (int i = 0; i < n; ++i) atoms.x[i] += kick(rng), atoms.y[i] += kick(rng), atoms.z[i] += kick(rng);
  wmd::md::GhostImages by_records = g;
  ex.forward_positions(comm, box, atoms, g);
  ex.forward_records_begin(comm, box, atoms, by_records);
  ex.forward_records_end(comm, box, by_records);
  for (int j = 0; j < g.nall(); ++j) {
    ASSERT_EQ(by_records.rec[j].x, g.rec[j].x) << j;
    ASSERT_EQ(by_records.rec[j].y, g.rec[j].y) << j;
    ASSERT_EQ(by_records.rec[j].z, g.rec[j].z) << j;
  }
  // Forward: every record holds its owner's value. Reverse: each owner gets 1 + its number of images.
  const int nall = g.nall();
  std::vector<double> v(nall, -1.0), ones(nall, 1.0);
  for (int i = 0; i < n; ++i) v[i] = 10.0 * (i + 1);
  ex.forward(comm, v.data(), 1);
  std::vector<int> images(n, 0);
  for (int j = 0; j < nall; ++j) {
    const int owner = g.rec[j].owner - 1;  // ids are index + 1
    ASSERT_EQ(v[j], 10.0 * (owner + 1)) << j;
    if (j >= n) ++images[owner];
  }
  ex.reverse(comm, ones.data(), 1);
  for (int i = 0; i < n; ++i) ASSERT_EQ(ones[i], 1.0 + images[i]) << i;
}

TEST(GhostExchange, OneRankExchangesReachEveryImage) {
  check_exchanges(7.0, 20, 6.0, 5, true);
}
TEST(GhostExchange, OneRankExchangesReachEveryImageWithANonPeriodicDirection) {
  check_exchanges(9.0, 80, 5.0, 6, false);
}

}  // namespace
