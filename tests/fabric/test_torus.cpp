// The folded torus: a bijection whose logical neighbours (wrap pair included) are at most 2 physical hops
// apart.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "fabric/torus.hpp"

namespace wmd::fabric {
namespace {

TEST(FoldedTorus, NeighboursWithinTwoHops) {
  for (int n = 3; n <= 41; ++n) {
    const RingMap r{n, true};
    std::set<int> seen;
    for (int i = 0; i < n; ++i) {
      const int p = r.physical(i);
      ASSERT_GE(p, 0);
      ASSERT_LT(p, n);
      seen.insert(p);
      EXPECT_EQ(r.logical(p), i);
      EXPECT_LE(std::abs(r.physical(r.step(i, 1)) - p), 2) << "n=" << n << " i=" << i;
    }
    EXPECT_EQ(static_cast<int>(seen.size()), n);
  }
}

TEST(FoldedTorus, IdentityWithoutWrapAndMeshIds) {
  const RingMap r{7, false};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(r.physical(i), i);
  EXPECT_EQ(r.step(6, 1), -1);
  const MeshMap m(Grid{6, 5}, true);
  for (int l = 0; l < 30; ++l) EXPECT_EQ(m.logical_pe(m.physical_pe(l)), l);
}

}  // namespace
}  // namespace wmd::fabric
