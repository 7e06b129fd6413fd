// fix indent, spring, recenter and deposit beyond the lmp comparisons (tests/data/styles/in.indent,
// in.spring_recenter, in.minimize_indent, in.deposit): the indenter's force and energy against its formula,
// fix_modify energy in pe, the mesh running the force fixes as the cluster does (their sums charged), and
// every refused input with its message.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "md/mesh/mesh_backend.hpp"
#include "md/styles/fix.hpp"
#include "sim_harness.hpp"

namespace {

using namespace wmd;

const std::string& kCu = test::kCuScript;

TEST(FixIndent, SphereForceAndEnergyFollowTheFormula) {
  // One atom 1 Å from the centre of a 2.5 Å sphere: F = K (R − r)² outwards, E = K/3 (R − r)³.
  const std::string script =
      "units metal\natom_style atomic\nboundary p p p\nregion box block 0 20 0 20 0 20 units box\n"
      "create_box 1 box\ncreate_atoms 1 single 11 10 10 units box\nmass 1 63.546\npair_style eam\n"
      "pair_coeff 1 1 Cu_u3.eam\n"
      "fix 1 all indent 3.0 sphere 10 10 10 2.5 units box\nfix_modify 1 energy yes\n"
      "thermo_style custom step pe f_1\nrun 0\n";
  test::ScriptRun r(script, test::scratch_dir("indent_formula"));
  const double k = 3.0, d = 1.5;
  EXPECT_NEAR(r.state().atoms.fx[0], k * d * d, 1e-12);
  EXPECT_NEAR(r.state().atoms.fy[0], 0.0, 1e-12);
  double e = 0.0, fx = 0.0, pe = 0.0, evdwl = 0.0;
  ASSERT_TRUE(r.sim->keyword_value("f_1", e));
  ASSERT_TRUE(r.sim->keyword_value("f_1[1]", fx));
  ASSERT_TRUE(r.sim->keyword_value("pe", pe));
  ASSERT_TRUE(r.sim->keyword_value("evdwl", evdwl));
  EXPECT_NEAR(e, k / 3.0 * d * d * d, 1e-12);
  EXPECT_NEAR(fx, -k * d * d, 1e-12);  // the force on the indenter
  EXPECT_NEAR(pe - evdwl, e, 1e-12);   // fix_modify energy yes: in pe, not in the pair energy
}

TEST(FixIndent, EnergyStaysOutOfPeWithoutFixModify) {
  test::ScriptRun r(kCu + "fix 1 all indent 3.0 sphere 2.1 2.1 2.1 0.8\nrun 0\n",
                    test::scratch_dir("indent_no_pe"));
  double e = 0.0, pe = 0.0, evdwl = 0.0;
  ASSERT_TRUE(r.sim->keyword_value("f_1", e));
  ASSERT_TRUE(r.sim->keyword_value("pe", pe));
  ASSERT_TRUE(r.sim->keyword_value("evdwl", evdwl));
  EXPECT_GT(e, 0.0);
  EXPECT_EQ(pe, evdwl);
}

TEST(ForceFixes, MeshRunsIndentSpringRecenterAsTheClusterAndChargesTheirSums) {
  auto run = [](const std::string& backend, bool fixes, double* values) {
    io::RunSettings s;
    s.backend = backend;
    s.mesh_precision = "fp64";
    std::string script = kCu + "region lo block INF INF INF INF 0 2\ngroup lo region lo\n";
    script.replace(script.find("block 0 4 0 4 0 4"), 17, "block 0 10 0 10 0 10");
    script += "fix 1 all nve\n";
    if (fixes)
      script +=
          "fix 2 all indent 2.0 sphere 5.1 5.1 5.1 0.9\nfix 3 lo spring tether 1.0 NULL NULL 3.0 0.0\n"
          "fix 4 all recenter INIT INIT NULL\n";
    // The same thermo line with and without the fixes, so the difference in charged sums is the fixes'.
    script += "thermo_style custom step pe\nthermo 5\nrun 10\n";
    test::ScriptRun r(script, test::scratch_dir("force_fixes_" + backend + (fixes ? "_f" : "")), s);
    const int64_t charged = backend != "mesh" ? 0
                                              : dynamic_cast<const md::mesh::MeshBackend&>(*r.sim->backend)
                                                    .fabric_json()["style_reductions"]
                                                    .get<int64_t>();
    if (values)
      for (int k = 0; k < 3; ++k)
        EXPECT_TRUE(r.sim->keyword_value(k == 0 ? "pe" : k == 1 ? "f_2" : "f_3", values[k]));
    return charged;
  };
  double cluster[3], mesh[3];
  run("cluster", true, cluster);
  const int64_t with = run("mesh", true, mesh);
  const int64_t without = run("mesh", false, nullptr);
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(mesh[k], cluster[k], 1e-9 * std::max(1.0, std::fabs(cluster[k]))) << k;
  EXPECT_GT(cluster[1], 0.0);
  // Per step: the spring's and recenter's centre-of-mass sums (10 steps).
  EXPECT_GE(with, without + 2 * 10);
}

TEST(FixDeposit, AddsAtomsOfItsTypeWithNewIds) {
  std::string s = kCu;
  s.replace(s.find("block 0 4 0 4 0 4"), 17, "block 0 4 0 4 0 6");
  s.replace(s.find("create_box 1 box"), 16, "create_box 2 box\nmass 2 63.546");
  s.replace(s.find("pair_coeff 1 1"), 14, "pair_coeff * *");
  s.replace(s.find("create_atoms 1 box"), 18,
            "region slab block INF INF INF INF 0 3\ncreate_atoms 1 region slab");
  s += "region dep block 0 4 0 4 4 5\nfix 1 all nve\nfix 2 all deposit 3 2 5 4321 region dep near 0.5\nrun "
       "11\n";
  test::ScriptRun r(s, test::scratch_dir("deposit_ids"));
  const md::Atoms& a = r.state().atoms;
  const std::set<int64_t> ids(a.id.begin(), a.id.end());
  EXPECT_EQ(ids.size(), a.size());
  EXPECT_EQ(*ids.rbegin(), static_cast<int64_t>(a.size()));
  int deposited = 0;
  for (size_t i = 0; i < a.size(); ++i) deposited += a.type[i] == 2 ? 1 : 0;
  EXPECT_EQ(deposited, 3);  // at steps 1, 6 and 11
  double natoms = 0.0;
  ASSERT_TRUE(r.sim->keyword_value("atoms", natoms));
  EXPECT_EQ(natoms, static_cast<double>(a.size()));
}

TEST(FixDeposit, IsRefusedOnTheMesh) {
  io::RunSettings s;
  s.backend = "mesh";
  s.mesh_precision = "fp64";
  try {
    test::ScriptRun r(kCu + "region dep block 0 4 0 4 3 4\nfix 2 all deposit 1 1 1 1 region dep\n",
                      test::scratch_dir("deposit_mesh"), s, true);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("deposit"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("mesh"), std::string::npos) << e.what();
  }
}

class IndentSpringDepositBadInput : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

// Each line is refused with an InputError naming the problem (exit 2 with `error: FILE:LINE: …`); lines that
// end in `run` fail when the run starts (the dry run does not run).
TEST_P(IndentSpringDepositBadInput, IsRefusedNamingIt) {
  const auto [line, words] = GetParam();
  const bool runs = line.find("\nrun") != std::string::npos;
  const test::Refusal e = test::refusal_of(kCu + "fix 1 all nve\n" + line + "\n", "isd_bad", !runs);
  EXPECT_NE(e.what.find(words), std::string::npos) << e.what;
}

INSTANTIATE_TEST_SUITE_P(
    Fixes, IndentSpringDepositBadInput,
    ::testing::Values(
        std::make_pair("fix 2 all indent 5 units box", "needs a geometry"),
        std::make_pair("fix 2 all indent 5 cylinder w 0 0 1", "'w'"),
        std::make_pair("fix 2 all indent 5 plane z 1 mid", "'mid'"),
        std::make_pair("fix 2 all indent 5 sphere 0 0 0 1 side both", "'both'"),
        std::make_pair("fix 2 all indent 5 sphere 0 0 v_zz 1\nrun 1", "variable zz does not exist"),
        std::make_pair("fix 2 all setforce 0 0 0\nfix_modify 2 energy yes", "adds no energy"),
        std::make_pair("fix 2 all spring tether 1 0 0 0 -1", "R0 must be >= 0"),
        std::make_pair("fix 2 all spring tether 1 0 0 0 0 7", "7"),
        std::make_pair("fix 2 all spring pull 1 0 0 0 0", "'pull'"),
        std::make_pair("fix 2 all spring couple all 1 0 0 0 0", "must differ"),
        std::make_pair("fix 2 all spring couple nope 1 0 0 0 0", "unknown group 'nope'"),
        std::make_pair("fix 2 all recenter 0 0 0 units bogus", "'bogus'"),
        std::make_pair("fix 2 all recenter 0 0 0 shift nope", "unknown group 'nope'"),
        std::make_pair("region far block 50 51 50 51 50 51\ngroup far region far\nfix 2 far recenter 0 0 0",
                       "group has no atoms"),
        std::make_pair("region d block 0 4 0 4 3 4\nfix 2 all deposit 1 1 1 1 region d mol m", "molecules"),
        std::make_pair("fix 2 all deposit 1 1 1 1 near 1", "needs a region"),
        std::make_pair("region d block 0 4 0 4 3 5\nfix 2 all deposit 1 1 1 1 region d",
                       "outside the simulation box"),
        std::make_pair("region d sphere 2 2 2 1 side out\nfix 2 all deposit 1 1 1 1 region d",
                       "bounding box"),
        std::make_pair("region d block 0 4 0 4 3 4\nfix 2 all deposit 1 2 1 1 region d", "atom type"),
        std::make_pair("region d block 0 4 0 4 3 4\nfix 2 all deposit 1 1 1 0 region d", "seed"),
        std::make_pair("region d block 0 4 0 4 3 4\nfix 2 all deposit 1 1 1 1 region d gaussian 0 0 0 1",
                       "gaussian"),
        std::make_pair("region d block 0 4 0 4 3 4\nfix 2 all deposit 1 1 1 1 region d id last", "'last'"),
        std::make_pair("region d block 0 4 0 4 3 4\nfix 2 all deposit 1 1 1 1 region d attempt 2000000",
                       "at most 1000000")),
    [](const ::testing::TestParamInfo<std::pair<std::string, std::string>>& info) {
      return std::to_string(info.index);
    });

}  // namespace
