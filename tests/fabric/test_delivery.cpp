// Delivery: every PE receives exactly the payloads its window (or its neighbours, or the reduction) calls for
// — none missing, none extra, none twice — on the cycle simulator, and the fast transport gives the same
// bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <tuple>

#include "base/error.hpp"
#include "fabric/cycle_simulator.hpp"
#include "fabric/fast_transport.hpp"
#include "fabric/schedules/schedules.hpp"

namespace wmd::fabric {
namespace {

std::vector<std::uint32_t> random_payload(int n, int seed, bool as_floats) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) {
    if (as_floats) {
      const float f = u(rng);
      std::memcpy(&x, &f, 4);
    } else {
      x = rng();
    }
  }
  return v;
}

// Logical sources a PE must receive, from the definition (not from the schedule): (source logical id).
std::vector<int> expected_sources(const ScheduleSpec& s, const MeshMap& m, int dst) {
  const Grid& g = s.grid;
  const int i = dst % g.width, j = dst / g.width;
  std::vector<int> out;
  if (s.kind == ScheduleKind::WindowMulticast) {
    for (int dy = -s.b; dy <= s.b; ++dy)
      for (int dx = -s.b; dx <= s.b; ++dx) {
        if (dx == 0 && dy == 0) continue;
        const int si = m.x.step(i, dx), sj = m.y.step(j, dy);
        if (si >= 0 && sj >= 0) out.push_back(sj * g.width + si);
      }
  } else {
    const int d[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    for (const auto& o : d) {
      const int si = m.x.step(i, o[0]), sj = m.y.step(j, o[1]);
      if (si >= 0 && sj >= 0) out.push_back(sj * g.width + si);
    }
  }
  return out;
}

// Simulates `spec`, checks exact delivery against the definition and bit equality with the fast transport.
void check_transfer(const ScheduleSpec& spec) {
  SCOPED_TRACE(::testing::Message() << "kind=" << static_cast<int>(spec.kind) << " grid=" << spec.grid.width
                                    << "x" << spec.grid.height << " b=" << spec.b << " words=" << spec.words
                                    << " wrap=" << spec.wrap);
  const HardwareSpec hw = preset("wse2");
  const Schedule sch = build_schedule(spec);
  const Grid& g = spec.grid;
  const int P = spec.words;
  // The payload is indexed by logical PE for the fast transport and by physical PE for the simulator.
  const std::vector<std::uint32_t> logical = random_payload(g.size() * P, 7 + g.size(), false);
  std::vector<std::uint32_t> physical(logical.size());
  for (int l = 0; l < g.size(); ++l)
    for (int w = 0; w < P; ++w) physical[sch.map.physical_pe(l) * P + w] = logical[l * P + w];
  ReceiveBuffers rb;
  const SimulationResult r = simulate(sch, hw, physical, &rb);
  ASSERT_FALSE(r.deadlock);
  EXPECT_EQ(r.duplicates, 0);
  EXPECT_EQ(r.misdelivered, 0);

  FastTransport ft(spec, hw);
  std::vector<std::uint32_t> fast(static_cast<std::size_t>(g.size()) * ft.slots_per_pe());
  ft.deliver_all(logical.data(), fast.data());
  EXPECT_EQ(ft.charged_cycles(), ft.schedule_cycles());
  EXPECT_EQ(ft.slots_per_pe(), rb.slots_per_pe);

  long long expected_words = 0;
  for (int d = 0; d < g.size(); ++d) {
    const int pd = sch.map.physical_pe(d);
    // What the simulator put into this PE: (source logical, word) pairs, each written exactly once.
    std::vector<std::pair<int, int>> got;
    for (int sl = 0; sl < rb.slots_per_pe; ++sl) {
      const std::size_t k = static_cast<std::size_t>(pd) * rb.slots_per_pe + sl;
      if (!rb.writes[k]) continue;
      ASSERT_EQ(rb.writes[k], 1) << "slot written twice at PE " << d;
      const int src = sch.map.logical_pe(rb.src[k]);
      got.push_back({src, rb.word[k]});
      ASSERT_EQ(rb.value[k], logical[src * P + rb.word[k]]) << "wrong value at PE " << d;
      ASSERT_EQ(fast[static_cast<std::size_t>(d) * ft.slots_per_pe() + sl], rb.value[k])
          << "fast transport differs at PE " << d << " slot " << sl;
    }
    std::vector<std::pair<int, int>> want;
    for (int s : expected_sources(spec, sch.map, d)) {
      EXPECT_TRUE(ft.covers(s, d));
      for (int w = 0; w < P; ++w) want.push_back({s, w});
    }
    expected_words += static_cast<long long>(want.size());
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    ASSERT_EQ(got, want) << "PE " << d << " received the wrong set";
  }
  EXPECT_EQ(r.delivered, expected_words);
}

TEST(Delivery, WindowMulticast) {
  for (bool wrap : {false, true})
    for (auto [w, h, b] : {std::tuple{3, 3, 1},
                           {5, 5, 2},
                           {7, 7, 1},
                           {9, 9, 3},
                           {12, 12, 2},
                           {13, 13, 4},
                           {11, 7, 3},
                           {16, 9, 2},
                           {17, 17, 8}})
      for (int words : {1, 4}) {
        ScheduleSpec s;
        s.kind = ScheduleKind::WindowMulticast;
        s.grid = Grid{w, h};
        s.b = b;
        s.words = words;
        s.wrap = wrap;
        check_transfer(s);
      }
}

TEST(Delivery, NeighbourSwap) {
  for (bool wrap : {false, true})
    for (auto [w, h] : {std::pair{3, 3}, {4, 3}, {5, 5}, {6, 4}, {7, 9}, {1, 5}, {5, 1}}) {
      if (wrap && (w < 3 || h < 3)) continue;
      ScheduleSpec s;
      s.kind = ScheduleKind::NeighbourSwap;
      s.grid = Grid{w, h};
      s.words = 8;
      s.wrap = wrap;
      check_transfer(s);
    }
}

TEST(Delivery, ReductionsAgreeBitForBit) {
  const HardwareSpec hw = preset("wse2");
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max})
    for (bool wrap : {false, true})
      for (auto [w, h] : {std::pair{1, 1}, {1, 7}, {6, 1}, {8, 8}, {9, 5}, {16, 16}}) {
        if (wrap && (w < 3 || h < 3)) continue;
        ScheduleSpec s;
        s.kind = ScheduleKind::Reduction;
        s.grid = Grid{w, h};
        s.words = 3;
        s.op = op;
        s.wrap = wrap;
        const Schedule sch = build_schedule(s);
        const std::vector<std::uint32_t> logical = random_payload(w * h * 3, w * 31 + h, true);
        std::vector<std::uint32_t> physical(logical.size());
        for (int l = 0; l < w * h; ++l)
          for (int k = 0; k < 3; ++k) physical[sch.map.physical_pe(l) * 3 + k] = logical[l * 3 + k];
        ReceiveBuffers rb;
        const SimulationResult r = simulate(sch, hw, physical, &rb);
        ASSERT_FALSE(r.deadlock);
        EXPECT_EQ(r.duplicates, 0);
        FastTransport ft(s, hw);
        std::uint32_t fast[3];
        ft.reduce(logical.data(), fast);
        for (int k = 0; k < 3; ++k) {
          double exact = op == ReduceOp::Sum ? 0.0 : op == ReduceOp::Min ? 1e30 : -1e30;
          for (int l = 0; l < w * h; ++l) {
            float f;
            std::memcpy(&f, &logical[l * 3 + k], 4);
            exact = op == ReduceOp::Sum   ? exact + f
                    : op == ReduceOp::Min ? std::min<double>(exact, f)
                                          : std::max<double>(exact, f);
          }
          float got;
          std::memcpy(&got, &fast[k], 4);
          EXPECT_NEAR(got, exact, 1e-4 * w * h);
          if (op != ReduceOp::Sum) {
            EXPECT_EQ(static_cast<double>(got), exact);
          }
          for (int pe = 0; pe < w * h; ++pe) {
            const std::size_t slot = static_cast<std::size_t>(pe) * rb.slots_per_pe + ReduceResult * 3 + k;
            ASSERT_EQ(rb.writes[slot], 1) << "PE " << pe << " lacks the result";
            ASSERT_EQ(rb.value[slot], fast[k]) << "PE " << pe << " differs from the fast transport";
          }
        }
      }
}

