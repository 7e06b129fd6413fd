// Checkpoint/restart end to end: 200 steps straight equal 100 + restart + 100 to the bit (also with the
// checkpoint between neighbour rebuilds, and on 2 ranks once multi-rank runs exist; on the mesh backend in
// fp32 and fp64, through remaps, with report.json's fabric counters continuing); a checkpoint killed halfway
// leaves the previous one loadable; mismatched checkpoints exit 2; SIGTERM writes one and exits 3; a cascade
// interrupted in its second run continues to the same end as the uninterrupted one.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "io/checkpoint.hpp"
#include "program_harness.hpp"
#include "sim_harness.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using wmd::test::run_shell;
using wmd::test::run_wafermd_in;

// 4·cells³ Cu atoms (256 by default) at 600 K; `neigh` sets the neighbour policy. `run ${n}` so one input
// serves every length. The mesh needs 5 cells: its window (2b+1 PEs a side) must fit the PE grid.
std::string input(const std::string& neigh, const std::string& extra = "", int cells = 4) {
  const std::string c = std::to_string(cells);
  return "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 " + c +
         " 0 " + c + " 0 " + c +
         "\n"
         "create_box 1 box\ncreate_atoms 1 box\npair_style eam\n"
         "pair_coeff 1 1 Cu_u3.eam\nvelocity all create 600 87287 loop geom\n" +
         neigh + "\ntimestep 0.002\nfix 1 all nve\nthermo 50\n" + extra + "run ${n}\n";
}

const std::string kEveryStep = "neighbor 0.3 bin\nneigh_modify every 1 delay 0 check yes";
const std::string kEverySeven = "neighbor 0.3 bin\nneigh_modify every 7 delay 0 check no";

wmd::io::CheckpointData load(const std::string& path) {
  return wmd::io::read_checkpoint(path, wmd::SourcePos{"test", 0});
}

// Final positions and velocities of two checkpoints are identical to the bit.
void expect_same_atoms(const std::string& a, const std::string& b) {
  const auto ca = load(a), cb = load(b);
  ASSERT_EQ(ca.ints.at("meta/step"), cb.ints.at("meta/step"));
  EXPECT_EQ(ca.ints.at("atoms/id"), cb.ints.at("atoms/id"));
  for (const char* k : {"atoms/x", "atoms/y", "atoms/z", "atoms/vx", "atoms/vy", "atoms/vz"}) {
    const auto& va = ca.reals.at(k);
    const auto& vb = cb.reals.at(k);
    ASSERT_EQ(va.size(), vb.size()) << k;
    size_t differ = 0;
    for (size_t i = 0; i < va.size(); ++i) differ += va[i] != vb[i];  // exact comparison on purpose
    EXPECT_EQ(differ, 0u) << k << " differs for " << differ << " atoms";
  }
  EXPECT_EQ(ca.reals.at("meta/time"), cb.reals.at("meta/time"));
}

// Straight 200 steps vs 100 + restart + 100 in `dir`, under `launcher` (empty or an mpirun prefix), with
// extra command-line `opts` (e.g. the mesh backend) and `extra` input lines before the run.
void restart_matches(const std::string& dir, const std::string& neigh, const std::string& launcher = "",
                     const std::string& opts = "", int cells = 4, const std::string& extra = "") {
  std::ofstream(dir + "/in.md") << input(neigh, extra, cells);
  const std::string exe = launcher + "'" + WAFERMD_EXE + "' ";
  const auto a = run_shell(
      dir, exe + "run in.md --var n 200 --set output.checkpoint_every=100 --output straight" + opts);
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(
      run_shell(dir, exe + "run in.md --var n 100 --set output.checkpoint_every=100 --output first" + opts)
          .status,
      0);
  EXPECT_EQ(load(dir + "/first/checkpoint.h5").ints.at("meta/step")[0], 100);
  const auto b = run_shell(dir, exe +
                                    "run in.md --var n 100 --set output.checkpoint_every=100 --output first "
                                    "--restart first/checkpoint.h5" +
                                    opts);
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_NE(b.out.find("Restarting from first/checkpoint.h5 at step 100"), std::string::npos) << b.out;
  expect_same_atoms(dir + "/straight/checkpoint.h5", dir + "/first/checkpoint.h5");
}

TEST(Restart, BitIdenticalWithRebuildsDecidedEachStep) {
  restart_matches(wmd::test::scratch_dir("restart_each"), kEveryStep);
}

