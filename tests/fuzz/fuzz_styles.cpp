// Fuzzes the styles' and commands' arguments: the input is a LAMMPS script that runs, after a fixed prelude
// (256 fcc Cu atoms with Cu_u3.eam, a mass, a region and groups), through wafermd's own dry run, as
// `wafermd run` does before anything is written: a Simulation with dry_run set, fed by the script reader, so
// every fix/compute/region/dump constructor and keyword parser, and the set-up checks at each `run` and
// `minimize`, see the fuzzed words with a real system behind them. The dry run runs no dynamics, so `run N`
// costs nothing whatever N; the memory budget (limits.memory_gb) is small so that a replicate or
// create_atoms the budget refuses is refused at once instead of building millions of atoms. A refusal
// (InputError, RunError) is the expected answer; a crash, a sanitizer report, a hang or an allocation past
// libFuzzer's RSS limit is a finding. The commands go through the program's own loop
// (md/run/script_replay.hpp), without what concerns ranks and signals (Lockstep, the interrupt check), with
// at most 64 jumps instead of 10000 and 2000 commands.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "base/memory_budget.hpp"
#include "harness.hpp"
#include "io/lammps_script.hpp"
#include "io/output_files.hpp"
#include "io/run_settings.hpp"
#include "md/core/resources.hpp"
#include "md/run/script_replay.hpp"
#include "md/run/simulation.hpp"
#include "scratch_file.hpp"

namespace {

// What every input starts from: a small periodic Cu crystal, ready to run, with a group and a region.
const char kPrelude[] =
    "units metal\n"
    "atom_style atomic\n"
    "boundary p p p\n"
    "lattice fcc 3.615\n"
    "region box block 0 4 0 4 0 4\n"
    "create_box 1 box\n"
    "create_atoms 1 box\n"
    "mass 1 63.546\n"
    "pair_style eam\n"
    "pair_coeff 1 1 Cu_u3.eam\n"
    "neighbor 1.0 bin\n"
    "region low block INF INF INF INF INF 1 units lattice\n"
    "group low region low\n"
    "group rest subtract all low\n"
    "velocity all create 300 4242 loop geom\n"
    "timestep 0.002\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;  // a script of styles' arguments; longer inputs only slow the search
  const std::string text = kPrelude + wmd::fuzz::as_text(data, size);
  const std::string path =
      wmd::fuzz::scratch_input(reinterpret_cast<const uint8_t*>(text.data()), text.size(), "styles.in");
  // `shell cd` moves the dry run into an existing directory; every input starts where the first did.
  static const std::filesystem::path start_dir = std::filesystem::current_path();
  wmd::io::RunSettings settings;
  settings.memory_gb = 0.25;
  wmd::memory::set_limit_gb(0.25);
  wmd::fuzz::guarded([&] {
    wmd::io::Log quiet;
    quiet.mute();
    wmd::io::Variables vars;  // outlives the simulation that refers to it
    wmd::md::Simulation sim(quiet, settings, true, nullptr);
    sim.attach_variables(vars);
    wmd::io::LammpsScript script(path, vars, wmd::SourcePos{"<fuzz>", 0});
    script.limit_jumps(64);
    wmd::md::replay_script(script, sim, {}, 2000);
    sim.vars = nullptr;
  });
  std::error_code ec;
  std::filesystem::current_path(start_dir, ec);
  // With a budget of 0.25 GB, a process past 3 GB allocated what no check charged (libFuzzer's RSS limit
  // catches it in a fuzzing run; this catches it in the replay, where nothing else would).
  if (wmd::md::peak_rss_mb() > 3072.0) __builtin_trap();
  return 0;
}
