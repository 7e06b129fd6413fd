// Computes, fixes and references in process: fix nvt on a sub-group leaves the other atoms alone, the mesh
// charges a compute's reductions in its cycle account, a reference between runs follows LAMMPS's rule, and
// unsupported styles and keywords are refused, never ignored. (Thermo rows against lmp at 1 and 3 ranks:
// tests/md/styles_cases.py.)
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>

#include "base/error.hpp"
#include "md/mesh/mesh_backend.hpp"
#include "sim_harness.hpp"

namespace {

using namespace wmd;

const std::string& kCu = test::kCuScript;

std::map<int64_t, std::array<double, 6>> by_id(const md::State& s, uint32_t outside_of) {
  std::map<int64_t, std::array<double, 6>> m;
  const md::Atoms& a = s.atoms;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(a.mask[i] & outside_of)) m[a.id[i]] = {a.x[i], a.y[i], a.z[i], a.vx[i], a.vy[i], a.vz[i]};
  return m;
}

TEST(FixNvtSubgroup, AtomsOutsideTheGroupAreUntouched) {
  const std::string setup = kCu + "region inner block 1 3 1 3 1 3\ngroup inner region inner\n";
  test::ScriptRun before(setup + "run 0\n", test::scratch_dir("nvt_sub_before"));
  test::ScriptRun after(setup + "fix 1 inner nvt temp 300 300 0.1\nrun 200\n",
                        test::scratch_dir("nvt_sub_after"));
  const uint32_t inner = after.state().group_bit("inner");
  const auto b = by_id(before.state(), inner), a = by_id(after.state(), inner);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GT(a.size(), 100u);
  for (const auto& [id, v] : b) EXPECT_EQ(a.at(id), v) << "atom " << id;  // bit for bit
}

TEST(ComputeReferences, BetweenRunsOnlyACurrentValueMayBeRead) {
  // As LAMMPS: a compute printed on the run's last step is current after it; one never computed is not.
  test::ScriptRun ok(kCu +
                         "compute t all temp\nthermo_style custom step c_t temp\nfix 1 all nve\nrun 10\n"
                         "variable x equal c_t\n",
                     test::scratch_dir("ref_current"));
  double v = 0.0;
  ASSERT_TRUE(ok.sim->keyword_value("c_t", v));
  double t = 0.0;
  ASSERT_TRUE(ok.sim->keyword_value("temp", t));
  EXPECT_DOUBLE_EQ(v, t);  // group all: compute temp is thermo's temperature
  test::ScriptRun stale(kCu + "compute t all temp\nfix 1 all nve\nrun 10\n", test::scratch_dir("ref_stale"));
  EXPECT_THROW(stale.sim->keyword_value("c_t", v), InputError);
}

TEST(ComputeReferences, MeshChargesAComputesReductionsInTheCycleAccount) {
  auto account = [](const std::string& extra, const std::string& sub) {
    io::RunSettings s;
    s.backend = "mesh";
    s.mesh_precision = "fp64";
    // The mesh needs a grid wider than its window: 4000 atoms.
    std::string script = kCu + extra + "fix 1 all nve\nthermo 1\nrun 10\n";
    script.replace(script.find("block 0 4 0 4 0 4"), 17, "block 0 10 0 10 0 10");
    test::ScriptRun run(script, test::scratch_dir("styles_mesh_" + sub), s);
    return dynamic_cast<const md::mesh::MeshBackend&>(*run.sim->backend).fabric_json();
  };
  const auto plain = account("compute r all reduce max vx\nthermo_style custom step temp\n", "plain");
  const auto reduce = account("compute r all reduce max vx\nthermo_style custom step temp c_r\n", "reduce");
  // One max over ranks per thermo line of the 10 steps (the set-up line is charged to no step) on top of the
  // same temperature sums, and its cycles.
  EXPECT_EQ(reduce["style_reductions"].get<int64_t>(), plain["style_reductions"].get<int64_t>() + 10);
  EXPECT_GT(reduce["cycles_per_step"]["reductions"].get<double>(),
            plain["cycles_per_step"]["reductions"].get<double>());
}

