// Run-time behaviour of LAMMPS scripts against Debian lmp (references from validation/script/regenerate.sh):
// fix halt (soft, continue, hard), dump_modify thresh, text dumps compressed by a .gz file name,
// thermo_modify lost warn|ignore with fixed faces, at 1 and 3 ranks.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
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
  return wmd::test::script_dir("runtime", name, files);
}

bool thermo_row(const std::string& l) {
  const size_t k = l.find_first_not_of(' ');
  return l.size() > 1 && l[0] == ' ' && k != std::string::npos &&
         std::isdigit(static_cast<unsigned char>(l[k])) && l.find("MPI") == std::string::npos &&
         l.find("neighbor") == std::string::npos;
}

// The printed lines, thermo rows, warnings and halt messages of a run, and each run's steps and atoms.
std::string run_lines(const std::string& out) {
  std::istringstream in(out);
  std::string got;
  const std::regex loop("^Loop time of \\S+ on [0-9]+ procs"),
      disk("^(Fix halt condition for fix-id hd met on step [0-9]+ with value) .*");
  for (std::string l; std::getline(in, l);) {
    if (l.rfind(">>", 0) == 0 || thermo_row(l) || l.rfind("Fix halt", 0) == 0 ||
        l.rfind("Loop time", 0) == 0 || l.rfind("WARNING: Lost", 0) == 0)
      got += std::regex_replace(std::regex_replace(l, loop, "Loop time"), disk, "$1 DISKFREE") + "\n";
  }
  return got;
}

TEST(ScriptParity, FixHaltAsLammps) {
  const std::string dir = setup_dir("halt", {"in.halt"});
  for (int ranks : {1, 3}) {
    const auto r = run_ranks(dir, ranks, "run in.halt --output out" + std::to_string(ranks));
    ASSERT_EQ(r.status, 0) << r.err;
    if (r.out.empty()) continue;  // no MPI launcher
    const std::string got = run_lines(r.out);
    expect_same_words(got, slurp(kData + "halt.ref"), 1e-10);
  }
}

// The TIMESTEP of each frame of a text dump, as `NAME: s1 s2 … ` (time_output_halt.steps's lines).
std::string frame_steps(const std::string& dir, const std::string& name) {
  std::istringstream in(slurp(dir + "/" + name));
  std::string steps = name + ": ";
  for (std::string l; std::getline(in, l);)
    if (l == "ITEM: TIMESTEP" && std::getline(in, l)) steps += l + " ";
  return steps + "\n";
}

TEST(ScriptParity, OutputBySimulatedTimeAsLammps) {
  // A cascade-like run under fix dt/reset writing thermo rows and dump frames at the first step past each
  // multiple of a time (thermo v_name, dump_modify every v_name), across run … every segments, with
  // dump_modify delay and first yes, ended on simulated time by fix halt (time, then elaplong*dt with run …
  // start): the rows (time, dt, fix dt/reset's last reset step, elapsed, elaplong), halt lines, each run's
  // steps and the dumps' frame steps are lmp's.
  const std::string dir = setup_dir("time_output_halt", {"in.time_output_halt"});
  for (int ranks : {1, 3}) {
    const auto r = run_ranks(dir, ranks, "run in.time_output_halt --output out" + std::to_string(ranks));
    ASSERT_EQ(r.status, 0) << r.err;
    if (r.out.empty()) continue;  // no MPI launcher
    expect_same_words(run_lines(r.out), slurp(kData + "time_output_halt.ref"), 1e-10);
    EXPECT_EQ(frame_steps(dir, "halt_a.dump") + frame_steps(dir, "halt_b.dump"),
              slurp(kData + "time_output_halt.steps"))
        << ranks << " ranks";
  }
}

TEST(ScriptParity, RestartVariableStepsAsLammps) {
  // restart v_name: files at the steps the variable returns (the first step past each 0.01 ps under fix
  // dt/reset), none at a run's set-up, across two runs; the names lmp wrote.
  for (int ranks : {1, 3}) {
    const std::string dir = setup_dir("restart_variable_" + std::to_string(ranks), {"in.restart_variable"});
    const auto r = run_ranks(dir, ranks, "run in.restart_variable --output out");
    ASSERT_EQ(r.status, 0) << r.err;
    if (r.out.empty()) continue;  // no MPI launcher
    std::vector<std::pair<long, std::string>> files;
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string n = e.path().filename().string();
      if (n.rfind("rs.", 0) == 0) files.emplace_back(std::stol(n.substr(3)), n);
    }
    std::sort(files.begin(), files.end());
    std::string names;
    for (const auto& f : files) names += f.second + " ";
    EXPECT_EQ(names + "\n", slurp(kData + "restart_variable.ref")) << ranks << " ranks";
    EXPECT_TRUE(fs::exists(dir + "/ra.restart") && fs::exists(dir + "/rb.restart"));
  }
}

