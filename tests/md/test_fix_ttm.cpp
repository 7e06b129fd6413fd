// fix ttm (LAMMPS's two-temperature model) against independent calculations, since Debian's lmp lacks it:
// the grid's heat diffusion against the heat equation's sinusoidal solution (and the explicit scheme's own
// decay factor), the electron–lattice exchange against the rate the model's equations give, the energy of
// atoms + electrons on a reduced examples/ttm/in.ttm, checkpoint and write_restart continuation, 1 vs 3 MPI
// ranks, and the refused arguments.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "io/checkpoint.hpp"
#include "script_harness.hpp"

namespace {

using wmd::test::ProgramResult;
using wmd::test::run_ranks;
using wmd::test::run_wafermd_in;
using wmd::test::scratch_dir;
using wmd::test::slurp;

constexpr double kBoltz = 8.617343e-5;  // LAMMPS metal

const std::string kFePotential = "/usr/share/lammps/examples/ttm/FeVoter-ChenRecheck.fs";

// thermo.csv as rows of numbers (the header skipped).
std::vector<std::vector<double>> thermo_rows(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<double>> rows;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::vector<double> r;
    std::stringstream ss(line);
    for (std::string w; std::getline(ss, w, ',');) r.push_back(std::stod(w));
    rows.push_back(r);
  }
  return rows;
}

// examples/ttm/in.ttm with a box of ±half lattice cells, `steps` steps, thermo every `every` and `extra`
// lines before the run (the fix line itself may be replaced with `fix`).
std::string reduced_in_ttm(int half, int steps, int every, const std::string& extra = "",
                           const std::string& fix = "") {
  std::ostringstream s;
  s << "units metal\natom_style atomic\nboundary p p p\nlattice bcc 2.87\n"
    << "region sim_box block -" << half << " " << half << " -" << half << " " << half << " -" << half << " "
    << half << " units lattice\ncreate_box 1 sim_box\ncreate_atoms 1 region sim_box\nmass 1 55.845\n"
    << "pair_style eam/fs\npair_coeff * * FeVoter-ChenRecheck.fs Fe\n"
    << "neighbor 2.0 bin\nneigh_modify every 5 delay 0 check yes\nfix 1 all nve\n"
    << (fix.empty()
            ? "fix twotemp all ttm 342785 1.2470e-5 0.087614 0.005365 29.5917 47.5679 58.4613 10 10 10 "
              "set 1800.0\n"
            : fix + "\n")
    << "timestep 0.0001\nthermo " << every
    << "\nthermo_style custom step temp etotal f_twotemp[1] f_twotemp[2] ke\n"
    << extra << "run " << steps << "\n";
  return s.str();
}

std::string fe_dir(const std::string& name) {
  const std::string dir = scratch_dir("ttm_" + name);
  std::filesystem::copy_file(kFePotential, dir + "/FeVoter-ChenRecheck.fs");
  return dir;
}

bool have_fe() {
  return std::filesystem::exists(kFePotential);
}

// ---- 1. Heat diffusion alone (no atoms in the group) against the heat equation ------------------------

struct Decay {
  double ours, scheme, analytic;  // amplitude ratios A(t)/A(0)
};

