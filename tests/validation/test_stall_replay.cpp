// host_stalls' replay (validation/perf/stall_replay.hpp) on synthetic patterns whose efficiencies follow by
// hand: no stalls, one CPU stalled in long blocks, two CPUs that take turns, and CPUs slowed in turn.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "stall_replay.hpp"

namespace {

using wafermd::perf::balanced_efficiency;
using wafermd::perf::finish;
using wafermd::perf::from_stalls;
using wafermd::perf::Interval;
using wafermd::perf::Progress;
using wafermd::perf::replayed_efficiency;

// Stalls of `length` seconds every `period` seconds, starting at `offset`, up to `seconds`.
std::vector<Interval> periodic(double seconds, double period, double offset, double length) {
  std::vector<Interval> v;
  for (double t = offset; t < seconds; t += period) v.push_back({t, t + length});
  return v;
}

// A CPU that runs at speed(t) (a share of full speed) over `seconds`.
Progress running_at(double seconds, double slot, const std::function<double(double)>& speed) {
  Progress p;
  p.slot = slot;
  const int n = static_cast<int>(std::lround(seconds / slot));
  for (int i = 0; i < n; ++i) p.done.push_back(p.done.back() + slot * speed((i + 0.5) * slot));
  return p;
}

TEST(StallReplay, FromStallsCountsTheStalledPartOfEachSlot) {
  const Progress p = from_stalls({{0.05, 0.125}}, 0.3, 0.1);
  ASSERT_EQ(p.done.size(), 4u);
  EXPECT_DOUBLE_EQ(p.done[1], 0.05);
  EXPECT_DOUBLE_EQ(p.done[2], 0.125);
  EXPECT_DOUBLE_EQ(p.done[3], 0.225);
  EXPECT_NEAR(p.mean_speed(), 0.75, 1e-12);
  EXPECT_DOUBLE_EQ(p.at(0.15), 0.0875);
}

TEST(StallReplay, FinishSkipsStallsAndResumesAfterThem) {
  const Progress p = from_stalls({{1.0, 2.0}, {3.0, 3.5}}, 5.0, 0.25);
  EXPECT_DOUBLE_EQ(finish(p, 0.0, 0.5), 0.5);    // done before the first stall
  EXPECT_DOUBLE_EQ(finish(p, 0.5, 1.0), 2.5);    // 0.5 before the stall, 0.5 after it
  EXPECT_DOUBLE_EQ(finish(p, 1.5, 0.25), 2.25);  // starts inside a stall
  EXPECT_DOUBLE_EQ(finish(p, 2.5, 1.0), 4.0);    // crosses the second stall
  EXPECT_TRUE(std::isinf(finish(p, 4.0, 2.0)));  // past the recording
}

TEST(StallReplay, FinishAtHalfSpeedTakesTwiceAsLong) {
  const Progress p = running_at(2.0, 1e-3, [](double) { return 0.5; });
  EXPECT_NEAR(finish(p, 0.2, 0.1), 0.4, 1e-12);
}

TEST(StallReplay, NoStallsIsFullEfficiency) {
  const std::vector<Progress> none(2, from_stalls({}, 1.0, 1e-4));
  EXPECT_NEAR(replayed_efficiency(none, 1e-3, 0), 1.0, 1e-6);
  EXPECT_NEAR(replayed_efficiency(none, 1e-4, 20), 1.0, 1e-6);
  EXPECT_NEAR(balanced_efficiency(none, 1e-3, 0.1), 1.0, 1e-6);
}

// CPU 0 stopped for 50 ms of every 100 ms, CPU 1 never: a step advances only while CPU 0 runs, i.e. half the
// time, against an average CPU that runs 75 % of it. Slack cannot help a CPU that is slower on average, and
// splitting by the last window's average speed hands CPU 1 work that it must then do while CPU 0 runs.
TEST(StallReplay, OneSlowCpuBoundsEveryScheme) {
  const double seconds = 10.0;
  const std::vector<Progress> s = {from_stalls(periodic(seconds, 0.1, 0.05, 0.05), seconds, 1e-4),
                                   from_stalls({}, seconds, 1e-4)};
  const double lockstep = 0.5 / 0.75;
  EXPECT_NEAR(replayed_efficiency(s, 1e-3, 0), lockstep, 0.01);
  EXPECT_NEAR(replayed_efficiency(s, 1e-4, 200), lockstep, 0.01);  // 20 ms of slack
  EXPECT_LT(balanced_efficiency(s, 1e-3, 1.0), lockstep);
}

// The CPUs take turns: CPU 0 stopped in [0, 2) ms and CPU 1 in [5, 7) ms of every 10 ms. In lockstep one of
// them is always the one stopped 40 % of the time (0.6 / 0.8 = 75 %); a rank allowed 5 ms ahead computes
// through the other's stall and both reach their own 80 %.
TEST(StallReplay, SlackAbsorbsStallsThatTakeTurns) {
  const double seconds = 5.0;
  const std::vector<Progress> s = {from_stalls(periodic(seconds, 0.01, 0.0, 0.002), seconds, 1e-4),
                                   from_stalls(periodic(seconds, 0.01, 0.005, 0.002), seconds, 1e-4)};
  EXPECT_NEAR(replayed_efficiency(s, 1e-4, 0), 0.75, 0.01);
  EXPECT_GT(replayed_efficiency(s, 1e-4, 50), 0.97);
  // Equal average speeds: the balancer keeps equal shares and so the lockstep figure.
  EXPECT_NEAR(balanced_efficiency(s, 1e-3, 0.1), replayed_efficiency(s, 1e-3, 0), 0.01);
}

// The CPUs are slowed in turn for seconds: CPU 0 runs at 60 % for the first 5 s, CPU 1 for the last 5 s.
// Lockstep ranks go at the slower one's speed (0.6 / 0.8 = 75 %), and no slack helps a slowdown that lasts;
// a balancer that follows each rank's speed over 0.1 s gives the slow CPU less work and gets close to 100 %.
TEST(StallReplay, BalancingFollowsSlowdownsThatLast) {
  const double seconds = 10.0;
  const std::vector<Progress> s = {running_at(seconds, 1e-4, [](double t) { return t < 5.0 ? 0.6 : 1.0; }),
                                   running_at(seconds, 1e-4, [](double t) { return t < 5.0 ? 1.0 : 0.6; })};
  EXPECT_NEAR(replayed_efficiency(s, 1e-3, 0), 0.75, 0.01);
  EXPECT_NEAR(replayed_efficiency(s, 1e-4, 200), 0.75, 0.01);
  EXPECT_GT(balanced_efficiency(s, 1e-3, 0.1), 0.95);
}

}  // namespace
