// The layering of docs/architecture.md, checked on the source tree: every `#include "folder/..."` of a source
// file must point into its own folder or into a folder of a lower layer. A back-edge (a lower folder
// including a higher one) or an include between two rooms of one layer fails, and so does any cycle; so the
// layout stays true as the code grows. The table below is the one docs/architecture.md shows. Inside md/mesh
// the files form rooms of their own, with levels (room_tables below, docs/architecture.md "The mesh
// backend's rooms"), judged by the same rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

/// Folder → layer (lower numbers lie below). A folder may include its own files and any folder of a lower
/// layer; the longest matching prefix decides a file's folder.
const std::vector<std::pair<std::string, int>>& layer_table() {
  static const std::vector<std::pair<std::string, int>> t = {
      {"base", 0},                        // units, errors
      {"io", 1},                          // readers and writers
      {"potentials", 2},  {"fabric", 2},  // EAM tables; the wafer fabric
      {"md/core", 3},                     // the system, Comm
      {"md/force", 4},                    // Backend contract, EAM per atom
      {"md/cluster", 5},  {"md/mesh", 5}, {"md/minimize", 5}, {"md/cascade", 5},  // engines
      {"md/styles", 6},                                                           // fixes and computes
      {"md/run", 7},       // Simulation, run loop, outputs
      {"md/commands", 8},  // LAMMPS commands
      {"md/programs", 9},  // wafermd run/model/scaling
  };
  return t;
}

/// Rooms inside a folder, by file-name prefix (the longest matching prefix decides): a file may include its
/// own room's files and those of rooms on a lower level, never a room of its own level or above.
struct Room {
  std::string prefix, name;
  int level;
};

const std::vector<std::pair<std::string, std::vector<Room>>>& room_tables() {
  // clang-format off
  static const std::vector<std::pair<std::string, std::vector<Room>>> t = {
      {"md/mesh", {
          // level 0: what the rooms above share
          {"md/mesh/mapping", "mapping", 0},                // bisection mapping, window radius
          {"md/mesh/lattice_patches", "mapping", 0},        //   and the lattice-site (patch) mapping
          {"md/mesh/pe_kernels", "pe kernels", 0},          // the PEs' EAM arithmetic (fp32 and fp64 forms)
          {"md/mesh/pe_tables32", "pe kernels", 0},         //   and its fp32 tables
          {"md/mesh/pe_memory", "pe memory", 0},            // what a PE keeps between steps
          {"md/mesh/band_transport", "band transport", 0},  // halos, reductions, gathers between row bands
          {"md/mesh/cycle_account", "cycle account", 0},    // the events every part reports; step prices
          // level 1: one concern each
          {"md/mesh/mapping_upkeep", "mapping upkeep", 1},    // wraps, swaps, remaps
          {"md/mesh/rebuild_trigger", "rebuild trigger", 1},  // the vote or the local criterion
          {"md/mesh/window_scan", "window scan", 1},          // window scans and their audit
          {"md/mesh/pe_passes", "pe passes", 1},              // fp32 and fp64 force passes
          {"md/mesh/mesh_checkpoint", "checkpoint", 1},       // named checkpoint fields
          {"md/mesh/cycle_timeline", "cycle timeline", 1},    // the account over simulated time
          // level 2: set-up, compute and validation, running the rooms in a step's order
          {"md/mesh/mesh_backend", "backend", 2},
      }},
  };
  // clang-format on
  return t;
}

/// The room of a file in `table` (null when no prefix matches).
const Room* room_of(const std::vector<Room>& table, const std::string& path) {
  const Room* best = nullptr;
  for (const Room& r : table)
    if (path.rfind(r.prefix, 0) == 0 && (!best || r.prefix.size() > best->prefix.size())) best = &r;
  return best;
}

/// The room table of a folder (null when it has none).
const std::vector<Room>* rooms_in(const std::string& folder) {
  for (const auto& [f, table] : room_tables())
    if (f == folder) return &table;
  return nullptr;
}

/// The folder of the table a path lies in ("" when none).
std::string folder_of(const std::string& path) {
  std::string best;
  for (const auto& [folder, layer] : layer_table()) {
    (void)layer;
    if ((path == folder || path.rfind(folder + "/", 0) == 0) && folder.size() > best.size()) best = folder;
  }
  return best;
}

int layer_of(const std::string& folder) {
  for (const auto& [f, layer] : layer_table())
    if (f == folder) return layer;
  return -1;
}

/// A source file and the project headers it includes (paths relative to the repository root).
struct SourceFile {
  std::string path;
  std::vector<std::string> includes;
};

