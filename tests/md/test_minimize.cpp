// Energy minimiser: CG and FIRE return a perturbed crystal to the lattice with LAMMPS's energy; box
// relaxation gives LAMMPS's lattice constant; bad minimisation input is an InputError; the YAML block
// translates.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>

#include "io/yaml_input.hpp"
#include "sim_harness.hpp"

namespace {

// The minimiser's global sums go through a Comm, which needs MPI (a single-process run here).
class MpiEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    int on = 0;
    MPI_Initialized(&on);
    if (!on) MPI_Init(nullptr, nullptr);
  }
  void TearDown() override {
    int off = 0;
    MPI_Finalized(&off);
    if (!off) MPI_Finalize();
  }
};
const auto* const kMpi = ::testing::AddGlobalTestEnvironment(new MpiEnvironment);

const std::string kCrystal =
    "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 3 0 3 0 3\n"
    "create_box 1 box\ncreate_atoms 1 box\npair_style eam\n"
    "pair_coeff 1 1 Cu_u3.eam\nthermo 50\n";

// LAMMPS (Debian 20220106) `minimize 0 1e-10 10000 100000` of kCrystal after
// `displace_atoms all random 0.1 0.1 0.1 12345`: final energy (eV).
constexpr double kLammpsMinimumEnergy = -382.320000246219;
// LAMMPS `fix box/relax iso 0.0` + `minimize 0 1e-12 10000 100000` from a = 3.65: final lx / 3.
constexpr double kLammpsCuU3A0 = 10.844999927293854 / 3.0;

// Largest distance of an atom from its lattice site after removing the mean displacement (Å).
double distance_from_lattice(const wmd::md::State& s, double a) {
  const auto& at = s.atoms;
  const double L = s.box.prd(0);
  double mean[3] = {0, 0, 0};
  std::vector<double> d(3 * at.size());
  for (size_t i = 0; i < at.size(); ++i) {
    const double p[3] = {at.x[i] + at.ix[i] * L, at.y[i] + at.iy[i] * L, at.z[i] + at.iz[i] * L};
    for (int k = 0; k < 3; ++k) {
      // displacement from the nearest site of the fcc lattice: sites lie on the a/2 grid
      const double half = 0.5 * a;
      d[3 * i + k] = p[k] - half * std::round(p[k] / half);
      mean[k] += d[3 * i + k] / at.size();
    }
  }
  double worst = 0.0;
  for (size_t i = 0; i < at.size(); ++i) {
    double r2 = 0.0;
    for (int k = 0; k < 3; ++k) r2 += (d[3 * i + k] - mean[k]) * (d[3 * i + k] - mean[k]);
    worst = std::max(worst, std::sqrt(r2));
  }
  return worst;
}

double final_energy(const wmd::test::ScriptRun& r) {
  double e = 0.0;
  EXPECT_TRUE(r.sim->keyword_value("pe", e));
  return e;
}

TEST(Minimize, ConjugateGradientsReturnAPerturbedCrystalToTheLattice) {
  wmd::test::ScriptRun r(kCrystal +
                             "displace_atoms all random 0.1 0.1 0.1 12345\nmin_style cg\n"
                             "minimize 0 1e-10 10000 100000\n",
                         wmd::test::scratch_dir("min_cg"));
  const double before = 0.1;  // the displacement really was there: LAMMPS's start energy is 66 eV higher
  EXPECT_LT(distance_from_lattice(r.state(), 3.615), 1e-8)
      << "not back on the lattice (started ~" << before << ")";
  EXPECT_NEAR(final_energy(r), kLammpsMinimumEnergy, 1e-9 * std::fabs(kLammpsMinimumEnergy));
}

TEST(Minimize, FireReturnsAPerturbedCrystalToTheLattice) {
  wmd::test::ScriptRun r(kCrystal +
                             "displace_atoms all random 0.1 0.1 0.1 12345\nmin_style fire\n"
                             "timestep 0.002\nminimize 0 1e-8 20000 200000\n",
                         wmd::test::scratch_dir("min_fire"));
  EXPECT_LT(distance_from_lattice(r.state(), 3.615), 1e-6);
  EXPECT_NEAR(final_energy(r), kLammpsMinimumEnergy, 1e-9 * std::fabs(kLammpsMinimumEnergy));
}

TEST(Minimize, StartingPointEnergyIsHigher) {
  // guards the two tests above: the perturbation moves atoms by up to 0.1 Å and costs energy
  wmd::test::ScriptRun r(kCrystal + "displace_atoms all random 0.1 0.1 0.1 12345\nrun 0\n",
                         wmd::test::scratch_dir("min_start"));
  EXPECT_GT(distance_from_lattice(r.state(), 3.615), 0.05);
  EXPECT_GT(final_energy(r), kLammpsMinimumEnergy + 10.0);
}

TEST(Minimize, BoxRelaxGivesLammpsLatticeConstant) {
  std::string in = kCrystal;
  in.replace(in.find("3.615"), 5, "3.65");
  wmd::test::ScriptRun r(in + "fix br all box/relax iso 0.0\nmin_style cg\nminimize 0 1e-12 10000 100000\n",
                         wmd::test::scratch_dir("min_box"));
  const double a0 = r.state().box.prd(0) / 3.0;
  EXPECT_NEAR(a0, kLammpsCuU3A0, 1e-6 * kLammpsCuU3A0);
  EXPECT_NEAR(r.state().box.prd(1), r.state().box.prd(0), 1e-12);
  double press = 1.0;
  ASSERT_TRUE(r.sim->keyword_value("press", press));
  EXPECT_LT(std::fabs(press), 1e-3) << "bar";
  EXPECT_NEAR(final_energy(r) / 108.0, -3.54000000227944, 1e-10);
}

