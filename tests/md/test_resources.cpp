// The /proc/stat reading behind report.json's host_steal and the log's "Host steal:" line.
#include <gtest/gtest.h>

#include <sstream>

#include "md/core/resources.hpp"

using namespace wmd::md;

namespace {

// Two CPUs' lines as Linux writes them (user nice system idle iowait irq softirq steal guest guest_nice),
// between the all-CPU line and the interrupt counters.
const char* kStat =
    "cpu  300 0 30 600 6 0 3 90 0 0\n"
    "cpu0 100 0 10 200 2 0 1 40 7 0\n"
    "cpu1 200 0 20 400 4 0 2 50 0 0\n"
    "cpu10 1 1 1 1 1 1 1 1 0 0\n"
    "intr 12345 0 0\n";

CpuTicks parse(const std::vector<int>& cpus) {
  std::istringstream in(kStat);
  return parse_cpu_ticks(in, cpus);
}

}  // namespace

TEST(HostSteal, SumsTheStatesOfTheNamedCpusOnly) {
  const CpuTicks one = parse({1});
  EXPECT_TRUE(one.known);
  EXPECT_EQ(one.total, 200 + 20 + 400 + 4 + 2 + 50);  // guest time is inside user: not added twice
  EXPECT_EQ(one.steal, 50);
  const CpuTicks both = parse({0, 1});
  EXPECT_EQ(both.total, 353 + 676);
  EXPECT_EQ(both.steal, 90);
  const CpuTicks ten = parse({10});  // "cpu10" is not "cpu1" followed by a 0
  EXPECT_TRUE(ten.known);
  EXPECT_EQ(ten.total, 8);
}

TEST(HostSteal, AMissingCpuMakesTheReadingUnknown) {
  EXPECT_FALSE(parse({0, 3}).known);
  EXPECT_FALSE(parse({}).known);
  std::istringstream empty("");
  EXPECT_FALSE(parse_cpu_ticks(empty, {0}).known);
}

TEST(HostSteal, ShareOfTheTimeBetweenTwoReadings) {
  const CpuTicks before{1000, 100, true}, after{1400, 180, true};
  EXPECT_DOUBLE_EQ(steal_share(before, after), 0.2);
  EXPECT_EQ(steal_share(before, before), 0.0);  // within one clock tick
  EXPECT_LT(steal_share(after, before), 0.0);   // counters never run backwards
  EXPECT_LT(steal_share(CpuTicks{}, after), 0.0);
  EXPECT_LT(steal_share(before, CpuTicks{}), 0.0);
}

TEST(HostSteal, ThisProcessCpusAreReadable) {
  // Linux only: every CPU this process may run on has a line in /proc/stat, and time moves on.
  std::ifstream probe("/proc/stat");
  if (!probe) GTEST_SKIP() << "no /proc/stat";
  const CpuTicks t = cpu_ticks();
  ASSERT_TRUE(t.known);
  EXPECT_GT(t.total, 0);
  EXPECT_GE(t.steal, 0);
  EXPECT_LE(t.steal, t.total);
}
