#include "potentials/zbl_pair.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "base/units.hpp"

namespace wmd::potentials {
namespace {

// LAMMPS's e_zbl, dzbldr and d2zbldr2 at r, each in its own order of operations (set_coeff's switch
// coefficients come from them).
struct ZblAt {
  double e, de, d2e;
};
ZblAt zbl_at(const ZblCoeffs<double>& k, double r) {
  const double rinv = 1.0 / r;
  double ex[4];
  for (int c = 0; c < 4; ++c) ex[c] = std::exp(-k.da[c] * r);
  double sum = kZblC[0] * ex[0];
  for (int c = 1; c < 4; ++c) sum += kZblC[c] * ex[c];
  ZblAt z;
  z.e = k.zze * sum * rinv;
  double sum_p = -kZblC[0] * k.da[0] * ex[0];
  for (int c = 1; c < 4; ++c) sum_p -= kZblC[c] * k.da[c] * ex[c];
  z.de = k.zze * (sum_p - sum * rinv) * rinv;
  double sum_p2 = kZblC[0] * ex[0] * k.da[0];
  for (int c = 1; c < 4; ++c) sum_p2 += kZblC[c] * ex[c] * k.da[c];
  double sum_pp = kZblC[0] * ex[0] * k.da[0] * k.da[0];
  for (int c = 1; c < 4; ++c) sum_pp += kZblC[c] * ex[c] * k.da[c] * k.da[c];
  z.d2e = k.zze * (sum_pp + 2.0 * sum_p2 * rinv + 2.0 * sum * rinv * rinv) * rinv;
  return z;
}

}  // namespace

ZblCoeffs<double> zbl_coeffs(double zi, double zj, double inner, double outer) {
  ZblCoeffs<double> k;
  const double ainv = (std::pow(zi, kZblPow) + std::pow(zj, kZblPow)) / (kZblA0 * 1.0);  // a0 · angstrom
  for (int c = 0; c < 4; ++c) k.da[c] = kZblD[c] * ainv;
  k.zze = zi * zj * units::qqr2e * 1.0 * 1.0;  // · qelectron²
  // The switch S(t) = A/3 t³ + B/4 t⁴ + C, t = r − inner, with S, S' and S'' cancelling E, E' and E'' at
  // t_c = outer − inner (LAMMPS's derivation in set_coeff). inner = outer leaves A and B infinite: they are
  // then never used (no r lies between the cut-offs), only C shifts E(outer) to 0.
  const double tc = outer - inner;
  const ZblAt f = zbl_at(k, outer);
  const double swa = (-3.0 * f.de + tc * f.d2e) / (tc * tc);
  const double swb = (2.0 * f.de - tc * f.d2e) / (tc * tc * tc);
  const double swc = -f.e + (tc / 2.0) * f.de - (tc * tc / 12.0) * f.d2e;
  k.sw[0] = swa;
  k.sw[1] = swb;
  k.sw[2] = swa / 3.0;
  k.sw[3] = swb / 4.0;
  k.sw[4] = swc;
  return k;
}

ZblBuilder::ZblBuilder(int ntypes, double inner, double outer, bool with_eam, const SourcePos& pos)
    : ntypes_(ntypes),
      inner_(inner),
      outer_(outer),
      with_eam_(with_eam),
      pos_(pos),
      z_(ntypes + 1, std::numeric_limits<double>::quiet_NaN()),
      set_(static_cast<size_t>(ntypes + 1) * (ntypes + 1), 0),
      z1_(set_.size(), 0.0),
      z2_(set_.size(), 0.0) {}

void ZblBuilder::coeff(int ilo, int ihi, int jlo, int jhi, double z1, double z2, const SourcePos& pos) {
  int count = 0;
  for (int i = ilo; i <= ihi; ++i)
    for (int j = std::max(jlo, i); j <= jhi; ++j) {
      if (i == j) {
        if (z1 != z2)
          fail_input(pos,
                     fmt::format("pair_coeff {} {} zbl: an I,I pair takes one charge, z1 = z2 (got {} {}; "
                                 "LAMMPS: \"Incorrect args for pair coefficients\")",
                                 i, j, z1, z2));
        z_[i] = z1;
      }
      const size_t k = static_cast<size_t>(i) * (ntypes_ + 1) + j;
      set_[k] = 1, z1_[k] = z1, z2_[k] = z2;
      ++count;
    }
  if (count == 0)
    fail_input(pos,
               "pair_coeff for zbl names no type pair I,J with I <= J (LAMMPS: \"Incorrect args for pair "
               "coefficients\")");
  used_ = true;
}

ZblTerm ZblBuilder::build() const {
  if (with_eam_ && !used_)
    fail_input(pos_,
               "pair_style hybrid/overlay: no pair_coeff assigns the zbl sub-style to a type pair (LAMMPS: "
               "\"Pair hybrid sub-style is not used\")");
  ZblTerm t;
  t.ntypes = ntypes_;
  t.inner = inner_, t.outer = outer_;
  t.inner_sq = inner_ * inner_, t.outer_sq = outer_ * outer_;
  t.coeffs.assign(static_cast<size_t>(ntypes_ + 1) * (ntypes_ + 1), ZblCoeffs<double>{});
  for (int i = 1; i <= ntypes_; ++i) {
    if (!with_eam_ && !set_[static_cast<size_t>(i) * (ntypes_ + 1) + i])
      fail_input(pos_, fmt::format("pair_style zbl: type {} has no pair_coeff {} {} z z (LAMMPS: \"All pair "
                                   "coeffs are not set\")",
                                   i, i, i));
    for (int j = i; j <= ntypes_; ++j) {
      const size_t k = static_cast<size_t>(i) * (ntypes_ + 1) + j;
      ZblCoeffs<double> c;
      if (set_[k])
        c = zbl_coeffs(z1_[k], z2_[k], inner_, outer_);
      else if (!with_eam_)
        c = zbl_coeffs(z_[i], z_[j], inner_, outer_);  // init_one from the I,I and J,J charges
      // else: the hybrid maps the pair to the EAM style only
      t.coeffs[k] = c;
      t.coeffs[static_cast<size_t>(j) * (ntypes_ + 1) + i] = c;
    }
  }
  return t;
}

}  // namespace wmd::potentials
