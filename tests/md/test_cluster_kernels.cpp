// The cluster pair kernels agree with themselves across their code paths: short lists, lists past the
// in-cut-off masks and past the stack buffers (large skins), the reduced-precision mode against fp64,
// per-atom energies (portable loop) against the total (vector loop), the passes split for overlap against
// the deterministic full-list path, for one and two atom types, and the embedding's vector loop against its
// scalar one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "base/error.hpp"
#include "md/cluster/cluster_backend.hpp"
#include "md/core/lattice.hpp"

namespace {

using namespace wmd::md;
namespace pot = wmd::potentials;

pot::EamTables tables(bool alloy) {
  pot::EamBuilder b(alloy ? pot::EamStyle::setfl : pot::EamStyle::funcfl, alloy ? 2 : 1);
  if (alloy)
    b.set_elements("CuNi.eam.alloy", {"Cu", "Ni"}, {});
  else
    b.add_funcfl(1, 1, 1, 1, "Cu_u3.eam", {});
  return b.build();
}

State crystal(int cells, int ntypes) {
  State s;
  s.ntypes = ntypes;
  s.mass.assign(ntypes + 1, 63.55);
  Lattice lat;
  make_lattice("fcc", 3.615, lat);
  for (int d = 0; d < 3; ++d) s.box.lo[d] = 0.0, s.box.hi[d] = cells * 3.615;
  s.box.defined = true;
  create_lattice_atoms(s, lat, std::vector<int>(lat.basis.size(), 1), nullptr);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-0.2, 0.2);
  for (size_t i = 0; i < s.atoms.size(); ++i) {
    s.atoms.x[i] += u(rng), s.atoms.y[i] += u(rng), s.atoms.z[i] += u(rng);
    s.atoms.type[i] = 1 + static_cast<int>(i % ntypes);
  }
  return s;
}

struct Forces {
  double energy;
  double virial[6];
  std::vector<double> f, eatom;
};

Forces compute(State s, const pot::EamTables& t, double skin, PairPrecision prec, bool eatom) {
  ClusterBackend b(prec);
  NeighborSettings nb;
  nb.skin = skin;
  b.setup(s, t, nb, eatom);
  // The backend may reorder its atoms (split_for_overlap): forces and energies are returned in id order.
  const size_t n = s.atoms.size();
  Forces out{b.result().energy, {}, std::vector<double>(3 * n), std::vector<double>(eatom ? n : 0)};
  std::copy(b.result().virial, b.result().virial + 6, out.virial);
  for (size_t i = 0; i < n; ++i) {
    const size_t k = static_cast<size_t>(s.atoms.id[i] - 1);
    out.f[3 * k] = s.atoms.fx[i], out.f[3 * k + 1] = s.atoms.fy[i], out.f[3 * k + 2] = s.atoms.fz[i];
    if (eatom) out.eatom[k] = b.result().eatom[i];
  }
  return out;
}

double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

class Kernels : public ::testing::TestWithParam<bool> {};

// Skins giving ≈ 30 half-list neighbours (the reference), ≈ 60 (in-cut-off masks across both words), ≈ 175
// (past the masks: the force pass tests distances again) and ≈ 600 (blocks of the stack buffers).
TEST_P(Kernels, LongListsMatchPartitionedLists) {
  const bool alloy = GetParam();
  const auto t = tables(alloy);
  const State s = crystal(5, alloy ? 2 : 1);
  const Forces a = compute(s, t, 0.3, PairPrecision::fp64, false);
  const double fmax = max_abs(a.f);
  for (const double skin : {2.0, 5.0, 10.0}) {
    const Forces b = compute(s, t, skin, PairPrecision::fp64, false);
    EXPECT_NEAR(a.energy, b.energy, 1e-10 * std::fabs(a.energy)) << skin;
    for (int k = 0; k < 6; ++k)
      EXPECT_NEAR(a.virial[k], b.virial[k], 1e-9 * std::fabs(a.virial[0]) + 1e-9) << skin;
    for (size_t i = 0; i < a.f.size(); ++i) ASSERT_NEAR(a.f[i], b.f[i], 1e-10 * fmax) << skin << " " << i;
  }
}

