// Forces and virial are the exact derivatives of the energy: central finite differences of E, for funcfl,
// setfl and Finnis–Sinclair potentials, in boxes smaller than twice the cutoff.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "md/cluster/cluster_backend.hpp"
#include "md/core/lattice.hpp"
#include "sim_harness.hpp"

namespace {

using namespace wmd::md;
namespace pot = wmd::potentials;

struct Case {
  const char* name;
  pot::EamStyle style;
  const char* file;
  std::vector<std::string> elements;  // empty for funcfl
  const char* lattice;
  double a;
  int cells;
};

State make_state(const Case& c, const pot::EamTables& t) {
  State s;
  s.ntypes = static_cast<int>(std::max<size_t>(1, c.elements.size()));
  s.mass.assign(s.ntypes + 1, 0.0);
  for (int k = 1; k <= s.ntypes; ++k) s.mass[k] = t.type_mass[k];
  Lattice lat;
  make_lattice(c.lattice, c.a, lat);
  for (int d = 0; d < 3; ++d) s.box.lo[d] = 0.0, s.box.hi[d] = c.cells * c.a;
  s.box.defined = true;
  create_lattice_atoms(s, lat, std::vector<int>(lat.basis.size(), 1), nullptr);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-0.15, 0.15);
  for (size_t i = 0; i < s.atoms.size(); ++i) {
    s.atoms.x[i] += u(rng), s.atoms.y[i] += u(rng), s.atoms.z[i] += u(rng);
    s.atoms.type[i] = 1 + static_cast<int>(i % s.ntypes);
  }
  return s;
}

pot::EamTables make_tables(const Case& c) {
  const int ntypes = static_cast<int>(std::max<size_t>(1, c.elements.size()));
  pot::EamBuilder b(c.style, ntypes);
  const std::string& path = c.file;
  if (c.style == pot::EamStyle::funcfl)
    b.add_funcfl(1, 1, 1, 1, path, {});
  else
    b.set_elements(path, c.elements, {});
  return b.build();
}

double energy(State s, const pot::EamTables& t) {
  ClusterBackend b;
  b.setup(s, t, NeighborSettings{}, false);
  return b.result().energy;
}

// Keeps ctest's listing readable.
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

class FiniteDifference : public ::testing::TestWithParam<Case> {};

TEST_P(FiniteDifference, ForcesAreMinusTheEnergyGradient) {
  const Case& c = GetParam();
  const auto t = make_tables(c);
  State s = make_state(c, t);
  ClusterBackend b;
  b.setup(s, t, NeighborSettings{}, false);
  double fmax = 0.0;
  for (size_t i = 0; i < s.atoms.size(); ++i)
    fmax = std::max({fmax, std::fabs(s.atoms.fx[i]), std::fabs(s.atoms.fy[i])});
  const double h = 1e-5;
  for (size_t i : {size_t{0}, size_t{5}, s.atoms.size() - 1}) {
    for (int d = 0; d < 3; ++d) {
      State p = s, m = s;
      (d == 0 ? p.atoms.x : d == 1 ? p.atoms.y : p.atoms.z)[i] += h;
      (d == 0 ? m.atoms.x : d == 1 ? m.atoms.y : m.atoms.z)[i] -= h;
      const double fd = -(energy(p, t) - energy(m, t)) / (2 * h);
      const double f = (d == 0 ? s.atoms.fx : d == 1 ? s.atoms.fy : s.atoms.fz)[i];
      EXPECT_NEAR(f, fd, 1e-6 * fmax) << c.name << " atom " << i << " dim " << d;
    }
  }
}

TEST_P(FiniteDifference, VirialIsMinusTheStrainDerivative) {
  const Case& c = GetParam();
  const auto t = make_tables(c);
  State s = make_state(c, t);
  ClusterBackend b;
  b.setup(s, t, NeighborSettings{}, false);
  const double* w = b.result().virial;
  const double eps = 1e-6;
  for (int d = 0; d < 3; ++d) {
    auto strained = [&](double e) {
      State q = s;
      auto& x = d == 0 ? q.atoms.x : d == 1 ? q.atoms.y : q.atoms.z;
      for (double& v : x) v *= 1.0 + e;
      q.box.hi[d] *= 1.0 + e;
      return energy(q, t);
    };
    const double fd = -(strained(eps) - strained(-eps)) / (2 * eps);
    EXPECT_NEAR(w[d], fd, 1e-6 * std::max(1.0, std::fabs(fd))) << c.name << " W" << d << d;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Eam, FiniteDifference,
    ::testing::Values(
        Case{"CuU3_small", pot::EamStyle::funcfl, "Cu_u3.eam", {}, "fcc", 3.615, 2},
        Case{"CuNi_alloy", pot::EamStyle::setfl, "CuNi.eam.alloy", {"Cu", "Ni"}, "fcc", 3.56, 3},
        Case{"AlFe_fs", pot::EamStyle::finnis_sinclair, "AlFe_mm.eam.fs", {"Fe", "Al"}, "bcc", 2.86, 3}),
    [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

}  // namespace

namespace {

// A pair_coeff between two runs that reads a file with the same r and ρ grids (Ag_u3 and Au_u3): the second
// run's energy and forces are those of the new potential alone (the cluster backend once kept its packed copy
// of the old tables, keyed by the grid; lmp's second run: −1006.08 eV, the stale tables gave −1271.77).
TEST(PotentialChange, ANewPotentialOnTheSameGridReplacesThePackedTables) {
  const std::string head =
      "units metal\natom_style atomic\nboundary p p p\nlattice fcc 4.08\nregion box block 0 4 0 4 0 4\n"
      "create_box 1 box\ncreate_atoms 1 box\ndisplace_atoms all random 0.1 0.1 0.1 77\npair_style eam\n";
  const std::string ag = "pair_coeff 1 1 Ag_u3.eam\nrun 0\n";
  const std::string au = "pair_coeff 1 1 Au_u3.eam\nrun 0\n";
  const wmd::test::ScriptRun both(head + ag + au, wmd::test::scratch_dir("potential_change_both"));
  const wmd::test::ScriptRun alone(head + au, wmd::test::scratch_dir("potential_change_alone"));
  const ForceResult& a = both.sim->backend->result();
  const ForceResult& b = alone.sim->backend->result();
  EXPECT_NEAR(a.energy, b.energy, 1e-12 * std::fabs(b.energy));
  for (int c = 0; c < 6; ++c) EXPECT_NEAR(a.virial[c], b.virial[c], 1e-9 * std::fabs(b.virial[0])) << c;
  const Atoms &fa = both.state().atoms, &fb = alone.state().atoms;
  ASSERT_EQ(fa.size(), fb.size());
  std::vector<double> ga(fa.size()), gb(fb.size());  // fx by id
  for (size_t i = 0; i < fa.size(); ++i) ga[fa.id[i] - 1] = fa.fx[i], gb[fb.id[i] - 1] = fb.fx[i];
  for (size_t k = 0; k < ga.size(); ++k) EXPECT_NEAR(ga[k], gb[k], 1e-10) << "atom " << k + 1;
}

}  // namespace
