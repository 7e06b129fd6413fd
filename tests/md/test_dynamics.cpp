// Velocity Verlet through the real run loop: time reversibility, energy conservation with error ∝ dt².
#include <gtest/gtest.h>

#include <cmath>

#include "io/lammps_data.hpp"
#include "sim_harness.hpp"

namespace {

const char* kSetup =
    "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 4 0 4 0 4\n"
    "create_box 1 box\ncreate_atoms 1 box\npair_style eam\n"
    "pair_coeff 1 1 Cu_u3.eam\nneighbor 1.0 bin\nneigh_modify every 1 delay 0 "
    "check yes\n"
    "fix 1 all nve\nthermo 10\n";

TEST(Dynamics, VelocityVerletIsTimeReversible) {
  const std::string dir = wmd::test::scratch_dir("reverse");
  wmd::test::ScriptRun fwd(std::string(kSetup) +
                               "velocity all create 900 4242 loop geom\ntimestep 0.002\n"
                               "write_data start.data\nrun 200\nwrite_data end.data\n",
                           dir);
  // Reverse the velocities of the end state and run the same number of steps.
  wmd::io::DataFile end = wmd::io::read_lammps_data(dir + "/end.data", {});
  for (size_t i = 0; i < end.vx.size(); ++i)
    end.vx[i] = -end.vx[i], end.vy[i] = -end.vy[i], end.vz[i] = -end.vz[i];
  ASSERT_TRUE(wmd::io::write_lammps_data(dir + "/reversed.data", end));
  wmd::test::ScriptRun back(
      "units metal\natom_style atomic\nboundary p p p\nread_data reversed.data\npair_style eam\n"
      "pair_coeff 1 1 Cu_u3.eam\nneighbor 1.0 bin\nfix 1 all nve\ntimestep "
      "0.002\n"
      "run 200\nwrite_data back.data\n",
      dir);
  const auto start = wmd::io::read_lammps_data(dir + "/start.data", {});
  const auto fin = wmd::io::read_lammps_data(dir + "/back.data", {});
  const double L = start.hi[0] - start.lo[0];
  double worst = 0.0;
  for (size_t i = 0; i < start.x.size(); ++i) {
    const double dx = (fin.x[i] + fin.ix[i] * L) - (start.x[i] + start.ix[i] * L);
    const double dy = (fin.y[i] + fin.iy[i] * L) - (start.y[i] + start.iy[i] * L);
    const double dz = (fin.z[i] + fin.iz[i] * L) - (start.z[i] + start.iz[i] * L);
    worst = std::max(worst, std::sqrt(dx * dx + dy * dy + dz * dz));
  }
  EXPECT_LT(worst, 1e-8) << "largest return error, Å";
  // The run really moved the atoms (so the check above can fail).
  EXPECT_GT(std::fabs(end.x[0] - start.x[0]) + std::fabs(end.y[0] - start.y[0]), 1e-3);
}

// Largest |E(t) − E(0)| over `steps` steps of NVE with timestep dt.
double energy_error(double dt, int steps) {
  wmd::test::ScriptRun run(std::string(kSetup) + "velocity all create 600 99 loop geom\ntimestep " +
                               std::to_string(dt) + "\nrun 0\n",
                           wmd::test::scratch_dir("nve0"));
  const auto& samples = run.sim->totals.sample_etotal;
  const double e0 = samples.front();
  wmd::test::ScriptRun longer(std::string(kSetup) + "velocity all create 600 99 loop geom\ntimestep " +
                                  std::to_string(dt) + "\nthermo 1\nrun " + std::to_string(steps) + "\n",
                              wmd::test::scratch_dir("nve"));
  double worst = 0.0;
  for (double e : longer.sim->totals.sample_etotal) worst = std::max(worst, std::fabs(e - e0));
  return worst;
}

TEST(Dynamics, EnergyErrorScalesWithTheSquareOfTheTimestep) {
  const double e1 = energy_error(0.004, 50);
  const double e2 = energy_error(0.002, 100);
  EXPECT_LT(e1 / 256.0, 1e-3) << "energy fluctuation per atom at dt = 4 fs";
  const double ratio = e1 / e2;
  EXPECT_GT(ratio, 2.8) << e1 << " vs " << e2;
  EXPECT_LT(ratio, 5.5) << e1 << " vs " << e2;
}

}  // namespace
