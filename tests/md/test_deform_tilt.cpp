// fix deform on a triclinic box, driven directly (the fix's init, end_of_step and pre_exchange on a hand-made
// State): the tilt styles' targets and rates (Box::h_rate[3..5]), lattice units, remap x in fractional
// coordinates, LAMMPS's flip rule (the tilt past ±½ of its period flipped at the next step, the image flags
// changed so that unwrapped positions stay, a re-neighbouring asked for), flip no, LAMMPS's refusals, the
// checkpoint of a pending flip; and compute temp/deform's triclinic streaming velocity. Against lmp at 1 and
// 3 ranks: StylesLammps.deform_tilt and deform_tilt_sllod.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "io/command.hpp"
#include "md/styles/compute.hpp"
#include "md/styles/fix.hpp"

namespace {

using namespace wmd;
using namespace wmd::md;

// A 10 × 20 × 30 Å triclinic box at the origin with four atoms.
State triclinic_state(double xy = 0.0, double xz = 0.0, double yz = 0.0) {
  State s;
  s.box.hi[0] = 10.0, s.box.hi[1] = 20.0, s.box.hi[2] = 30.0;
  s.box.xy = xy, s.box.xz = xz, s.box.yz = yz;
  s.box.triclinic = true;
  s.box.defined = true;
  s.ntypes = 1;
  s.mass = {0.0, 63.55};
  s.group_names = {"all"};
  s.dt = 0.001;
  const double pts[4][3] = {{1.0, 2.0, 3.0}, {9.5, 19.0, 29.0}, {5.0, 10.0, 15.0}, {0.2, 18.0, 1.0}};
  for (int k = 0; k < 4; ++k) s.atoms.add(k + 1, 1, pts[k][0], pts[k][1], pts[k][2]);
  return s;
}

struct Driven {
  State& s;
  Comm comm;
  std::map<std::string, Region> regions;
  io::Command cmd;
  std::unique_ptr<Fix> fix;
  int64_t begin = 0, end = 0;

