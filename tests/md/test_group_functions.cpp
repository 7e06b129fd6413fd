// LAMMPS's group functions in variable formulas: the word arguments the evaluator hands over, values from
// an independent calculation on hand-placed atoms with image flags (unwrapped positions) and a singular
// inertia tensor, their use in the dry run, and every bad use refused with one line `error: FILE:LINE: …`
// and exit 2. (Values against lmp at 1 and 3 ranks: StylesLammps.group_functions.)
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/error.hpp"
#include "io/expression.hpp"
#include "program_harness.hpp"
#include "sim_harness.hpp"

namespace {

using namespace wmd;

TEST(GroupFunctionWords, CallsAreFoundWithTheirTrimmedWords) {
  const auto calls = io::group_calls("2*xcm( all , x)+count(top,slab) - sqrt(ke(all)) + mass (g)");
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0].key(), "xcm(all,x)");
  EXPECT_EQ(calls[1].key(), "count(top,slab)");
  EXPECT_EQ(calls[2].key(), "ke(all)");
  EXPECT_EQ(calls[3].key(), "mass(g)");
  EXPECT_TRUE(io::is_group_function("omega"));
  EXPECT_FALSE(io::is_group_function("sqrt"));
}

TEST(GroupFunctionWords, TheResolverGetsTheWordsAndAnExpressionWithoutOneRefusesThem) {
  std::string seen;
  const io::CallResolver calls = [&](const std::string& f, const std::vector<std::string>& args,
                                     const SourcePos&, double& v) {
    seen = io::GroupCall{f, args}.key();
    v = 4.0;
    return true;
  };
  const SourcePos at{"in.x", 3};
  EXPECT_EQ(io::evaluate_expression("1 + 2*bound(all, zmax, r)", nullptr, at, &calls), 9.0);
  EXPECT_EQ(seen, "bound(all,zmax,r)");
  EXPECT_THROW(io::evaluate_expression("count(all)", nullptr, at), InputError);
  EXPECT_THROW(io::evaluate_expression("count(all", nullptr, at, &calls), InputError);
}

// Three atoms of mass 2 in a 10 Å box: atom 1 at x = 1 with image +1 (unwrapped 11), atom 2 at x = 9, atom 3
// at x = 5, y = 3 (group g: atoms 1 and 2, on the x axis: a singular inertia tensor).
const std::string kThree =
    "units metal\natom_style atomic\nboundary p p p\nregion box block 0 10 0 10 0 10 units box\n"
    "create_box 1 box\ncreate_atoms 1 single 1 0 0 units box\ncreate_atoms 1 single 9 0 0 units box\n"
    "create_atoms 1 single 5 3 0 units box\nmass 1 2.0\nset atom 1 image 1 0 0\ngroup g id 1 2\n"
    "region half block 4 10 INF INF INF INF units box\n"
    "velocity g set 0 1 0 units box\n";

double value(test::ScriptRun& r, const std::string& formula) {
  return r.vars.evaluate(formula, SourcePos{"<test>", 0});
}

