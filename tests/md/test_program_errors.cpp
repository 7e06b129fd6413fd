// The wafermd program end to end: bad input exits 2 with "error: FILE:LINE: ..." and writes nothing; failed
// runs exit 3 naming the atom and the step; a good run writes the output directory.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>

#include "io/checkpoint.hpp"
#include "io/text_file.hpp"
#include "md/programs/program.hpp"
#include "program_harness.hpp"
#include "sim_harness.hpp"

namespace {

namespace fs = std::filesystem;

using Result = wmd::test::ProgramResult;
using wmd::test::run_wafermd_in;

const std::string kHead =
    "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 3 0 3 0 3\n"
    "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 "
    "Cu_u3.eam\n";

// A box without a pair style (line 7 is create_atoms): the pair_style cases go on from line 8.
const std::string kBox =
    "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 3 0 3 0 3\n"
    "create_box 2 box\ncreate_atoms 1 box\n";
const std::string kAlloy = "pair_coeff * * eam/alloy CuNi.eam.alloy Cu Ni\n";

struct BadCase {
  const char* name;
  std::string input;   // file name
  std::string text;    // its content
  int line;            // expected line in the message
  const char* needle;  // expected words
};

// Keeps ctest's listing readable.
void PrintTo(const BadCase& c, std::ostream* os) {
  *os << c.name;
}

class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInput, ExitsTwoWithFileAndLineAndWritesNothing) {
  const BadCase& c = GetParam();
  const std::string dir = wmd::test::scratch_dir(std::string("bad_") + c.name);
  std::ofstream(dir + "/" + c.input) << c.text;
  const Result r = run_wafermd_in(dir, "run " + c.input + " --output out");
  EXPECT_EQ(r.status, 2) << r.err;
  const std::string want = "error: " + c.input + ":" + std::to_string(c.line) + ": ";
  EXPECT_EQ(r.err.rfind(want, 0), 0u) << "stderr: " << r.err;
  EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  EXPECT_FALSE(fs::exists(dir + "/out")) << "nothing may be written for bad input";
}

