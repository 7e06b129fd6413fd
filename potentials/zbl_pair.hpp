// LAMMPS's pair_style zbl as a pure function of r: the Ziegler–Biersack–Littmark universal screened Coulomb
// repulsion with LAMMPS's switching polynomial between the inner and outer cut-offs (E, E' and E'' reach 0 at
// the outer cut-off), in LAMMPS's order of operations (pair_zbl.cpp: e_zbl, dzbldr, set_coeff), so that the
// energy and force of a pair are lmp's to round-off. Alone (`pair_style zbl`) or overlaid on an EAM style
// (`pair_style hybrid/overlay eam/alloy zbl`), built from the pair_coeff commands by ZblBuilder.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace wmd::potentials {

/// The universal screening function φ(x) = Σ c_k exp(−d_k x), x = r/a, a = a0 / (Zi^p + Zj^p) Å (LAMMPS's
/// pair_zbl_const.h; zbl_splice's ZBL uses the same numbers).
inline constexpr double kZblPow = 0.23;
inline constexpr double kZblA0 = 0.46850;
inline constexpr double kZblC[4] = {0.02817, 0.28022, 0.50986, 0.18175};
inline constexpr double kZblD[4] = {0.20162, 0.40290, 0.94229, 3.19980};

/// One type pair's coefficients (LAMMPS's d1a..d4a, zze, sw1..sw5 of [i][j]). All zero for a type pair
/// without ZBL (a hybrid/overlay pair no `pair_coeff … zbl` covers): its energy and force are then exactly 0.
template <class Real>
struct ZblCoeffs {
  Real da[4] = {0, 0, 0, 0};  // d_k / a (1/Å)
  Real zze = 0;               // Zi Zj e² (eV Å)
  Real sw[5] = {0, 0, 0, 0, 0};
};

/// The ZBL term of the pair potential: the switch region [inner, outer] and per type pair coefficients.
template <class Real>
struct ZblTermT {
  int ntypes = 0;  // 0: no ZBL term (plain EAM)
  Real inner = 0, outer = 0, inner_sq = 0, outer_sq = 0;
  std::vector<ZblCoeffs<Real>> coeffs;  // [i·(ntypes + 1) + j], types 1..ntypes
  bool active() const { return ntypes > 0; }
  const ZblCoeffs<Real>& at(int i, int j) const { return coeffs[static_cast<size_t>(i) * (ntypes + 1) + j]; }
  /// The same term rounded to another precision (the mesh's fp32 PEs).
  template <class To>
  ZblTermT<To> cast() const {
    ZblTermT<To> t;
    t.ntypes = ntypes;
    t.inner = static_cast<To>(inner), t.outer = static_cast<To>(outer);
    t.inner_sq = static_cast<To>(inner_sq), t.outer_sq = static_cast<To>(outer_sq);
    t.coeffs.resize(coeffs.size());
    for (size_t k = 0; k < coeffs.size(); ++k) {
      for (int c = 0; c < 4; ++c) t.coeffs[k].da[c] = static_cast<To>(coeffs[k].da[c]);
      t.coeffs[k].zze = static_cast<To>(coeffs[k].zze);
      for (int c = 0; c < 5; ++c) t.coeffs[k].sw[c] = static_cast<To>(coeffs[k].sw[c]);
    }
    return t;
  }
};
using ZblTerm = ZblTermT<double>;

/// LAMMPS's PairZBL::compute for one pair with r² < outer² (the caller tests it): returns the energy
/// E(r) = E_ZBL(r) + S(r) + sw5 and sets fpair = −E'(r)/r (f_i += del·fpair, del = x_i − x_j).
template <class Real>
inline Real zbl_pair(const ZblCoeffs<Real>& k, Real inner, Real inner_sq, Real rsq, Real& fpair) {
  const Real r = std::sqrt(rsq);
  const Real rinv = Real(1) / r;
  const Real e1 = std::exp(-k.da[0] * r), e2 = std::exp(-k.da[1] * r);
  const Real e3 = std::exp(-k.da[2] * r), e4 = std::exp(-k.da[3] * r);
  Real sum = Real(kZblC[0]) * e1;
  sum += Real(kZblC[1]) * e2;
  sum += Real(kZblC[2]) * e3;
  sum += Real(kZblC[3]) * e4;
  Real sum_p = -Real(kZblC[0]) * k.da[0] * e1;
  sum_p -= Real(kZblC[1]) * k.da[1] * e2;
  sum_p -= Real(kZblC[2]) * k.da[2] * e3;
  sum_p -= Real(kZblC[3]) * k.da[3] * e4;
  Real fp = k.zze * (sum_p - sum * rinv) * rinv;  // dzbldr
  Real e = k.zze * sum * rinv;                    // e_zbl
  e += k.sw[4];
  if (rsq > inner_sq) {
    const Real t = r - inner;
    fp += t * t * (k.sw[0] + k.sw[1] * t);
    e += t * t * t * (k.sw[2] + k.sw[3] * t);
  }
  fpair = fp * (Real(-1) / r);
  return e;
}

/// LAMMPS's set_coeff: the coefficients of a pair of nuclear charges zi, zj (in e) for the switch region
/// [inner, outer] (metal units).
ZblCoeffs<double> zbl_coeffs(double zi, double zj, double inner, double outer);

/// Collects `pair_style zbl inner outer` (alone, or as a hybrid/overlay sub-style) and its pair_coeff
/// commands, and builds the term as LAMMPS's PairZBL (and PairHybrid's type-pair map) would at init.
class ZblBuilder {
 public:
  /// with_eam: overlaid on an EAM style that covers every type pair (hybrid/overlay). Then a type pair that
  /// no zbl pair_coeff names has no ZBL term (LAMMPS's hybrid map); alone, such an I≠J pair takes the
  /// charges of its I,I and J,J coefficients (PairZBL::init_one).
  ZblBuilder(int ntypes, double inner, double outer, bool with_eam, const SourcePos& pos);
  /// `pair_coeff I J [zbl] z1 z2` over types ilo..ihi × jlo..jhi (J ≥ I): LAMMPS's PairZBL::coeff (z1 = z2
  /// on an I,I pair, at least one pair named). Throws InputError at pos.
  void coeff(int ilo, int ihi, int jlo, int jhi, double z1, double z2, const SourcePos& pos);
  /// True once some pair_coeff named ZBL coefficients.
  bool used() const { return used_; }
  int ntypes() const { return ntypes_; }
  bool with_eam() const { return with_eam_; }
  double inner() const { return inner_; }
  double outer() const { return outer_; }
  /// The term at init; throws InputError at the pair_style's line when a type pair lacks coefficients
  /// (LAMMPS's "All pair coeffs are not set") or the hybrid's zbl is never used.
  ZblTerm build() const;

 private:
  int ntypes_;
  double inner_, outer_;
  bool with_eam_, used_ = false;
  SourcePos pos_;
  std::vector<double> z_;        // [type]: the charge an I,I pair_coeff gave (NaN: none)
  std::vector<char> set_;        // [i·(n+1)+j], i ≤ j: named by a pair_coeff
  std::vector<double> z1_, z2_;  // [i·(n+1)+j]: the charges that pair_coeff gave
};

}  // namespace wmd::potentials
