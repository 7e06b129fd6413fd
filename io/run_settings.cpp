#include "io/run_settings.hpp"

#include <sstream>

#include "base/memory_budget.hpp"
#include "base/simd.hpp"
#include "io/command.hpp"

namespace wmd::io {

const std::vector<std::string>& setting_keys() {
  static const std::vector<std::string> keys = {"backend",
                                                "deterministic",
                                                "mesh.precision",
                                                "cluster.precision",
                                                "cluster.grid",
                                                "simd",
                                                "mesh.wafer",
                                                "mesh.mapping",
                                                "mesh.audit",
                                                "mesh.timeline_every",
                                                "neighbor.skin",
                                                "output.thermo_every",
                                                "output.dir",
                                                "output.trajectory.every",
                                                "output.trajectory.fields",
                                                "output.checkpoint_every",
                                                "limits.memory_gb"};
  return keys;
}

namespace {

std::string pick(const std::string& key, const std::string& v, const std::vector<std::string>& choices,
                 const SourcePos& pos) {
  std::string list;
  for (const auto& c : choices) {
    if (c == v) return v;
    list += (list.empty() ? "" : "|") + c;
  }
  fail_input(pos, key + " must be one of " + list + ", got '" + v + "'");
}

int count(const std::string& key, const std::string& v, const SourcePos& pos) {
  long long n;
  if (!parse_integer(v, n) || n < 0 || n > 2000000000LL) {
    fail_input(pos, key + " must be a whole number >= 0, got '" + v + "'");
  }
  return static_cast<int>(n);
}

}  // namespace

bool apply_setting(RunSettings& s, const std::string& key, const std::string& value, const SourcePos& pos) {
  if (key == "backend") {
    s.backend = pick(key, value, {"cluster", "mesh"}, pos);
  } else if (key == "deterministic") {
    s.deterministic = pick(key, value, {"true", "false", "yes", "no"}, pos) == "true" || value == "yes";
  } else if (key == "mesh.precision") {
    s.mesh_precision = pick(key, value, {"fp32", "fp64"}, pos);
  } else if (key == "cluster.precision") {
    s.cluster_precision = pick(key, value, {"fp64", "fp32", "mixed"}, pos);
  } else if (key == "cluster.grid") {
    // AxBxC with positive integers; the product must equal the MPI rank count (checked when the box exists).
    std::istringstream in(value);
    std::string part;
    int k = 0;
    bool ok = true;
    while (std::getline(in, part, 'x')) {
      long long n;
      ok = ok && k < 3 && parse_integer(part, n) && n >= 1 && n <= 1000000;
      ++k;
    }
    if (!ok || k != 3)
      fail_input(pos, "cluster.grid must be AxBxC (sub-domains along x, y, z), got '" + value + "'");
    s.cluster_grid = value;
  } else if (key == "simd") {
    // A target of this build or auto; whether this CPU runs it is checked when the program starts.
    std::vector<std::string> names = {"auto"};
    for (const std::string& t : simd::compiled_targets()) names.push_back(t);
    s.simd = pick(key, value, names, pos);
  } else if (key == "mesh.wafer") {
    if (value.empty()) fail_input(pos, "mesh.wafer must be wse2, wse3 or a YAML file");
    s.mesh_wafer = value;
  } else if (key == "mesh.audit") {
    s.mesh_audit = pick(key, value, {"true", "false", "yes", "no"}, pos) == "true" || value == "yes";
  } else if (key == "mesh.timeline_every") {
    s.mesh_timeline_every = count(key, value, pos);
  } else if (key == "mesh.mapping") {
    s.mesh_mapping = pick(key, value, {"lattice", "bisection", "sites"}, pos);
  } else if (key == "neighbor.skin") {
    double v;
    if (!parse_double(value, v) || v < 0.0)
      fail_input(pos, "neighbor.skin must be a number >= 0 (Å), got '" + value + "'");
    s.neighbor_skin = v;
  } else if (key == "output.thermo_every") {
    s.thermo_every = count(key, value, pos);
  } else if (key == "output.dir") {
    if (value.empty()) fail_input(pos, "output.dir must not be empty");
    s.output_dir = value;
  } else if (key == "output.trajectory.every") {
    s.trajectory_every = count(key, value, pos);
  } else if (key == "output.trajectory.fields") {
    s.trajectory_fields.clear();
    std::istringstream in(value);
    for (std::string w; std::getline(in, w, ',');) {
      s.trajectory_fields.push_back(
          pick(key, w, {"position", "velocity", "force", "image", "species", "id"}, pos));
    }
  } else if (key == "output.checkpoint_every") {
    s.checkpoint_every = count(key, value, pos);
  } else if (key == "limits.memory_gb") {
    double v;
    if (!parse_double(value, v) || !(v > 0.0) || v > 1e9)
      fail_input(pos, "limits.memory_gb must be a number of GB > 0, got '" + value + "'");
    s.memory_gb = v;
    memory::set_limit_gb(v);
  } else {
    return false;
  }
  return true;
}

}  // namespace wmd::io
