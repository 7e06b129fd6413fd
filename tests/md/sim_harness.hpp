// Test helper: runs LAMMPS-script text through a Simulation in process, so tests can inspect the state.
#pragma once
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "io/lammps_script.hpp"
#include "io/output_files.hpp"
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
  /// The same with run settings (backend, precision, deterministic, ...).
  ScriptRun(const std::string& script, const std::string& dir, const io::RunSettings& settings,
            bool dry_run = false) {
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/in.test";
    std::ofstream(path) << script;
    sim = std::make_unique<md::Simulation>(log, settings, dry_run, nullptr);
    sim->attach_variables(vars);
    const auto cwd = std::filesystem::current_path();
    std::filesystem::current_path(dir);
    try {
      io::LammpsScript in("in.test", vars, SourcePos{"<test>", 0});
      io::Command c;
      while (in.next(c)) sim->execute(c);
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

}  // namespace wmd::test