// The reduced-precision mode against fp64 through each path of the kernels: the in-cut-off masks (skins 1 and
// 2), the force pass testing distances again (5) and blocks of the stack buffers (10).
TEST_P(Kernels, ReducedPrecisionStaysCloseToFp64) {
  const bool alloy = GetParam();
  const auto t = tables(alloy);
  const State s = crystal(5, alloy ? 2 : 1);
  const Forces a = compute(s, t, 1.0, PairPrecision::fp64, false);
  const double fmax = max_abs(a.f);
  for (const double skin : {1.0, 2.0, 5.0, 10.0}) {
    const Forces b = compute(s, t, skin, PairPrecision::mixed, false);
    EXPECT_NE(a.energy, b.energy) << skin;  // a different code path, not fp64 again
    double de = std::fabs(a.energy - b.energy) / std::fabs(a.energy), df = 0.0, dv = 0.0;
    for (size_t i = 0; i < a.f.size(); ++i) df = std::max(df, std::fabs(a.f[i] - b.f[i]) / fmax);
    for (int k = 0; k < 6; ++k)
      dv = std::max(dv, std::fabs(a.virial[k] - b.virial[k]) / std::fabs(a.virial[0]));
    EXPECT_LT(de, 2e-7) << skin;
    EXPECT_LT(df, 1e-5) << skin;
    EXPECT_LT(dv, 1e-5) << skin;
  }
}

TEST_P(Kernels, PerAtomEnergiesSumToTheTotalAndForcesAgree) {
  const bool alloy = GetParam();
  const auto t = tables(alloy);
  const State s = crystal(5, alloy ? 2 : 1);
  const Forces a = compute(s, t, 1.0, PairPrecision::fp64, false);
  const Forces b = compute(s, t, 1.0, PairPrecision::fp64, true);
  double sum = 0.0;
  for (double e : b.eatom) sum += e;
  EXPECT_NEAR(sum, a.energy, 1e-10 * std::fabs(a.energy));
  EXPECT_NEAR(b.energy, a.energy, 1e-10 * std::fabs(a.energy));
  const double fmax = max_abs(a.f);
  for (size_t i = 0; i < a.f.size(); ++i) ASSERT_NEAR(a.f[i], b.f[i], 1e-10 * fmax) << i;
}

// The passes run in three pieces (inner half A, border, inner half B; the exchanges overlap the inner
// halves). Against the deterministic backend's full lists and per-atom kernels (an independent path): forces,
// energy and the virial (f·r in two parts on a tallied step) after a step through compute(), which starts the
// position exchange before the density pass and ends it in between.
TEST_P(Kernels, SplitPassesMatchTheFullListPath) {
  const bool alloy = GetParam();
  const auto t = tables(alloy);
  State a = crystal(6, alloy ? 2 : 1), b = a;
  NeighborSettings nb;
  nb.skin = 1.0;
  ClusterBackend split(PairPrecision::fp64), full(nullptr, nullptr, true);
  split.setup(a, t, nb, false);
  full.setup(b, t, nb, false);
  const NamedArrays st = split.save_state();
  const std::vector<double>& ab = st.at("overlap_split");
  ASSERT_EQ(ab.size(), 2u);
  EXPECT_GT(ab[0], 0.0);  // a 21.7 Å box has atoms 5.95 Å inside every face: the split is real
  EXPECT_GT(ab[1], 0.0);
  for (State* s : {&a, &b})
    for (size_t i = 0; i < s->atoms.size(); ++i)
      s->atoms.x[i] += 0.02 * std::sin(static_cast<double>(s->atoms.id[i]));
  split.compute(a, false, true);
  full.compute(b, false, true);
  auto by_id = [](const State& s) {
    std::vector<double> f(3 * s.atoms.size());
    for (size_t i = 0; i < s.atoms.size(); ++i) {
      const size_t k = static_cast<size_t>(s.atoms.id[i] - 1);
      f[3 * k] = s.atoms.fx[i], f[3 * k + 1] = s.atoms.fy[i], f[3 * k + 2] = s.atoms.fz[i];
    }
    return f;
  };
  const std::vector<double> fa = by_id(a), fb = by_id(b);
  const double fmax = max_abs(fb);
  for (size_t i = 0; i < fa.size(); ++i) ASSERT_NEAR(fa[i], fb[i], 1e-10 * fmax) << i;
  EXPECT_NEAR(split.result().energy, full.result().energy, 1e-10 * std::fabs(full.result().energy));
  for (int k = 0; k < 6; ++k)
    EXPECT_NEAR(split.result().virial[k], full.result().virial[k], 1e-9 * std::fabs(full.result().virial[0]))
        << k;
}

