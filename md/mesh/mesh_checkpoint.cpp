#include "md/mesh/mesh_checkpoint.hpp"

#include <fmt/format.h>

#include <type_traits>

#include "base/error.hpp"

namespace wmd::md::mesh {
namespace {

const char* const kPlaneFields[3] = {"lattice_planes.x", "lattice_planes.y", "lattice_planes.z"};

// An axis's planes as [spacing, frame, period, centres...] ([0, 0, 0]: none found).
std::vector<double> plane_array(const AxisPlanes& p) {
  std::vector<double> v = {p.spacing, p.frame, p.period};
  v.insert(v.end(), p.centre.begin(), p.centre.end());
  return v;
}

void read_planes(const NamedArrays& state, LatticePlanes& out) {
  for (int d = 0; d < 3; ++d) {
    const auto it = state.find(kPlaneFields[d]);
    if (it == state.end()) continue;
    const std::vector<double>& v = it->second;
    if (v.size() < 3) throw RunError(fmt::format("checkpoint's '{}' is malformed", kPlaneFields[d]));
    AxisPlanes& p = out.axis[d];
    p.spacing = v[0], p.frame = v[1], p.period = v[2];
    p.centre.assign(v.begin() + 3, v.end());
  }
}

template <class T>
void take(T& field, double v) {
  field = static_cast<std::decay_t<T>>(v);
}

// Layout 1 kept the counters in positional arrays.
void read_layout1_counters(const NamedArrays& state, const std::vector<double>& c, MeshCheckpoint& out) {
  MeshCounters& k = out.counters;
  take(k.steps, c[0]), take(k.forces, c[1]), take(k.rebuilds, c[2]), take(k.step_rebuilds, c[3]);
  take(k.swaps, c[4]), take(k.remaps, c[5]), take(k.checks, c[6]);
  k.remap_cycles = c[7], k.sum_candidates_max = c[8], k.sum_in_cut_max = c[9];
  take(k.max_b, c[10]);
  const auto sr = state.find("style_reductions");
  if (sr != state.end() && sr->second.size() == 2)
    take(k.style_reductions, sr->second[0]), k.style_reduction_cycles = sr->second[1];
  const auto zp = state.find("zbl_pairs");  // absent from checkpoints written before the ZBL term existed
  if (zp != state.end() && zp->second.size() == 1) k.sum_zbl_max = zp->second[0];
  const auto lt = state.find("local_trigger");
  if (lt != state.end() && lt->second.size() == 4)
    take(k.rescan_steps, lt->second[0]), take(k.pe_rescans, lt->second[1]),
        take(k.guard_misses, lt->second[2]), out.local_trigger = lt->second[3] != 0;
}

}  // namespace

NamedArrays checkpoint_arrays(const MeshCheckpoint& c) {
  auto d = [](auto v) { return static_cast<double>(v); };
  NamedArrays out = {{"mesh_state_version", {d(kMeshStateVersion)}},
                     {"grid", {d(c.width), d(c.height), d(c.wrap ? 1 : 0)}},
                     {"pe_atom_id", std::vector<double>(c.pe_atom_id.begin(), c.pe_atom_id.end())},
                     {"window_b", {d(c.window_b)}},
                     {"precision", {d(c.precision)}},
                     {"ago", {d(c.ago)}},
                     {"xhold", c.xhold},
                     {"active", std::vector<double>(c.active.begin(), c.active.end())},
                     {"local_trigger_chosen", {d(c.local_trigger ? 1 : 0)}},
                     {"site_mapping", {d(c.sites ? 1 : 0)}}};
  MeshCounters k = c.counters;
  for_each_counter(k, [&](const char* name, auto& v) { out[name] = {d(v)}; });
  for (int a = 0; a < 3; ++a) out[kPlaneFields[a]] = plane_array(c.planes.axis[a]);
  if (!c.timeline.empty()) out["timeline"] = c.timeline;
  return out;
}

void read_checkpoint(const NamedArrays& state, int precision, MeshCheckpoint& c) {
  auto get = [&](const char* k, size_t n) -> const std::vector<double>& {
    auto it = state.find(k);
    if (it == state.end() || (n > 0 && it->second.size() != n))
      throw RunError(fmt::format("checkpoint lacks the mesh backend's state '{}'", k));
    return it->second;
  };
  const auto version = state.find("mesh_state_version");
  const int layout = version == state.end() ? 1 : static_cast<int>(get("mesh_state_version", 1)[0]);
  if (layout < 1 || layout > kMeshStateVersion)
    throw RunError(fmt::format("checkpoint's mesh state has layout {}; this wafermd reads layouts 1 to {}",
                               layout, kMeshStateVersion));
  const int saved_bits = static_cast<int>(get("precision", 1)[0]);
  // Another precision scans other windows and sums other bits: that run would not be the saved one's.
  if (saved_bits != precision)
    fail_input(SourcePos{"<checkpoint>", 0},
               fmt::format("the checkpoint was written with mesh.precision=fp{}; this run uses fp{}: "
                           "restart with the same precision",
                           saved_bits, precision));
  c.precision = saved_bits;
  const auto& g = get("grid", 3);
  c.width = static_cast<int>(g[0]);
  c.height = static_cast<int>(g[1]);
  c.wrap = g[2] != 0;
  const auto& ids = get("pe_atom_id", 0);
  c.pe_atom_id.assign(ids.begin(), ids.end());
  c.window_b = static_cast<int>(get("window_b", 1)[0]);
  read_planes(state, c.planes);
  const auto mapping_only = state.find("wafermd_mapping_only");
  c.mapping_only = mapping_only != state.end() && mapping_only->second.size() == 6;
  if (c.mapping_only) {
    for (int d = 0; d < 3; ++d)
      c.box_lo[d] = mapping_only->second[d], c.box_hi[d] = mapping_only->second[3 + d];
    return;
  }
  c.ago = static_cast<int>(get("ago", 1)[0]);
  c.xhold = get("xhold", 0);
  const auto act = state.find("active");
  if (act != state.end()) c.active.assign(act->second.begin(), act->second.end());
  if (layout == 1) {
    read_layout1_counters(state, get("counters", 11), c);
    return;
  }
  c.local_trigger = get("local_trigger_chosen", 1)[0] != 0;
  const auto sites = state.find("site_mapping");
  c.sites = sites != state.end() && sites->second.size() == 1 && sites->second[0] != 0;
  for_each_counter(c.counters, [&](const char* name, auto& v) { take(v, get(name, 1)[0]); });
  const auto timeline = state.find("timeline");
  if (timeline != state.end()) c.timeline = timeline->second;
}

}  // namespace wmd::md::mesh
