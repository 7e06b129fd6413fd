#include "potentials/eam_tables.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "base/memory_budget.hpp"

namespace wmd::potentials {

bool parse_eam_style(const std::string& name, EamStyle& style) {
  if (name == "eam")
    style = EamStyle::funcfl;
  else if (name == "eam/alloy")
    style = EamStyle::setfl;
  else if (name == "eam/fs")
    style = EamStyle::finnis_sinclair;
  else
    return false;
  return true;
}

void build_spline(int n, double delta, const double* f, double* s) {
  auto c = [s](int m, int k) -> double& { return s[static_cast<size_t>(m) * 7 + k]; };
  for (int m = 1; m <= n; ++m) c(m, 6) = f[m];
  c(1, 5) = c(2, 6) - c(1, 6);
  c(2, 5) = 0.5 * (c(3, 6) - c(1, 6));
  c(n - 1, 5) = 0.5 * (c(n, 6) - c(n - 2, 6));
  c(n, 5) = c(n, 6) - c(n - 1, 6);
  for (int m = 3; m <= n - 2; ++m) {
    c(m, 5) = ((c(m - 2, 6) - c(m + 2, 6)) + 8.0 * (c(m + 1, 6) - c(m - 1, 6))) / 12.0;
  }
  for (int m = 1; m <= n - 1; ++m) {
    c(m, 4) = 3.0 * (c(m + 1, 6) - c(m, 6)) - 2.0 * c(m, 5) - c(m + 1, 5);
    c(m, 3) = c(m, 5) + c(m + 1, 5) - 2.0 * (c(m + 1, 6) - c(m, 6));
  }
  c(n, 4) = 0.0;
  c(n, 3) = 0.0;
  for (int m = 1; m <= n; ++m) {
    c(m, 2) = c(m, 5) / delta;
    c(m, 1) = 2.0 * c(m, 4) / delta;
    c(m, 0) = 3.0 * c(m, 3) / delta;
  }
}

namespace {

// LAMMPS's 4-point Lagrange resampling of a funcfl array (0-based storage of its 1-based samples) at x.
double resample(const std::vector<double>& f, double step, double x) {
  const int n = static_cast<int>(f.size());
  double p = x / step + 1.0;
  // Clamped before the conversion: files of very different spacings cannot overflow the int.
  const int k = static_cast<int>(p < n - 2 ? (p > 2.0 ? p : 2.0) : n - 2);
  p -= k;
  p = std::min(p, 2.0);
  const double sixth = 1.0 / 6.0;
  const double c1 = -sixth * p * (p - 1.0) * (p - 2.0);
  const double c2 = 0.5 * (p * p - 1.0) * (p - 2.0);
  const double c3 = -0.5 * p * (p + 1.0) * (p - 2.0);
  const double c4 = sixth * p * (p * p - 1.0);
  // 1-based f[k-1..k+2] are 0-based f[k-2..k+1].
  return c1 * f[k - 2] + c2 * f[k - 1] + c3 * f[k] + c4 * f[k + 1];
}

}  // namespace

double EamTables::embed(int type, double rho) const {
  int m;
  double p;
  locate_rho(rho, rdrho, nrho, m, p);
  const double* c = frho_knot(type2frho[type], m);
  double phi = ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
  if (rho > rhomax) phi += embed_deriv(type, rho) * (rho - rhomax);
  return phi;
}

double EamTables::embed_deriv(int type, double rho) const {
  int m;
  double p;
  locate_rho(rho, rdrho, nrho, m, p);
  const double* c = frho_knot(type2frho[type], m);
  return (c[0] * p + c[1]) * p + c[2];
}

double EamTables::density(int from, int at, double r, double* deriv) const {
  int m;
  double p;
  locate_r(r, rdr, nr, m, p);
  const double* c = rhor_knot(rho_array(from, at), m);
  if (deriv) *deriv = (c[0] * p + c[1]) * p + c[2];
  return ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
}

double EamTables::pair(int i, int j, double r, double* deriv) const {
  int m;
  double p;
  locate_r(r, rdr, nr, m, p);
  const double* c = z2r_knot(z2r_array(i, j), m);
  const double z2p = (c[0] * p + c[1]) * p + c[2];
  const double z2 = ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
  const double phi = z2 / r;
  if (deriv) *deriv = z2p / r - phi / r;
  return phi;
}

EamBuilder::EamBuilder(EamStyle style, int ntypes) : style_(style), ntypes_(ntypes), map_(ntypes + 1, -1) {}

void EamBuilder::add_funcfl(int ilo, int ihi, int jlo, int jhi, const std::string& path,
                            const SourcePos& pos) {
  int file = -1;
  for (size_t k = 0; k < funcfl_.size(); ++k) {
    if (funcfl_[k].path == path) file = static_cast<int>(k);
  }
  if (file < 0) {
    funcfl_.push_back(read_funcfl(path, pos));
    pos_ = pos;
    file = static_cast<int>(funcfl_.size()) - 1;
  }
  int count = 0;
  for (int i = ilo; i <= ihi; ++i) {
    for (int j = std::max(jlo, i); j <= jhi; ++j) {
      if (i == j) {
        map_[i] = file;
        ++count;
      }
    }
  }
  if (count == 0) fail_input(pos, "pair_coeff for pair_style eam must name I,I type pairs (I = J)");
}

void EamBuilder::set_elements(const std::string& path, const std::vector<std::string>& per_type,
                              const SourcePos& pos) {
  if (static_cast<int>(per_type.size()) != ntypes_) {
    fail_input(pos, "pair_coeff * * FILE needs one element name per atom type (" + std::to_string(ntypes_) +
                        "), got " + std::to_string(per_type.size()));
  }
  SetflFile file = read_setfl(path, style_ == EamStyle::finnis_sinclair, pos);
  pos_ = pos;
  std::fill(map_.begin(), map_.end(), -1);
  for (int t = 1; t <= ntypes_; ++t) {
    const std::string& name = per_type[t - 1];
    if (name == "NULL") continue;
    auto it = std::find(file.elements.begin(), file.elements.end(), name);
    if (it == file.elements.end()) {
      std::string known;
      for (const auto& e : file.elements) known += (known.empty() ? "" : " ") + e;
      fail_input(pos, "element '" + name + "' is not in potential file " + path + " (it has: " + known + ")");
    }
    map_[t] = static_cast<int>(it - file.elements.begin());
  }
  setfl_ = std::move(file);
  have_setfl_ = true;
}

bool EamBuilder::complete() const {
  if (style_ == EamStyle::none) return ntypes_ > 0;  // sized by the first pair_coeff when set before the box
  for (int t = 1; t <= ntypes_; ++t) {
    if (map_[t] < 0) return false;
  }
  return style_ == EamStyle::funcfl ? !funcfl_.empty() : have_setfl_;
}

EamTables EamBuilder::build() const {
  static std::atomic<unsigned long long> builds{0};
  EamTables t;
  t.serial = ++builds;
  t.ntypes = ntypes_;
  const int nt1 = ntypes_ + 1;
  t.type2frho.assign(nt1, 0);
  t.type2rhor.assign(nt1 * nt1, 0);
  t.type2z2r.assign(nt1 * nt1, 0);
  t.type_mass.assign(nt1, 0.0);
  // Raw arrays, 1-based like LAMMPS's (element 0 unused), before the spline pass.
  std::vector<std::vector<double>> frho, rhor, z2r;

  if (style_ == EamStyle::none) {
    // One array of each, all zero: every pass adds exact zeros (F(0) = 0, ρ = 0, φ = 0). The caller sets
    // cutmax to the cut-off of the pair term that stands alone.
    t.nr = t.nrho = 5;
    t.dr = t.drho = 1.0;
    frho.assign(1, std::vector<double>(t.nrho + 1, 0.0));
    rhor.assign(1, std::vector<double>(t.nr + 1, 0.0));
    z2r.assign(1, std::vector<double>(t.nr + 1, 0.0));
  } else if (style_ == EamStyle::funcfl) {
    double rmax = 0.0;
    for (size_t k = 0; k < funcfl_.size(); ++k) {
      bool active = false;
      for (int i = 1; i <= ntypes_; ++i) active = active || map_[i] == static_cast<int>(k);
      if (!active) continue;
      const FuncflFile& f = funcfl_[k];
      t.dr = std::max(t.dr, f.dr);
      t.drho = std::max(t.drho, f.drho);
      rmax = std::max(rmax, (f.nr - 1) * f.dr);
      t.rhomax = std::max(t.rhomax, (f.nrho - 1) * f.drho);
    }
    // LAMMPS rounds with +0.5 so the resampled grid ends one knot before the last tabulated point.
    t.nr = static_cast<int>(rmax / t.dr + 0.5);
    t.nrho = static_cast<int>(t.rhomax / t.drho + 0.5);
    for (const FuncflFile& f : funcfl_) {
      std::vector<double> a(t.nrho + 1, 0.0), b(t.nr + 1, 0.0);
      for (int m = 1; m <= t.nrho; ++m) a[m] = resample(f.frho, f.drho, (m - 1) * t.drho);
      for (int m = 1; m <= t.nr; ++m) b[m] = resample(f.rhor, f.dr, (m - 1) * t.dr);
      frho.push_back(std::move(a));
      rhor.push_back(std::move(b));
    }
    for (size_t i = 0; i < funcfl_.size(); ++i) {
      for (size_t j = 0; j <= i; ++j) {
        std::vector<double> z(t.nr + 1, 0.0);
        for (int m = 1; m <= t.nr; ++m) {
          const double r = (m - 1) * t.dr;
          const double zri = resample(funcfl_[i].zr, funcfl_[i].dr, r);
          const double zrj = resample(funcfl_[j].zr, funcfl_[j].dr, r);
          z[m] = 27.2 * 0.529 * zri * zrj;
        }
        z2r.push_back(std::move(z));
      }
    }
    for (const FuncflFile& f : funcfl_) t.cutmax = std::max(t.cutmax, f.cut);
    for (int i = 1; i <= ntypes_; ++i) {
      t.type2frho[i] = map_[i];
      for (int j = 1; j <= ntypes_; ++j) t.type2rhor[i * nt1 + j] = map_[i];
      if (map_[i] >= 0) t.type_mass[i] = funcfl_[map_[i]].mass;
    }
  } else {
    const SetflFile& f = setfl_;
    const int ne = static_cast<int>(f.elements.size());
    t.nrho = f.nrho, t.nr = f.nr, t.drho = f.drho, t.dr = f.dr, t.cutmax = f.cut;
    t.rhomax = (t.nrho - 1) * t.drho;
    auto one_based = [](const std::vector<double>& v) {
      std::vector<double> a(v.size() + 1, 0.0);
      std::copy(v.begin(), v.end(), a.begin() + 1);
      return a;
    };
    for (const auto& a : f.frho) frho.push_back(one_based(a));
    for (const auto& a : f.rhor) rhor.push_back(one_based(a));
    for (const auto& a : f.z2r) z2r.push_back(one_based(a));
    for (int i = 1; i <= ntypes_; ++i) {
      t.type2frho[i] = map_[i];
      for (int j = 1; j <= ntypes_; ++j) {
        t.type2rhor[i * nt1 + j] = style_ == EamStyle::finnis_sinclair ? map_[i] * ne + map_[j] : map_[i];
      }
      if (map_[i] >= 0) t.type_mass[i] = f.mass[map_[i]];
    }
  }
  // type2z2r: lower-triangular index with the larger element index as row, as LAMMPS orders the pair arrays.
  for (int i = 1; i <= ntypes_; ++i) {
    for (int j = 1; j <= ntypes_; ++j) {
      int irow = map_[i], icol = map_[j];
      if (irow < 0 || icol < 0) continue;
      if (irow < icol) std::swap(irow, icol);
      t.type2z2r[i * nt1 + j] = irow * (irow + 1) / 2 + icol;
    }
  }
  t.rdr = 1.0 / t.dr;
  t.rdrho = 1.0 / t.drho;
  t.nfrho = static_cast<int>(frho.size());
  t.nrhor = static_cast<int>(rhor.size());
  t.nz2r = static_cast<int>(z2r.size());
  memory::check_allocation(
      "the EAM spline tables",
      8.0 * 7.0 * (double(t.nfrho) * (t.nrho + 1.0) + double(t.nrhor + t.nz2r) * (t.nr + 1.0)), pos_);
  t.frho.assign(static_cast<size_t>(t.nfrho) * (t.nrho + 1) * 7, 0.0);
  t.rhor.assign(static_cast<size_t>(t.nrhor) * (t.nr + 1) * 7, 0.0);
  t.z2r.assign(static_cast<size_t>(t.nz2r) * (t.nr + 1) * 7, 0.0);
  for (int a = 0; a < t.nfrho; ++a)
    build_spline(t.nrho, t.drho, frho[a].data(), &t.frho[a * (t.nrho + 1) * 7]);
  for (int a = 0; a < t.nrhor; ++a) build_spline(t.nr, t.dr, rhor[a].data(), &t.rhor[a * (t.nr + 1) * 7]);
  for (int a = 0; a < t.nz2r; ++a) build_spline(t.nr, t.dr, z2r[a].data(), &t.z2r[a * (t.nr + 1) * 7]);
  // Finite samples near the double range can still give infinite spline coefficients (their differences).
  for (const auto* v : {&t.frho, &t.rhor, &t.z2r})
    for (double c : *v)
      if (!std::isfinite(c))
        fail_input(pos_, "the EAM potential's tables are not finite (values too large for splines)");
  return t;
}

}  // namespace wmd::potentials
