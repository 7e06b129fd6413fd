// compute property/atom, property/local, pair/local and cnp/atom, and dump local, in process: their refusals
// (each names the attribute or keyword), dump local's text layout, and the mesh backend — the per-atom styles
// give the cluster's values there, the local ones are refused. (Values against lmp at 1 and 3 ranks, and
// cnp/atom against a brute-force formula: tests/md/styles_cases.py.)
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "sim_harness.hpp"

namespace {

using namespace wmd;

const std::string& kCu = test::kCuScript;

class LocalComputesBadInput : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(LocalComputesBadInput, IsRefusedAtItsLineNamingIt) {
  const auto [line, words] = GetParam();
  const test::Refusal e =
      test::refusal_of(kCu + "compute t all temp\nfix 1 all nve\n" + line + "\n", "local_bad");
  EXPECT_NE(e.what.find(words), std::string::npos) << e.what;
  // FILE:LINE of the refused command: the script's last line, or the line that names the bad word.
  EXPECT_NE(e.what.find("in.test:"), std::string::npos) << e.what;
}

INSTANTIATE_TEST_SUITE_P(
    Computes, LocalComputesBadInput,
    ::testing::Values(
        std::make_pair("compute p all property/atom q",
                       "attribute 'q' is not allocated by atom_style atomic"),
        std::make_pair("compute p all property/atom id mol", "attribute 'mol' is not allocated"),
        std::make_pair("compute p all property/atom radius", "attribute 'radius' is not allocated"),
        std::make_pair("compute p all property/atom xsu", "'xsu' is not an atom attribute"),
        std::make_pair("compute p all property/atom", "needs at least one attribute"),
        std::make_pair("compute l all property/local batom1 batom2", "'batom1' needs bonds"),
        std::make_pair("compute l all property/local atype", "'atype' needs bonds, angles"),
        std::make_pair("compute l all property/local natom1", "'natom1' (pairs within the neighbour cutoff"),
        std::make_pair("compute l all property/local patom1 cutoff radius", "cutoff radius needs the atom"),
        std::make_pair("compute l all property/local patom1 bogus", "'bogus' is not an attribute"),
        std::make_pair("compute l all property/local patom1 cutoff type ptype1", "'ptype1' is not a keyword"),
        std::make_pair("compute l all pair/local dist p1", "pair_style eam has no extra field p1"),
        std::make_pair("compute l all pair/local p0", "'p0' is not a pair value"),
        std::make_pair("compute l all pair/local dist cutoff radius", "cutoff radius needs the atom"),
        std::make_pair("compute l all pair/local", "needs at least one value"),
        std::make_pair("compute c all cnp/atom", "cutoff Rc"),
        std::make_pair("compute c all cnp/atom -1", "cutoff Rc"),
        std::make_pair("compute c all cnp/atom 3.0 4.0", "4.0"),
        std::make_pair("compute l all pair/local dist\ndump d all custom 1 f.dump id c_l",
                       "no per-atom values"),
        std::make_pair("region r block 0 1 0 1 0 1\ncompute l all pair/local dist\n"
                       "compute s all reduce/region r sum c_l",
                       "names local values"),
        std::make_pair("compute l all pair/local dist eng\ncompute s all reduce sum c_l[3]",
                       "2 local columns"),
        std::make_pair("dump d all local 1 f.local index", "needs a compute column"),
        std::make_pair("dump d all local 1 f.local", "needs columns"),
        std::make_pair("dump d all local 1 f.local c_t", "has no local values"),
        std::make_pair("dump d all local 1 f.local id", "'id' is not a dump local column"),
        std::make_pair("compute l all property/local patom1 patom2\ndump d all local 1 f.local c_l",
                       "local array of 2 columns"),
        std::make_pair("compute l all property/local patom1\ndump d all local/gz 1 f.local c_l",
                       "needs a file name ending in .gz"),
        std::make_pair("compute l all property/local patom1\ndump d all local 1 f.local c_l\n"
                       "dump_modify d sort id",
                       "cannot sort by atom ID"),
        std::make_pair("compute l all property/local patom1\ndump d all local 1 f.local c_l\n"
                       "dump_modify d element Cu",
                       "does not apply to dump local"),
        std::make_pair("dump d all custom 1 f.dump id\ndump_modify d label PAIRS",
                       "applies to dump local only")),
    [](const ::testing::TestParamInfo<std::pair<std::string, std::string>>& info) {
      return std::to_string(info.index);
    });

TEST(ComputeCnpAtom, ACutoffBeyondThePairCutoffStopsTheRunAtItsLine) {
  try {
    test::ScriptRun r(kCu + "compute c all cnp/atom 6.0\nfix 1 all nve\nrun 0\n",
                      test::scratch_dir("cnp_cut"));
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "in.test:13: compute cnp/atom: the cutoff 6 is longer than the pair cutoff 4.95"),
              std::string::npos)
        << e.what();
  }
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(DumpLocal, WritesLammpsLayoutWithLabelFormatsAndIndex) {
  // Pairs in the upper half: every row's ids and types, `index` 1…N, the label and formats of dump_modify;
  // the row count equals compute reduce's count of the same pairs.
  const std::string dir = test::scratch_dir("dump_local_layout");
  test::ScriptRun r(kCu +
                        "region up block INF INF INF INF 2 INF\ngroup up region up\n"
                        "compute l up property/local patom1 patom2 ptype1\n"
                        "compute n up reduce sum c_l[3]\nthermo_style custom step c_n\nfix 1 all nve\n"
                        "dump d all local 5 pairs.local index c_l[1] c_l[2] c_l[3]\n"
                        "dump_modify d label PAIRS format int %05d format 4 %.3f every 10\nrun 10\n",
                    dir);
  double n = 0.0;
  ASSERT_TRUE(r.sim->keyword_value("c_n", n));
  const std::vector<std::string> l = lines_of(dir + "/pairs.local");
  ASSERT_GT(l.size(), 9u);
  EXPECT_EQ(l[0], "ITEM: TIMESTEP");
  EXPECT_EQ(l[1], "0");
  EXPECT_EQ(l[2], "ITEM: NUMBER OF PAIRS");
  EXPECT_EQ(l[4], "ITEM: BOX BOUNDS pp pp pp");
  EXPECT_EQ(l[5], "0.0000000000000000e+00 1.4460000000000001e+01");
  EXPECT_EQ(l[8], "ITEM: PAIRS index c_l[1] c_l[2] c_l[3] ");
  const size_t rows = std::stoul(l[3]);
  EXPECT_GT(rows, 1000u);
  ASSERT_GT(l.size(), 9 + rows + 9);  // a second frame at step 10 (every 10), none at 5
  EXPECT_EQ(l[9 + rows], "ITEM: TIMESTEP");
  EXPECT_EQ(l[9 + rows + 1], "10");
  const size_t rows10 = std::stoul(l[9 + rows + 3]);
  EXPECT_EQ(static_cast<double>(rows10), n);  // the last frame's rows, counted by compute reduce
  EXPECT_EQ(l.size(), 9 + rows + 9 + rows10);
  EXPECT_EQ(l[9].substr(0, 6), "00001 ");
  EXPECT_EQ(l[9].substr(l[9].size() - 7), " 1.000 ");  // column 4 as %.3f, a space after each value
  EXPECT_EQ(l[8 + rows].substr(0, 6),
            std::string(5 - std::to_string(rows).size(), '0') + std::to_string(rows) + " ");
  for (size_t k = 9; k < 9 + rows; ++k) {
    std::istringstream w(l[k]);
    double idx, a1, a2, t;
    ASSERT_TRUE(w >> idx >> a1 >> a2 >> t) << l[k];
    EXPECT_NE(a1, a2);
    EXPECT_GE(std::min(a1, a2), 1.0);
    EXPECT_LE(std::max(a1, a2), 256.0);
  }
}

