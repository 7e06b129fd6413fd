// `wafermd scaling INPUT [--ranks 1,2,4] [--steps N] [--repeat R] [--output DIR] [--lammps]`: a
// strong-scaling study of the cluster backend. Runs `mpirun -np k wafermd run INPUT` per rank count, reads
// each report.json and writes scaling.csv and scaling.png (plot_scaling.py); with --lammps, LAMMPS (`lmp`)
// runs the same script at each rank count right after, into lammps.csv and the same plot. The plot carries
// the GPU-cluster projection of preset --gpu (gpu_projection.yaml), whose best point and band go to
// projection.json and the console. The scripts and tables are validation/scaling/'s, which the build copies
// beside the program (share/wafermd/scaling) and `cmake --install` puts in <prefix>/share/wafermd/scaling;
// the interpreter is `python3` from PATH. WAFERMD_SCALING_DIR and WAFERMD_PYTHON override them. See
// docs/scaling.md.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace wmd::md {

struct ScalingOptions {
  std::string input;
  std::string ranks = "auto";    // comma-separated rank counts, or "auto": default_ranks of this machine
  int64_t steps = -1;            // override of every `run N` (< 0: the input's own counts)
  std::string output_dir;        // default out/scaling/<input name>/
  std::string exe;               // this program (for mpirun); default /proc/self/exe
  int repeat = 1;                // runs per rank count (round after round); the CSV gives the median
  bool lammps = false;           // also run LAMMPS on the (LAMMPS-format) input, interleaved with ours
  std::string lmp = "lmp";       // the LAMMPS executable (a name on PATH or a path)
  std::string gpu = "frontier";  // GPU-cluster projection preset (gpu_projection.yaml)
  std::string cpu = "quartz";    // CPU-cluster projection preset (cpu_projection.yaml)
  std::string wafer;             // `wafermd model --wafer` for the wafer prediction (empty: the input's)
  std::vector<std::string>
      vars;  // `--var NAME VALUE` pairs, passed to every run (and lmp's `-var`) and model
};

/// The presets that `file` (gpu_projection.yaml, cpu_projection.yaml) in `scaling_dir` (validation/scaling/
/// or a copy) defines, in file order.
std::vector<std::string> projection_presets(const std::string& scaling_dir, const std::string& file);
inline std::vector<std::string> gpu_presets(const std::string& scaling_dir) {
  return projection_presets(scaling_dir, "gpu_projection.yaml");
}

/// Where the plotter and the GPU tables are: $WAFERMD_SCALING_DIR, else share/wafermd/scaling beside the
/// executable `exe` (the build tree) or in the directory above it (an installed bin/wafermd). An InputError
/// naming the places when none holds them.
std::string find_scaling_dir(const std::string& exe);

/// The Python interpreter the plot runs under: $WAFERMD_PYTHON, else `python3` (looked up on PATH).
std::string python_interpreter();

/// The rank counts a study runs by default on a machine of `cores` logical CPUs: 1 and the powers of two up
/// to `cores` ("1,2" on two), so that no default run shares a CPU between ranks.
std::string default_ranks(unsigned cores);

/// Parses "1,2,4" into rank counts (each ≥ 1, no repeats); bad text is an InputError.
std::vector<int> parse_rank_list(const std::string& text);

/// Runs the study; returns 0, 2 (bad input) or 3 (a run or the plot failed; the CSV holds the runs that
/// finished). Progress and the table go to `out`, failures to stderr.
int run_scaling_command(const ScalingOptions& opt, std::ostream& out);

}  // namespace wmd::md