/// Every violation of the layering among `files`, one line each ("a.cpp includes x/y.hpp: ...").
std::vector<std::string> layering_violations(const std::vector<SourceFile>& files) {
  std::vector<std::string> out;
  std::map<std::string, std::set<std::string>> edges;  // folder → folders it includes
  for (const auto& f : files) {
    const std::string from = folder_of(f.path);
    if (from.empty()) {
      out.push_back(f.path +
                    ": its folder is not in the layer table (add it to docs/architecture.md and here)");
      continue;
    }
    const std::vector<Room>* rooms = rooms_in(from);
    const Room* room = rooms ? room_of(*rooms, f.path) : nullptr;
    if (rooms && !room)
      out.push_back(f.path + ": its file is not in the room table of " + from +
                    " (add it to docs/architecture.md and here)");
    for (const auto& inc : f.includes) {
      const std::string to = folder_of(inc);
      if (to == from && room) {  // between rooms of one folder
        const Room* target = room_of(*rooms, inc);
        if (!target)
          out.push_back(f.path + " includes " + inc + ": a file outside the room table of " + from);
        else if (target->name != room->name && target->level >= room->level)
          out.push_back(f.path + " includes " + inc + ": room " + room->name + " (level " +
                        std::to_string(room->level) + ") may use only rooms of lower levels, not " +
                        target->name + " (level " + std::to_string(target->level) + ")");
      }
      if (to.empty() || to == from) continue;  // not a project folder (e.g. a generated header), or its own
      edges[from].insert(to);
      if (layer_of(to) >= layer_of(from))
        out.push_back(f.path + " includes " + inc + ": " + from + " (layer " +
                      std::to_string(layer_of(from)) + ") may use only lower layers, not " + to + " (layer " +
                      std::to_string(layer_of(to)) + ")");
    }
  }
  // Cycles between folders (implied by the layer rule, checked on their own so the message names them).
  std::map<std::string, int> state;  // 0 unseen, 1 on the path, 2 done
  std::vector<std::string> path;
  std::function<void(const std::string&)> visit = [&](const std::string& n) {
    state[n] = 1;
    path.push_back(n);
    for (const auto& m : edges[n]) {
      if (state[m] == 1) {
        std::string cycle;
        for (auto it = std::find(path.begin(), path.end(), m); it != path.end(); ++it) cycle += *it + " → ";
        out.push_back("include cycle: " + cycle + m);
      } else if (state[m] == 0) {
        visit(m);
      }
    }
    path.pop_back();
    state[n] = 2;
  };
  for (const auto& [n, targets] : edges) {
    (void)targets;
    if (state[n] == 0) visit(n);
  }
  return out;
}

/// The project's C++ sources under the layered folders, with their quoted includes.
std::vector<SourceFile> scan_tree(const fs::path& root) {
  std::vector<SourceFile> files;
  const std::regex include(R"(^\s*#\s*include\s*"([^"]+)\")");
  for (const char* top : {"base", "io", "potentials", "fabric", "md"}) {
    for (const auto& e : fs::recursive_directory_iterator(root / top)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".in")) continue;
      SourceFile f;
      f.path = fs::relative(e.path(), root).generic_string();
      std::ifstream in(e.path());
      std::smatch m;
      for (std::string line; std::getline(in, line);)
        if (std::regex_search(line, m, include)) f.includes.push_back(m[1]);
      files.push_back(std::move(f));
    }
  }
  return files;
}

TEST(Architecture, IncludeLayering) {
  const auto files = scan_tree(WAFERMD_SOURCE_DIR);
  ASSERT_GT(files.size(), 100u) << "the scan found too few sources under " << WAFERMD_SOURCE_DIR;
  std::string report;
  for (const auto& v : layering_violations(files)) report += "\n  " + v;
  EXPECT_TRUE(report.empty()) << "layering violations (docs/architecture.md):" << report;
}

TEST(Architecture, BackEdgeAndCycleAreReported) {
  // A core file reaching up into the run loop: both a back-edge and, with run's own include of core, a cycle.
  const std::vector<SourceFile> files = {
      {"md/run/simulation.hpp", {"md/core/state.hpp"}},
      {"md/core/state.hpp", {"md/run/simulation.hpp"}},
  };
  const auto v = layering_violations(files);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NE(v[0].find("md/core (layer 3) may use only lower layers, not md/run"), std::string::npos) << v[0];
  EXPECT_NE(v[1].find("include cycle"), std::string::npos) << v[1];
}

TEST(Architecture, RoomsOfOneLayerDoNotIncludeEachOther) {
  const auto v = layering_violations({{"md/cluster/cluster_backend.cpp", {"md/mesh/mapping.hpp"}}});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("not md/mesh"), std::string::npos) << v[0];
}

TEST(Architecture, MeshRoomsIncludeOnlyLowerLevels) {
  // Two rooms of one level (the fp32 passes reaching into the rebuild trigger), and a room below reaching up.
  const auto v = layering_violations({{"md/mesh/pe_passes32.cpp", {"md/mesh/rebuild_trigger.hpp"}},
                                      {"md/mesh/band_transport.cpp", {"md/mesh/mesh_backend.hpp"}}});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NE(v[0].find("room pe passes (level 1) may use only rooms of lower levels, not rebuild trigger"),
            std::string::npos)
      << v[0];
  EXPECT_NE(v[1].find("not backend (level 2)"), std::string::npos) << v[1];
  // Downward and within a room: fine. A file in no room: reported.
  EXPECT_TRUE(
      layering_violations({{"md/mesh/mesh_backend.cpp",
                            {"md/mesh/window_scan.hpp", "md/mesh/cycle_account.hpp", "md/core/atoms.hpp"}},
                           {"md/mesh/pe_passes64.cpp", {"md/mesh/pe_passes.hpp", "md/mesh/pe_kernels.hpp"}},
                           {"md/mesh/mapping.hpp", {"md/mesh/mapping_pairs.hpp"}}})
          .empty());
  const auto u = layering_violations({{"md/mesh/new_thing.cpp", {}}});
  ASSERT_EQ(u.size(), 1u);
  EXPECT_NE(u[0].find("not in the room table of md/mesh"), std::string::npos) << u[0];
}

TEST(Architecture, DownwardIncludesAndUnknownFoldersAreJudged) {
  EXPECT_TRUE(layering_violations(
                  {{"md/commands/run.cpp",
                    {"md/run/simulation.hpp", "io/command.hpp", "fabric/grid.hpp", "base/error.hpp"}}})
                  .empty());
  const auto v = layering_violations({{"md/newroom/x.cpp", {"md/core/state.hpp"}}});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("not in the layer table"), std::string::npos) << v[0];
}

}  // namespace
