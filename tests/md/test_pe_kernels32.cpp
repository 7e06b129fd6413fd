// The fp32 PE kernels (md/mesh/pe_kernels32.*: AVX-512 where built, scalar otherwise) against the fp64 atom
// kernels of the cluster's deterministic mode fed the same fp32 displacements: single-element and alloy
// tables, neighbourhoods shorter than one 16-lane group and longer than one 128-slot block, every periodic
// image code, and slots outside the cut-off that must not count.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "md/force/eam_atom_kernels.hpp"
#include "md/mesh/pe_kernels32.hpp"
#include "potentials/eam_tables.hpp"

namespace {

using namespace wmd;
namespace pot = wmd::potentials;

pot::EamTables tables(bool alloy) {
  if (!alloy) {
    pot::EamBuilder b(pot::EamStyle::funcfl, 1);
    b.add_funcfl(1, 1, 1, 1, "Cu_u3.eam", {});
    return b.build();
  }
  pot::EamBuilder b(pot::EamStyle::setfl, 2);
  b.set_elements("CuTa.eam.alloy", {"Cu", "Ta"}, {});
  return b.build();
}

// One PE's slots: n neighbours of an atom at xi, distances spread over 1.8 Å .. cut + 1 Å, each behind a
// random periodic image of a 40 Å box.
struct Hood {
  float xi[3];
  std::vector<float> x, y, z, fp;
  std::vector<int8_t> shift, type;
  int ti = 1;
};

Hood make_hood(int n, int ntypes, double cut, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), rad(1.8, cut + 1.0), fpd(-3.0, -1.0);
  Hood h;
  const float L = 40.0f;
  for (float& c : h.xi) c = static_cast<float>(20.0 + 5.0 * u(rng));
  h.ti = 1 + static_cast<int>(rng() % ntypes);
  for (int k = 0; k < n; ++k) {
    double d[3], norm = 0;
    for (double& c : d) c = u(rng), norm += c * c;
    const double r = rad(rng) / std::sqrt(norm);
    const int code = static_cast<int>(rng() % 27);
    const int sh[3] = {code % 3 - 1, (code / 3) % 3 - 1, code / 9 - 1};
    // x_j such that x_i − (x_j + shift·L) ≈ d·r.
    h.x.push_back(static_cast<float>(h.xi[0] - d[0] * r - sh[0] * L));
    h.y.push_back(static_cast<float>(h.xi[1] - d[1] * r - sh[1] * L));
    h.z.push_back(static_cast<float>(h.xi[2] - d[2] * r - sh[2] * L));
    h.shift.push_back(static_cast<int8_t>(code));
    h.type.push_back(static_cast<int8_t>(1 + rng() % ntypes));
    h.fp.push_back(static_cast<float>(fpd(rng)));
  }
  return h;
}

class PeKernels32 : public ::testing::TestWithParam<std::tuple<bool, int>> {};

