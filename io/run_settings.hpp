// Settings that are not LAMMPS commands: backend choice, precision, native outputs. Set from YAML keys or
// `--set KEY=VALUE` (the YAML path), for both input kinds.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace wmd::io {

struct RunSettings {
  std::string backend = "cluster";  // cluster | mesh
  bool deterministic = false;
  std::string mesh_precision = "fp32";     // fp32 | fp64
  std::string cluster_precision = "fp64";  // fp64 | fp32 | mixed
  std::string cluster_grid;                // "AxBxC" MPI sub-domain grid; empty: chosen from the box shape
  std::string simd;                        // SIMD target of the kernels; empty: WAFERMD_SIMD, else auto
  std::string mesh_wafer = "wse2";         // wse2 | wse3 | FILE.yaml
  std::string mesh_mapping = "lattice";    // lattice | bisection | sites
  bool mesh_audit = false;  // brute-force check of every PE's list after each step's upkeep (validation)
  int mesh_timeline_every = 100;        // steps between the mesh's cycle-timeline samples (0: none)
  std::optional<double> neighbor_skin;  // overrides the input's neighbor skin
  std::optional<int> thermo_every;      // overrides the input's thermo interval
  std::string output_dir;               // default out/<input name>/
  int trajectory_every = 0;             // H5MD interval (0: none)
  std::vector<std::string> trajectory_fields;
  int checkpoint_every = 0;
  std::optional<double> memory_gb;  // limits.memory_gb: the memory budget (base/memory_budget.hpp)
};

/// Keys `apply_setting` accepts, for messages and docs.
const std::vector<std::string>& setting_keys();
/// Applies one KEY=VALUE; unknown keys or bad values are InputErrors at `pos`. Returns false if the key is
/// not a run setting (the caller may know it, e.g. a YAML path).
bool apply_setting(RunSettings& s, const std::string& key, const std::string& value, const SourcePos& pos);

}  // namespace wmd::io