TEST(Minimize, AnisoRelaxUnderPressureShrinksTheBox) {
  wmd::test::ScriptRun r(kCrystal +
                             "fix br all box/relax aniso 10000.0 vmax 0.001\n"
                             "thermo_style custom step pe pxx pyy pzz\nminimize 0 1e-10 10000 100000\n",
                         wmd::test::scratch_dir("min_aniso"));
  double pxx = 0, pyy = 0, pzz = 0;
  r.sim->keyword_value("pxx", pxx), r.sim->keyword_value("pyy", pyy), r.sim->keyword_value("pzz", pzz);
  EXPECT_NEAR(pxx, 10000.0, 0.1);
  EXPECT_NEAR(pyy, 10000.0, 0.1);
  EXPECT_NEAR(pzz, 10000.0, 0.1);
  EXPECT_LT(r.state().box.prd(0), 3 * 3.615);
}

TEST(Minimize, SingleDimensionRelaxReachesItsTarget) {
  // only z is a degree of freedom: pzz reaches the target, x and y keep their lengths
  wmd::test::ScriptRun r(kCrystal +
                             "fix br all box/relax z 5000.0 vmax 0.001\nthermo_style custom step pe "
                             "pzz\nminimize 0 1e-10 10000 100000\n",
                         wmd::test::scratch_dir("min_z"));
  double pzz = 0;
  r.sim->keyword_value("pzz", pzz);
  EXPECT_NEAR(pzz, 5000.0, 0.1);
  EXPECT_EQ(r.state().box.prd(0), 3 * 3.615);
  EXPECT_LT(r.state().box.prd(2), 3 * 3.615);
}

void expect_input_error(const std::string& tail, const std::string& needle) {
  try {
    wmd::test::ScriptRun r(kCrystal + tail, wmd::test::scratch_dir("min_bad"), true);
    FAIL() << "no error for: " << tail;
  } catch (const wmd::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Minimize, BadInputIsAnInputError) {
  expect_input_error("min_style sd\n", "min style");
  expect_input_error("min_modify dmax -1\n", "dmax");
  expect_input_error("minimize 0 1e-8 100\n", "force evaluations");
  expect_input_error("minimize 1.5 1e-8 100 1000\n", "energy tolerance");
  expect_input_error("min_style fire\nfix b all box/relax iso 0\nminimize 0 1e-8 10 100\n", "fire");
  // LAMMPS's own checks: tilts need a triclinic box; coupled dimensions are relaxed, to one target; a tilt is
  // relaxed or scaled, not both
  expect_input_error("fix b all box/relax tri 0\n", "Pxy/Pxz/Pyz in fix box/relax with non-triclinic box");
  expect_input_error("fix b all box/relax iso 0 xy 0\n", "non-triclinic box");
  expect_input_error("fix b all box/relax x 0 couple xyz\n", "coupled dimension");
  expect_input_error("fix b all box/relax x 0 y 5 couple xy\n", "one target");
  expect_input_error("fix b all box/relax tri 0 scalexy yes\n", "both relaxation and scaling");
  expect_input_error("fix b all box/relax iso 0 vmax 0\n", "vmax");
}

TEST(Minimize, BoxRelaxRefusesNonPeriodicDimension) {
  try {
    wmd::test::ScriptRun r(
        "units metal\natom_style atomic\nboundary p p f\nlattice fcc 3.615\nregion box block 0 3 0 3 0 3\n"
        "create_box 1 box\ncreate_atoms 1 box\nfix b all box/relax iso 0\n",
        wmd::test::scratch_dir("min_bad_np"), true);
    FAIL();
  } catch (const wmd::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("non-periodic"), std::string::npos) << e.what();
  }
}

TEST(Minimize, YamlBlockTranslatesToLammpsCommands) {
  const std::string dir = wmd::test::scratch_dir("min_yaml");
  const std::string path = dir + "/in.yaml";
  std::ofstream(path) << "system: {lattice: {style: fcc, constant: 3.6}, cells: [3, 3, 3]}\n"
                         "potential: {style: eam, files: [Cu_u3.eam]}\n"
                         "minimize: {style: cg, etol: 0, ftol: 1.0e-10, maxiter: 500,\n"
                         "           box_relax: {mode: iso, pressure: 0}}\n";
  const auto y = wmd::io::read_yaml_input(path, {});
  std::vector<std::string> texts;
  for (const auto& c : y.commands) texts.push_back(c.text);
  auto has = [&](const std::string& t) { return std::find(texts.begin(), texts.end(), t) != texts.end(); };
  EXPECT_TRUE(has("min_style cg"));
  EXPECT_TRUE(has("fix wafermd_box_relax all box/relax iso 0"));
  EXPECT_TRUE(has("minimize 0 1e-10 500 5000"));
  EXPECT_TRUE(has("unfix wafermd_box_relax"));
  std::ofstream(path) << "system: {lattice: {style: fcc, constant: 3.6}, cells: [3, 3, 3]}\n"
                         "potential: {style: eam, files: [Cu_u3.eam]}\n"
                         "minimize: {style: lbfgs}\n";
  EXPECT_THROW(wmd::io::read_yaml_input(path, {}), wmd::InputError);
}

}  // namespace