TEST(ComputeVoronoiAtom, OccupationOnTheMeshEqualsTheClusterAndIsCharged) {
  // A 100 eV knock-on in 4000 Cu atoms: Wigner–Seitz counts against the lattice at the run's set-up, the
  // same on either backend; on the mesh its per-site sum is one more fabric reduction per thermo line.
  auto run = [](const std::string& backend, bool voronoi, double* values) {
    io::RunSettings s;
    s.backend = backend;
    s.mesh_precision = "fp64";
    std::string script = kCu + "group pka id 1000\nvelocity pka set 120 90 45 units box\ntimestep 0.0005\n";
    script.replace(script.find("block 0 4 0 4 0 4"), 17, "block 0 10 0 10 0 10");
    script += voronoi ? "compute v all voronoi/atom occupation\ncompute r all reduce max c_v[2]\n"
                        "compute n all reduce sum c_v[2]\ncompute z all reduce min c_v[1]\n"
                        "thermo_style custom step temp c_r c_n c_z\n"
                      : "thermo_style custom step temp\n";
    script += "fix 1 all nve\nthermo 10\nrun 40\n";
    test::ScriptRun r(script, test::scratch_dir("voronoi_" + backend + (voronoi ? "_v" : "")), s);
    if (values) {
      for (int k = 0; k < 3; ++k)
        EXPECT_TRUE(r.sim->keyword_value(k == 0 ? "c_r" : k == 1 ? "c_n" : "c_z", values[k]));
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
  for (int k = 0; k < 3; ++k) EXPECT_EQ(mesh[k], cluster[k]) << k;
  EXPECT_GE(cluster[0], 2.0);        // an interstitial shares a cell
  EXPECT_GT(cluster[1], 4000.0);     // Σ column 2 counts each shared cell's atoms twice or more
  EXPECT_EQ(cluster[2], 0.0);        // and a vacancy is left
  EXPECT_GE(with, without + 4 * 4);  // four thermo lines, each with the per-site sum and three reductions
}

class StylesBadInput : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(StylesBadInput, IsRefusedNamingIt) {
  const auto [line, words] = GetParam();
  const test::Refusal e =
      test::refusal_of(kCu + "compute t all temp\nfix 1 all nve\n" + line + "\n", "styles_bad");
  EXPECT_NE(e.what.find(words), std::string::npos) << e.what;
}

INSTANTIATE_TEST_SUITE_P(
    Styles, StylesBadInput,
    ::testing::Values(
        std::make_pair("compute v all voronoi/atom edge_histo 6 face_threshold 0.5",
                       "edge_histo with face_threshold"),
        std::make_pair("compute v all voronoi/atom radius r", "radius takes v_name"),
        std::make_pair("compute v all voronoi/atom bogus", "bogus"),
        std::make_pair("fix 3 all nvt/sllod temp 300 300 0.1 iso 0 0 1", "takes no pressure keyword"),
        std::make_pair("compute 3_temp all temp\nfix 3 all nvt/sllod temp 300 300 0.1", "already defined"),
        std::make_pair("fix mc all atom/swap 5 3 777 300 types 1 1",
                       "fix style 'atom/swap' is not supported"),
        std::make_pair("thermo_style custom step c_missing", "compute missing does not exist"),
        std::make_pair("thermo_style custom step c_t[7]", "6 elements"),
        std::make_pair("compute k all ke/atom\nthermo_style custom c_k", "no global scalar"),
        std::make_pair("compute r all reduce sum vx replace 1 2", "replace"),
        std::make_pair("compute r all reduce sum c_t", "no per-atom values"),
        std::make_pair("fix 2 all setforce 0 0 vf", "expected a number, v_name or NULL, got 'vf'"),
        std::make_pair("fix 2 all temp/rescale 1 300 300 1 0.5\nfix_modify 2 energy yes", "energy"),
        std::make_pair("fix 2 all temp/rescale 1 300 300 1 0.5\nfix_modify 2 temp nope", "nope"),
        std::make_pair("velocity all scale 300 temp t bias yes", "bias"),
        std::make_pair("thermo_modify temp nope", "nope"),
        std::make_pair("fix 2 all aveforce NULL 0 x", "expected a number, v_name or NULL, got 'x'"),
        std::make_pair("fix 2 all setforce 0 NULL 0 region nowhere",
                       "fix setforce: region nowhere does not exist"),
        std::make_pair("compute tr all temp/region nowhere",
                       "compute temp/region: region nowhere does not exist"),
        std::make_pair("compute v all voronoi/atom occupation surface all",
                       "occupation together with surface"),
        std::make_pair("fix a all ave/time 3 2 10 c_t", "multiple of Nevery"),
        std::make_pair("fix a all ave/time 1 1 10 c_t[2*7]", "not a range within 1..6"),
        std::make_pair("fix a all ave/time 1 1 10 c_t format %s", "one floating-point value"),
        std::make_pair("fix a all ave/time 1 1 10 v_t mode vector", "variable"),
        std::make_pair("fix a all ave/time 1 1 10 c_t[2] c_t mode vector", "no global array"),
        std::make_pair("fix a all ave/time 5 1 10 c_t\nthermo_style custom step f_a\nthermo 5\nrun 10",
                       "compatible times"),
        std::make_pair("fix p all print 10 hi nope yes", "nope"),
        std::make_pair("compute sa all stress/atom NULL bogus", "'bogus' is not supported"),
        std::make_pair("compute tc all temp/com\ncompute sa all stress/atom tc", "bias"),
        std::make_pair("fix s all store/state 0 x com yes", "com yes"),
        std::make_pair("fix s all store/state 0 q", "input 'q' is not supported"),
        std::make_pair("fix d all deform 1 xy final 0 1", "triclinic"),
        std::make_pair("fix d all deform 1 x volume", "Fix deform volume setting is invalid"),
        std::make_pair("fix p all npt temp 300 300 0.1 x 0 0 1\nfix d all deform 1 x erate 0.01\nrun 1",
                       "Must not have multiple fixes change box parameter x"),
        std::make_pair("fix d all deform 1 z erate 0.01\nfix e all deform 1 z erate 0.02\nrun 1",
                       "Must not have multiple fixes change box parameter z"),
        std::make_pair("fix m all move rotate 0 0 0 0 0 1 10", "style 'rotate' is not supported"),
        std::make_pair("compute c all cna/atom", "cutoff"),
        std::make_pair("variable a atom x*2\nthermo_style custom step v_a", "atom-style"),
        std::make_pair("variable a equal 2\ncompute r all reduce sum v_a", "not atom-style"),
        std::make_pair("fix e all electron/stopping/fit 3.49 1.8e-3", "c2 of type 1")),
    [](const ::testing::TestParamInfo<std::pair<std::string, std::string>>& info) {
      return std::to_string(info.index);  // ctest names without the pointers gtest would print
    });

}  // namespace