TEST_P(PeKernels32, MatchFp64AtomKernelsOnTheSameDisplacements) {
  const auto [alloy, n] = GetParam();
  const pot::EamTables t = tables(alloy);
  const md::mesh::PeTables32 pt = md::mesh::make_pe_tables32(t);
  const double L[3] = {40.0, 40.0, 40.0};
  const md::mesh::ShiftOffsets32 so = md::mesh::make_shift_offsets32(L);
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const Hood h = make_hood(n, t.ntypes, t.cutmax, seed);
    md::mesh::PeSlots32 in;
    in.n = n, in.x = h.x.data(), in.y = h.y.data(), in.z = h.z.data();
    in.shift = h.shift.data(), in.type = h.type.data(), in.fp = h.fp.data();
    // Reference: the fp32 displacements the PE forms, then fp64 arithmetic.
    std::vector<double> dx(n), dy(n), dz(n), fpj(n);
    std::vector<int> tj(n);
    int in_cut_ref = 0;
    for (int k = 0; k < n; ++k) {
      const int code = h.shift[k];
      dx[k] = md::mesh::pe_delta(h.xi[0], h.x[k], code % 3 - 1, 40.0f);
      dy[k] = md::mesh::pe_delta(h.xi[1], h.y[k], (code / 3) % 3 - 1, 40.0f);
      dz[k] = md::mesh::pe_delta(h.xi[2], h.z[k], code / 9 - 1, 40.0f);
      const float rsq = static_cast<float>(dx[k]) * static_cast<float>(dx[k]) +
                        static_cast<float>(dy[k]) * static_cast<float>(dy[k]) +
                        static_cast<float>(dz[k]) * static_cast<float>(dz[k]);
      in_cut_ref += rsq < pt.cutsq;
      tj[k] = h.type[k], fpj[k] = h.fp[k];
    }
    const double rho_ref = md::atom_density(t, h.ti, n, dx.data(), dy.data(), dz.data(), tj.data());
    int in_cut = -1;
    const float rho = md::mesh::pe_density32(pt, so, h.ti, h.xi, in, in_cut);
    EXPECT_EQ(in_cut, in_cut_ref) << "seed " << seed;
    EXPECT_NEAR(rho, rho_ref, 2e-5 * std::abs(rho_ref) + 1e-6) << "seed " << seed;

    const double fpi = -2.1;
    double f_ref[3] = {0, 0, 0}, v_ref[6] = {0, 0, 0, 0, 0, 0};
    const double e_ref =
        md::atom_force(t, h.ti, fpi, n, dx.data(), dy.data(), dz.data(), tj.data(), fpj.data(), f_ref, v_ref);
    float f[3] = {9, 9, 9}, v[6] = {0, 0, 0, 0, 0, 0};
    const float e = md::mesh::pe_force32(pt, so, h.ti, static_cast<float>(fpi), h.xi, in, f, v);
    // fp32 sums of terms of either sign: tolerances scale with the sum of the terms' magnitudes (each term
    // from the fp64 kernel on that one neighbour).
    double fmag = 0, emag = 0;
    for (int k = 0; k < n; ++k) {
      double fk[3] = {0, 0, 0}, vk[6] = {0, 0, 0, 0, 0, 0};
      emag += std::abs(md::atom_force(t, h.ti, fpi, 1, &dx[k], &dy[k], &dz[k], &tj[k], &fpj[k], fk, vk));
      fmag += std::sqrt(fk[0] * fk[0] + fk[1] * fk[1] + fk[2] * fk[2]);
    }
    EXPECT_NEAR(e, e_ref, 1e-5 * emag + 1e-6) << "seed " << seed;
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(f[c], f_ref[c], 1e-5 * fmag + 1e-6) << "seed " << seed << " f" << c;
    // |r ⊗ f| per pair is at most (cut + 1 Å)·|f|.
    for (int c = 0; c < 6; ++c)
      EXPECT_NEAR(v[c], v_ref[c], 1e-5 * (t.cutmax + 1.0) * fmag + 1e-6) << "seed " << seed << " v" << c;
  }
}

INSTANTIATE_TEST_SUITE_P(ShortAndLongHoods, PeKernels32,
                         ::testing::Combine(::testing::Bool(), ::testing::Values(1, 7, 16, 78, 300)));

TEST(PeKernels32, EmptyHoodGivesZero) {
  const pot::EamTables t = tables(false);
  const md::mesh::PeTables32 pt = md::mesh::make_pe_tables32(t);
  const double L[3] = {40.0, 40.0, 40.0};
  const md::mesh::ShiftOffsets32 so = md::mesh::make_shift_offsets32(L);
  md::mesh::PeSlots32 in;
  const float xi[3] = {1, 2, 3};
  int in_cut = -1;
  EXPECT_EQ(md::mesh::pe_density32(pt, so, 1, xi, in, in_cut), 0.0f);
  EXPECT_EQ(in_cut, 0);
  float f[3] = {5, 5, 5}, v[6] = {0, 0, 0, 0, 0, 0};
  EXPECT_EQ(md::mesh::pe_force32(pt, so, 1, -1.0f, xi, in, f, v), 0.0f);
  EXPECT_EQ(f[0], 0.0f);
  EXPECT_EQ(f[2], 0.0f);
}

}  // namespace