TEST(GroupFunctionValues, UnwrappedPositionsAsLammps) {
  test::ScriptRun r(kThree, test::scratch_dir("group_functions_values"));
  EXPECT_EQ(value(r, "count(all)"), 3.0);
  EXPECT_EQ(value(r, "count(all,half)"), 2.0);  // atoms 2 and 3 (atom 1 is inside at x = 1 wrapped)
  EXPECT_EQ(value(r, "mass(g)"), 4.0);
  EXPECT_DOUBLE_EQ(value(r, "xcm(g,x)"), 10.0);  // (11 + 9)/2: unwrapped
  EXPECT_DOUBLE_EQ(value(r, "xcm(all,y)"), 1.0);
  EXPECT_EQ(value(r, "bound(g,xmin)"), 1.0);  // bounds are of the wrapped positions
  EXPECT_EQ(value(r, "bound(all,ymax,half)"), 3.0);
  EXPECT_DOUBLE_EQ(value(r, "gyration(g)"), 1.0);
  EXPECT_DOUBLE_EQ(value(r, "vcm(all,y)"), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(value(r, "ke(g)"), 2.0 * 0.5 * 2.0 * 1.0364269e-4);
  // L_z = Σ m dx vy about x = 10: 2·(1·1) + 2·(−1·1) = 0; I_zz = Σ m dx² = 4; ω = 0 with a singular I.
  EXPECT_DOUBLE_EQ(value(r, "angmom(g,z)"), 0.0);
  EXPECT_DOUBLE_EQ(value(r, "inertia(g,zz)"), 4.0);
  EXPECT_DOUBLE_EQ(value(r, "inertia(g,xx)"), 0.0);
  EXPECT_DOUBLE_EQ(value(r, "omega(g,z)"), 0.0);
  // A spinning pair: atom 1 +y, atom 2 −y about the centre → L_z = 2·1·1 + 2·(−1)(−1) = 4, ω_z = 4/4 = 1.
  test::ScriptRun spin(
      kThree + "velocity g set 0 -1 0 units box\ngroup one id 1\nvelocity one set 0 1 0 units box\n",
      test::scratch_dir("group_functions_spin"));
  EXPECT_DOUBLE_EQ(value(spin, "angmom(g,z)"), 4.0);
  EXPECT_NEAR(value(spin, "omega(g,z)"), 1.0, 1e-14);
  EXPECT_NEAR(value(spin, "omega(g,x)"), 0.0, 1e-14);
}

TEST(GroupFunctionValues, EmptySelectionsGiveLammpsZerosAndBounds) {
  test::ScriptRun r(kThree + "region far block 100 200 INF INF INF INF units box\n",
                    test::scratch_dir("group_functions_empty"));
  EXPECT_EQ(value(r, "count(all,far)"), 0.0);
  EXPECT_EQ(value(r, "xcm(all,x,far)"), 0.0);
  EXPECT_EQ(value(r, "gyration(all,far)"), 0.0);
  EXPECT_EQ(value(r, "omega(all,y,far)"), 0.0);
  EXPECT_EQ(value(r, "bound(all,zmin,far)"), 1e20);
  EXPECT_EQ(value(r, "bound(all,zmax,far)"), -1e20);
}

TEST(GroupFunctionValues, AtomStyleFormulasReadThemAsGlobalValues) {
  test::ScriptRun r(kThree + "variable d atom x-xcm(all,x)+0*count(g)\n",
                    test::scratch_dir("group_functions_atom"));
  std::vector<double> d;
  r.sim->atom_variable("d", SourcePos{"<test>", 0}, d);
  ASSERT_EQ(d.size(), 3u);
  // x − xcm with the wrapped x and the unwrapped centre (11 + 9 + 5)/3.
  double sum = 0.0;
  for (double v : d) sum += v;
  EXPECT_NEAR(sum, 15.0 - 25.0, 1e-12);
}

// One bad formula, printed in the dry run: exit 2 and one line naming its file and line.
struct BadCall {
  const char* name;
  const char* formula;
  const char* needle;
};
void PrintTo(const BadCall& c, std::ostream* os) {
  *os << c.name;
}
class GroupFunctionBadInput : public ::testing::TestWithParam<BadCall> {};

TEST_P(GroupFunctionBadInput, ExitsTwoWithFileAndLine) {
  const BadCall& c = GetParam();
  const std::string dir = test::scratch_dir(std::string("group_functions_bad_") + c.name);
  std::ofstream(dir + "/in.bad") << kThree << "variable v equal " << c.formula << "\nprint \"${v}\"\nrun 1\n";
  const auto r = test::run_wafermd_in(dir, "run in.bad --output out");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("error: in.bad:15: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Calls, GroupFunctionBadInput,
    ::testing::Values(BadCall{"unknown_group", "count(nogroup)", "group 'nogroup' does not exist"},
                      BadCall{"unknown_region", "xcm(all,x,noregion)", "region 'noregion' does not exist"},
                      BadCall{"bad_dimension", "vcm(all,w)", "'w' is not one of x, y, z"},
                      BadCall{"bad_bound", "bound(all,x)", "not one of xmin"},
                      BadCall{"bad_inertia", "inertia(all,yx)", "not one of xx"},
                      BadCall{"too_many", "count(all,half,x)", "count() takes a group ID"},
                      BadCall{"too_few", "xcm(all)", "xcm() takes a group ID and a dimension"},
                      BadCall{"charge", "charge(all)", "atom_style atomic has no charges"},
                      BadCall{"unclosed", "1+mass(all", "missing ')'"}));

TEST(GroupFunctionDryRun, ThermoColumnsEvaluateOnTheSetUpState) {
  // The dry run checks a thermo column's formula before any dynamics: a bad group there stops the input.
  const std::string dir = test::scratch_dir("group_functions_dry");
  std::ofstream(dir + "/in.bad") << kThree
                                 << "pair_style eam\npair_coeff 1 1 Cu_u3.eam\n"
                                    "variable v equal gyration(nogroup)\nthermo_style custom step v_v\n"
                                    "fix 1 all nve\nrun 1\n";
  const auto r = test::run_wafermd_in(dir, "run in.bad --output out");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("group 'nogroup' does not exist"), std::string::npos) << r.err;
}

}  // namespace

namespace {

TEST(GroupFunctionScripts, BasalExampleStopsWhereLmpDoes) {
  // PACKAGES/basal/in.basal unchanged: its `count(all)` prints lmp's atom count, and it stops, as lmp, at
  // `compute basal/atom` (a package Debian's lmp lacks), line 74.
  const std::string src = "/usr/share/lammps/examples/PACKAGES/basal/";
  if (!std::filesystem::exists(src + "in.basal")) GTEST_SKIP() << "lammps-examples is not installed";
  const std::string dir = wmd::test::scratch_dir("group_functions_basal");
  for (const char* f : {"in.basal", "almg.liu"}) std::filesystem::copy_file(src + f, dir + "/" + f);
  const auto r = wmd::test::run_wafermd_in(dir, "run in.basal --output out");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("error: in.basal:74: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("basal/atom"), std::string::npos) << r.err;
  // Its first 73 lines run (the dry run prints nothing): count(all) prints lmp's atom count.
  std::ifstream in(dir + "/in.basal");
  std::ofstream head(dir + "/in.head");
  std::string line;
  for (int n = 0; n < 73 && std::getline(in, line); ++n) head << line << "\n";
  head.close();
  const auto h = wmd::test::run_wafermd_in(dir, "run in.head --output out_head");
  EXPECT_EQ(h.status, 0) << h.err;
  EXPECT_NE(h.out.find("# of atoms are: 32823\n"), std::string::npos) << h.out;
}

}  // namespace