// A sinusoidal T_e(x) = 1000 + 300 sin(2π ix/Nx) on an Nx×1×1 grid over a 10×2×2 fcc Cu box whose atoms
// are not in the fix's group, diffused for `steps` steps of dt (atoms at rest on their lattice sites).
Decay diffuse(int nx, double dt, int steps, double kappa) {
  const std::string dir = scratch_dir("ttm_diffuse_" + std::to_string(nx));
  {
    std::ofstream t(dir + "/te.in");
    t << "# UNITS: metal COMMENT: sine\n";
    t.precision(17);
    for (int i = nx - 1; i >= 0; --i)
      t << i << " 0 0 " << 1000.0 + 300.0 * std::sin(2 * M_PI * i / nx) << "\n";
  }
  std::ofstream(dir + "/in.diffuse")
      << "units metal\nboundary p p p\nlattice fcc 3.615\nregion box block 0 10 0 2 0 2\ncreate_box 1 box\n"
      << "create_atoms 1 box\nmass 1 63.55\npair_style eam\npair_coeff 1 1 Cu_u3.eam\ngroup none empty\n"
      << "fix 1 all nve\nfix e none ttm 7 1.0 1.0 " << kappa << " 1.0 0.0 0.0 " << nx
      << " 1 1 infile te.in outfile " << steps << " te.out\ntimestep " << dt << "\nthermo " << steps
      << "\nthermo_style custom step f_e[1] f_e[2]\nrun " << steps << "\n";
  const ProgramResult r = run_wafermd_in(dir, "run in.diffuse --output o");
  EXPECT_EQ(r.status, 0) << r.err;
  std::ifstream out(dir + "/te.out." + std::to_string(steps));
  std::string line;
  std::getline(out, line);
  EXPECT_EQ(line.rfind("# DATE: ", 0), 0u) << line;
  double proj = 0.0;
  int n = 0;
  for (int ix, iy, iz; out >> ix >> iy >> iz;) {
    double t;
    out >> t;
    proj += (t - 1000.0) * std::sin(2 * M_PI * ix / nx);
    ++n;
  }
  EXPECT_EQ(n, nx);
  const double L = 36.15, dx = L / nx, k = 2 * M_PI / L, t = dt * steps;
  // The explicit scheme with LAMMPS's sub-steps: each multiplies the mode by 1 − δt κ λ_h/(C ρ).
  const double lam = 4.0 / (dx * dx) * std::pow(std::sin(k * dx / 2), 2);
  const double sum_inv = 1 / (dx * dx) + 2 / (7.23 * 7.23);
  int inner = 1;
  if (1.0 - 2.0 * dt * kappa * sum_inv < 0.0) inner = static_cast<int>(dt / (0.5 / (kappa * sum_inv))) + 1;
  const double scheme = std::pow(1.0 - dt / inner * kappa * lam, inner * steps);
  return Decay{proj * 2.0 / nx / 300.0, scheme, std::exp(-kappa * k * k * t)};
}

TEST(FixTtm, GridDiffusionDecaysAsTheHeatEquationsSineMode) {
  // κ = 50 eV/(ps Å K), Cρ = 1 eV/(K Å³): the mode decays at κk²/(Cρ) = 1.51/ps over 0.96 ps. The grid is
  // refined with δt ∝ h² (the explicit scheme's parabolic scaling), so its O(h²) + O(δt) error quarters.
  const Decay d10 = diffuse(10, 0.016, 60, 50.0), d20 = diffuse(20, 0.004, 240, 50.0),
              d40 = diffuse(40, 0.001, 960, 50.0);
  const Decay sub = diffuse(40, 0.01, 96, 50.0);  // two sub-steps per MD step (LAMMPS's stability rule)
  for (const Decay& d : {d10, d20, d40, sub}) EXPECT_NEAR(d.ours, d.scheme, 1e-12) << d.ours;
  const double e10 = std::fabs(d10.ours - d10.analytic), e20 = std::fabs(d20.ours - d20.analytic),
               e40 = std::fabs(d40.ours - d40.analytic);
  std::printf(
      "diffusion: A(0.96 ps)/A0 analytic %.6f; Nx=10 %.6f (err %.2e), 20 %.6f (%.2e), 40 %.6f (%.2e); "
      "Nx=40 with 2 sub-steps %.6f (err %.2e)\n",
      d10.analytic, d10.ours, e10, d20.ours, e20, d40.ours, e40, sub.ours,
      std::fabs(sub.ours - sub.analytic));
  EXPECT_LT(e40, 0.005 * d40.analytic);
  EXPECT_NEAR(e10 / e20, 4.0, 0.6);
  EXPECT_NEAR(e20 / e40, 4.0, 0.6);
}

// ---- 2. Electron–lattice exchange against the rate of the model's equations -----------------------------