TEST(LocalComputes, TheMeshRefusesThemAndRunsThePerAtomOnesAsTheCluster) {
  io::RunSettings mesh;
  mesh.backend = "mesh";
  mesh.mesh_precision = "fp64";
  for (const std::string style : {"property/local patom1", "pair/local dist"}) {
    try {
      test::ScriptRun r(kCu + "compute l all " + style + "\n", test::scratch_dir("local_mesh"), mesh, true);
      FAIL() << style << " accepted on the mesh";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("cannot run on the mesh backend"), std::string::npos) << e.what();
    }
  }
  // cnp/atom and property/atom: the same sums on either backend (4000 atoms: the mesh needs a grid wider than
  // its window), a vacancy and an interstitial making cnp/atom nonzero.
  auto run = [](const std::string& backend, double out[3]) {
    io::RunSettings s;
    s.backend = backend;
    s.mesh_precision = "fp64";
    std::string script = kCu;
    script.replace(script.find("block 0 4 0 4 0 4"), 17, "block 0 10 0 10 0 10");
    script +=
        "group v id 500\ndelete_atoms group v\ncreate_atoms 1 single 1.25 1.25 1.25\n"
        "compute q all cnp/atom 3.086\ncompute p all property/atom xu vz ix\n"
        "compute s all reduce sum c_q c_p[1] c_p[2]\nthermo_style custom step c_s[1] c_s[2] c_s[3]\n"
        "fix 1 all nve\nthermo 10\nrun 10\n";
    test::ScriptRun r(script, test::scratch_dir("cnp_" + backend), s);
    for (int k = 0; k < 3; ++k)
      EXPECT_TRUE(r.sim->keyword_value("c_s[" + std::to_string(k + 1) + "]", out[k]));
  };
  double cluster[3], on_mesh[3];
  run("cluster", cluster);
  run("mesh", on_mesh);
  EXPECT_GT(cluster[0], 100.0);
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(on_mesh[k], cluster[k], 1e-9 * std::max(1.0, std::fabs(cluster[k]))) << k;
}

}  // namespace
