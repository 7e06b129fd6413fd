// The Fix family against LAMMPS (nvt, npt iso/aniso, temp/berendsen, press/berendsen, dt/reset: thermo to
// round-off over 200–300 steps) and against analytic behaviour (Langevin mean temperature, Berendsen
// relaxation of free atoms, dt/reset's Xmax, electronic stopping of a lone atom), plus bad input.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim_harness.hpp"

namespace {

// Thermo rows of a LAMMPS log excerpt (header line, then numbers).
std::vector<std::vector<double>> read_rows(const std::string& path, bool csv) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    if (csv) std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream w(line);
    std::vector<double> r;
    for (double v; w >> v;) r.push_back(v);
    if (!r.empty()) rows.push_back(r);
  }
  return rows;
}

// Runs wafermd on `input` with output in a scratch directory; returns the thermo.csv rows.
std::vector<std::vector<double>> run_exe(const std::string& input, const std::string& name) {
  const std::string dir = wmd::test::scratch_dir(name);
  const std::string cmd = "cd '" + dir + "' && '" + std::string(WAFERMD_EXE) + "' run '" + input +
                          "' --output out >stdout.txt 2>stderr.txt";
  const int rc = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << cmd;
  return read_rows(dir + "/out/thermo.csv", true);
}

class LammpsFix : public ::testing::TestWithParam<const char*> {};