INSTANTIATE_TEST_SUITE_P(
    Program, BadInput,
    ::testing::Values(
        BadCase{"unknown_command", "in.a", kHead + "fix 1 all nve\nkspace_style pppm 1e-4\nrun 1\n", 11,
                "kspace_style"},
        BadCase{"wrong_type", "in.a", kHead + "timestep fast\nrun 1\n", 10, "(a number)"},
        BadCase{"out_of_range", "in.a", kHead + "thermo -5\nrun 1\n", 10, "in [0,"},
        BadCase{"late_error", "in.a", kHead + "fix 1 all nve\nrun 10\nvelocity all create -3 5\n", 12,
                "temperature (K) >= 0"},
        BadCase{"unknown_group", "in.a", kHead + "velocity hot create 300 5\n", 10, "unknown group 'hot'"},
        BadCase{"undefined_variable", "in.a", kHead + "run ${steps}\n", 10, "undefined variable 'steps'"},
        BadCase{"unknown_yaml_key", "in.yaml",
                "system: {lattice: {style: fcc, constant: 3.615}, cells: [3, 3, 3]}\n"
                "potential: {style: eam, files: ["
                "Cu_u3.eam]}\nrun: 5\nbarostat: nose\n",
                4, "unknown key 'barostat'"},
        BadCase{"bad_cluster_grid", "in.yaml",
                "system: {lattice: {style: fcc, constant: 3.615}, cells: [3, 3, 3]}\n"
                "potential: {style: eam, files: ["
                "Cu_u3.eam]}\nrun: 5\ncluster: {grid: 2by2}\n",
                4, "cluster.grid must be AxBxC"},
        BadCase{"yaml_wrong_type", "in.yaml",
                "system: {lattice: {style: fcc, constant: big}, cells: [3, 3, 3]}\n"
                "potential: {style: eam, files: ["
                "Cu_u3.eam]}\nrun: 5\n",
                1, "must be a number"},
        // pair_style zbl and hybrid/overlay: what LAMMPS refuses, and the forms that do not run here.
        BadCase{"pair_hybrid_not_overlay", "in.a", kBox + "pair_style hybrid eam/alloy zbl 1.0 2.0\n", 8,
                "pair_style hybrid is not supported"},
        BadCase{"pair_hybrid_other_substyle", "in.a",
                kBox + "pair_style hybrid/overlay eam/alloy lj/cut 2.5\n", 8,
                "sub-style 'lj/cut' is not supported; what runs: eam, eam/alloy"},
        BadCase{"pair_style_other", "in.a", kBox + "pair_style tersoff\n", 8,
                "pair_style 'tersoff' is not supported; what runs:"},
        BadCase{"pair_zbl_cutoffs", "in.a", kBox + "pair_style zbl 2.0 1.0\n", 8,
                "inner cut-off must not exceed the outer"},
        BadCase{"pair_zbl_arguments", "in.a", kBox + "pair_style hybrid/overlay eam/alloy zbl 1.0\n", 8,
                "zbl takes two cut-offs"},
        BadCase{"pair_zbl_charge_word", "in.a",
                kBox + "pair_style hybrid/overlay eam/alloy zbl 1.0 2.0\n" + kAlloy +
                    "pair_coeff 1 1 zbl Cu Cu\n",
                10, "'Cu' is not a nuclear charge"},
        BadCase{"pair_zbl_charge_negative", "in.a", kBox + "pair_style zbl 1.0 2.0\npair_coeff 1 1 -29 -29\n",
                9, "negative"},
        BadCase{"pair_zbl_charges_differ", "in.a", kBox + "pair_style zbl 1.0 2.0\npair_coeff * * 29 28\n", 9,
                "z1 = z2"},
        BadCase{"pair_zbl_charge_count", "in.a", kBox + "pair_style zbl 1.0 2.0\npair_coeff 1 1 29\n", 9,
                "two nuclear charges"},
        BadCase{"pair_hybrid_coeff_style", "in.a",
                kBox + "pair_style hybrid/overlay eam/alloy zbl 1.0 2.0\npair_coeff 1 1 eam 29 29\n", 9,
                "Pair coeff for hybrid has invalid style"},
        BadCase{"pair_hybrid_coeff_none", "in.a",
                kBox + "pair_style hybrid/overlay eam/alloy zbl 1.0 2.0\n" + kAlloy + "pair_coeff 1 2 none\n",
                10, "none under hybrid/overlay is not supported"},
        BadCase{"pair_hybrid_zbl_unused", "in.a",
                kBox + "pair_style hybrid/overlay eam/alloy zbl 1.0 2.0\n" + kAlloy + "run 1\n", 8,
                "Pair hybrid sub-style is not used"},
        BadCase{"pair_zbl_coeffs_not_set", "in.a",
                kBox + "pair_style zbl 1.0 2.0\npair_coeff 1 1 29 29\nmass * 60\nrun 1\n", 8,
                "type 2 has no pair_coeff 2 2 z z"},
        BadCase{"pair_zbl_beyond_eam", "in.a",
                kBox + "pair_style hybrid/overlay eam/alloy zbl 1.0 7.0\n" + kAlloy +
                    "pair_coeff * * zbl 29 29\nrun 1\n",
                8, "beyond the EAM cut-off"},
        BadCase{"zbl_splice_over_zbl", "in.a",
                kBox + "pair_style zbl 1.0 2.0\npair_coeff * * 29 29\nzbl_splice Cu Cu\n", 10,
                "has a zbl term already"},
        BadCase{"missing_potential", "in.a",
                "units metal\nlattice fcc 3.6\nregion b block 0 2 0 2 0 2\ncreate_box 1 b\npair_style eam\n"
                "pair_coeff 1 1 /nonexistent/Cu.eam\n",
                6, "cannot open potential file"}),
    [](const ::testing::TestParamInfo<BadCase>& i) { return std::string(i.param.name); });

TEST(Program, MalformedPotentialNamesThePotentialFileAndLine) {
  const std::string dir = wmd::test::scratch_dir("bad_potential");
  std::ofstream(dir + "/bad.eam") << "comment\n29 63.55 3.615 FCC\n10 0.1 10 0.1 4.0\n1 2 3 x 5\n";
  std::ofstream(dir + "/in.a") << "units metal\nlattice fcc 3.6\nregion b block 0 2 0 2 0 2\ncreate_box 1 b\n"
                                  "pair_style eam\npair_coeff 1 1 bad.eam\n";
  const Result r = run_wafermd_in(dir, "run in.a --output out");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind("error: bad.eam:4: expected a number in F(rho), got 'x'", 0), 0u) << r.err;
}

TEST(Program, UnwritableOutputDirectoryExitsTwoBeforeTheRun) {
  const std::string dir = wmd::test::scratch_dir("unwritable");
  std::ofstream(dir + "/in.a") << kHead << "fix 1 all nve\nrun 5\n";
  std::ofstream(dir + "/blocker") << "a file where a directory should be";
  const Result r = run_wafermd_in(dir, "run in.a --output blocker/out");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("output directory"), std::string::npos) << r.err;
}

