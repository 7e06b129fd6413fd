// `wafermd scaling INPUT --ranks 1,2,4 [--steps N] [--repeat R] [--output DIR] [--lammps]`: a strong-scaling
// study of the cluster backend. Runs `mpirun -np k wafermd run INPUT` per rank count, reads each report.json
// and writes scaling.csv and scaling.png (validation/scaling/plot_scaling.py); with --lammps, LAMMPS (`lmp`)
// runs the same script at each rank count right after, into lammps.csv and the same plot. The plot carries
// the GPU-cluster projection of preset --gpu (validation/scaling/gpu_projection.yaml), whose best point and
// band go to projection.json and the console. See docs/scaling.md.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace wmd::md {

struct ScalingOptions {
  std::string input;
  std::string ranks = "1,2,4";   // comma-separated rank counts
  int64_t steps = -1;            // override of every `run N` (< 0: the input's own counts)
  std::string output_dir;        // default out/scaling/<input name>/
  std::string exe;               // this program (for mpirun); default /proc/self/exe
  int repeat = 1;                // runs per rank count (round after round); the CSV gives the median
  bool lammps = false;           // also run LAMMPS on the (LAMMPS-format) input, interleaved with ours
  std::string lmp = "lmp";       // the LAMMPS executable (a name on PATH or a path)
  std::string gpu = "frontier";  // GPU-cluster projection preset (validation/scaling/gpu_projection.yaml)
};

/// The GPU presets that validation/scaling/gpu_projection.yaml under `source_dir` defines, in file order.
std::vector<std::string> gpu_presets(const std::string& source_dir);

/// Parses "1,2,4" into rank counts (each ≥ 1, no repeats); bad text is an InputError.
std::vector<int> parse_rank_list(const std::string& text);

/// Runs the study; returns 0, 2 (bad input) or 3 (a run or the plot failed; the CSV holds the runs that
/// finished). Progress and the table go to `out`, failures to stderr.
int run_scaling_command(const ScalingOptions& opt, std::ostream& out);

}  // namespace wmd::md
