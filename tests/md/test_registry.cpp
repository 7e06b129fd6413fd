// The style registry: every command, fix and compute registers itself from its own file (so the whole-archive
// link keeps them), and lookups of unknown or backend-refused styles fail with the command's line.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "md/run/command_registry.hpp"
#include "md/run/dump_style.hpp"
#include "md/styles/compute.hpp"
#include "md/styles/fix.hpp"
#include "sim_harness.hpp"

namespace wmd::md {
namespace {

bool has(const std::vector<std::string>& names, const std::string& n) {
  return std::find(names.begin(), names.end(), n) != names.end();
}

TEST(Registry, EveryStyleRegistersFromItsOwnFile) {
  const auto fixes = FixRegistry::get().names();
  for (const char* f : {"nve", "langevin", "nvt", "npt", "temp/berendsen", "press/berendsen", "dt/reset",
                        "electron/stopping", "balance", "box/relax"})
    EXPECT_TRUE(has(fixes, f)) << "fix " << f;
  const auto computes = ComputeRegistry::get().names();
  for (const char* c : {"pe/atom", "ke/atom"}) EXPECT_TRUE(has(computes, c)) << "compute " << c;
  const auto commands = CommandRegistry::get().names();
  for (const char* c : {"units",       "atom_style",     "boundary",     "processors",    "balance",
                        "lattice",     "region",         "create_box",   "create_atoms",  "read_data",
                        "write_data",  "mass",           "group",        "velocity",      "displace_atoms",
                        "set",         "pair_style",     "pair_coeff",   "neighbor",      "neigh_modify",
                        "timestep",    "reset_timestep", "fix",          "unfix",         "compute",
                        "uncompute",   "thermo",         "thermo_style", "thermo_modify", "dump",
                        "dump_modify", "undump",         "run",          "min_style",     "min_modify",
                        "minimize",    "print",          "echo",         "zbl_splice",    "write_potential",
                        "cascade",     "defects"})
    EXPECT_TRUE(has(commands, c)) << "command " << c;
}

// Backends and dump styles register like the styles: the Simulation makes the backend the settings name, and
// the dump commands find their styles, through the registry alone.
TEST(Registry, BackendsAndDumpStylesRegisterFromTheirOwnFiles) {
  EXPECT_EQ(BackendRegistry::get().names(), (std::vector<std::string>{"cluster", "mesh"}));
  EXPECT_EQ(BackendRegistry::get().find("cluster")->traits, kSubdomains | kDropsLostAtoms);
  EXPECT_EQ(BackendRegistry::get().find("mesh")->traits, kNoBackendTraits);
  for (const char* d : {"custom", "atom", "xyz", "cfg", "local", "h5md"})
    EXPECT_NE(find_dump_style(d), nullptr) << "dump " << d;
  bool gz = false;
  EXPECT_EQ(find_dump_style("cfg/gz", &gz), find_dump_style("cfg"));
  EXPECT_TRUE(gz);
  EXPECT_EQ(find_dump_style("h5md/gz"), nullptr);
  EXPECT_EQ(find_dump_style("image"), nullptr);
  io::RunSettings mesh;
  mesh.backend = "mesh";
  test::ScriptRun run("units metal\n", test::scratch_dir("registry_backend"), mesh);
  EXPECT_EQ(run.sim->backend->name(), "mesh");
  EXPECT_FALSE(run.sim->backend_has(kSubdomains));
}

// A new dump style is one file and its registration: this one, defined here, writes each frame as the step
// and the dumped atoms' ids, and `dump` and dump_modify use it like any other (its /gz variant included).
class DumpIdList : public TextDumpStyle {
 public:
  void read_columns(Simulation&, io::ArgCursor& a, Dump& d, const DumpHead&) const override {
    a.finish();
    d.columns = {"id"};
    d.sort_id = true;
  }
  std::string frame_text(const io::DumpFrame& f, const Dump&) const override {
    std::string s = "step " + std::to_string(f.step) + ":";
    for (double id : f.values[0]) s += " " + std::to_string(static_cast<int64_t>(id));
    return s + "\n";
  }
};
WMD_DUMP_STYLE("test/ids", DumpIdList)

TEST(Registry, ANewDumpStyleIsOneClassAndItsRegistration) {
  const std::string dir = test::scratch_dir("registry_dump_style");
  test::ScriptRun run(std::string(test::kCuScript) +
                          "region low block INF INF INF INF INF 0.5\ngroup low region low\n"
                          "dump d low test/ids 5 ids.txt\ndump_modify d every 10\nfix 1 all nve\nrun 20\n",
                      dir);
  std::ifstream in(dir + "/ids.txt");
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].rfind("step 0: 1 ", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("step 10: ", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2].rfind("step 20: ", 0), 0u) << lines[2];
  try {
    test::ScriptRun bad(
        std::string(test::kCuScript) + "dump d all test/ids 5 ids.txt\ndump_modify d thresh x > 0\n",
        test::scratch_dir("registry_dump_style_bad"), true);
    FAIL() << "dump_modify thresh accepted for a style that does not take it";
  } catch (const InputError& e) {
    EXPECT_NE(e.message().find("applies to dump cfg and custom only"), std::string::npos) << e.what();
  }
}

TEST(Registry, CommandsDeclareWhatARestartChecks) {
  // Output and run-length commands stay out of the physics fingerprint; velocity is superseded by a
  // checkpoint.
  EXPECT_TRUE(CommandRegistry::get().find("thermo")->flags & kNoPhysics);
  EXPECT_FALSE(CommandRegistry::get().find("pair_coeff")->flags & kNoPhysics);
  EXPECT_TRUE(CommandRegistry::get().find("velocity")->flags & kSkippedOnRestart);
}

const char* kBox = R"(units metal
lattice fcc 3.615
region box block 0 2 0 2 0 2
create_box 1 box
create_atoms 1 box
mass 1 63.546
)";

TEST(Registry, UnknownStylesNameTheRegisteredOnes) {
  try {
    test::ScriptRun run(std::string(kBox) + "fix 1 all nvx\n", test::scratch_dir("registry_fix"));
    FAIL() << "an unknown fix style was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 7);
    EXPECT_NE(e.message().find("fix style 'nvx' is not supported"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("langevin"), std::string::npos) << e.what();
  }
  try {
    test::ScriptRun run(std::string(kBox) + "compute 1 all pe/atomic\n",
                        test::scratch_dir("registry_compute"));
    FAIL() << "an unknown compute style was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(e.message().find("compute style 'pe/atomic' is not supported"), std::string::npos) << e.what();
  }
}

TEST(Registry, ComputesAreRemovedByUncompute) {
  test::ScriptRun run(std::string(kBox) + "compute k all ke/atom\nuncompute k\ncompute k all pe/atom\n",
                      test::scratch_dir("registry_uncompute"));
  ASSERT_EQ(run.sim->computes.size(), 1u);
  EXPECT_EQ(run.sim->computes[0]->style(), "pe/atom");
  EXPECT_TRUE(run.sim->computes[0]->needs_eatom());
  EXPECT_EQ(run.sim->computes[0]->shape().peratom_cols, 0);
}

}  // namespace
}  // namespace wmd::md