TEST(Program, LostAtomExitsThreeNamingAtomAndStep) {
  const std::string dir = wmd::test::scratch_dir("lost");
  std::ofstream(dir + "/in.a") << "units metal\natom_style atomic\nboundary p p f\nlattice fcc 3.615\n"
                                  "region box block 0 3 0 3 0 3\ncreate_box 1 box\ncreate_atoms 1 box\n"
                                  "pair_style eam\npair_coeff 1 1 Cu_u3.eam\n"
                                  "group one id 1\nvelocity one set 0 0 -1000 units box\n"
                                  "neighbor 0.5 bin\nfix 1 all nve\nrun 100\n";
  const Result r = run_wafermd_in(dir, "run in.a --output out");
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("lost atom 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at step"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir + "/out/report.json"));
}

TEST(Program, OverlappingAtomsExitThreeWithANonFiniteValue) {
  const std::string dir = wmd::test::scratch_dir("nonfinite");
  std::ofstream(dir + "/in.a") << kHead
                               << "group one id 1\ndisplace_atoms one move 0.5 0.5 0 units lattice\n"
                                  "fix 1 all nve\nrun 5\n";
  const Result r = run_wafermd_in(dir, "run in.a --output out");
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("non-finite"), std::string::npos) << r.err;
}

TEST(Program, GoodRunWritesTheOutputDirectory) {
  const std::string dir = wmd::test::scratch_dir("good");
  std::ofstream(dir + "/in.a") << kHead
                               << "velocity all create 300 5 loop geom\nfix 1 all nve\nthermo 5\n"
                                  "variable n index 3\nrun $n\nrun 2\n";
  const Result r = run_wafermd_in(dir, "run in.a --var n 10");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* f : {"thermo.csv", "report.json", "log.txt"})
    EXPECT_TRUE(fs::exists(dir + "/out/in.a/" + f)) << f;  // a LAMMPS script's whole name, not out/in/
  EXPECT_EQ(wmd::md::input_output_name("inputs/default.yaml"), "default");
  EXPECT_EQ(wmd::md::input_output_name("b.yml"), "b");
  EXPECT_EQ(wmd::md::input_output_name("/x/in.cu801792"), "in.cu801792");
  std::ifstream rep(dir + "/out/in.a/report.json");
  std::stringstream s;
  s << rep.rdbuf();
  EXPECT_NE(s.str().find("\"steps\": 12"), std::string::npos) << s.str();
  EXPECT_NE(r.out.find("Loop time of"), std::string::npos);
}

TEST(Program, HelpAndVersion) {
  const std::string dir = wmd::test::scratch_dir("help");
  EXPECT_EQ(run_wafermd_in(dir, "--help").status, 0);
  const Result v = run_wafermd_in(dir, "--version");
  EXPECT_EQ(v.status, 0);
  EXPECT_NE(v.out.find("wafermd"), std::string::npos);
  EXPECT_EQ(run_wafermd_in(dir, "run").status, 2);
}

// Kokkos's own options stay behind --kokkos-help: --help lists wafermd's alone.
TEST(Program, HelpListsOurOptionsOnly) {
  const std::string dir = wmd::test::scratch_dir("help_ours");
  for (const char* args : {"--help", "model --help", "run --help"}) {
    const Result r = run_wafermd_in(dir, args);
    EXPECT_EQ(r.status, 0) << args << ": " << r.err;
    EXPECT_EQ(r.out.find("kokkos-"), std::string::npos) << args << ": " << r.out;
    EXPECT_NE(r.out.find("--help"), std::string::npos) << args << ": " << r.out;
  }
  const Result k = run_wafermd_in(dir, "--kokkos-help");
  EXPECT_EQ(k.status, 0) << k.err;
  EXPECT_NE(k.out.find("kokkos-"), std::string::npos) << k.out;
}

// A lost write to the run's own outputs (log.txt, thermo.csv; here the full device /dev/full stands for a
// full disk) fails the run (exit 3) naming the file, never exit 0 with output missing.
TEST(Program, LostWritesToLogAndThermoFilesFailTheRun) {
  for (const char* name : {"log.txt", "thermo.csv.partial"}) {
    const std::string dir = wmd::test::scratch_dir(std::string("full_") + name);
    fs::create_directories(dir + "/out");
    fs::remove(dir + "/out/" + name);
    fs::create_symlink("/dev/full", dir + "/out/" + name);
    std::ofstream(dir + "/in.a") << kHead << "fix 1 all nve\nthermo 1\nrun 20\n";
    const Result r = run_wafermd_in(dir, "run in.a --output out");
    EXPECT_EQ(r.status, 3) << name << ": " << r.err;
    EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  }
}

