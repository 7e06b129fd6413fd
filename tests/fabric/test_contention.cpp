// The simulator is not a contention-free toy: colliding streams stall, and cyclic routes deadlock it.
#include <gtest/gtest.h>

#include "base/error.hpp"
#include "fabric/cycle_simulator.hpp"
#include "fabric/route_checker.hpp"

namespace wmd::fabric {
namespace {

// Two streams of `words` on a 1x4 row: PE 0 → PE 2 on color 0 and PE 1 → PE 3 on color 1; both cross link
// 1→2.
Schedule two_streams(int words, bool same_phase) {
  Schedule s;
  s.name = "colliding";
  s.spec.grid = Grid{4, 1};
  s.spec.words = words;
  s.map = MeshMap(s.spec.grid, false);
  s.routes = RouteTable(s.spec.grid, 2);
  route_path(s.routes, 0, 2, 0);
  route_path(s.routes, 1, 3, 1);
  s.slots_per_pe = words;
  auto stream = [&](PhaseBuilder& pb, int pe, int color) {
    pb.begin_stream(pe, color);
    for (int w = 0; w < words; ++w) {
      SendItem it;
      it.kind = ItemKind::Own;
      it.a = w;
      it.dst_slot = w;
      it.src_pe = pe;
      it.word = static_cast<std::int16_t>(w);
      pb.add(it);
    }
  };
  PhaseBuilder pb(4);
  stream(pb, 0, 0);
  if (same_phase) {
    stream(pb, 1, 1);
    s.phases.push_back(pb.finish());
  } else {
    s.phases.push_back(pb.finish());
    PhaseBuilder pb2(4);
    stream(pb2, 1, 1);
    s.phases.push_back(pb2.finish());
  }
  return s;
}

TEST(Contention, CollidingStreamsStall) {
  const HardwareSpec hw = preset("wse2");
  const int words = 32;
  const std::vector<std::uint32_t> payload(4 * words, 5u);
  const SimulationResult apart = simulate(two_streams(words, false), hw, payload);
  EXPECT_EQ(apart.stall_cycles, 0);
  // Alone, a stream lands its last word (words - 1) + 2 ramp + 2 hop latencies after its first.
  EXPECT_EQ(apart.phase_cycles[0], words - 1 + 2 + 2);
  const SimulationResult together = simulate(two_streams(words, true), hw, payload);
  EXPECT_FALSE(together.deadlock);
  EXPECT_GT(together.stall_cycles, words / 2);
  EXPECT_GE(together.cycles, 2 * words);  // link 1→2 carries both streams, one wavelet per cycle
  EXPECT_EQ(together.delivered, 2 * words);
}

TEST(Contention, CyclicRoutesDeadlockTheRunningSimulator) {
  // The square of four flows each going 3 hops clockwise (see test_routes.cpp): the checker refuses it ...
  Schedule s;
  s.name = "cycle";
  s.spec.grid = Grid{2, 2};
  s.spec.words = 64;
  s.map = MeshMap(s.spec.grid, false);
  s.routes = RouteTable(s.spec.grid, 4);
  const int ring[4] = {0, 1, 3, 2};
  const Port out[4] = {East, South, West, North};
  for (int f = 0; f < 4; ++f)
    for (int h = 0; h < 4; ++h) {
      const int k = (f + h) % 4;
      const Port in = h == 0 ? Ramp : opposite(out[(k + 3) % 4]);
      s.routes.add(ring[k], f, in, h == 3 ? port_bit(Ramp) : port_bit(out[k]));
    }
  s.slots_per_pe = 64;
  PhaseBuilder pb(4);
  for (int pe = 0; pe < 4; ++pe) {
    int f = 0;
    while (ring[f] != pe) ++f;
    pb.begin_stream(pe, f);
    for (int w = 0; w < 64; ++w) {
      SendItem it;
      it.a = w;
      it.dst_slot = w;
      it.src_pe = pe;
      it.word = static_cast<std::int16_t>(w);
      pb.add(it);
    }
  }
  s.phases.push_back(pb.finish());
  const HardwareSpec hw = preset("wse2");
  const std::vector<std::uint32_t> payload(4 * 64, 1u);
  EXPECT_THROW(simulate(s, hw, payload), RunError);
  // ... and run anyway, the simulator finds itself stuck.
  SimulationOptions opt;
  opt.check_routes = false;
  opt.deadlock_idle_cycles = 50;
  const SimulationResult r = simulate(s, hw, payload, nullptr, opt);
  EXPECT_TRUE(r.deadlock);
  EXPECT_NE(r.deadlock_detail.find("stuck"), std::string::npos) << r.deadlock_detail;
  EXPECT_LT(r.delivered, 4 * 64);
}

}  // namespace
}  // namespace wmd::fabric
