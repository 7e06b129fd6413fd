// host_stalls' replay (validation/perf/stall_replay.hpp) on synthetic stall patterns whose efficiencies
// follow by hand: no stalls, one CPU stalled in long blocks, and two CPUs that take turns.
#include <gtest/gtest.h>

#include <vector>

#include "stall_replay.hpp"

namespace {

using wafermd::perf::balanced_efficiency;
using wafermd::perf::finish;
using wafermd::perf::Interval;
using wafermd::perf::replayed_efficiency;

using Stalls = std::vector<std::vector<Interval>>;

// Stalls of `length` seconds every `period` seconds, starting at `offset`, up to `seconds`.
std::vector<Interval> periodic(double seconds, double period, double offset, double length) {
  std::vector<Interval> v;
  for (double t = offset; t < seconds; t += period) v.push_back({t, t + length});
  return v;
}

TEST(StallReplay, FinishSkipsStallsAndResumesAfterThem) {
  const std::vector<Interval> stalls = {{1.0, 2.0}, {3.0, 3.5}};
  size_t next = 0;
  EXPECT_DOUBLE_EQ(finish(stalls, next, 0.0, 0.5), 0.5);    // done before the first stall
  EXPECT_DOUBLE_EQ(finish(stalls, next, 0.5, 1.0), 2.5);    // 0.5 before the stall, 0.5 after it
  EXPECT_DOUBLE_EQ(finish(stalls, next, 1.5, 0.25), 2.25);  // starts inside a stall
  EXPECT_DOUBLE_EQ(finish(stalls, next, 2.5, 1.0), 4.0);    // crosses the second stall
  EXPECT_EQ(next, 1u);                                      // the first stall is behind every later start
}

TEST(StallReplay, NoStallsIsFullEfficiency) {
  const Stalls none(2);
  EXPECT_NEAR(replayed_efficiency(none, 1.0, 1e-3, 0, 0.0), 1.0, 1e-9);
  EXPECT_NEAR(replayed_efficiency(none, 1.0, 1e-4, 20, 0.0), 1.0, 1e-9);
  EXPECT_NEAR(balanced_efficiency(none, 1.0, 1e-3, 0.1, 0.0), 1.0, 1e-9);
}

// CPU 0 stopped for 50 ms of every 100 ms, CPU 1 never: a step advances only while CPU 0 runs, i.e. half the
// time, against an average CPU that runs 75 % of it. Slack cannot help a CPU that is slower on average, and
// splitting by the last window's average speed hands CPU 1 work that it must then do while CPU 0 runs.
TEST(StallReplay, OneSlowCpuBoundsEveryScheme) {
  const double seconds = 10.0;
  const Stalls s = {periodic(seconds, 0.1, 0.05, 0.05), {}};
  const double mean = 0.25, lockstep = 0.5 / 0.75;
  EXPECT_NEAR(replayed_efficiency(s, seconds, 1e-3, 0, mean), lockstep, 0.01);
  EXPECT_NEAR(replayed_efficiency(s, seconds, 1e-4, 200, mean), lockstep, 0.01);  // 20 ms of slack
  EXPECT_LT(balanced_efficiency(s, seconds, 1e-3, 1.0, mean), lockstep);
}

// The CPUs take turns: CPU 0 stopped in [0, 2) ms and CPU 1 in [5, 7) ms of every 10 ms. In lockstep one of
// them is always the one stopped 40 % of the time (0.6 / 0.8 = 75 %); a rank allowed 5 ms ahead computes
// through the other's stall and both reach their own 80 %.
TEST(StallReplay, SlackAbsorbsStallsThatTakeTurns) {
  const double seconds = 5.0;
  const Stalls s = {periodic(seconds, 0.01, 0.0, 0.002), periodic(seconds, 0.01, 0.005, 0.002)};
  const double mean = 0.2;
  EXPECT_NEAR(replayed_efficiency(s, seconds, 1e-4, 0, mean), 0.75, 0.01);
  EXPECT_GT(replayed_efficiency(s, seconds, 1e-4, 50, mean), 0.97);
  // Equal average speeds: the balancer keeps equal shares and so the lockstep figure.
  EXPECT_NEAR(balanced_efficiency(s, seconds, 1e-3, 0.1, mean),
              replayed_efficiency(s, seconds, 1e-3, 0, mean), 0.01);
}

}  // namespace
