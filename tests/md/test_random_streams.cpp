// LAMMPS's Marsaglia generator: a whole stream made at once (RandomMars::uniforms, fix langevin's and fix
// ttm's per-step draws) against the one-at-a-time generator it must repeat bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "md/core/random_mars.hpp"

namespace wmd::md {
namespace {

// Draws `lengths` in turn from two generators of one seed, one through uniforms() and one through
// uniform(), and checks every value and the states in between.
void expect_same_streams(RandomMars block, RandomMars single, const std::vector<size_t>& lengths) {
  for (size_t n : lengths) {
    std::vector<double> a(n), b(n);
    block.uniforms(a.data(), n);
    for (double& x : b) x = single.uniform();
    ASSERT_EQ(0, std::memcmp(a.data(), b.data(), n * sizeof(double))) << "stream of " << n;
    ASSERT_EQ(block.state(), single.state()) << "state after a stream of " << n;
  }
  EXPECT_EQ(block.uniform(), single.uniform());
}

TEST(RandomStreams, WholeStreamsRepeatUniformBitForBit) {
  // Lengths around the lag (97), the short lag (33), the 8-lane groups and the short-stream cut-over.
  const std::vector<size_t> lengths = {0, 1,    387,  388, 389,    391,      392,  393, 400,  97 * 5,
                                       7, 1000, 4096, 33,  100003, 388 + 97, 1201, 5,   60001};
  for (int seed : {1, 4928459, 900000000, 12345})
    expect_same_streams(RandomMars(seed), RandomMars(seed), lengths);
}

TEST(RandomStreams, RestoredStatesContinueAlike) {
  // A state restored from a checkpoint (any slot position) continues as uniform() would.
  RandomMars g(777);
  for (int k = 0; k < 1234; ++k) g.uniform();
  RandomMars block(1), single(1);
  ASSERT_TRUE(block.set_state(g.state()));
  ASSERT_TRUE(single.set_state(g.state()));
  expect_same_streams(block, single, {5000, 389, 70000});
}

TEST(RandomStreams, StatesOffTheGridFallBackToOneAtATime) {
  // A crafted c that is no multiple of 2^-24 cannot use the integer progression: the stream still equals
  // uniform()'s.
  std::vector<double> s = RandomMars(99).state();
  s[99] = 0.123456789;
  RandomMars block(1), single(1);
  ASSERT_TRUE(block.set_state(s));
  ASSERT_TRUE(single.set_state(s));
  expect_same_streams(block, single, {1000, 2000});
}

}  // namespace
}  // namespace wmd::md
