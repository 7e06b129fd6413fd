// The cluster decomposition's ghost exchange across MPI ranks, checked against brute force: the half lists
// of all ranks together hold every pair closer than the cutoff exactly once (global ids and image shifts),
// no rank holds an image twice, forward values reach every image, reverse sums reach every owner, and the
// per-step record forward gives the owner-coordinate forward's bits — on grids whose sub-domains are thinner
// than the cutoff (several hops per direction), with two sub-domains along a direction (both neighbours the
// same rank), boxes thinner than the cutoff (images round the box more than once), non-periodic faces and
// balanced (uneven) cuts. This executable initialises MPI itself: ctest runs it on one rank, and
// ClusterMpi.ghosts runs it on 2, 3 and 4 ranks under mpirun (tests/md/mpi_cases.py).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "md/cluster/ghost_exchange.hpp"
#include "md/cluster/ghost_images.hpp"
#include "md/cluster/half_neighbor_list.hpp"
#include "md/core/comm.hpp"
#include "md/core/decomposition.hpp"

namespace {

using wmd::md::Box;
using wmd::md::Comm;
using wmd::md::Decomposition;
using Key = std::array<int, 5>;  // (smaller id, larger id, image shift of the pair), canonical

class MpiEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    int on = 0;
    MPI_Initialized(&on);
    if (!on) MPI_Init(nullptr, nullptr);
  }
  void TearDown() override {
    int off = 0;
    MPI_Finalized(&off);
    if (!off) MPI_Finalize();
  }
};
const auto* const kMpi = ::testing::AddGlobalTestEnvironment(new MpiEnvironment);

// (i, j + s·L) and (j, i − s·L) are one pair.
Key canonical(int i, int j, int sx, int sy, int sz) {
  if (i > j || (i == j && std::make_tuple(sz, sy, sx) < std::make_tuple(0, 0, 0)))
    return {j, i, -sx, -sy, -sz};
  return {i, j, sx, sy, sz};
}

// Every rank's ints, concatenated in rank order.
std::vector<int> all_gather(const std::vector<int>& mine) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(size), displs(size, 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<int> all(displs[size - 1] + counts[size - 1]);
  MPI_Allgatherv(mine.data(), n, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, MPI_COMM_WORLD);
  return all;
}

struct Case {
  std::array<double, 3> L;
  std::array<bool, 3> periodic;
  double cut;
  int natoms;
  unsigned seed;
  // Cuts as fractions along each direction (empty: uniform), used where the grid has that many cells.
  std::array<std::vector<double>, 3> cuts = {};
};

