// The style registry: every command, fix and compute registers itself from its own file (so the whole-archive
// link keeps them), and lookups of unknown or backend-refused styles fail with the command's line.
#include <gtest/gtest.h>

#include <algorithm>

#include "md/run/command_registry.hpp"
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