TEST(FixTtm, ElectronsCoolAtTheLangevinExchangeRate) {
  if (!have_fe()) GTEST_SKIP() << kFePotential << " missing";
  // 3456 Fe atoms at rest (T_a = 0) under electrons at 1800 K, thermo every step. The Langevin force's
  // friction and noise give C_e ρ_e V dT_e/dt = −3 N kB (γ_p/m) (T_e − T_a) (fluctuation–dissipation,
  // T_a the kinetic temperature 2 KE/(3 N kB)); integrated with the measured T_a over 400 steps.
  const std::string dir = fe_dir("exchange");
  std::ofstream(dir + "/in.x") << reduced_in_ttm(6, 400, 1);
  const ProgramResult r = run_wafermd_in(dir, "run in.x --output o");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = thermo_rows(dir + "/o/thermo.csv");
  ASSERT_EQ(rows.size(), 401u);
  const double N = 3456, V = std::pow(12 * 2.87, 3), crv = 1.2470e-5 * 0.087614 * V;
  const double rate = 3 * N * kBoltz * 29.5917 / 55.845 / crv, dt = 0.0001;
  auto te = [&](const std::vector<double>& x) { return x[3] / crv; };
  auto ta = [&](const std::vector<double>& x) { return 2 * x[5] / (3 * N * kBoltz); };
  double integral = 0.0;
  for (size_t n = 1; n < rows.size(); ++n)
    integral += 0.5 * dt * ((te(rows[n - 1]) - ta(rows[n - 1])) + (te(rows[n]) - ta(rows[n])));
  const double predicted = -rate * integral, measured = te(rows.back()) - te(rows.front());
  std::printf("exchange: ΔT_e over 400 steps measured %.3f K, predicted %.3f K (rel. diff %.2e)\n", measured,
              predicted, measured / predicted - 1);
  EXPECT_NEAR(te(rows.front()), 1800.0, 1e-9);
  EXPECT_NEAR(measured / predicted, 1.0, 0.05);  // the noise's own scatter is ~2 % here
}

// ---- 3. Energy of atoms + electrons on examples/ttm/in.ttm, reduced ---------------------------------------

TEST(FixTtm, AtomsPlusElectronsConserveEnergyOnTheReducedExample) {
  if (!have_fe()) GTEST_SKIP() << kFePotential << " missing";
  const std::string dir = fe_dir("energy");
  std::ofstream(dir + "/in.e") << reduced_in_ttm(4, 400, 1);
  const ProgramResult r = run_wafermd_in(dir, "run in.e --output o");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = thermo_rows(dir + "/o/thermo.csv");
  ASSERT_EQ(rows.size(), 401u);
  // The atoms get each step's Langevin work half in that step's last half kick and half in the next step's
  // first (the lag LAMMPS's page describes): etotal + E_e + f_ID[2]/2 stays constant from step 1 on.
  auto total = [](const std::vector<double>& x) { return x[2] + x[3] + 0.5 * x[4]; };
  double moved = 0.0, worst = 0.0;
  for (size_t n = 1; n < rows.size(); ++n) {
    moved += std::fabs(rows[n][4]);
    worst = std::max(worst, std::fabs(total(rows[n]) - total(rows[1])));
  }
  std::printf("energy: %.3f eV moved from electrons to atoms in 400 steps; atoms+electrons drift %.2e eV\n",
              moved, worst);
  EXPECT_GT(moved, 5.0);
  EXPECT_LT(worst, 1e-3 * moved);
}

// ---- 4. Checkpoint and write_restart continuation
// ------------------------------------------------------------

TEST(FixTtm, CheckpointContinuesBitIdentically) {
  if (!have_fe()) GTEST_SKIP() << kFePotential << " missing";
  const std::string dir = fe_dir("checkpoint");
  std::string in = reduced_in_ttm(3, 0, 10);
  in.replace(in.find("run 0"), 5, "run ${n}");
  std::ofstream(dir + "/in.c") << in;
  ASSERT_EQ(
      run_wafermd_in(dir, "run in.c --var n 60 --set output.checkpoint_every=30 --output straight").status,
      0);
  ASSERT_EQ(run_wafermd_in(dir, "run in.c --var n 30 --set output.checkpoint_every=30 --output first").status,
            0);
  const ProgramResult b = run_wafermd_in(
      dir,
      "run in.c --var n 30 --set output.checkpoint_every=30 --output first --restart first/checkpoint.h5");
  ASSERT_EQ(b.status, 0) << b.err;
  const auto s = wmd::io::read_checkpoint(dir + "/straight/checkpoint.h5", wmd::SourcePos{"t", 0});
  const auto f = wmd::io::read_checkpoint(dir + "/first/checkpoint.h5", wmd::SourcePos{"t", 0});
  ASSERT_EQ(s.ints.at("meta/step")[0], 60);
  ASSERT_EQ(f.ints.at("meta/step")[0], 60);
  for (const char* k : {"atoms/x", "atoms/vx", "atoms/vz"}) EXPECT_EQ(s.reals.at(k), f.reals.at(k)) << k;
  // The last thermo row (step 60) the same digits, grid energy included.
  const auto rs = thermo_rows(dir + "/straight/thermo.csv"), rf = thermo_rows(dir + "/first/thermo.csv");
  EXPECT_EQ(rs.back(), rf.back());
}