  Driven(State& st, const std::string& args, double lattice = 1.0) : s(st) {
    cmd.name = "fix";
    std::string w;
    for (char ch : args + " ") {
      if (ch != ' ') {
        w += ch;
      } else if (!w.empty()) {
        cmd.args.push_back(w), w.clear();
      }
    }
    FixBuildContext ctx{s, regions};
    ctx.lattice[0] = lattice, ctx.lattice[1] = 2.0 * lattice, ctx.lattice[2] = 3.0 * lattice;
    io::ArgCursor a(cmd);
    const std::string id = "d", style = "deform";
    fix = make_fix(FixArgs{id, 1u, style, a, ctx});
  }
  FixContext context() {
    FixContext c{s, comm};
    c.run_begin = begin, c.run_end = end;
    return c;
  }
  // A run of n steps from the present one: init, then each step's pre_exchange (true: a re-neighbouring
  // asked for) and end_of_step.
  void init(int64_t n) {
    begin = s.step, end = s.step + n;
    FixContext c = context();
    fix->init(c);
  }
  bool step() {
    ++s.step;
    FixContext c = context();
    const bool rebuild = fix->pre_exchange(c);
    fix->end_of_step(c);
    return rebuild;
  }
};

// What a fix command's factory refuses: its message.
std::string refusal(State s, const std::string& args) {
  try {
    Driven d(s, args);
    d.init(100);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(FixDeformTilt, RefusedOnAnOrthogonalBoxWithLammpsWords) {
  State s = triclinic_state();
  s.box.triclinic = false;
  for (const char* t : {"xy", "xz", "yz"})
    EXPECT_NE(refusal(s, std::string("1 ") + t + " erate 0.1")
                  .find("Fix deform tilt factors require triclinic box"),
              std::string::npos)
        << t;
}

TEST(FixDeformTilt, LammpsRefusals) {
  const State s = triclinic_state();
  EXPECT_NE(refusal(s, "1 xy trate 0.1").find("Cannot use fix deform trate on a box with zero tilt"),
            std::string::npos);
  // yz would pass ½ly (10 Å) while xy changes, with flips on: refused; with flip no, allowed.
  EXPECT_NE(
      refusal(s, "1 yz final 11 xy erate 0.1 units box").find("Fix deform is changing yz too much with xy"),
      std::string::npos);
  EXPECT_EQ(refusal(s, "1 yz final 11 xy erate 0.1 units box flip no"), "");
  EXPECT_EQ(refusal(s, "1 yz final 9 xy erate 0.1 units box"), "");
  State shrink = triclinic_state();
  shrink.box.face[1][0] = shrink.box.face[1][1] = Face::shrink;
  EXPECT_NE(refusal(shrink, "1 xy erate 0.1").find("Cannot use fix deform tilt on a shrink-wrapped 2nd dim"),
            std::string::npos);
  EXPECT_EQ(refusal(shrink, "1 xz erate 0.1"), "");  // xz's second dimension is z
  EXPECT_NE(refusal(s, "1 xy scale 2").find("tilt style 'scale'"), std::string::npos);
  EXPECT_NE(refusal(s, "1 xy volume").find("tilt style 'volume'"), std::string::npos);
}

TEST(FixDeformTilt, StylesFollowLammpsTargetsAndRates) {
  struct Case {
    const char* args;
    double tilt_after_10, rate;  // xz after 10 of 100 steps (dt 0.001 ps), h_rate[4] after init
  };
  // xz starts at 1; z is 30 Å long (erate's perpendicular length), x 10 Å (the lattice scales by x: 1 here).
  const double e01 = std::exp(0.5 * 0.01), s = std::sin(2.0 * M_PI * 0.01 / 0.05);
  const Case cases[] = {
      {"1 xz final 3 units box", 1.2, 20.0},
      {"1 xz delta -2 units box", 0.8, -20.0},
      {"1 xz vel 4", 1.04, 4.0},
      {"1 xz erate 0.2", 1.0 + 0.01 * 0.2 * 30.0, 0.2 * 30.0},
      {"1 xz trate 0.5", e01, 0.0},
      {"1 xz wiggle 0.3 0.05", 1.0 + 0.3 * s, 0.0},
  };
  for (const Case& k : cases) {
    State st = triclinic_state(0.0, 1.0, 0.0);
    Driven d(st, k.args);
    d.init(100);
    EXPECT_NEAR(st.box.h_rate[4], k.rate, 1e-12) << k.args;
    EXPECT_EQ(st.box.h_rate[3], 0.0);
    EXPECT_EQ(st.box.h_rate[5], 0.0);
    for (int n = 0; n < 10; ++n) d.step();
    EXPECT_NEAR(st.box.xz, k.tilt_after_10, 1e-12) << k.args;
    EXPECT_EQ(st.box.xy, 0.0);
    EXPECT_EQ(st.box.yz, 0.0);
  }
  // trate's and wiggle's rates follow the box at each change (trate: of the tilt before it).
  State st = triclinic_state(0.0, 1.0, 0.0);
  Driven d(st, "1 xz trate 0.5");
  d.init(100);
  const double before = st.box.xz;
  d.step();
  EXPECT_DOUBLE_EQ(st.box.h_rate[4], 0.5 * before);
}

TEST(FixDeformTilt, LatticeUnitsScaleATiltByItsFirstDirection) {
  // Spacings x 1.5, y 3, z 4.5: xy and xz by x's, yz by y's (LAMMPS's map[3..5]).
  for (const auto& [args, index, expect] : std::vector<std::tuple<const char*, int, double>>{
           {"1 xy final 2", 5, 3.0}, {"1 xz delta 2", 4, 3.0}, {"1 yz final 2", 3, 6.0}}) {
    State st = triclinic_state();
    Driven d(st, args, 1.5);
    d.init(10);
    for (int n = 0; n < 10; ++n) d.step();
    const double tilt = index == 5 ? st.box.xy : index == 4 ? st.box.xz : st.box.yz;
    EXPECT_DOUBLE_EQ(tilt, expect) << args;
  }
}

TEST(FixDeformTilt, RemapXKeepsFractionalCoordinatesAndLengthRatesStay) {
  State st = triclinic_state(1.0, 0.5, -2.0);
  Driven d(st, "1 xy erate 0.3 yz vel -1 y erate 0.2 units box");
  d.init(50);
  // The length's h_rate and h_ratelo hold with the tilts changing.
  EXPECT_NEAR(st.box.h_rate[1], 0.2 * 20.0, 1e-12);
  EXPECT_NEAR(st.box.h_ratelo[1], -0.1 * 20.0, 1e-12);
  EXPECT_NEAR(st.box.h_rate[5], 0.3 * 20.0, 1e-12);
  EXPECT_NEAR(st.box.h_rate[3], -1.0, 1e-12);
  std::vector<std::array<double, 3>> lamda;
  for (size_t k = 0; k < st.atoms.size(); ++k) {
    const double x[3] = {st.atoms.x[k], st.atoms.y[k], st.atoms.z[k]};
    std::array<double, 3> l;
    st.box.to_lamda(x, l.data());
    lamda.push_back(l);
  }
  for (int n = 0; n < 20; ++n) d.step();
  EXPECT_NEAR(st.box.xy, 1.0 + 0.02 * 0.3 * 20.0, 1e-12);
  EXPECT_NEAR(st.box.yz, -2.0 - 0.02, 1e-12);
  for (size_t k = 0; k < st.atoms.size(); ++k) {
    const double x[3] = {st.atoms.x[k], st.atoms.y[k], st.atoms.z[k]};
    double l[3];
    st.box.to_lamda(x, l);
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(l[c], lamda[k][c], 1e-13) << k << " " << c;
  }
}

TEST(FixDeformTilt, FlipsPastHalfThePeriodAtTheNextStepKeepingUnwrappedPositions) {
  // xy from 4.9005 at 1 Å/ps (units box, 1 fs steps): the change of step 100 leaves [−½lx, ½lx] = [−5, 5]
  // and decides the flip, made at step 101's pre_exchange (before its re-neighbouring).
  State st = triclinic_state(4.9005, 0.0, 0.0);
  st.atoms.iy[1] = 1, st.atoms.iy[3] = -2, st.atoms.ix[3] = 1, st.atoms.iz[2] = 1;
  Driven d(st, "1 xy vel 1 units box remap none");
  d.init(400);
  int flipped_at = -1;
  std::vector<std::array<double, 3>> unwrapped(st.atoms.size());
  for (int n = 1; n <= 300 && flipped_at < 0; ++n) {
    for (size_t k = 0; k < st.atoms.size(); ++k) {
      const double x[3] = {st.atoms.x[k], st.atoms.y[k], st.atoms.z[k]};
      st.box.unwrap(x, st.atoms.ix[k], st.atoms.iy[k], st.atoms.iz[k], unwrapped[k].data());
    }
    const double xy_before = st.box.xy;
    if (d.step()) {
      flipped_at = n;
      EXPECT_GT(xy_before, 5.0);  // the previous change left the tilt past ½lx
    }
  }
  EXPECT_EQ(flipped_at, 101);
  // Flipped by one lx (then the step's own change), atom 1's x flag moved by its y flag (B' = B − A) and by
  // one more as it is wrapped back in (it lay beyond the flipped box's x face).
  EXPECT_NEAR(st.box.xy, 4.9005 + 0.101 - 10.0, 1e-12);
  EXPECT_EQ(st.atoms.ix[1], 2);
  for (size_t k = 0; k < st.atoms.size(); ++k) {
    const double x[3] = {st.atoms.x[k], st.atoms.y[k], st.atoms.z[k]};
    double l[3], u[3];
    st.box.to_lamda(x, l);
    for (int c = 0; c < 3; ++c) EXPECT_TRUE(l[c] >= 0.0 && l[c] < 1.0) << k << " " << c << " " << l[c];
    // The step's end_of_step moved the tilt by 1 fs × 1 Å/ps after the flip (remap none): the unwrapped
    // position of before the flip step, less that change times the image's y count.
    st.box.unwrap(x, st.atoms.ix[k], st.atoms.iy[k], st.atoms.iz[k], u);
    EXPECT_NEAR(u[0], unwrapped[k][0] + 0.001 * st.atoms.iy[k], 1e-9) << k;
    EXPECT_NEAR(u[1], unwrapped[k][1], 1e-9) << k;
    EXPECT_NEAR(u[2], unwrapped[k][2], 1e-9) << k;
  }
  // No further flip until xy again passes ½lx.
  for (int n = 0; n < 50; ++n) EXPECT_FALSE(d.step());
}

TEST(FixDeformTilt, YzFlipMovesXzByXy) {
  // yz past ½ly = 10: C' = C − B, so xz' = xz − xy, and the flags iy += iz (Domain::image_flip, p = −1).
  State st = triclinic_state(2.0, 1.0, 9.9905);
  st.atoms.iz[0] = 1;
  Driven d(st, "1 yz vel 1 units box remap none");
  d.init(100);
  for (int n = 1; n <= 10; ++n) EXPECT_FALSE(d.step()) << n;  // step 10's change (10.0005) decides it
  EXPECT_TRUE(d.step());
  EXPECT_NEAR(st.box.yz, 9.9905 + 0.011 - 20.0, 1e-12);
  EXPECT_NEAR(st.box.xz, 1.0 - 2.0, 1e-12);
  EXPECT_NEAR(st.box.xy, 2.0, 1e-12);
  EXPECT_EQ(st.atoms.iy[0], 1);
  EXPECT_EQ(st.atoms.ix[0], 0);
}

TEST(FixDeformTilt, FlipNoLetsTheTiltGoOn) {
  State st = triclinic_state(4.9, 0.0, 0.0);
  Driven d(st, "1 xy vel 10 units box flip no");
  d.init(100);
  for (int n = 0; n < 100; ++n) EXPECT_FALSE(d.step());
  EXPECT_NEAR(st.box.xy, 5.9, 1e-12);
}

TEST(FixDeformTilt, APendingFlipIsCheckpointedButNotInARestartFile) {
  State st = triclinic_state(4.9995, 0.0, 0.0);
  Driven d(st, "1 xy vel 1 units box");
  d.init(100);
  EXPECT_FALSE(d.step());  // 5.0005: decided, not yet made
  FixStateMap saved;
  d.fix->save_state(saved);
  // A checkpoint continues with the flip (the fix built again, on the box it was written with).
  State again = st;
  Driven e(again, "1 xy vel 1 units box");
  e.fix->restore_state(saved);
  e.begin = d.begin, e.end = d.end;
  FixContext ec = e.context();
  e.fix->init(ec);
  EXPECT_TRUE(e.step());
  EXPECT_NEAR(again.box.xy, 4.9995 + 0.002 - 10.0, 1e-12);
  // LAMMPS's FixDeform::restart takes back the starting box, not a pending flip: it is decided again.
  State restarted = st;
  Driven r(restarted, "1 xy vel 1 units box");
  r.fix->restore_restart_state(saved);
  r.begin = d.begin, r.end = d.end;
  FixContext rc = r.context();
  r.fix->init(rc);
  EXPECT_FALSE(r.step());
  EXPECT_NEAR(restarted.box.xy, 4.9995 + 0.002, 1e-12);
  EXPECT_TRUE(r.step());
  // Another style under the same ID: LAMMPS's "Fix deform settings not consistent with restart".
  State other = st;
  Driven o(other, "1 xy erate 0.1");
  try {
    o.fix->restore_restart_state(saved);
    ADD_FAILURE() << "no refusal";
  } catch (const InputError& ex) {
    EXPECT_NE(std::string(ex.what()).find("Fix deform settings not consistent with restart"),
              std::string::npos);
  }
}

TEST(ComputeTempDeformTilt, StreamingVelocityHasTheTiltRates) {
  State st = triclinic_state(2.0, 1.0, 3.0);
  for (int k = 0; k < 6; ++k) st.box.h_rate[k] = 0.0;
  st.box.h_rate[0] = 0.7, st.box.h_ratelo[0] = -0.35;
  st.box.h_rate[5] = 5.0, st.box.h_rate[4] = 4.0, st.box.h_rate[3] = 3.0;
  std::map<std::string, Region> regions;
  ComputeBuildContext ctx{st, regions, "cluster", nullptr, {1.0, 1.0, 1.0}, nullptr, {}};
  io::Command cmd{"compute", {}, {}, ""};
  io::ArgCursor a(cmd);
  const std::string id = "td", style = "temp/deform";
  std::unique_ptr<Compute> c = make_compute(ComputeArgs{id, 1u, style, a, ctx});
  const size_t i = 2;
  const double x[3] = {st.atoms.x[i], st.atoms.y[i], st.atoms.z[i]};
  double l[3];
  st.box.to_lamda(x, l);
  st.atoms.vx[i] = st.atoms.vy[i] = st.atoms.vz[i] = 0.0;
  c->remove_bias(st, i);
  EXPECT_NEAR(-st.atoms.vx[i], 0.7 * l[0] + 5.0 * l[1] + 4.0 * l[2] - 0.35, 1e-14);
  EXPECT_NEAR(-st.atoms.vy[i], 3.0 * l[2], 1e-14);
  EXPECT_NEAR(-st.atoms.vz[i], 0.0, 1e-14);
  c->restore_bias(st, i);
  EXPECT_EQ(st.atoms.vx[i], 0.0);
}

}  // namespace