// Builds the exchange on `grid` (whose product is the rank count) and checks it as the header says.
void check(const Case& s, const std::array<int, 3>& grid) {
  const Comm comm;
  const int me = comm.rank();
  Box box;
  for (int d = 0; d < 3; ++d) {
    box.lo[d] = -0.25 * s.L[d], box.hi[d] = 0.75 * s.L[d];
    if (!s.periodic[d]) box.face[d][0] = box.face[d][1] = wmd::md::Face::fixed;
  }
  Decomposition dec(grid, me);
  for (int d = 0; d < 3; ++d)
    if (s.cuts[d].size() == static_cast<size_t>(grid[d]) + 1) dec.set_cuts(d, s.cuts[d]);
  // The same atoms on every rank; each keeps those its sub-domain owns. Ids 1..n.
  std::mt19937 rng(s.seed);
  std::vector<std::array<double, 3>> x(s.natoms);
  wmd::md::Atoms atoms;
  for (int i = 0; i < s.natoms; ++i) {
    for (int d = 0; d < 3; ++d) x[i][d] = std::uniform_real_distribution<double>(box.lo[d], box.hi[d])(rng);
    if (dec.owns(box, x[i][0], x[i][1], x[i][2])) atoms.add(i + 1, 1, x[i][0], x[i][1], x[i][2]);
  }
  wmd::md::GhostExchange ex;
  wmd::md::GhostImages g;
  ex.build(comm, dec, box, atoms, s.cut, g);
  const int nlocal = g.nlocal, nall = g.nall();
  auto shift = [&](int j) {
    static const int zero[3] = {0, 0, 0};
    return j < nlocal ? zero : g.shift_of(j);
  };
  // No image twice on a rank.
  std::set<std::array<int, 4>> images;
  for (int j = 0; j < nall; ++j) images.insert({g.rec[j].owner, shift(j)[0], shift(j)[1], shift(j)[2]});
  EXPECT_EQ(static_cast<int>(images.size()), nall) << "rank " << me << " holds an image twice";

  // Pairs of every rank's half list against brute force over all atoms and image shifts.
  wmd::md::HalfNeighborList list;
  wmd::md::build_half_list(g, s.cut, list);
  std::vector<int> mine;
  for (int i = 0; i < nlocal; ++i) {
    for (int64_t k = list.offset[i]; k < list.offset[i + 1]; ++k) {
      const int j = list.nbr[k];
      const Key key = canonical(g.rec[i].owner, g.rec[j].owner, shift(j)[0], shift(j)[1], shift(j)[2]);
      mine.insert(mine.end(), key.begin(), key.end());
    }
  }
  const std::vector<int> all = all_gather(mine);
  std::multiset<Key> got;
  for (size_t k = 0; k + 5 <= all.size(); k += 5)
    got.insert({all[k], all[k + 1], all[k + 2], all[k + 3], all[k + 4]});
  std::set<Key> want;
  int m[3];
  for (int d = 0; d < 3; ++d) m[d] = s.periodic[d] ? static_cast<int>(std::ceil(s.cut / s.L[d])) + 1 : 0;
  for (int i = 0; i < s.natoms; ++i)
    for (int j = 0; j < s.natoms; ++j)
      for (int sx = -m[0]; sx <= m[0]; ++sx)
        for (int sy = -m[1]; sy <= m[1]; ++sy)
          for (int sz = -m[2]; sz <= m[2]; ++sz) {
            if (i == j && sx == 0 && sy == 0 && sz == 0) continue;
            const double dx = x[i][0] - (x[j][0] + sx * s.L[0]), dy = x[i][1] - (x[j][1] + sy * s.L[1]),
                         dz = x[i][2] - (x[j][2] + sz * s.L[2]);
            if (dx * dx + dy * dy + dz * dz < s.cut * s.cut) want.insert(canonical(i + 1, j + 1, sx, sy, sz));
          }
  ASSERT_GT(want.size(), 0u);
  EXPECT_EQ(got.size(), want.size()) << "each pair exactly once, over all ranks";
  EXPECT_TRUE(std::set<Key>(got.begin(), got.end()) == want) << "the pairs of brute force";

  // Forward: every record holds its owner's value. Reverse: each owner gets 1 + its images on all ranks.
  std::vector<double> v(nall, -1.0), ones(nall, 1.0);
  for (int i = 0; i < nlocal; ++i) v[i] = 10.0 * g.rec[i].owner;
  ex.forward(comm, v.data(), 1);
  int wrong = 0;
  for (int j = 0; j < nall; ++j) wrong += v[j] != 10.0 * g.rec[j].owner;
  EXPECT_EQ(wrong, 0) << "rank " << me << ": forward values that are not their owner's";
  std::vector<int64_t> count(s.natoms + 1, 0);
  for (int j = nlocal; j < nall; ++j) ++count[g.rec[j].owner];
  comm.sum(count.data(), s.natoms + 1);
  ex.reverse(comm, ones.data(), 1);
  wrong = 0;
  for (int i = 0; i < nlocal; ++i) wrong += ones[i] != 1.0 + static_cast<double>(count[g.rec[i].owner]);
  EXPECT_EQ(wrong, 0) << "rank " << me << ": reverse sums that miss an image";

  // Atoms move a little: the record forward (begin/end) gives forward_positions' bits.
  std::uniform_real_distribution<double> kick(-0.2, 0.2);
  for (size_t i = 0; i < atoms.size(); ++i)
    atoms.x[i] += kick(rng), atoms.y[i] += kick(rng), atoms.z[i] += kick(rng);
  wmd::md::GhostImages by_records = g;
  ex.forward_positions(comm, box, atoms, g);
  ex.forward_records_begin(comm, box, atoms, by_records);
  ex.forward_records_end(comm, box, by_records);
  wrong = 0;
  for (int j = 0; j < nall; ++j)
    wrong += by_records.rec[j].x != g.rec[j].x || by_records.rec[j].y != g.rec[j].y ||
             by_records.rec[j].z != g.rec[j].z;
  EXPECT_EQ(wrong, 0) << "rank " << me << ": record forward differs from the owner-coordinate forward";
}

// Grids for this rank count: all ranks along x, along y, along z, and the least-surface grid.
std::vector<std::array<int, 3>> grids(const Box& shape) {
  const int R = Comm().size();
  std::vector<std::array<int, 3>> out = {{R, 1, 1}, {1, R, 1}, {1, 1, R}};
  const auto best = Decomposition::best_grid(shape, R);
  if (std::find(out.begin(), out.end(), best) == out.end()) out.push_back(best);
  return out;
}

void check_all_grids(const Case& s) {
  Box shape;
  for (int d = 0; d < 3; ++d) shape.hi[d] = s.L[d];
  for (const auto& grid : grids(shape)) {
    SCOPED_TRACE("grid " + std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "x" +
                 std::to_string(grid[2]));
    check(s, grid);
  }
}

TEST(GhostsMpi, ThickSubDomains) {
  check_all_grids({{26.0, 26.0, 26.0}, {true, true, true}, 5.0, 400, 1});
}

TEST(GhostsMpi, SubDomainsThinnerThanTheCutoff) {
  // 4 ranks along one direction: 3.5 Å sub-domains for a 6 Å cutoff (two hops each way).
  check_all_grids({{14.0, 13.0, 12.0}, {true, true, true}, 6.0, 220, 2});
}

TEST(GhostsMpi, ABoxThinnerThanTheCutoff) {
  // Images round the box more than once, through other ranks: along x images two box lengths away are
  // within the cutoff, so a ghost takes two box shifts on its way.
  check_all_grids({{2.9, 4.5, 7.0}, {true, true, true}, 6.0, 14, 3});
}

TEST(GhostsMpi, NonPeriodicFaces) {
  check_all_grids({{12.0, 11.0, 10.0}, {true, false, false}, 5.5, 160, 4});
}

TEST(GhostsMpi, UnevenCuts) {
  // Balanced cuts: one thin sub-domain next to thick ones (as many hops as the thinnest needs).
  const int R = Comm().size();
  Case s{{13.0, 12.0, 11.0}, {true, true, false}, 5.0, 170, 5};
  for (int d = 0; d < 3; ++d) {
    std::vector<double> f(R + 1);
    for (int c = 0; c <= R; ++c)
      f[c] = c == 0 ? 0.0 : c == R ? 1.0 : 0.08 + 0.9 * (c - 1) / std::max(1, R - 1) * 0.95;
    s.cuts[d] = f;
  }
  check_all_grids(s);
}

}  // namespace
