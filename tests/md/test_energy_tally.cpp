// Steps without output skip the global energy and virial (Backend::compute's tally flag): the forces stay
// bit-for-bit those of a tallied step, the next tallied step sums exactly what an always-tallying run sums,
// and thermo refuses to read a skipped energy instead of printing a stale one.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>

#include "base/error.hpp"
#include "md/cluster/cluster_backend.hpp"
#include "md/core/lattice.hpp"
#include "md/mesh/mesh_backend.hpp"
#include "md/run/thermo.hpp"

namespace {

using namespace wmd;

potentials::EamTables cu_tables() {
  potentials::EamBuilder b(potentials::EamStyle::funcfl, 1);
  b.add_funcfl(1, 1, 1, 1, "Cu_u3.eam", SourcePos{"<test>", 0});
  return b.build();
}

md::State warm_crystal() {
  md::State s;
  s.ntypes = 1;
  s.mass = {0.0, 63.55};
  md::Lattice lat;
  md::make_lattice("fcc", 3.615, lat);
  for (int d = 0; d < 3; ++d) s.box.lo[d] = 0.0, s.box.hi[d] = 6 * 3.615;
  s.box.defined = true;
  md::create_lattice_atoms(s, lat, std::vector<int>(lat.basis.size(), 1), nullptr);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-0.1, 0.1);
  for (size_t i = 0; i < s.atoms.size(); ++i)
    s.atoms.x[i] += u(rng), s.atoms.y[i] += u(rng), s.atoms.z[i] += u(rng);
  return s;
}

// Moves every atom a little (less than half the skin: no rebuild), the same way in every copy.
void nudge(md::State& s, int step) {
  for (size_t i = 0; i < s.atoms.size(); ++i) {
    const double d = 0.01 * std::sin(0.37 * static_cast<double>(i) + step);
    s.atoms.x[i] += d, s.atoms.y[i] -= 0.5 * d, s.atoms.z[i] += 0.25 * d;
  }
}

// "cluster_fp64", "cluster_mixed" or "mesh_fp32".
std::unique_ptr<md::Backend> make_backend(const std::string& name) {
  if (name == "mesh_fp32") return std::make_unique<md::mesh::MeshBackend>(md::mesh::MeshOptions{});
  return std::make_unique<md::ClusterBackend>(name == "cluster_mixed" ? md::PairPrecision::mixed
                                                                      : md::PairPrecision::fp64);
}

class EnergyTally : public ::testing::TestWithParam<std::string> {};

TEST_P(EnergyTally, SkippedStepsKeepForcesAndLaterSumsBitForBit) {
  const potentials::EamTables t = cu_tables();
  md::NeighborSettings nb;
  nb.skin = 1.0;
  md::State always = warm_crystal(), sometimes = always;
  auto a = make_backend(GetParam()), b = make_backend(GetParam());
  a->setup(always, t, nb, false);
  b->setup(sometimes, t, nb, false);
  for (int step = 1; step <= 3; ++step) {
    nudge(always, step), nudge(sometimes, step);
    const bool tally = step == 3;
    a->compute(always, false, true);
    b->compute(sometimes, false, tally);
    EXPECT_EQ(b->result().tallied, tally);
    ASSERT_TRUE(a->result().tallied);
    const md::Atoms &x = always.atoms, &y = sometimes.atoms;
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(std::memcmp(&x.fx[i], &y.fx[i], 8), 0) << "step " << step << " atom " << x.id[i];
      ASSERT_EQ(std::memcmp(&x.fy[i], &y.fy[i], 8), 0) << "step " << step << " atom " << x.id[i];
      ASSERT_EQ(std::memcmp(&x.fz[i], &y.fz[i], 8), 0) << "step " << step << " atom " << x.id[i];
    }
  }
  // The tallied step after two skipped ones: the same energy and virial bits, and a real (non-zero) virial.
  EXPECT_EQ(std::memcmp(&a->result().energy, &b->result().energy, 8), 0);
  for (int c = 0; c < 6; ++c) EXPECT_EQ(std::memcmp(&a->result().virial[c], &b->result().virial[c], 8), 0);
  EXPECT_NE(b->result().virial[0], 0.0);
  EXPECT_LT(b->result().energy, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Backends, EnergyTally,
                         ::testing::Values("cluster_fp64", "cluster_mixed", "mesh_fp32"),
                         [](const auto& info) { return info.param; });

TEST(EnergyTallyThermo, SkippedEnergyIsRefusedNotPrinted) {
  md::State s = warm_crystal();
  md::ForceResult r;
  r.energy = -123.0;
  r.tallied = false;
  const md::ThermoContext ctx{&s, &r, 0.0, 0, false, nullptr};
  double v = 0.0;
  for (const char* k : {"pe", "epair", "etotal", "press", "pxx", "pyz"})
    EXPECT_THROW(md::thermo_value(k, ctx, v), RunError) << k;
  // Keywords that need no energy still work on such a step.
  EXPECT_TRUE(md::thermo_value("temp", ctx, v));
  EXPECT_TRUE(md::thermo_value("step", ctx, v));
  r.tallied = true;
  ASSERT_TRUE(md::thermo_value("pe", ctx, v));
  EXPECT_EQ(v, -123.0);
}

}  // namespace