TEST(ScriptParity, LostAtomsWarnAndIgnoreAsLammps) {
  const std::string dir = setup_dir("lost", {"in.lost"});
  for (int ranks : {1, 3}) {
    const auto r = run_ranks(dir, ranks, "run in.lost --output out" + std::to_string(ranks));
    ASSERT_EQ(r.status, 0) << r.err;
    if (r.out.empty()) continue;  // no MPI launcher
    expect_same_words(run_lines(r.out), slurp(kData + "lost.ref"), 1e-9);
  }
}

TEST(ScriptParity, ShellRunsOtherProgramsAsLammps) {
  for (int ranks : {1, 3}) {
    const std::string dir = setup_dir("shell_" + std::to_string(ranks), {"in.shell"});
    const auto r = run_ranks(dir, ranks, "run in.shell --output out");
    ASSERT_EQ(r.status, 0) << r.err;
    if (r.out.empty()) continue;  // no MPI launcher
    std::istringstream in(r.out);
    std::string got;
    for (std::string l; std::getline(in, l);)
      if (l.rfind(">>", 0) == 0 || l.rfind("WARNING: Shell", 0) == 0) got += l + "\n";
    EXPECT_EQ(got, slurp(kData + "shell.ref")) << ranks << " ranks";
    EXPECT_EQ(slurp(dir + "/shell_hello.txt"), "hello world\n");
    EXPECT_EQ(slurp(dir + "/shell_count.txt"), "once\n") << "run once: rank 0, real run only";
    EXPECT_EQ(slurp(dir + "/shell_copy.txt"), slurp(kData + "in.shell"));
    const std::string where = slurp(dir + "/shell_dir/where.txt");
    EXPECT_EQ(where.substr(where.rfind('/') + 1), "shell_dir\n") << where;
  }
}

const char* const kCu =
    "units metal\nlattice fcc 3.615\nregion b block 0 3 0 3 0 3\ncreate_box 1 b\ncreate_atoms 1 box\n"
    "pair_style eam\npair_coeff * * Cu_u3.eam\nvelocity all create 600 4242\n"
    "fix 1 all nve\nvariable t equal temp\n";

TEST(ScriptErrors, FixHaltHardEndsTheProgram) {
  // error hard: LAMMPS's error->all with the message (wafermd: a run error, exit 3, at the step it was met).
  const std::string dir = wmd::test::scratch_dir("runtime_halt_hard");
  std::ofstream(dir + "/in.hard") << kCu
                                  << "fix h all halt 2 v_t < 1000 error hard\nrun 10\nprint '>> not here'\n";
  const auto r = run_wafermd_in(dir, "run in.hard --output out");
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("Fix halt condition for fix-id h met on step 2 with value"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find(">> not here"), std::string::npos);
  // A soft halt met while minimising cannot end the minimisation early here: an error, never another path.
  std::ofstream(dir + "/in.min") << kCu << "fix h all halt 1 v_t >= 0\nminimize 0 0 5 50\n";
  const auto m = run_wafermd_in(dir, "run in.min --output out2");
  EXPECT_EQ(m.status, 3) << m.err;
  EXPECT_NE(m.err.find("during minimize"), std::string::npos) << m.err;
  // One that is not met lets the minimisation run as in LAMMPS.
  std::ofstream(dir + "/in.min2") << kCu << "fix h all halt 1 v_t < 0\nminimize 0 0 5 50\n";
  EXPECT_EQ(run_wafermd_in(dir, "run in.min2 --output out3").status, 0);
}

TEST(ScriptErrors, LostAtomsErrorAndTheMeshRefusal) {
  const std::string dir = setup_dir("lost_errors", {"in.lost"});
  // lost error (also what a later thermo_style restores, as LAMMPS's new Thermo): the run ends (exit 3).
  std::string text = slurp(dir + "/in.lost");
  const std::string warn = "thermo_modify format float %.15g lost warn\n";
  ASSERT_NE(text.find(warn), std::string::npos);
  std::ofstream(dir + "/in.reset") << std::regex_replace(
      text, std::regex("thermo_modify format float %\\.15g lost warn\n"),
      "thermo_modify lost ignore\nthermo_style custom step atoms temp\n");
  const auto r = run_wafermd_in(dir, "run in.reset --output out");
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("lost atom 200"), std::string::npos) << r.err;
  // The mesh backend (one atom per PE) cannot drop atoms: refused at the command, before anything runs.
  const auto m = run_wafermd_in(dir, "run in.lost --output out2 --backend mesh");
  EXPECT_EQ(m.status, 2) << m.err;
  EXPECT_NE(m.err.find(": thermo_modify lost warn: the mesh backend cannot drop atoms"), std::string::npos)
      << m.err;
}

