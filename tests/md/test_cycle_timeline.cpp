// The mesh backend's cycle timeline (md/mesh/cycle_timeline.*): intervals that cover the run's steps and
// simulated time without gaps, a knock-on atom's intervals priced above the quiet crystal's (its rebuilds and
// remaps), long runs thinned with their span kept, and the setting's bounds.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "fabric/hardware.hpp"
#include "md/mesh/cycle_timeline.hpp"
#include "md/mesh/mesh_backend.hpp"
#include "program_harness.hpp"
#include "sim_harness.hpp"

namespace {

using namespace wmd;

// 2,400 Cu atoms at 300 K for 100 steps, then one atom given 1 keV along a low-index direction for 100 more
// (dt 0.2 fs: the knock-on atom moves 0.1 Å per step, so the lists are rebuilt every few steps).
const std::string kKnockOn =
    "units metal\natom_style atomic\nlattice fcc 3.615\nregion box block 0 10 0 10 0 6\n"
    "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 Cu_u3.eam\n"
    "velocity all create 300.0 4928 loop geom\nneighbor 1.0 bin\nneigh_modify every 1 delay 0 check yes\n"
    "fix 1 all nve\ntimestep 0.0002\nthermo 50\nrun 100\n"
    "group pka id 1\nvelocity pka set 540.0 100.0 30.0\nrun 100\n";

TEST(CycleTimeline, KnockOnIntervalsArePricedAboveTheQuietCrystal) {
  io::RunSettings settings;
  settings.backend = "mesh";
  settings.mesh_timeline_every = 20;
  test::ScriptRun run(kKnockOn, test::scratch_dir("timeline_knock_on"), settings);
  const auto& mesh = dynamic_cast<const md::mesh::MeshBackend&>(*run.sim->backend);
  const nlohmann::json f = mesh.fabric_json();
  ASSERT_TRUE(f.contains("timeline"));
  const auto& t = f["timeline"];
  const auto& iv = t["intervals"];
  ASSERT_EQ(iv.size(), 10u) << t.dump(1);
  // The intervals tile the run: contiguous in steps and simulated time, ending at the present.
  int64_t steps = 0;
  double seconds = 0;
  for (size_t i = 0; i < iv.size(); ++i) {
    steps += iv[i]["steps"].get<int64_t>();
    seconds += iv[i]["seconds"].get<double>();
    EXPECT_EQ(iv[i]["step_end"].get<int64_t>() - iv[i]["step_start"].get<int64_t>(), iv[i]["steps"]);
    if (i > 0) {
      EXPECT_EQ(iv[i]["step_start"], iv[i - 1]["step_end"]);
      EXPECT_DOUBLE_EQ(iv[i]["time_ps_start"].get<double>(), iv[i - 1]["time_ps_end"].get<double>());
    }
  }
  EXPECT_EQ(steps, mesh.counters().steps);
  EXPECT_EQ(t["steps"].get<int64_t>(), steps);
  EXPECT_NEAR(t["predicted_seconds"].get<double>(), seconds, 1e-12 * seconds);
  EXPECT_NEAR(iv.back()["time_ps_end"].get<double>(), run.sim->state.time, 1e-12);
  // Before the kick: no remap and few rebuilds; after it, rebuilds and remaps in every interval and a dearer
  // step (the rebuild's scan and the remaps' swaps are priced per interval).
  double quiet = 0, kicked = 0;
  int64_t quiet_rebuilds = 0, kicked_remaps = 0;
  for (size_t i = 0; i < 5; ++i) {
    quiet = std::max(quiet, iv[i]["cycles_per_step"].get<double>());
    quiet_rebuilds += iv[i]["rebuilds"].get<int64_t>();
    EXPECT_EQ(iv[i]["remaps"].get<int64_t>(), 0) << i;
  }
  kicked = iv[5]["cycles_per_step"].get<double>();
  for (size_t i = 5; i < 10; ++i) {
    kicked = std::min(kicked, iv[i]["cycles_per_step"].get<double>());
    EXPECT_GE(iv[i]["rebuilds"].get<int64_t>(), 2) << i;
    kicked_remaps += iv[i]["remaps"].get<int64_t>();
  }
  EXPECT_GT(kicked_remaps, 0);
  EXPECT_LE(quiet_rebuilds, 2);
  EXPECT_GT(kicked, quiet) << t.dump(1);
  // One program prices every interval, the fastest that fits in all of them.
  EXPECT_TRUE(t["program"]["fits"].get<bool>());
  for (const auto& r : iv) EXPECT_TRUE(r["fits"].get<bool>());
}

// A long run keeps at most kMaxSamples samples: the interval doubles, the span stays whole.
TEST(CycleTimeline, LongRunsAreThinnedWithTheirSpanKept) {
  md::mesh::CycleTimeline tl;
  tl.configure(1);
  md::mesh::MeshCounters c;
  const int64_t n = 10000;
  for (int64_t step = 1; step <= n; ++step) {
    c.steps = c.forces = step;
    c.sum_candidates_max = 40.0 * step, c.sum_in_cut_max = 20.0 * step;
    c.checks = step;  // the rebuild vote every step, no rebuild: the same work in every interval
    tl.sample(step, 0.002 * step, 3, c, false);
  }
  md::mesh::StepWork shape;
  shape.grid = fabric::Grid{100, 100};
  const nlohmann::json j = tl.report(shape, fabric::load_hardware("wse2"), c);
  const auto& iv = j["intervals"];
  EXPECT_LE(iv.size(), md::mesh::CycleTimeline::kMaxSamples);
  EXPECT_GE(iv.size(), md::mesh::CycleTimeline::kMaxSamples / 2);
  EXPECT_GE(j["every"].get<int>(), 2);
  EXPECT_EQ(j["steps"].get<int64_t>(), n - 1);  // from the first sample (step 1) to the last
  EXPECT_NEAR(iv.back()["time_ps_end"].get<double>(), 0.002 * n, 1e-9);
  for (size_t i = 1; i < iv.size(); ++i) EXPECT_EQ(iv[i]["step_start"], iv[i - 1]["step_end"]);
  // Uniform work: every interval prices the same step.
  EXPECT_NEAR(iv.front()["cycles_per_step"].get<double>(), iv.back()["cycles_per_step"].get<double>(),
              1e-6 * iv.back()["cycles_per_step"].get<double>());
}

// A checkpoint's samples come back as they were; a crafted or damaged array is refused, never priced.
TEST(CycleTimeline, StateRoundTripsAndRefusesDamagedArrays) {
  md::mesh::CycleTimeline tl;
  tl.configure(10);
  md::mesh::MeshCounters c;
  for (int64_t step = 0; step <= 100; step += 10) {
    c.steps = c.forces = step;
    c.sum_candidates_max = 50.0 * step, c.sum_in_cut_max = 25.0 * step, c.step_rebuilds = step / 20;
    tl.sample(step, 0.001 * step, 4, c, step == 0);
  }
  const std::vector<double> v = tl.state();
  md::mesh::CycleTimeline back;
  back.configure(1);
  ASSERT_TRUE(back.set_state(v));
  md::mesh::StepWork shape;
  shape.grid = fabric::Grid{60, 60};
  const fabric::HardwareSpec hw = fabric::load_hardware("wse2");
  EXPECT_EQ(back.report(shape, hw, c), tl.report(shape, hw, c));
  EXPECT_EQ(back.report(shape, hw, c)["intervals"].size(), 10u);
  auto refused = [&](size_t at, double value) {
    std::vector<double> w = v;
    w[at] = value;
    md::mesh::CycleTimeline t;
    t.configure(1);
    return !t.set_state(w);
  };
  const size_t first = 5;  // the first sample's step, time, b, then account.steps
  EXPECT_TRUE(refused(first + 3, std::nan("")));
  EXPECT_TRUE(refused(first + 3 + 20, -1.0)) << "a negative counter";
  EXPECT_TRUE(refused(first + 2, 0.0)) << "a window radius below 1";
  EXPECT_TRUE(refused(0, 0.0)) << "an interval of 0 steps";
  EXPECT_TRUE(refused(4, 1e9)) << "more samples than the array holds";
  std::vector<double> w = v;
  w.pop_back();
  md::mesh::CycleTimeline t;
  EXPECT_FALSE(t.set_state(w));
  // Steps that go backwards between samples.
  const size_t per = (v.size() - 5) / 11;
  EXPECT_TRUE(refused(first + per + 3, 1e6));
}

TEST(CycleTimeline, SettingIsAStepCountAndZeroTurnsItOff) {
  const std::string dir = test::scratch_dir("timeline_setting");
  std::ofstream(dir + "/in.test") << kKnockOn;
  const auto bad = test::run_wafermd_in(dir, "run in.test --backend mesh --set mesh.timeline_every=-5");
  EXPECT_EQ(bad.status, 2) << bad.err;
  EXPECT_NE(bad.err.find("mesh.timeline_every"), std::string::npos) << bad.err;
  const auto off =
      test::run_wafermd_in(dir, "run in.test --backend mesh --set mesh.timeline_every=0 --output off");
  ASSERT_EQ(off.status, 0) << off.err;
  std::ifstream in(dir + "/off/report.json");
  EXPECT_FALSE(nlohmann::json::parse(in).at("fabric").contains("timeline"));
  const auto on = test::run_wafermd_in(dir, "run in.test --backend mesh --output on");
  ASSERT_EQ(on.status, 0) << on.err;
  EXPECT_NE(on.out.find("Mesh timeline: 200 steps in 2 intervals"), std::string::npos) << on.out;
}

// validation/cascade/wafer_cascade.py reads wall time against simulated time from a LAMMPS-style log: each
// run's rows (its `cpu` restarts at every run, so a run continues from the loop times before it) and its end
// from the `Loop time` line, at the halt value where fix halt ended it, else extrapolated with the last Dt.
TEST(CycleTimeline, CascadeScriptReadsWallTimeAgainstSimulatedTime) {
  const std::string dir = test::scratch_dir("timeline_wall_curve");
  std::ofstream(dir + "/log.txt") << "Step Time Dt Temp CPU \n"
                                     "       0            0        0.002   600   0 \n"
                                     "     100          0.2        0.002   300   1.5 \n"
                                     "Loop time of 3 on 2 procs for 200 steps with 9600 atoms\n\n"
                                     "Step Time Temp c_dmin \n"
                                     "     200          0.4   300   0.001 \n"
                                     "Loop time of 0.5 on 2 procs for 0 steps with 9600 atoms\n"
                                     "Step Time Dt Temp CPU \n"
                                     "     200          0.4        0.002   300   0 \n"
                                     "     300          0.5        0.0005  900   2 \n"
                                     "Fix halt condition for fix-id stop met on step 310 with value 0.62\n"
                                     "Loop time of 2.5 on 2 procs for 110 steps with 9600 atoms\n";
  const std::string script = std::string(WAFERMD_SOURCE_DIR) + "/validation/cascade";
  const std::string cmd =
      "cd '" + dir + "' && /usr/bin/python3 -c \"import sys; sys.path.insert(0, '" + script +
      "'); import wafer_cascade as w; print(w.wall_curve(open('log.txt').read()))\" > py.txt 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(dir + "/py.txt");
  std::stringstream out;
  out << in.rdbuf();
  ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << out.str();
  // Run 1: its rows, then its end at step 200 (0.2 + 100 · 0.002 ps) after 3 s; the run 0 adds 0.5 s; run 2
  // continues from 3.5 s and ends at the halt value.
  EXPECT_EQ(out.str(),
            "[(0, 0.0, 0.0), (100, 0.2, 1.5), (200, 0.4, 3.0), (200, 0.4, 3.5), (300, 0.5, 5.5), (310, 0.62, "
            "6.0)]\n")
      << out.str();
}

}  // namespace