// One-type kernel inputs for cells³ fcc cells, built directly (no backend): images, half list, packed tables
// and the density pass's ρ̄ at every record. Built in place, since hp views g's and list's storage.
struct KernelInputs {
  pot::EamTables t = tables(false);
  State s;
  GhostImages g;
  HalfNeighborList list;
  EamPairTables pt;
  HalfPairs hp;
  size_t nall = 0;
  std::vector<double> rho;
  explicit KernelInputs(int cells) : s(crystal(cells, 1)) {
    ensure_kokkos();
    const Atoms& a = s.atoms;
    const double cut = t.cutmax + 1.0;
    build_ghost_images(s.box, a.x.data(), a.y.data(), a.z.data(), a.type.data(), static_cast<int>(a.size()),
                       cut, g);
    build_half_list(g, cut, list);
    pt = pack_pair_tables(t, false);
    hp = half_pairs(g, list);
    nall = static_cast<size_t>(g.nall());
    rho.assign(nall, 0.0);
    eam_density_half(pt, hp, PairPrecision::fp64, HostView<double>(rho.data(), nall));
  }
};

// The force pass updates each neighbour's force as a four-double row, the fourth double being the next
// record's or a spare one after the last record: a buffer without that spare double is refused, not overrun.
TEST(KernelContract, ForcePassNeedsTheSpareDouble) {
  const KernelInputs in(4);
  const size_t nall = in.nall;
  std::vector<double> fp(nall, 0.0), f(3 * nall + 1, 0.0);
  for (size_t j = 0; j < nall; ++j) fp[j] = -0.1 * in.rho[j];  // any F'; images need no fold for this check
  const HostView<const double> fpv(fp.data(), nall);
  EXPECT_THROW(eam_force_half(in.pt, in.hp, PairPrecision::fp64, fpv, HostView<double>(f.data(), 3 * nall),
                              nullptr, nullptr),
               wmd::RunError);
  const double e = eam_force_half(in.pt, in.hp, PairPrecision::fp64, fpv,
                                  HostView<double>(f.data(), 3 * nall + 1), nullptr, nullptr);
  EXPECT_TRUE(std::isfinite(e));
  EXPECT_EQ(f[3 * nall], 0.0);  // the spare double comes back as it was
  EXPECT_GT(max_abs(f), 0.0);
}

// With one atom type the embedding runs eight atoms at a time (no per-atom energies asked); with per-atom
// energies it takes the portable loop. Both must give the same bits: F' of every atom and the energy summed
// in atom order, for densities inside the table, at zero and past its end (F continued linearly), and for an
// atom count that leaves a partial group of eight.
TEST(KernelContract, EmbeddingVectorLoopMatchesTheScalarLoopBitForBit) {
  KernelInputs in(3);  // 108 atoms: 13 groups of eight and four left over
  const int n = static_cast<int>(in.s.atoms.size());
  const size_t nall = in.nall;
  for (int i = 0; i < n; i += 5) in.rho[i] = 0.0;
  for (int i = 1; i < n; i += 7) in.rho[i] = 1.5 * in.t.rhomax;
  std::vector<double> fp_vec(nall, 0.0), fp_scalar(nall, 0.0), eatom(nall, 0.0);
  const HostView<const double> rv(in.rho.data(), nall);
  const double e_vec = eam_embed(in.t, in.hp, rv, HostView<double>(fp_vec.data(), nall), nullptr);
  const double e_scalar = eam_embed(in.t, in.hp, rv, HostView<double>(fp_scalar.data(), nall), eatom.data());
  EXPECT_EQ(std::memcmp(&e_vec, &e_scalar, sizeof(double)), 0) << e_vec << " vs " << e_scalar;
  for (int i = 0; i < n; ++i) ASSERT_EQ(std::memcmp(&fp_vec[i], &fp_scalar[i], sizeof(double)), 0) << i;
  EXPECT_GT(max_abs(fp_vec), 0.0);
  // A step whose energy nobody reads (energy false) writes the same F'.
  std::vector<double> fp_quiet(nall, 0.0);
  eam_embed(in.t, in.hp, rv, HostView<double>(fp_quiet.data(), nall), nullptr, false);
  for (int i = 0; i < n; ++i) ASSERT_EQ(std::memcmp(&fp_quiet[i], &fp_scalar[i], sizeof(double)), 0) << i;
}

INSTANTIATE_TEST_SUITE_P(ClusterKernels, Kernels, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return i.param ? "CuNiAlloy" : "CuU3";
                         });

}  // namespace
