// Resource limits (issue 29): allocations sized by the input are checked against the memory budget first
// (base/memory_budget.hpp) and refused with the estimate and the limit, exit 2, within seconds: a lattice
// region 1e9 lattice constants long, a neighbour skin far beyond the box, an EAM cutoff of 1e300, a ±1e308
// box; `timestep 1e300` ends as a failed run (exit 3); limits.memory_gb (--set or YAML) sets the limit.
#include <gtest/gtest.h>

#include <fstream>

#include "base/memory_budget.hpp"
#include "io/run_settings.hpp"
#include "potentials/potential_path.hpp"
#include "program_harness.hpp"
#include "sim_harness.hpp"

namespace {

using wmd::test::run_shell;

std::string lattice_input(const std::string& region, const std::string& extra = "",
                          const std::string& pot = "") {
  return "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block " + region +
         "\ncreate_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 " +
         (pot.empty() ? "Cu_u3.eam" : pot) + "\nvelocity all create 600 87287 loop geom\n" + extra +
         "fix 1 all nve\nthermo 10\nrun 20\n";
}

// Runs `input` with a 20-second timeout (a hang fails the test rather than stalling the suite).
wmd::test::ProgramResult run_input(const std::string& name, const std::string& input,
                                   const std::string& opts = "") {
  const std::string dir = wmd::test::scratch_dir("memory_budget_" + name);
  std::ofstream(dir + "/in.md") << input;
  return run_shell(dir, std::string("timeout 20 '") + WAFERMD_EXE + "' run in.md --output out" + opts);
}

void expect_one_line_error(const wmd::test::ProgramResult& r, int status, const std::string& needle) {
  EXPECT_EQ(r.status, status) << r.err;
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

TEST(Issue29, HugeLatticeRegionRefusedWithTheEstimate) {
  const auto r = run_input("region", lattice_input("0 1e8 0 1e3 0 1e3"));
  expect_one_line_error(r, 2, "over the limit of");
  EXPECT_NE(r.err.find("in.md:7: "), std::string::npos) << r.err;  // the create_atoms line
}

TEST(Issue29, SkinFarBeyondTheBoxRefused) {
  expect_one_line_error(run_input("skin", lattice_input("0 3 0 3 0 3", "neighbor 1e5 bin\n")), 2,
                        "ghost atoms and neighbour list");
}

TEST(Issue29, NonFiniteSkinRefused) {
  expect_one_line_error(run_input("skin_inf", lattice_input("0 3 0 3 0 3", "neighbor 1e308 bin\n")), 2,
                        "for a cutoff of 1e+308 Å");
}

TEST(Issue29, EamCutoffOf1e300Refused) {
  // Cu_u3.eam with its cutoff replaced: the knot of the cutoff overflowed an int and the run had no pairs.
  const std::string dir = wmd::test::scratch_dir("memory_budget_cut_file");
  std::ifstream in(wmd::potentials::find_potential_file("Cu_u3.eam", {}));
  std::ofstream out(dir + "/Cu_cut.eam");
  std::string line;
  for (int k = 1; std::getline(in, line); ++k) {
    if (k == 3) line = line.substr(0, line.rfind(' ')) + " 1e300";
    out << line << "\n";
  }
  out.close();
  expect_one_line_error(run_input("cut", lattice_input("0 3 0 3 0 3", "", dir + "/Cu_cut.eam")), 2,
                        "Cu_cut.eam:3: the distance table is out of range");
}

TEST(Issue29, DataFileBoxOf1e308Refused) {
  const std::string dir = wmd::test::scratch_dir("memory_budget_box");
  std::ofstream(dir + "/big.data")
      << "big box\n\n1 atoms\n1 atom types\n\n-1e308 1e308 xlo xhi\n"
         "0 10 ylo yhi\n0 10 zlo zhi\n\nMasses\n\n1 63.55\n\nAtoms # atomic\n\n1 1 0 5 5\n";
  std::ofstream(dir + "/in.md") << "units metal\natom_style atomic\nboundary p p p\nread_data big.data\n"
                                   "pair_style eam\npair_coeff 1 1 Cu_u3.eam\n"
                                   "run 1\n";
  expect_one_line_error(
      run_shell(dir, std::string("timeout 20 '") + WAFERMD_EXE + "' run in.md --output out"), 2,
      "not a finite interval");
}

TEST(Issue29, ChangeBoxTo1e308Refused) {
  // A lattice stretched to ±1e308 along x ran with an infinite volume and pressure -nan, exit 0.
  expect_one_line_error(
      run_input("change_box",
                lattice_input("0 3 0 3 0 3", "change_box all x final -1e308 1e308 units box\n")),
      2, "not finite (beyond ±1e20) along x");
}

TEST(Issue29, Timestep1e300EndsAsAFailedRun) {
  const auto r = run_input("dt", lattice_input("0 3 0 3 0 3", "timestep 1e300\n"));
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
}

TEST(Issue29, MemoryLimitKeySetsTheLimit) {
  // A limit of 0.1 MB refuses even a small lattice; the default lets it run.
  expect_one_line_error(run_input("tiny", lattice_input("0 3 0 3 0 3"), " --set limits.memory_gb=0.0001"), 2,
                        "over the limit of 0.0001 GB");
  EXPECT_EQ(run_input("default", lattice_input("0 3 0 3 0 3")).status, 0);
  wmd::io::RunSettings s;
  EXPECT_TRUE(wmd::io::apply_setting(s, "limits.memory_gb", "2.5", wmd::SourcePos{}));
  EXPECT_DOUBLE_EQ(wmd::memory::limit_bytes(), 2.5e9);
  EXPECT_THROW(wmd::io::apply_setting(s, "limits.memory_gb", "-1", wmd::SourcePos{}), wmd::InputError);
  wmd::memory::set_limit_gb(0);
  EXPECT_GT(wmd::memory::limit_bytes(), 1e8);  // the default: available memory
}

TEST(Issue29, MemoryLimitFromYaml) {
  const std::string dir = wmd::test::scratch_dir("memory_budget_yaml");
  std::ifstream in(std::string(WAFERMD_SOURCE_DIR) + "/inputs/default.yaml");
  std::ofstream out(dir + "/in.yaml");
  out << in.rdbuf() << "\nlimits:\n  memory_gb: 0.0001\n";
  out.close();
  const auto r = run_shell(dir, std::string("timeout 20 '") + WAFERMD_EXE + "' run in.yaml --output out");
  expect_one_line_error(r, 2, "over the limit of 0.0001 GB");
}

}  // namespace
