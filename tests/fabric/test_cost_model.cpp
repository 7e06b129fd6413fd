// The cost model agrees with the cycle simulator within 5% on the whole acceptance grid: window multicast
// (multi-word and one-word payloads) for every b = 1..8 with 2b+1 <= n and every n×n mesh from 8×8 to 64×64,
// with and without wrap (one ctest test per n, so ctest spreads them over cores); plus swaps and reductions.
// It also prices a full wafer.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

#include "fabric/cost_model.hpp"
#include "fabric/cycle_simulator.hpp"
#include "fabric/schedules/schedules.hpp"
#include "sweep_sample.hpp"

namespace wmd::fabric {
namespace {

struct Case {
  ScheduleSpec spec;
  long long simulated = 0, modeled = 0;
};

// Runs every case on the simulator and the model, spread over the machine's cores (CI has two).
void run_cases(std::vector<Case>& cases, const HardwareSpec& hw) {
  // Biggest first, so the threads finish together.
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) {
    return a.spec.grid.size() * a.spec.b * a.spec.b * a.spec.words >
           b.spec.grid.size() * b.spec.b * b.spec.b * b.spec.words;
  });
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < cases.size();) {
      Case& c = cases[i];
      const Schedule s = build_schedule(c.spec);
      const std::vector<std::uint32_t> payload(static_cast<std::size_t>(c.spec.grid.size()) * c.spec.words,
                                               1u);
      const SimulationResult r = simulate(s, hw, payload);
      c.simulated = r.deadlock ? -1 : r.cycles;
      c.modeled = model_schedule(c.spec, hw).cycles;
    }
  };
  const unsigned threads = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
}

double check_within(const std::vector<Case>& cases, double tolerance) {
  double worst = 0;
  for (const Case& c : cases) {
    EXPECT_GT(c.simulated, 0) << "deadlock";
    const double err =
        std::fabs(static_cast<double>(c.modeled - c.simulated)) / static_cast<double>(c.simulated);
    worst = std::max(worst, err);
    EXPECT_LE(err, tolerance) << "n=" << c.spec.grid.width << " b=" << c.spec.b << " words=" << c.spec.words
                              << " wrap=" << c.spec.wrap << ": simulated " << c.simulated << ", modeled "
                              << c.modeled;
  }
  return worst;
}

class WindowMulticastSweep : public ::testing::TestWithParam<int> {};

TEST_P(WindowMulticastSweep, WithinFivePercent) {
  const HardwareSpec hw = preset("wse2");
  std::vector<Case> cases;
  const int n = GetParam();
  WMD_SWEEP_SAMPLE(n, 8, 9, 10, 16, 17, 31, 32, 33, 47, 64);
  for (int b = 1; b <= 8 && 2 * b + 1 <= n; ++b)
    for (bool wrap : {false, true})
      for (int words : {4, 1}) {
        Case c;
        c.spec.kind = ScheduleKind::WindowMulticast;
        c.spec.grid = Grid{n, n};
        c.spec.b = b;
        c.spec.words = words;
        c.spec.wrap = wrap;
        cases.push_back(c);
      }
  run_cases(cases, hw);
  const double worst = check_within(cases, 0.05);
  RecordProperty("cases", static_cast<int>(cases.size()));
  RecordProperty("worst_relative_error", std::to_string(worst));
  std::printf("window multicast n=%d: %zu cases, worst model error %.4f\n", n, cases.size(), worst);
}

INSTANTIATE_TEST_SUITE_P(CostModel, WindowMulticastSweep, ::testing::Range(8, 65),
                         [](const ::testing::TestParamInfo<int>& i) {
                           return "n" + std::to_string(i.param);
                         });

TEST(CostModel, SwapsAndReductionsWithinFivePercent) {
  const HardwareSpec hw = preset("wse2");
  std::vector<Case> cases;
  for (int n : {3, 8, 9, 12, 16, 24, 31, 32, 48, 64})
    for (bool wrap : {false, true}) {
      Case c;
      c.spec.grid = Grid{n, n};
      c.spec.wrap = wrap;
      for (int words : {1, 3, 8}) {
        c.spec.words = words;
        c.spec.kind = ScheduleKind::NeighbourSwap;
        cases.push_back(c);
        c.spec.kind = ScheduleKind::Reduction;
        for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max}) {
          c.spec.op = op;
          cases.push_back(c);
        }
      }
    }
  Case odd;  // non-square and thin meshes
  odd.spec.kind = ScheduleKind::Reduction;
  for (Grid g : {Grid{1, 9}, Grid{17, 1}, Grid{40, 7}}) {
    odd.spec.grid = g;
    cases.push_back(odd);
  }
  run_cases(cases, hw);
  check_within(cases, 0.05);
}

TEST(CostModel, ModelFollowsHardwareParameters) {
  HardwareSpec hw = preset("wse2");
  hw.hop_latency_cycles = 3;
  hw.ramp_latency_cycles = 2;
  hw.router_buffer_wavelets = 6;
  hw.phase_sync_cycles = 5;
  hw.compute.fadd = 4;
  std::vector<Case> cases;
  for (ScheduleKind k : {ScheduleKind::WindowMulticast, ScheduleKind::NeighbourSwap, ScheduleKind::Reduction})
    for (bool wrap : {false, true}) {
      Case c;
      c.spec.kind = k;
      c.spec.grid = Grid{20, 14};
      c.spec.b = 3;
      c.spec.words = 4;
      c.spec.wrap = wrap;
      cases.push_back(c);
    }
  run_cases(cases, hw);
  check_within(cases, 0.05);
}

TEST(CostModel, PricesAFullWafer) {
  const HardwareSpec hw = preset("wse2");
  ScheduleSpec s;
  s.kind = ScheduleKind::WindowMulticast;
  s.grid = wafer_grid(hw);
  s.b = 4;
  s.words = 4;
  const ScheduleCost c = model_schedule(s, hw);
  // b steps of 2 streams of 4 words, then b steps of 2 row windows of 9 payloads: 4b(b+1)·words + latency.
  EXPECT_EQ(c.cycles, 4LL * (2 * 4 + 2) + 4LL * (2 * 9 * 4 + 2));
  EXPECT_NEAR(c.seconds, static_cast<double>(c.cycles) / hw.clock_hz, 1e-15);
  s.kind = ScheduleKind::Reduction;
  s.words = 1;
  const ScheduleCost r = model_schedule(s, hw);
  EXPECT_GT(r.cycles, hw.grid_width + hw.grid_height);  // at least the diameter
}

}  // namespace
}  // namespace wmd::fabric