TEST_P(LammpsFix, ThermoMatchesLammpsToRoundOff) {
  const std::string data = std::string(WAFERMD_SOURCE_DIR) + "/tests/data/fixes/";
  const auto ref = read_rows(data + "lammps_" + GetParam() + ".txt", false);
  const auto ours = run_exe(data + "in." + GetParam(), std::string("fix_") + GetParam());
  ASSERT_EQ(ref.size(), ours.size());
  ASSERT_GE(ref.size(), 5u);
  for (size_t i = 0; i < ref.size(); ++i) {
    ASSERT_EQ(ref[i].size(), ours[i].size());
    for (size_t k = 0; k < ref[i].size(); ++k) {
      EXPECT_NEAR(ours[i][k], ref[i][k], 1e-9 * std::max(1.0, std::fabs(ref[i][k])))
          << GetParam() << " row " << i << " column " << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixes, LammpsFix,
                         ::testing::Values("nvt", "npt_iso", "npt_aniso", "temp_berendsen", "press_berendsen",
                                           "dt_reset"));

const char* kCu =
    "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 4 0 4 0 4\n"
    "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 "
    "Cu_u3.eam\nneighbor 1.0 bin\nvelocity all create 100 5 loop geom\n"
    "timestep 0.002\n";

TEST(Langevin, HoldsTheTargetTemperatureOnAverage) {
  const std::string dir = wmd::test::scratch_dir("langevin");
  std::ofstream(dir + "/in.langevin") << kCu
                                      << "fix 1 all nve\nfix 2 all langevin 500 500 0.05 8812 zero yes\n"
                                         "thermo_style custom step temp\nthermo 10\nrun 2500\n";
  const auto rows = run_exe(dir + "/in.langevin", "langevin_run");
  double sum = 0;
  int n = 0;
  for (const auto& r : rows) {
    if (r[0] >= 500) sum += r[1], ++n;  // after ~10 damping times
  }
  ASSERT_GT(n, 100);
  EXPECT_NEAR(sum / n, 500.0, 15.0) << "mean temperature over " << n << " samples";
}

// Atoms 10 Å apart feel no force (Cu_u3 cutoff 4.95 Å): T obeys the Berendsen map exactly,
// T' = T·λ² = T + dt/τ·(T0 − T), so T_n = T0 − (T0 − T_0)(1 − dt/τ)^n.
TEST(TempBerendsen, RelaxesFreeAtomsWithItsTimeConstant) {
  wmd::test::ScriptRun run(
      "units metal\natom_style atomic\nboundary p p p\nlattice sc 10.0\nregion box block 0 4 0 4 0 4\n"
      "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 "
      "Cu_u3.eam\nvelocity all create 100 7 loop geom\ntimestep 0.001\n"
      "fix 1 all nve\nfix 2 all temp/berendsen 300 300 0.05\nrun 100\n",
      wmd::test::scratch_dir("berendsen_free"));
  double t;
  ASSERT_TRUE(run.sim->keyword_value("temp", t));
  const double expected = 300.0 - 200.0 * std::pow(1.0 - 0.001 / 0.05, 100);
  EXPECT_NEAR(t, expected, 1e-9 * expected);
}

// One free atom at speed v: dt/reset gives dt = Xmax/v (clamped), and the clock adds the dt of every step.
TEST(DtReset, StepMovesTheFastestAtomByXmax) {
  wmd::test::ScriptRun run(
      "units metal\natom_style atomic\nboundary p p p\nlattice sc 20.0\nregion box block 0 1 0 1 0 1\n"
      "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 "
      "Cu_u3.eam\nvelocity all set 300 400 0 units box\ntimestep 0.001\n"
      "fix 1 all nve\nfix 2 all dt/reset 1 NULL 0.01 0.05 units box\nrun 40\n",
      wmd::test::scratch_dir("dt_reset_free"));
  const auto& s = run.state();
  EXPECT_NEAR(s.dt, 0.05 / 500.0, 1e-15);
  EXPECT_NEAR(s.time, 40 * 0.05 / 500.0, 1e-14);  // the set-up reset applies from step 1
}

// A lone atom with constant S_e = 5 eV/Å above Ecut: velocity Verlet under a constant-magnitude force along
// the velocity is exact, so the kinetic energy lost equals S_e × the path length.
TEST(ElectronStopping, LoneAtomLosesStoppingPowerTimesPath) {
  const std::string dir = wmd::test::scratch_dir("stopping");
  std::ofstream(dir + "/table.txt") << "# energy(eV) Se(eV/A)\n0 5.0\n1.0e6 5.0\n";
  wmd::test::ScriptRun run(
      "units metal\natom_style atomic\nboundary p p p\nlattice sc 20.0\nregion box block 0 1 0 1 0 1\n"
      "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 "
      "Cu_u3.eam\nvelocity all set 300 400 0 units box\ntimestep 0.0001\n"
      "fix 1 all nve\nfix es all electron/stopping 10.0 table.txt\nthermo_style custom step ke f_es\n"
      "run 300\n",
      dir);
  const auto& s = run.state();
  const double m = s.mass[1];
  const double ke0 = 0.5 * m * 500.0 * 500.0 * wmd::units::mvv2e;
  const auto& a = s.atoms;
  const double ke = 0.5 * m * (a.vx[0] * a.vx[0] + a.vy[0] * a.vy[0] + a.vz[0] * a.vz[0]) * wmd::units::mvv2e;
  const double L = 20.0;
  const double dx = a.x[0] + a.ix[0] * L, dy = a.y[0] + a.iy[0] * L;  // started at the origin
  const double path = std::sqrt(dx * dx + dy * dy);
  ASSERT_GT(ke0 - ke, 50.0) << "the atom must really slow down";
  EXPECT_NEAR(ke0 - ke, 5.0 * path, 1e-8 * ke0);
  double removed = 0;
  for (const auto& f : run.sim->fixes)
    if (f->id() == "es") {
      ASSERT_TRUE(f->scalar(removed));
    }
  EXPECT_NEAR(removed, ke0 - ke, 0.01 * (ke0 - ke)) << "LAMMPS's Σ S_e·|v|·dt tally";
}

TEST(FixState, NoseHooverChainSavesAndRestores) {
  wmd::test::ScriptRun run(std::string(kCu) + "fix 1 all nvt temp 300 300 0.1\nrun 20\n",
                           wmd::test::scratch_dir("nh_state"));
  wmd::md::FixStateMap saved;
  run.sim->fixes.front()->save_state(saved);
  ASSERT_TRUE(saved.count("eta_dot"));
  EXPECT_NE(saved["eta_dot"][0], 0.0);
  wmd::md::FixStateMap again;
  run.sim->fixes.front()->restore_state(saved);
  run.sim->fixes.front()->save_state(again);
  EXPECT_EQ(saved, again);
}

// fix npt's checkpoint state: the barostat's six ω̇ (LAMMPS's restart list) and, for a deviatoric target,
// its reference volume and inverse box h0_inv, which a restart cannot recompute from the current box.
TEST(FixState, DeviatoricBarostatSavesItsReferenceBox) {
  wmd::test::ScriptRun run(
      std::string(kCu) +
          "fix 1 all npt temp 300 300 0.1 x 0 0 0.5 y 0 0 0.5 z 3000 3000 0.5 couple xy\n"
          "run 10\n",
      wmd::test::scratch_dir("nh_dev_state"));
  wmd::md::FixStateMap saved;
  wmd::md::Fix& fix = *run.sim->fixes.front();
  fix.save_state(saved);
  ASSERT_EQ(saved.count("omega_dot"), 1u);
  ASSERT_EQ(saved["omega_dot"].size(), 6u);
  EXPECT_NE(saved["omega_dot"][2], 0.0);
  ASSERT_EQ(saved.count("h0_inv"), 1u);
  // the first run's box (create_box's 4 lattice cells), not the current one
  EXPECT_EQ(saved["h0_inv"][0], 1.0 / (4 * 3.615));
  EXPECT_EQ(saved["vol0"][0], (4 * 3.615) * (4 * 3.615) * (4 * 3.615));
  EXPECT_NE(run.state().box.prd(0), 4 * 3.615);
  wmd::md::FixStateMap again;
  fix.restore_state(saved);
  fix.save_state(again);
  EXPECT_EQ(saved, again);
}

// LAMMPS's FixNH checks of the barostat's keywords, with its messages: tilt control needs a triclinic box,
// coupled dimensions share one target, a tilt is controlled or scaled, not both.
TEST(FixInput, BarostatKeywordsAreCheckedAsLammps) {
  const std::pair<const char*, const char*> cases[] = {
      {"fix 1 all npt temp 300 300 0.1 tri 0 0 1\n",
       "Can not specify Pxy/Pxz/Pyz in fix npt with non-triclinic box"},
      {"fix 1 all nph xy 0 0 1\n", "Can not specify Pxy/Pxz/Pyz in fix nph with non-triclinic box"},
      {"fix 1 all npt temp 300 300 0.1 x 0 0 1 y 5 5 1 couple xy\n", "coupled dimensions need one target"},
      {"fix 1 all npt temp 300 300 0.1 x 0 0 1 couple xz\n", "a coupled dimension is not barostatted"},
      {"fix 1 all npt temp 300 300 0.1 tri 0 0 1 scalexy yes\n", "both xy dynamics and xy scaling"},
      {"fix 1 all nph iso 0 0 1 dilate nosuchgroup\n", "dilate group ID nosuchgroup does not exist"},
      {"fix 1 all nvt temp 300 300 0.1 tri 0 0 1\n", "takes no pressure keyword"},
  };
  for (const auto& [bad, needle] : cases) {
    try {
      wmd::test::ScriptRun(std::string(kCu) + bad, wmd::test::scratch_dir("bad_baro"), true);
      ADD_FAILURE() << "no error for: " << bad;
    } catch (const wmd::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
}

// LAMMPS's FixPressBerendsen::init: a triclinic box at a run's set-up is refused (exit 2), naming the fix's
// line; the same fix on an orthogonal box runs (with Cu's bulk modulus: LAMMPS's default of 10 bar lets a
// 1000-bar start dilate the box past any physical state, to a NaN pressure, which ends the run).
TEST(FixInput, PressBerendsenRefusesATriclinicBoxAsLammps) {
  const std::string tilted =
      "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box prism 0 4 0 4 0 4 1 1 "
      "1\n"
      "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 Cu_u3.eam\nfix 1 all nve\n"
      "fix 2 all press/berendsen iso 0 0 1\nrun 2\n";
  try {
    wmd::test::ScriptRun(tilted, wmd::test::scratch_dir("berendsen_tri"));
    ADD_FAILURE() << "fix press/berendsen ran on a triclinic box";
  } catch (const wmd::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("Cannot use fix press/berendsen with triclinic box"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(e.line(), 11) << "the fix's line";
  }
  EXPECT_NO_THROW(
      wmd::test::ScriptRun(std::string(kCu) +
                               "fix 1 all nve\nfix 2 all press/berendsen iso 0 0 1 modulus 1.4e6\nrun 2\n",
                           wmd::test::scratch_dir("berendsen_ortho")));
}

TEST(FixInput, BadFixesAreInputErrors) {
  for (const char* bad :
       {"fix 1 all nvt\n", "fix 1 all langevin 300 300 0 5\n", "fix 1 all bogus\n",
        "fix 1 all npt temp 300 300 0.1\n", "fix 1 all dt/reset 1 NULL NULL 0.1 units parsec\n",
        "fix 1 all electron/stopping 10 no_such_table.txt\n", "fix 1 all nvt temp 300 300 0.1 iso 0 0 1\n",
        "fix 1 all nve/limit 0\n", "fix 1 all nve/limit\n", "fix 1 all nve/limit 0.1 extra\n",
        "fix 1 all npt temp 300 300 0.1 iso 0 0 1 drag -1\n",
        // fix langevin: GJF, finite-size particles, a seed RanMars refuses, an unknown noise, a type out of
        // range
        "fix 1 all langevin 300 300 0.1 5 gjf vfull\n", "fix 1 all langevin 300 300 0.1 5 omega yes\n",
        "fix 1 all langevin 300 300 0.1 5 angmom 3.0\n", "fix 1 all langevin 300 300 0.1 900000001\n",
        "fix 1 all langevin 300 300 0.1 5 noise gauss\n", "fix 1 all langevin 300 300 0.1 5 scale 2 1.5\n"}) {
    EXPECT_THROW(wmd::test::ScriptRun(std::string(kCu) + bad, wmd::test::scratch_dir("bad_fix"), true),
                 wmd::InputError)
        << bad;
  }
}

}  // namespace