TEST(Restart, BitIdenticalWithTheCheckpointBetweenNeighbourRebuilds) {
  // Rebuilds at multiples of 7: the checkpoint at step 100 falls two steps after one.
  const std::string dir = wmd::test::scratch_dir("restart_between");
  restart_matches(dir, kEverySeven);
  EXPECT_EQ(load(dir + "/first/checkpoint.h5").reals.at("backend/ago")[0], 4.0);  // step 200 = 196 + 4
}

TEST(Restart, BitIdenticalOnTwoRanks) {
  restart_matches(wmd::test::scratch_dir("restart_2ranks"), kEverySeven,
                  "mpirun --allow-run-as-root --oversubscribe -np 2 ");
}

nlohmann::json report(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// The mesh backend in both precisions: the PE assignment, window radius and rebuild state come back, so the
// restarted run scans the same windows, swaps the same atoms and continues report.json's fabric counters.
TEST(Restart, MeshBitIdenticalInBothPrecisions) {
  for (const char* prec : {"fp32", "fp64"}) {
    for (const auto& [tag, neigh] : {std::pair{"each", kEveryStep}, std::pair{"between", kEverySeven}}) {
      SCOPED_TRACE(std::string(prec) + " " + tag);
      const std::string dir = wmd::test::scratch_dir(std::string("restart_mesh_") + prec + "_" + tag);
      restart_matches(dir, neigh, "", std::string(" --backend mesh --set mesh.precision=") + prec, 5);
      const auto c = load(dir + "/first/checkpoint.h5");
      EXPECT_EQ(c.texts.at("meta/backend"), "mesh");
      if (neigh == kEverySeven) {
        EXPECT_EQ(c.reals.at("backend/ago")[0], 4.0);  // step 200 = 196 + 4
      }
      const auto a = report(dir + "/straight/report.json").at("fabric");
      const auto b = report(dir + "/first/report.json").at("fabric");
      EXPECT_EQ(a, b) << a.dump() << "\n" << b.dump();
      // Global rebuilds (the vote) or per-PE rescans (the local trigger, where the wafer prices it lower).
      EXPECT_GT(a.at("rebuilds").get<int>() + a.at("rescan_steps").get<int>(), 1);
      EXPECT_GT(a.at("swaps").get<int>(), 0);  // the swaps after the restart act on the restored assignment
    }
  }
}

// A 115 eV knock-on atom outruns the swaps: the mesh remaps and grows b before and after the checkpoint; the
// restarted run continues on the saved assignment and radius.
TEST(Restart, MeshBitIdenticalThroughRemaps) {
  const std::string dir = wmd::test::scratch_dir("restart_mesh_remap");
  restart_matches(dir, kEveryStep, "", " --backend mesh", 5,
                  "group pka id 1\nvelocity pka set 150 100 50\ntimestep 0.0005\n");
  const auto a = report(dir + "/straight/report.json").at("fabric");
  EXPECT_EQ(a, report(dir + "/first/report.json").at("fabric"));
  EXPECT_GT(a.at("remaps").get<int>(), 0);
  // b is 9 for this system without the knock-on (Restart.MeshBitIdenticalInBothPrecisions).
  EXPECT_GT(a.at("window_b").get<int>(), 9);
}

// A checkpoint from the other backend, or from the other mesh precision, is refused before any output
// (the backend is checked by name, the precision through the physics hash).
TEST(Restart, MeshRefusesCheckpointsOfAnotherBackendOrPrecision) {
  const std::string dir = wmd::test::scratch_dir("restart_mesh_mismatch");
  std::ofstream(dir + "/in.md") << input(kEverySeven, "", 5);
  ASSERT_EQ(run_wafermd_in(dir, "run in.md --var n 10 --set output.checkpoint_every=10 --output cl").status,
            0);
  ASSERT_EQ(run_wafermd_in(dir,
                           "run in.md --backend mesh --var n 10 --set output.checkpoint_every=10 "
                           "--output me")
                .status,
            0);
  auto r = run_wafermd_in(dir, "run in.md --backend mesh --var n 10 --output a --restart cl/checkpoint.h5");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("written by the cluster backend; this run uses mesh"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/a"));
  r = run_wafermd_in(dir, "run in.md --var n 10 --output b --restart me/checkpoint.h5");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("written by the mesh backend; this run uses cluster"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/b"));
  r = run_wafermd_in(dir,
                     "run in.md --backend mesh --set mesh.precision=fp64 --var n 10 --output c "
                     "--restart me/checkpoint.h5");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("does not match this input"), std::string::npos) << r.err;  // precision is hashed
  EXPECT_FALSE(fs::exists(dir + "/c"));
}

TEST(Restart, KilledWhileWritingACheckpointLeavesThePreviousOneLoadable) {
  const std::string dir = wmd::test::scratch_dir("restart_killed");
  std::ofstream(dir + "/in.md") << input(kEverySeven);
  // The second checkpoint (step 100) is SIGKILLed halfway through its temporary file.
  const auto k = run_shell(dir, std::string("WAFERMD_FAULT_CHECKPOINT=kill:2 '") + WAFERMD_EXE +
                                    "' run in.md --var n 200 --set output.checkpoint_every=50 --output out");
  EXPECT_EQ(k.status, -SIGKILL) << k.err;
  EXPECT_TRUE(fs::exists(dir + "/out/checkpoint.h5.tmp"));
  ASSERT_EQ(load(dir + "/out/checkpoint.h5").ints.at("meta/step")[0], 50);
  // It continues exactly: 50 + restart + 150 equals 200 straight.
  const auto r = run_wafermd_in(dir,
                                "run in.md --var n 150 --set output.checkpoint_every=50 --output out "
                                "--restart out/checkpoint.h5");
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(
      run_wafermd_in(dir, "run in.md --var n 200 --set output.checkpoint_every=50 --output straight").status,
      0);
  expect_same_atoms(dir + "/straight/checkpoint.h5", dir + "/out/checkpoint.h5");
}

TEST(Restart, MismatchedCheckpointsExitTwoWithAClearMessage) {
  const std::string dir = wmd::test::scratch_dir("restart_mismatch");
  std::ofstream(dir + "/in.md") << input(kEverySeven);
  ASSERT_EQ(run_wafermd_in(dir, "run in.md --var n 10 --set output.checkpoint_every=10 --output a").status,
            0);
  std::string other = input(kEverySeven);
  other.replace(other.find("0 4 0 4 0 4"), 11, "0 5 0 4 0 4");  // other atoms
  std::ofstream(dir + "/in.other") << other;
  auto r = run_wafermd_in(dir, "run in.other --var n 10 --output b --restart a/checkpoint.h5");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("does not match this input"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/b")) << "nothing may be written";
  std::string pot = input(kEverySeven);
  pot.replace(pot.find("Cu_u3.eam"), 9, "Ni_u3.eam");  // another potential
  std::ofstream(dir + "/in.pot") << pot;
  r = run_wafermd_in(dir, "run in.pot --var n 10 --output c --restart a/checkpoint.h5");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("does not match this input"), std::string::npos) << r.err;
  // Run length, output and velocity lines do not matter.
  std::string cosmetic = input(kEverySeven, "thermo 5\ndump d all custom 5 x.dump id x\n");
  cosmetic.replace(cosmetic.find("create 600 87287"), 16, "create 300 11111");
  std::ofstream(dir + "/in.cosmetic") << cosmetic;
  r = run_wafermd_in(dir, "run in.cosmetic --var n 3 --output d --restart a/checkpoint.h5");
  EXPECT_EQ(r.status, 0) << r.err;
  r = run_wafermd_in(dir, "run in.md --var n 3 --output e --restart missing.h5");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  std::ofstream(dir + "/junk.h5") << "not hdf5";
  r = run_wafermd_in(dir, "run in.md --var n 3 --output e --restart junk.h5");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("not a readable HDF5 checkpoint"), std::string::npos) << r.err;
}

// Starts `wafermd ARGS` in `dir` (stdout.txt, stderr.txt), waits until stdout has shown `marker` and then a
// thermo header ("Step ") after it, sends SIGTERM and returns the exit status (−1 if it did not exit
// normally).
int run_and_interrupt(const std::string& dir, const std::vector<std::string>& wafermd_args,
                      const std::string& marker) {
  const std::string exe = WAFERMD_EXE;
  std::vector<std::string> args = {exe};
  args.insert(args.end(), wafermd_args.begin(), wafermd_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, (dir + "/stdout.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, (dir + "/stderr.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const auto cwd = fs::current_path();
  fs::current_path(dir);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  fs::current_path(cwd);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  auto shown = [&] {
    const std::string out = wmd::test::slurp(dir + "/stdout.txt");
    const size_t m = out.find(marker);
    return m != std::string::npos && out.find("Step ", m) != std::string::npos;
  };
  for (int i = 0; i < 1500 && !shown(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  kill(pid, SIGTERM);
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(Restart, SigtermFinishesTheStepWritesACheckpointAndExitsThree) {
  const std::string dir = wmd::test::scratch_dir("restart_sigterm");
  std::ofstream(dir + "/in.md") << input(kEverySeven);
  EXPECT_EQ(run_and_interrupt(dir, {"run", "in.md", "--var", "n", "10000000", "--output", "out"}, ""), 3);
  const std::string err = wmd::test::slurp(dir + "/stderr.txt");
  EXPECT_NE(err.find("interrupted by SIGTERM after step"), std::string::npos) << err;
  const auto c = load(dir + "/out/checkpoint.h5");
  EXPECT_GT(c.ints.at("meta/step")[0], 0);
  // And it continues from there.
  const auto r = run_wafermd_in(dir, "run in.md --var n 5 --output out --restart out/checkpoint.h5");
  EXPECT_EQ(r.status, 0) << r.err;
}

// A cascade interrupted in its second run (after a thermalisation run) continues from the checkpoint to the
// same end as the uninterrupted run, to the bit: the first run is skipped, the reference lattice, defect
// samples and PKA come from the checkpoint, and the Langevin border forces and dt/reset timestep the
// interrupted run carried into its next step are restored after the set-up.
TEST(Restart, InterruptedCascadeContinuesBitIdentically) {
  const std::string dir = wmd::test::scratch_dir("restart_cascade");
  std::ofstream(dir + "/in.md")
      << "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 5 0 5 0 5\n"
         "create_box 1 box\ncreate_atoms 1 box\npair_style eam/alloy\n"
         "pair_coeff * * Cu_mishin1.eam.alloy Cu\nneighbor 1.0 bin\n"
         "neigh_modify every 1 delay 0 check yes\nvelocity all create 600 4928 loop geom\nfix 1 all nve\n"
         "timestep 0.002\nthermo 50\nrun 50\nreset_timestep 0 time 0\ndefects every 10\n"
         "cascade near 9 9 9 energy 200 random 3 time 20 border 2.5 element Cu\n"
         "fix b cascade_border langevin 300 300 0.1 77\n"
         "fix dt all dt/reset 1 1.0e-6 0.004 0.1 emax 20 units box\n"
         "thermo_style custom step time dt temp pe etotal vacancies interstitials\nthermo 50\n"
         "run 100000000\n";
  const auto straight = run_wafermd_in(dir, "run in.md --output straight");
  ASSERT_EQ(straight.status, 0) << straight.err;
  ASSERT_EQ(run_and_interrupt(dir, {"run", "in.md", "--output", "cut"}, "Cascade: PKA"), 3)
      << wmd::test::slurp(dir + "/stderr.txt");
  EXPECT_EQ(load(dir + "/cut/checkpoint.h5").ints.at("meta/run_index")[0], 2);
  const auto rest = run_wafermd_in(dir, "run in.md --output cut --restart cut/checkpoint.h5");
  ASSERT_EQ(rest.status, 0) << rest.err;
  EXPECT_NE(rest.out.find("Restart: skipping run 1 of the input"), std::string::npos) << rest.out;
  auto last_line = [](const std::string& text) {
    const size_t e = text.find_last_not_of('\n');
    return text.substr(text.rfind('\n', e) + 1, e - text.rfind('\n', e));
  };
  EXPECT_EQ(last_line(wmd::test::slurp(dir + "/cut/thermo.csv")),
            last_line(wmd::test::slurp(dir + "/straight/thermo.csv")));
  EXPECT_EQ(last_line(wmd::test::slurp(dir + "/cut/defects.csv")),
            last_line(wmd::test::slurp(dir + "/straight/defects.csv")));
  const auto a = nlohmann::json::parse(wmd::test::slurp(dir + "/straight/report.json"))["cascade"];
  const auto b = nlohmann::json::parse(wmd::test::slurp(dir + "/cut/report.json"))["cascade"];
  EXPECT_EQ(a, b);
  EXPECT_GT(a.at("peak_defects").get<int>(), 0);
}

}  // namespace