TEST(FastTransport, RequestedSubsetIsCheckedAgainstCoverage) {
  const HardwareSpec hw = preset("wse2");
  ScheduleSpec s;
  s.kind = ScheduleKind::WindowMulticast;
  s.grid = Grid{10, 10};
  s.b = 2;
  s.words = 4;
  s.wrap = true;
  FastTransport ft(s, hw);
  const std::vector<std::uint32_t> payload = random_payload(100 * 4, 3, false);
  // PE 0 asks for (9,9) (a periodic diagonal neighbour) and (2,1); PE 1 asks for nothing; the rest nothing.
  std::vector<std::int32_t> offsets(101, 2);
  offsets[0] = 0;
  const std::vector<std::int32_t> sources = {99, 12};
  std::vector<std::uint32_t> out(2 * 4);
  ft.deliver_requested(offsets.data(), sources.data(), payload.data(), out.data());
  for (int w = 0; w < 4; ++w) {
    EXPECT_EQ(out[w], payload[99 * 4 + w]);
    EXPECT_EQ(out[4 + w], payload[12 * 4 + w]);
  }
  EXPECT_EQ(ft.charged_cycles(), ft.schedule_cycles());
  const std::vector<std::int32_t> bad = {99, 33};  // (3,3) is 3 away from (0,0)
  try {
    ft.deliver_requested(offsets.data(), bad.data(), payload.data(), out.data());
    FAIL() << "uncovered request accepted";
  } catch (const RunError& e) {
    EXPECT_NE(std::string(e.what()).find("PE (3,3)"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(ft.covers(0, 0));
  s.wrap = false;
  EXPECT_FALSE(FastTransport(s, hw).covers(99, 0));
}

}  // namespace
}  // namespace wmd::fabric
