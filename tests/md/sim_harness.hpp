// Test helper: runs LAMMPS-script text through a Simulation in process, so tests can inspect the state.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>

#include "base/error.hpp"
#include "io/lammps_script.hpp"
#include "io/output_files.hpp"
#include "md/run/script_replay.hpp"
#include "md/run/simulation.hpp"

namespace wmd::test {

/// A simulation fed from script text; dumps and data files land in a scratch directory.
struct ScriptRun {
  io::Log log;
  io::Variables vars;
  std::unique_ptr<md::Simulation> sim;

  /// Executes `script` (LAMMPS syntax) in `dir` (created); throws what the simulation throws.
  ScriptRun(const std::string& script, const std::string& dir, bool dry_run = false)
      : ScriptRun(script, dir, io::RunSettings{}, dry_run) {}
  /// The same with run settings (backend, precision, deterministic, ...); `before` sees the simulation
  /// before its first command (a test sets its backend's switches there).
  ScriptRun(const std::string& script, const std::string& dir, const io::RunSettings& settings,
            bool dry_run = false, const std::function<void(md::Simulation&)>& before = nullptr) {
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/in.test";
    std::ofstream(path) << script;
    sim = std::make_unique<md::Simulation>(log, settings, dry_run, nullptr);
    sim->attach_variables(vars);
    if (before) before(*sim);
    const auto cwd = std::filesystem::current_path();
    std::filesystem::current_path(dir);
    try {
      io::LammpsScript in("in.test", vars, SourcePos{"<test>", 0});
      md::replay_script(in, *sim);
    } catch (...) {
      std::filesystem::current_path(cwd);
      throw;
    }
    std::filesystem::current_path(cwd);
  }
  const md::State& state() const { return sim->state; }
};

/// A fresh scratch directory under the build tree for one test.
inline std::string scratch_dir(const std::string& name) {
  const std::string d = std::string(WAFERMD_BINARY_DIR) + "/test_scratch/" + name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

/// Runs `/usr/bin/python3 SCRIPT ARGS` in `dir` (Debian's interpreter, which has numpy and matplotlib), its
/// output into dir/out.txt; the exit status (-1 when it did not exit).
inline int python_script(const std::string& dir, const std::string& script, const std::string& args) {
  const std::string cmd = "cd '" + dir + "' && /usr/bin/python3 '" + script + "' " + args + " >out.txt 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/// 256 Cu atoms at 600 K with the Cu_u3 EAM potential: the set-up the style tests add their lines to.
inline const std::string kCuScript =
    "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 4 0 4 0 4\n"
    "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 "
    "Cu_u3.eam\nneighbor 1.0 bin\nvelocity all create 600 4242 loop geom\n"
    "timestep 0.002\n";

/// What a script that must be refused raised: the InputError's text and line.
struct Refusal {
  std::string what;
  int line = 0;
};
/// Runs `script` (the dry run unless `dry_run` is false) in a scratch directory named after `prefix` and the
/// parameterised case (ctest runs the cases in parallel) and returns its InputError; a script that is
/// accepted fails the test and gives an empty Refusal.
inline Refusal refusal_of(const std::string& script, const std::string& prefix, bool dry_run = true) {
  const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const std::string dir = scratch_dir(prefix + "_" + name.substr(name.rfind('/') + 1));
  try {
    ScriptRun r(script, dir, dry_run);
  } catch (const InputError& e) {
    return {e.what(), e.line()};
  }
  ADD_FAILURE() << "accepted:\n" << script;
  return {};
}

}  // namespace wmd::test