// The same for report.json (written atomically: its temporary file is on the full device) and an H5MD
// trajectory: exit 3 naming the file, one line.
TEST(Program, LostWritesToReportAndTrajectoryFailTheRun) {
  for (const auto& [name, link, extra] :
       {std::tuple{"report.json", "report.json.tmp", ""},
        std::tuple{"trajectory.h5", "trajectory.h5", " --set output.trajectory.every=5"}}) {
    const std::string dir = wmd::test::scratch_dir(std::string("full_") + link);
    fs::create_directories(dir + "/out");
    fs::remove(dir + "/out/" + link);
    fs::create_symlink("/dev/full", dir + "/out/" + link);
    std::ofstream(dir + "/in.a") << kHead << "fix 1 all nve\nthermo 5\nrun 20\n";
    const Result r = run_wafermd_in(dir, std::string("run in.a --output out") + extra);
    EXPECT_EQ(r.status, 3) << name << ": " << r.err;
    EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
    EXPECT_EQ(fs::status("/dev/full").type(), fs::file_type::character);
  }
}

// A restart file named as a device is written through it, never replaced: /dev/full (a full disk) fails the
// run with exit 3 naming it, /dev/null takes it; both stay devices and no temporary is left in /dev.
TEST(Program, RestartOntoADeviceIsWrittenThroughIt) {
  const std::string dir = wmd::test::scratch_dir("restart_device");
  std::ofstream(dir + "/in.full") << kHead << "fix 1 all nve\nrun 2\nwrite_restart /dev/full\n";
  const Result r = run_wafermd_in(dir, "run in.full --output out_full");
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_EQ(r.err.rfind("error: run failed: cannot write checkpoint file '/dev/full'", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  std::ofstream(dir + "/in.null") << kHead << "fix 1 all nve\nrestart 1 /dev/null\nrun 2\n";
  const Result n = run_wafermd_in(dir, "run in.null --output out_null");
  EXPECT_EQ(n.status, 0) << n.err;
  for (const char* dev : {"/dev/full", "/dev/null"})
    EXPECT_EQ(fs::symlink_status(dev).type(), fs::file_type::character) << dev;
  for (const char* left : {"/dev/full.tmp", "/dev/null.tmp"}) EXPECT_FALSE(fs::exists(left)) << left;
}

// A restart file written through a symlink replaces the file the link points to; the link survives.
TEST(Program, RestartThroughASymlinkKeepsTheLink) {
  const std::string dir = wmd::test::scratch_dir("restart_symlink");
  fs::create_directories(dir + "/store");
  fs::create_symlink("store/real.restart", dir + "/link.restart");
  std::ofstream(dir + "/in.a") << kHead << "write_restart link.restart\nwrite_restart link.restart\n";
  const Result r = run_wafermd_in(dir, "run in.a --output out");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir + "/link.restart"));
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir + "/store/real.restart")));
  EXPECT_FALSE(fs::exists(dir + "/link.restart.tmp"));
}

