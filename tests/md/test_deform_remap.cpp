// fix deform remap v on both backends: the mesh's PEs take the box's rate along when they wrap an atom, as
// the cluster backend does (which follows lmp to 1e-10: StylesLammps.deform_remap_v), so the temperature
// with the streaming profile removed agrees between them to their differing wrap steps' round-off; a run
// without remap v differs by far more.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "sim_harness.hpp"

namespace {

using namespace wmd;

std::string script(const std::string& remap) {
  return "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 8 0 8 0 8\n"
         "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 "
         "Cu_u3.eam\nneighbor 1.0 bin\nvelocity all create 600 4242 loop geom\n"
         "velocity all ramp vx -7.23 7.23 x 0 28.92 sum yes units box\ntimestep 0.002\n"
         "compute td all temp/deform\nfix 1 all nve\nfix 2 all deform 1 x erate 0.5 z trate 0.3 remap " +
         remap + "\nthermo_modify temp td\nrun 100\n";
}

double temperature(const std::string& backend, const std::string& remap) {
  io::RunSettings s;
  s.backend = backend;
  s.mesh_precision = "fp64";
  test::ScriptRun r(script(remap), test::scratch_dir("deform_remap_" + backend + "_" + remap), s);
  double t = 0.0;
  EXPECT_TRUE(r.sim->keyword_value("temp", t));
  return t;
}

TEST(FixDeformRemapV, MeshAndClusterKickCrossingAtomsAlike) {
  const double cluster = temperature("cluster", "v"), mesh = temperature("mesh", "v");
  const double none = temperature("cluster", "none");
  EXPECT_NEAR(mesh, cluster, 1e-3 * cluster);
  EXPECT_GT(std::fabs(none - cluster), 1e-2 * cluster);
}

}  // namespace

// A box driven past ±1e20 (or to infinity) is a run failure naming the fix and the step, before any atom is
// moved into it — where LAMMPS stops with "Domain too large for neighbor bins" — on both backends.
TEST(FixDeformLimits, ABoxBeyondTheLimitFailsTheRun) {
  const std::string head =
      "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 8 0 8 0 8\n"
      "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 Cu_u3.eam\n"
      "velocity all create 300 1234\nfix 1 all nve\n";
  for (const std::string backend : {"cluster", "mesh"}) {
    for (const std::string deform :
         {"fix 2 all deform 1 x final 0 1e300\n", "fix 2 all deform 1 y scale 1e30\n",
          "variable w equal 1e300*step\nfix 2 all deform 1 z variable v_w v_w\n"}) {
      io::RunSettings s;
      s.backend = backend;
      try {
        test::ScriptRun r(head + deform + "run 10\n", test::scratch_dir("deform_limit_" + backend), s);
        ADD_FAILURE() << backend << ": no failure for " << deform;
      } catch (const RunError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("fix deform 2: at step 1 the box along"), std::string::npos) << what;
        EXPECT_NE(what.find("within ±1e20"), std::string::npos) << what;
      }
    }
  }
}
