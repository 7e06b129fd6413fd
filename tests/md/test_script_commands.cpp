// LAMMPS commands users' scripts take with variables and shapes, end to end against Debian lmp (references
// from validation/script/regenerate.sh), at 1 and 3 ranks: region prism in an orthogonal box, displace_atoms
// move/ramp/rotate/random with equal- and atom-style variables, velocity set with variables, fix deform
// volume/wiggle/variable, fix print's title, append, screen and variable steps; and the uses of them lmp
// refuses (tests/data/script/bad/, lmp's errors in bad/lmp_errors.ref), which wafermd refuses at their line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "program_harness.hpp"
#include "script_harness.hpp"
#include "sim_harness.hpp"

namespace {

namespace fs = std::filesystem;
using wmd::test::run_shell;
using wmd::test::run_wafermd_in;
using wmd::test::slurp;

const std::string& kData = wmd::test::kScriptData;
using wmd::test::expect_same_words;
using wmd::test::lines_starting;
using wmd::test::run_ranks;

// A scratch folder holding copies of the named files of tests/data/script.
std::string setup_dir(const std::string& name, const std::vector<std::string>& files) {
  return wmd::test::script_dir("commands", name, files);
}

bool thermo_row(const std::string& l) {
  const size_t k = l.find_first_not_of(' ');
  return l.size() > 1 && l[0] == ' ' && k != std::string::npos &&
         std::isdigit(static_cast<unsigned char>(l[k])) && l.find("MPI") == std::string::npos &&
         l.find("neighbor") == std::string::npos;
}

// The lines starting with ">>" (and the thermo rows, with `rows`).
std::string printed(const std::string& out, bool rows) {
  std::istringstream in(out);
  std::string got;
  for (std::string l; std::getline(in, l);)
    if (l.rfind(">>", 0) == 0 || (rows && thermo_row(l))) got += l + "\n";
  return got;
}

// Runs tests/data/script/in.NAME at 1 and 3 ranks and compares its printed lines (and thermo rows) with lmp's
// NAME.ref; returns the scratch directories of the runs that ran.
std::vector<std::string> expect_as_lammps(const std::string& name, double tol, bool rows) {
  std::vector<std::string> dirs;
  for (int ranks : {1, 3}) {
    const std::string dir = setup_dir(name + "_" + std::to_string(ranks), {"in." + name});
    const auto r = run_ranks(dir, ranks, "run in." + name + " --output out");
    EXPECT_EQ(r.status, 0) << r.err;
    if (r.out.empty()) continue;  // no MPI launcher
    SCOPED_TRACE(std::to_string(ranks) + " rank(s)");
    expect_same_words(printed(r.out, rows), slurp(kData + name + ".ref"), tol);
    dirs.push_back(dir);
  }
  return dirs;
}

TEST(ScriptParity, RegionPrismInAnOrthogonalBoxAsLammps) {
  // group, delete_atoms and create_atoms with prisms (tilted, side out, INF and EDGE, units box), a moving
  // prism and setforce/addforce/aveforce restricted to prisms.
  expect_as_lammps("region_prism", 1e-10, false);
}

TEST(ScriptParity, DisplaceAtomsVariablesRampRotateAsLammps) {
  expect_as_lammps("displace_vars", 1e-10, false);
}

TEST(ScriptParity, VelocitySetWithVariablesAsLammps) {
  expect_as_lammps("velocity_vars", 1e-10, false);
}

TEST(ScriptParity, FixDeformVolumeWiggleVariableAsLammps) {
  expect_as_lammps("deform_vars", 1e-10, true);
}

TEST(ScriptParity, FixDeformTiltStylesAndFlipsAsLammps) {
  // yz vel flipped with xz moved by xy, xz trate and wiggle, yz final, xy variable walked back to the nearest
  // period and flipped, xy erate with flip no past −½lx: rows of every run and the box after each.
  expect_as_lammps("deform_tilts", 1e-10, true);
}

TEST(ScriptParity, FixDeformRunStartStopAndRestartAsLammps) {
  // A run whose `start` is before its first step goes on from the box the fix was defined with (LAMMPS's
  // lo_initial), which the fix takes back from a restart file.
  expect_as_lammps("deform_start_stop", 1e-10, true);
}

TEST(ScriptParity, FixPrintTitleAppendScreenAndVariableStepsAsLammps) {
  // The printed lines (screen no keeps p2 and p3 off the screen) and the files byte for byte: `title ""`
  // heads one with an empty line, the file of a fix defined and removed before any run holds its title.
  for (const std::string& dir : expect_as_lammps("fix_print", 1e-10, false))
    for (const char* f : {"empty_title", "append", "default_title", "variable_steps", "unused"})
      EXPECT_EQ(slurp(dir + "/" + f + ".txt"), slurp(kData + "fix_print_" + f + ".txt")) << dir << " " << f;
}

TEST(ScriptErrors, CreateBoxRefusesATooSkewedPrismUnlessBoxTiltLarge) {
  // LAMMPS 2021's set_initial_box: xy beyond half of lx is "Triclinic box skew is too large" unless `box tilt
  // large` came first, which then makes the triclinic box (its xy and cellgamma as lmp prints them).
  const std::string dir = wmd::test::scratch_dir("commands_create_box_prism");
  const std::string body = "units metal\nregion p prism 0 10 0 10 0 10 6 0 0 units box\ncreate_box 1 p\n";
  std::ofstream(dir + "/in.bad") << body;
  const auto r = run_wafermd_in(dir, "run in.bad --output out");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("error: in.bad:3: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("skew is too large"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/out"));
  std::ofstream(dir + "/in.large") << "box tilt large\n"
                                   << body << "print \"xy=$(xy) cellgamma=$(cellgamma)\"\n";
  const auto ok = run_wafermd_in(dir, "run in.large --output out2");
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find("xy=6 cellgamma=59.036243467926482253"), std::string::npos) << ok.out;
}

TEST(ScriptErrors, TheMeshAndTheWaferModelRefuseATriclinicBox) {
  // The mesh maps orthogonal boxes only (docs/triclinic.md): exit 2 naming the reason, on the run and on
  // `wafermd model`; the cluster backend runs the same input.
  const std::string dir = wmd::test::scratch_dir("commands_mesh_triclinic");
  std::ofstream(dir + "/in.tri") << "units metal\nlattice fcc 3.615\nregion p prism 0 3 0 3 0 3 0.5 0 0\n"
                                    "create_box 1 p\ncreate_atoms 1 box\nmass 1 63.546\npair_style eam\n"
                                    "pair_coeff 1 1 Cu_u3.eam\nfix 1 all nve\nrun 2\n";
  const auto mesh = run_wafermd_in(dir, "run in.tri --output m --backend mesh");
  EXPECT_EQ(mesh.status, 2) << mesh.err;
  EXPECT_NE(mesh.err.find("the mesh backend maps orthogonal boxes only"), std::string::npos) << mesh.err;
  const auto model = run_wafermd_in(dir, "model in.tri");
  EXPECT_EQ(model.status, 2) << model.err;
  EXPECT_NE(model.err.find("orthogonal boxes only"), std::string::npos) << model.err;
  const auto cluster = run_wafermd_in(dir, "run in.tri --output c");
  EXPECT_EQ(cluster.status, 0) << cluster.err;
}

}  // namespace