// An atomic replace never replaces what is not a regular file: a FIFO (or a device) named as a restart file
// is refused at the command (exit 2), naming it, and is still there afterwards.
TEST(Program, RestartOntoAFifoIsRefusedAndTheFifoKept) {
  const std::string dir = wmd::test::scratch_dir("restart_fifo");
  fs::remove(dir + "/a.fifo");
  ASSERT_EQ(::mkfifo((dir + "/a.fifo").c_str(), 0600), 0);
  std::ofstream(dir + "/in.a") << kHead << "write_restart a.fifo\n";
  const Result r = run_wafermd_in(dir, "run in.a --output out");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("error: in.a:10: restart file 'a.fifo' is not a regular file", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  EXPECT_EQ(fs::symlink_status(dir + "/a.fifo").type(), fs::file_type::fifo);
}

// The writer's own check (a node that appears after the dry run): links followed one by one, a dangling
// link names the file to create, a FIFO or directory refused, and write_checkpoint leaves the FIFO alone.
TEST(Program, AtomicReplaceTargetFollowsLinksAndRefusesNodes) {
  const std::string dir = wmd::test::scratch_dir("atomic_target");
  fs::create_directories(dir + "/d");
  std::ofstream(dir + "/d/real") << "x";
  fs::create_symlink("d/real", dir + "/one");
  fs::create_symlink("one", dir + "/two");
  fs::create_symlink("d/none", dir + "/dangling");
  ASSERT_EQ(::mkfifo((dir + "/f").c_str(), 0600), 0);
  EXPECT_EQ(wmd::io::atomic_replace_target(dir + "/two", "x").path, dir + "/d/real");
  EXPECT_EQ(wmd::io::atomic_replace_target(dir + "/dangling", "x").path, dir + "/d/none");
  EXPECT_EQ(wmd::io::atomic_replace_target(dir + "/new", "x").path, dir + "/new");
  EXPECT_FALSE(wmd::io::atomic_replace_target(dir + "/new", "x").device);
  // A device is written through, never replaced; its temporary file is not put beside it in /dev.
  const auto null_target = wmd::io::atomic_replace_target("/dev/null", "x");
  EXPECT_TRUE(null_target.device);
  EXPECT_EQ(null_target.path, "/dev/null");
  EXPECT_NE(null_target.temporary().rfind("/dev/", 0), 0u) << null_target.temporary();
  EXPECT_THROW(wmd::io::atomic_replace_target(dir + "/f", "x"), wmd::RunError);
  EXPECT_THROW(wmd::io::atomic_replace_target(dir + "/d", "x"), wmd::RunError);
  EXPECT_THROW(wmd::io::write_checkpoint(dir + "/f", wmd::io::CheckpointData{}), wmd::RunError);
  EXPECT_EQ(fs::symlink_status(dir + "/f").type(), fs::file_type::fifo);
  EXPECT_FALSE(fs::exists(dir + "/f.tmp"));
}

// A checkpoint that cannot be written (a full disk: its temporary file on /dev/full) is a RunError naming the
// checkpoint; the last good checkpoint is kept and the half-written temporary removed.
TEST(Program, ACheckpointOnAFullDiskFailsNamingItAndKeepsTheLastGoodOne) {
  const std::string dir = wmd::test::scratch_dir("checkpoint_full");
  std::ofstream(dir + "/ck.h5") << "the last good checkpoint";
  fs::create_symlink("/dev/full", dir + "/ck.h5.tmp");
  wmd::io::CheckpointData d;
  d.reals["x"] = std::vector<double>(100000, 1.0);
  try {
    wmd::io::write_checkpoint(dir + "/ck.h5", d);
    ADD_FAILURE() << "no error";
  } catch (const wmd::RunError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot write checkpoint file '" + dir + "/ck.h5'", 0), 0u)
        << e.what();
  }
  std::ifstream in(dir + "/ck.h5");
  std::string kept;
  std::getline(in, kept);
  EXPECT_EQ(kept, "the last good checkpoint");
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir + "/ck.h5.tmp")));
  EXPECT_EQ(fs::status("/dev/full").type(), fs::file_type::character);
}

}  // namespace

namespace {

TEST(Program, FabricSimulateReportsTheContractKeys) {
  const std::string dir = wmd::test::scratch_dir("fabric_cli");
  const Result r =
      run_wafermd_in(dir, "fabric simulate --schedule window_multicast --b 2 --mesh 12x12 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* key : {"\"simulated_cycles\"", "\"modeled_cycles\"", "\"link_utilisation\"",
                          "\"stall_cycles\"", "\"deadlock\""}) {
    EXPECT_NE(r.out.find(key), std::string::npos) << key;
  }
  const Result bad = run_wafermd_in(dir, "fabric simulate --schedule window_multicast --b 9 --mesh 12x12");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err.rfind("error: ", 0), 0u) << bad.err;
}

TEST(Program, FabricSimulateRunsTheMdStep) {
  const std::string dir = wmd::test::scratch_dir("fabric_cli_md_step");
  const Result r = run_wafermd_in(
      dir, "fabric simulate --schedule md_step --b 2 --mesh 12x12 --wrap --neighbours 10,6 --rebuild --json");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* key : {"\"simulated_cycles\"", "\"modeled_cycles\"", "\"additive_cycles\"",
                          "\"critical_path_simulated\"", "\"rebuild\": true", "\"neighbours_max\": 10"})
    EXPECT_NE(r.out.find(key), std::string::npos) << key;
  const Result serial = run_wafermd_in(dir, "fabric simulate --schedule md_step --b 2 --mesh 12x12 --serial");
  ASSERT_EQ(serial.status, 0) << serial.err;
  EXPECT_NE(serial.out.find("(serial)"), std::string::npos) << serial.out;
  const Result bad =
      run_wafermd_in(dir, "fabric simulate --schedule md_step --b 2 --mesh 12x12 --neighbours 30");
  EXPECT_EQ(bad.status, 2);
}

}  // namespace
