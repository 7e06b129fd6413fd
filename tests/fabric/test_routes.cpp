// The route checker rejects every class of impossible configuration, and every built schedule passes it.
#include <gtest/gtest.h>

#include "base/error.hpp"
#include "fabric/hardware.hpp"
#include "fabric/route_checker.hpp"
#include "fabric/schedules/schedules.hpp"

namespace wmd::fabric {
namespace {

bool mentions(const std::vector<std::string>& problems, const std::string& text) {
  for (const auto& p : problems)
    if (p.find(text) != std::string::npos) return true;
  return false;
}

TEST(RouteChecker, AcceptsAStraightPath) {
  RouteTable r(Grid{4, 1}, 2);
  route_path(r, 0, 3, 0);
  EXPECT_TRUE(find_route_problems(r, preset("wse2")).empty());
}

TEST(RouteChecker, RejectsTooManyColors) {
  HardwareSpec hw = preset("wse2");
  hw.colors = 2;
  RouteTable r(Grid{4, 1}, 3);
  route_path(r, 0, 1, 0);
  route_path(r, 1, 2, 1);
  route_path(r, 2, 3, 2);
  const auto p = find_route_problems(r, hw);
  EXPECT_TRUE(mentions(p, "too many colors: the routes use 3 colors")) << (p.empty() ? "" : p[0]);
  EXPECT_THROW(check_routes(r, hw, "test"), RunError);
}

TEST(RouteChecker, RejectsTwoInputsForOneColor) {
  RouteTable r(Grid{3, 1}, 1);
  route_path(r, 0, 1, 0);
  route_path(r, 2, 1, 0);  // PE 1 would take color 0 from W and from E
  EXPECT_TRUE(mentions(find_route_problems(r, preset("wse2")), "has 2 inputs (E+W)"));
}

TEST(RouteChecker, RejectsRoutesOffTheEdge) {
  RouteTable r(Grid{2, 2}, 1);
  r.add(1, 0, Ramp, port_bit(East));  // PE (1,0) is on the east edge
  EXPECT_TRUE(mentions(find_route_problems(r, preset("wse2")), "routes E off the edge of the 2x2 mesh"));
}

TEST(RouteChecker, RejectsANeighbourThatDoesNotListen) {
  RouteTable r(Grid{3, 1}, 1);
  r.add(0, 0, Ramp, port_bit(East));
  r.add(1, 0, East, port_bit(Ramp));  // listens on the wrong side
  EXPECT_TRUE(mentions(find_route_problems(r, preset("wse2")), "takes color 0 from E, not W"));
}

TEST(RouteChecker, RejectsHalfRoutesAndUTurns) {
  RouteTable r(Grid{3, 1}, 2);
  r.tx[1 * 2 + 0] = port_bit(East);  // outputs with no input
  r.add(2, 1, West, port_bit(West));
  const auto p = find_route_problems(r, preset("wse2"));
  EXPECT_TRUE(mentions(p, "has outputs E but no input"));
  EXPECT_TRUE(mentions(p, "U-turn"));
}

// Four flows chase each other around a 2x2 square, 3 hops each: their queues wait on each other in a ring.
RouteTable square_cycle() {
  RouteTable r(Grid{2, 2}, 4);
  const int A = 0, B = 1, C = 3, D = 2;  // (0,0) (1,0) (1,1) (0,1), clockwise
  const int ring[4] = {A, B, C, D};
  const Port out[4] = {East, South, West, North};  // leaving ring[k] towards ring[k+1]
  for (int f = 0; f < 4; ++f)
    for (int h = 0; h < 4; ++h) {
      const int k = (f + h) % 4;
      const Port in = h == 0 ? Ramp : opposite(out[(k + 3) % 4]);
      r.add(ring[k], f, in, h == 3 ? port_bit(Ramp) : port_bit(out[k]));
    }
  return r;
}

TEST(RouteChecker, RejectsCyclesThatCanDeadlock) {
  const auto p = find_route_problems(square_cycle(), preset("wse2"));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_TRUE(mentions(p, "route cycle can deadlock")) << p[0];
}

TEST(RouteChecker, BuiltSchedulesAreValid) {
  const HardwareSpec hw = preset("wse2");
  for (bool wrap : {false, true})
    for (int n : {3, 4, 9, 10, 17}) {
      ScheduleSpec s;
      s.grid = Grid{n, n + 1};
      s.wrap = wrap;
      s.words = 2;
      for (ScheduleKind k :
           {ScheduleKind::WindowMulticast, ScheduleKind::NeighbourSwap, ScheduleKind::Reduction}) {
        s.kind = k;
        s.b = (n - 1) / 2;
        const Schedule sch = build_schedule(s);
        const auto p = find_route_problems(sch.routes, hw);
        EXPECT_TRUE(p.empty()) << sch.name << " n=" << n << " wrap=" << wrap << ": " << p[0];
        EXPECT_LE(sch.routes.colors_used(), wrap ? 16 : 9);
      }
    }
}

}  // namespace
}  // namespace wmd::fabric
