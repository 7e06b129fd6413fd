// compute rdf, compute chunk/atom and fix ave/chunk in process: each refusal names its line and what is
// refused, fix ave/chunk's per-chunk sums are charged to the mesh's cycle account, and the chunks and sums
// obey their definitions. (Values against lmp at 1 and 3 ranks: tests/md/styles_cases.py, cases rdf and
// chunk.)
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "base/error.hpp"
#include "md/mesh/mesh_backend.hpp"
#include "sim_harness.hpp"

namespace {

using namespace wmd;

const std::string kCu = test::kCuScript + "compute t all temp\nfix 1 all nve\n";

class ChunksBadInput : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(ChunksBadInput, IsRefusedAtItsLine) {
  const auto [line, words] = GetParam();
  // A run's set-up refusal (the rdf cutoff, checked at init as LAMMPS checks it) needs a real run.
  const bool dry = line.find("\nrun ") == std::string::npos;
  const test::Refusal e = test::refusal_of(kCu + line + "\n", "chunks_bad", dry);
  EXPECT_NE(e.what.find(words), std::string::npos) << e.what;
  // error: FILE:LINE: at the offending command, past the 14 set-up lines.
  EXPECT_GE(e.line, 15) << e.what;
  EXPECT_NE(e.what.find("in.test:" + std::to_string(e.line) + ": "), std::string::npos) << e.what;
}

INSTANTIATE_TEST_SUITE_P(
    Chunks, ChunksBadInput,
    ::testing::Values(
        std::make_pair("compute r all rdf 10 cutoff 9.0\nthermo_style custom step c_r[1][2]\nrun 0",
                       "exceeds the ghost atoms"),
        std::make_pair("compute r all rdf 10 1", "has no partner"),
        std::make_pair("compute r all rdf 10 1 3", "type ranges within 1..1"),
        std::make_pair("compute c all chunk/atom molecule", "'molecule' is not supported"),
        std::make_pair("compute c all chunk/atom bin/sphere 0 0 0 0 5 5", "'bin/sphere' is not supported"),
        std::make_pair("compute c all chunk/atom bin/1d z lower 0", "delta must be positive"),
        std::make_pair("compute c all chunk/atom bin/2d z lower 1 z lower 1", "a dimension appears twice"),
        std::make_pair("compute c all chunk/atom type discard mixed", "cannot use discard mixed"),
        std::make_pair("compute c all chunk/atom bin/1d z lower 1 compress yes", "compress yes"),
        std::make_pair("compute c all chunk/atom bin/1d z lower 1 ids once", "ids once"),
        std::make_pair("compute c all chunk/atom bin/1d z lower 1 region nowhere",
                       "region nowhere does not exist"),
        std::make_pair("compute c all chunk/atom bin/1d z lower 1 bogus 1", "'bogus' is not supported"),
        std::make_pair("fix a all ave/chunk 1 1 10 nope vx", "compute nope does not exist"),
        std::make_pair("fix a all ave/chunk 1 1 10 t vx", "is not a compute chunk/atom"),
        std::make_pair("compute c all chunk/atom type\nfix a all ave/chunk 1 1 10 c temp bias t",
                       "no velocity bias"),
        std::make_pair("compute c all chunk/atom type\nfix a all ave/chunk 1 1 10 c temp append f",
                       "'append'"),
        std::make_pair("compute c all chunk/atom type\nfix a all ave/chunk 3 2 10 c vx",
                       "multiple of Nevery"),
        std::make_pair("compute c all chunk/atom type\nfix a all ave/chunk 1 1 10 c c_t", "per-atom"),
        std::make_pair("compute c all chunk/atom type\nfix a all ave/chunk 1 1 10 c norm all", "no values"),
        std::make_pair("compute c all chunk/atom type\nfix a all ave/chunk 1 1 10 c vx overwrite",
                       "overwrite needs ave running"),
        std::make_pair("fix a all ave/time 1 1 10 c_t[*9]", "not a range within 1..6"),
        std::make_pair("fix a all ave/time 1 1 10 c_nope[*]", "compute nope does not exist")),
    [](const ::testing::TestParamInfo<std::pair<std::string, std::string>>& info) {
      return std::to_string(info.index);
    });

TEST(Chunks, TheDryRunAcceptsTheStyles) {
  // The dry run (which reads no potential) checks a script with the styles without refusing it.
  EXPECT_NO_THROW(test::ScriptRun(kCu + "compute r all rdf 10\ncompute c all chunk/atom bin/1d z lower 0.5\n"
                                        "fix a all ave/chunk 1 1 10 c vx temp\n"
                                        "fix b all ave/time 1 1 10 c_r[*] mode vector\n"
                                        "thermo_style custom step c_r[2][2] f_b[3][2] f_a[1][3]\nthermo 10\n"
                                        "run 10\n",
                                  test::scratch_dir("chunks_dry"), true));
}

TEST(FixAveTime, WildcardExpandsToEveryElement) {
  // c_t[*] is c_t[1] … c_t[6] (compute temp's vector): the fix's vector has six elements, the seventh is
  // refused as any out-of-range reference.
  test::ScriptRun r(
      kCu + "fix a all ave/time 1 1 10 c_t[*]\nthermo_style custom step f_a[6]\nthermo 10\nrun 10\n",
      test::scratch_dir("chunks_wildcard"));
  double v = 0.0;
  ASSERT_TRUE(r.sim->keyword_value("f_a[6]", v));
  EXPECT_NE(v, 0.0);
  EXPECT_THROW(test::ScriptRun(kCu + "fix a all ave/time 1 1 10 c_t[*]\nthermo_style custom step f_a[7]\n",
                               test::scratch_dir("chunks_wildcard_bad"), true),
               InputError);
}

TEST(FixAveChunk, TypeChunksCountEveryAtomAndTheMeshChargesTheirSums) {
  // Type chunks of a one-type crystal: chunk 1 holds all 256 atoms (f_a[1][1]) and its mass sum is
  // 256 m_Cu with norm none; on the mesh each Nfreq's per-chunk sum is one more fabric reduction.
  auto run = [](const std::string& backend, bool with_fix, double* count, double* mass) {
    io::RunSettings s;
    s.backend = backend;
    s.mesh_precision = "fp64";
    std::string script = kCu;
    script.replace(script.find("block 0 4 0 4 0 4"), 17, "block 0 10 0 10 0 10");
    script += "compute c all chunk/atom type\n";
    script += with_fix
                  ? "fix a all ave/chunk 1 1 1 c mass norm none\nthermo_style custom step temp f_a[1][1] "
                    "f_a[1][2]\n"
                  : "thermo_style custom step temp\n";
    script += "thermo 1\nrun 10\n";
    test::ScriptRun r(script, test::scratch_dir("chunks_type_" + backend + (with_fix ? "_f" : "")), s);
    if (count) {
      EXPECT_TRUE(r.sim->keyword_value("f_a[1][1]", *count));
    }
    if (mass) {
      EXPECT_TRUE(r.sim->keyword_value("f_a[1][2]", *mass));
    }
    if (backend != "mesh") return int64_t{0};
    return dynamic_cast<const md::mesh::MeshBackend&>(*r.sim->backend)
        .fabric_json()["style_reductions"]
        .get<int64_t>();
  };
  double count = 0.0, mass = 0.0, mcount = 0.0, mmass = 0.0;
  run("cluster", true, &count, &mass);
  EXPECT_EQ(count, 4000.0);
  EXPECT_NEAR(mass, 4000.0 * 63.55, 1e-9 * mass);
  const int64_t with = run("mesh", true, &mcount, &mmass);
  const int64_t without = run("mesh", false, nullptr, nullptr);
  EXPECT_EQ(mcount, count);
  EXPECT_EQ(mmass, mass);
  EXPECT_GE(with, without + 10);  // one per-chunk sum at each of the 10 steps
}

TEST(ComputeRdf, OnTheMeshEqualsTheClusterAndIsCharged) {
  // 4000 Cu atoms on their lattice: g(r) and the coordination number are the same on either backend (the
  // first shell, 12 neighbours at a/√2, in bin 26 of 50 over the 4.95 Å cutoff), and on the mesh each thermo
  // line's pair-count sum is one more fabric reduction.
  auto run = [](const std::string& backend, bool rdf, double* values) {
    io::RunSettings s;
    s.backend = backend;
    s.mesh_precision = "fp64";
    std::string script = kCu;
    script.replace(script.find("block 0 4 0 4 0 4"), 17, "block 0 10 0 10 0 10");
    script += rdf ? "compute r all rdf 50\nthermo_style custom step temp c_r[26][2] c_r[26][3] c_r[50][3]\n"
                  : "thermo_style custom step temp\n";
    script += "thermo 5\nrun 10\n";
    test::ScriptRun r(script, test::scratch_dir("chunks_rdf_" + backend + (rdf ? "_r" : "")), s);
    if (values) {
      for (int k = 0; k < 3; ++k) {
        EXPECT_TRUE(r.sim->keyword_value(k == 0   ? "c_r[26][2]"
                                         : k == 1 ? "c_r[26][3]"
                                                  : "c_r[50][3]",
                                         values[k]));
      }
    }
    if (backend != "mesh") return int64_t{0};
    return dynamic_cast<const md::mesh::MeshBackend&>(*r.sim->backend)
        .fabric_json()["style_reductions"]
        .get<int64_t>();
  };
  double cluster[3], mesh[3];
  run("cluster", true, cluster);
  const int64_t with = run("mesh", true, mesh);
  const int64_t without = run("mesh", false, nullptr);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(mesh[k], cluster[k], 1e-12 * std::abs(cluster[k])) << k;
  EXPECT_GT(cluster[0], 1.0);         // the first peak
  EXPECT_GT(cluster[2], cluster[1]);  // coord(r) grows
  EXPECT_GE(with, without + 2);       // thermo lines at steps 5 and 10
}

TEST(FixAveChunk, RunningAverageSavesAndRestores) {
  // A checkpoint keeps the running sums, the window and the counters.
  const std::string script = kCu +
                             "compute c all chunk/atom bin/1d z lower 0.5\n"
                             "fix a all ave/chunk 2 2 10 c vx temp ave window 2\n";
  test::ScriptRun run(script + "run 30\n", test::scratch_dir("chunks_state"));
  md::FixStateMap saved;
  run.sim->fixes.back()->save_state(saved);
  ASSERT_EQ(saved.count("total"), 1u);
  EXPECT_EQ(saved["total"].size(), 8u * 2u);  // 8 layers × 2 values
  EXPECT_EQ(saved["counters"][2], 2.0);       // the window is full
  test::ScriptRun fresh(script + "run 0\n", test::scratch_dir("chunks_state_fresh"));
  fresh.sim->fixes.back()->restore_state(saved);
  md::FixStateMap again;
  fresh.sim->fixes.back()->save_state(again);
  EXPECT_EQ(saved, again);
}

}  // namespace