TEST(FixTtm, ReadRestartTakesTheGridBack) {
  if (!have_fe()) GTEST_SKIP() << kFePotential << " missing";
  const std::string dir = fe_dir("restart_file");
  std::ofstream(dir + "/in.a") << reduced_in_ttm(3, 50, 10, "", "") << "write_restart r.bin\n";
  ASSERT_EQ(run_wafermd_in(dir, "run in.a --output a").status, 0);
  std::string in = reduced_in_ttm(3, 10, 10);
  // The second script reads the restart file instead of building the box; the fix with the same ID takes
  // back the electrons' grid (LAMMPS's restart_global), so thermo at step 50 prints the same f_ID[1].
  const size_t from = in.find("lattice"), to = in.find("mass 1");
  in.replace(from, to - from, "read_restart r.bin\n");
  std::ofstream(dir + "/in.b") << in;
  const ProgramResult r = run_wafermd_in(dir, "run in.b --output b");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto ra = thermo_rows(dir + "/a/thermo.csv"), rb = thermo_rows(dir + "/b/thermo.csv");
  ASSERT_EQ(rb.front()[0], 50.0);
  EXPECT_EQ(rb.front()[3], ra.back()[3]);  // the grid's energy
  EXPECT_NE(rb.front()[3], ra.front()[3]);
  // A fix with another ID starts from its `set` temperature.
  std::string other = in;
  other.replace(other.find("fix twotemp"), 11, "fix fresh");
  for (size_t p; (p = other.find("f_twotemp")) != std::string::npos;) other.replace(p, 9, "f_fresh");
  std::ofstream(dir + "/in.c") << other;
  ASSERT_EQ(run_wafermd_in(dir, "run in.c --output c").status, 0);
  EXPECT_EQ(thermo_rows(dir + "/c/thermo.csv").front()[3], ra.front()[3]);
}

// ---- 5. 1 and 3 MPI ranks
// -------------------------------------------------------------------------------------

TEST(FixTtm, SameThermoAtOneAndThreeRanks) {
  if (!have_fe()) GTEST_SKIP() << kFePotential << " missing";
#ifndef WAFERMD_MPIEXEC
  GTEST_SKIP() << "no mpirun";
#else
  const std::string dir = fe_dir("ranks");
  std::ofstream(dir + "/in.r") << reduced_in_ttm(4, 200, 20);
  for (int ranks : {1, 3}) {
    for (const char* det : {"true", "false"}) {
      const ProgramResult r = run_ranks(
          dir, ranks,
          "run in.r --set deterministic=" + std::string(det) + " --output o" + det + std::to_string(ranks));
      ASSERT_EQ(r.status, 0) << r.err;
    }
  }
  // Deterministic mode: the same bytes. Default: LAMMPS's sums (each rank, then rank order) — round-off.
  EXPECT_EQ(slurp(dir + "/otrue1/thermo.csv"), slurp(dir + "/otrue3/thermo.csv"));
  const auto a = thermo_rows(dir + "/ofalse1/thermo.csv"), b = thermo_rows(dir + "/ofalse3/thermo.csv");
  ASSERT_EQ(a.size(), b.size());
  double worst = 0.0;
  for (size_t n = 0; n < a.size(); ++n)
    for (size_t k = 1; k < a[n].size(); ++k)
      worst = std::max(worst, std::fabs(a[n][k] - b[n][k]) / std::max(1.0, std::fabs(a[n][k])));
  std::printf("ranks: 1 vs 3 ranks, largest relative thermo difference %.2e over 200 steps\n", worst);
  EXPECT_LT(worst, 1e-9);
#endif
}