TEST(ScriptErrors, FixHaltRefusesBadArguments) {
  for (const char* bad :
       {"fix h all halt 0 v_t < 1\n", "fix h all halt 1 v_nope < 1\n", "fix h all halt 1 temp < 1\n",
        "fix h all halt 1 v_t <> 1\n", "fix h all halt 1 v_t < 1 error maybe\n", "fix h all halt 1 v_t < x\n",
        "fix h all halt 1 v_t < 1 message\n", "variable a atom x\nfix h all halt 1 v_a < 1\n"}) {
    const std::string dir = wmd::test::scratch_dir("runtime_halt_bad");
    std::ofstream(dir + "/in.bad") << kCu << bad << "run 1\n";
    const auto r = run_wafermd_in(dir, "run in.bad --output out");
    EXPECT_EQ(r.status, 2) << bad << r.err;
    EXPECT_NE(r.err.find("error: in.bad:"), std::string::npos) << bad << r.err;
  }
}

TEST(ScriptDumps, ThreshEqualsLammpsByteForByte) {
  const char* files[] = {"defects.dump", "and.dump",      "last.dump",
                         "none.dump",    "defects.0.cfg", "defects.20.cfg"};
  for (int ranks : {1, 3}) {
    const std::string dir = setup_dir("thresh_" + std::to_string(ranks), {"in.thresh"});
    const auto r = run_ranks(dir, ranks, "run in.thresh --output out");
    ASSERT_EQ(r.status, 0) << r.err;
    if (r.out.empty()) continue;  // no MPI launcher
    for (const char* f : files)
      EXPECT_EQ(slurp(dir + "/" + f), slurp(kData + "thresh_" + f)) << f << " at " << ranks << " ranks";
  }
}

std::string gunzip(const std::string& path) {
  gzFile g = gzopen(path.c_str(), "rb");
  if (!g) return "<cannot open " + path + ">";
  std::string text;
  char buf[4096];
  for (int n; (n = gzread(g, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  gzclose(g);
  return text;
}

bool gzip_magic(const std::string& path) {
  const std::string head = slurp(path).substr(0, 2);
  return head == "\x1f\x8b";
}

TEST(ScriptDumps, GzFileNamesCompressAsLammps) {
  // Debian's lmp compresses a text dump whose name ends in .gz, whatever its style.
  for (int ranks : {1, 3}) {
    const std::string dir = setup_dir("gzname_" + std::to_string(ranks), {"in.gzname"});
    const auto r = run_ranks(dir, ranks, "run in.gzname --output out");
    ASSERT_EQ(r.status, 0) << r.err;
    if (r.out.empty()) continue;  // no MPI launcher
    for (const char* s : {"custom", "atom", "xyz"}) {
      const std::string f = dir + "/gzname." + s + ".gz";
      EXPECT_TRUE(gzip_magic(f)) << f;
      EXPECT_EQ(gunzip(f), slurp(kData + "gzname_" + s)) << s << " at " << ranks << " ranks";
    }
    for (const char* s : {"0", "10"}) {
      const std::string f = dir + "/gzname." + s + ".cfg.gz";
      EXPECT_TRUE(gzip_magic(f)) << f;
      EXPECT_EQ(gunzip(f), slurp(kData + "gzname_" + s + ".cfg")) << f;
    }
    // dump local (rows: the pairs in each code's order) and local/gz: compressed, lmp's header.
    for (const char* s : {"local", "local2"}) {
      const std::string f = dir + "/gzname." + s + ".gz";
      EXPECT_TRUE(gzip_magic(f)) << f;
      std::istringstream in(gunzip(f));
      std::string head;
      for (int k = 0; k < 9 && in; ++k) {
        std::string l;
        std::getline(in, l);
        head += l + "\n";
      }
      if (std::string(s) == "local2") EXPECT_EQ(head, slurp(kData + "gzname_local_head")) << f;
    }
  }
}

TEST(ScriptErrors, ThreshRefusesWhatLammpsRefuses) {
  for (const char* bad :
       {"dump d all atom 1 a.dump\ndump_modify d thresh x > 1\n",
        "dump d all xyz 1 a.xyz\ndump_modify d thresh x > 1\n",
        "compute p all property/local patom1\ndump d all local 1 a.l c_p\ndump_modify d thresh x > 1\n",
        "dump d all custom 1 a.dump id\ndump_modify d thresh q > 1\n",
        "dump d all custom 1 a.dump id\ndump_modify d thresh x >> 1\n",
        "dump d all custom 1 a.dump id\ndump_modify d thresh x > NEXT\n",
        "dump d all custom 1 a.dump id\ndump_modify d thresh c_nope > 1\n",
        "dump d all custom 1 a.dump id\ndump_modify d thresh x >\n"}) {
    const std::string dir = wmd::test::scratch_dir("runtime_thresh_bad");
    std::ofstream(dir + "/in.bad") << kCu << bad << "run 1\n";
    const auto r = run_wafermd_in(dir, "run in.bad --output out");
    EXPECT_EQ(r.status, 2) << bad << r.err;
    EXPECT_NE(r.err.find("error: in.bad:"), std::string::npos) << bad << r.err;
  }
}

}  // namespace