// ---- 6. Refused arguments
// -------------------------------------------------------------------------------------

TEST(FixTtm, BadArgumentsAreRefusedNamingThem) {
  if (!have_fe()) GTEST_SKIP() << kFePotential << " missing";
  const std::string dir = fe_dir("errors");
  std::ofstream(dir + "/short.in") << "0 0 0 100\n";
  std::ofstream(dir + "/wrong_units.in") << "# UNITS: real\n0 0 0 100\n";
  std::ofstream(dir + "/outside.in") << "0 0 0 100\n1 0 0 100\n";
  const std::string head = "fix twotemp all ttm 342785 ";
  const std::map<std::string, std::string> cases = {
      {head + "-1.2470e-5 0.087614 0.005365 29.5917 47.5679 58.4613 10 10 10", "C_e"},
      {head + "1.2470e-5 0 0.005365 29.5917 47.5679 58.4613 10 10 10", "rho_e"},
      {head + "1.2470e-5 0.087614 -1 29.5917 47.5679 58.4613 10 10 10", "kappa_e"},
      {head + "1.2470e-5 0.087614 0.005365 0 47.5679 58.4613 10 10 10", "gamma_p"},
      {head + "1.2470e-5 0.087614 0.005365 29.5917 -1 58.4613 10 10 10", "gamma_s"},
      {head + "1.2470e-5 0.087614 0.005365 29.5917 47.5679 -1 10 10 10", "v_0"},
      {head + "1.2470e-5 0.087614 0.005365 29.5917 47.5679 58.4613 10 0 10", "Ny"},
      {"fix twotemp all ttm 0 1.2470e-5 0.087614 0.005365 29.5917 47.5679 58.4613 10 10 10", "seed"},
      {head + "1.2470e-5 0.087614 0.005365 29.5917 47.5679 58.4613 10 10 10 set 0", "Tinit"},
      {head + "1.2470e-5 0.087614 0.005365 29.5917 47.5679 58.4613 10 10 10 infile none.in", "none.in"},
      {head + "1.2470e-5 0.087614 0.005365 29.5917 47.5679 58.4613 2 1 1 infile short.in", "ends after 1"},
      {head + "1.2470e-5 0.087614 0.005365 29.5917 47.5679 58.4613 1 1 1 infile wrong_units.in", "units"},
      {head + "1.2470e-5 0.087614 0.005365 29.5917 47.5679 58.4613 1 2 1 infile outside.in", "outside 0..0"},
      {head + "1.2470e-5 0.087614 0.005365 29.5917 47.5679 58.4613 10 10 10 outfile 0 t.out", "Nout"},
      {head + "1.2470e-5 0.087614 0.005365 29.5917 47.5679 58.4613 10 10 10 tinit 5", "keyword"},
      {head + "1.2470e-5 0.087614 0.005365 29.5917 47.5679 58.4613 10 10", "Nz"},
  };
  int k = 0;
  for (const auto& [fix, word] : cases) {
    const std::string name = "in.bad" + std::to_string(k++);
    std::ofstream(dir + "/" + name) << reduced_in_ttm(2, 5, 5, "", fix);
    const ProgramResult r = run_wafermd_in(dir, "run " + name + " --output o");
    EXPECT_EQ(r.status, 2) << fix << "\n" << r.err;
    EXPECT_NE(r.err.find(word), std::string::npos) << fix << "\n" << r.err;
  }
  // A non-periodic box is refused at the run (LAMMPS's init).
  std::string in = reduced_in_ttm(2, 5, 5);
  in.replace(in.find("boundary p p p"), 14, "boundary p p f");
  std::ofstream(dir + "/in.open") << in;
  const ProgramResult r = run_wafermd_in(dir, "run in.open --output o");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("periodic"), std::string::npos) << r.err;
}

}  // namespace
