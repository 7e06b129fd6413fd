#include "md/minimize/minimizer.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "base/error.hpp"
#include "base/units.hpp"

namespace wmd::md {
namespace {

constexpr double kEpsEnergy = 1.0e-8;  // LAMMPS's EPS_ENERGY in the energy-tolerance test
constexpr double kAlphaMax = 1.0;      // LAMMPS's ALPHA_MAX: largest line-search step, Å²/eV
constexpr double kArmijo = 1.0e-4;     // sufficient-decrease constant
constexpr double kCurvature = 0.1;     // |φ'(α)| ≤ 0.1·|φ'(0)| ends the line search (strong Wolfe)
constexpr int kMaxTries = 40;          // evaluations per line search

void add_stats(NeighborStats& a, const NeighborStats& b) {
  a.builds += b.builds;
  a.dangerous += b.dangerous;
  a.pairs = b.pairs;
  a.ghosts = b.ghosts;
}

void add_times(PhaseTimes& a, const PhaseTimes& b) {
  a.pair += b.pair, a.neigh += b.neigh, a.comm += b.comm;
}

class Minimizer {
 public:
  Minimizer(State& s, Backend& b, const potentials::EamTables& t, const NeighborSettings& nb,
            const MinSettings& ms, const BoxRelax& br, const Comm& comm)
      : s_(s), b_(b), t_(t), nb_(nb), ms_(ms), br_(br), comm_(comm) {
    // LAMMPS minimisation checks the neighbour list after every move.
    nb_.every = 1, nb_.delay = 0, nb_.check = true, nb_.once = false;
    if (br_.active) {
      for (int d = 0; d < 3; ++d) {
        if (br_.dim[d]) nq_ = br_.couple ? 1 : nq_ + 1;
      }
      // Box coordinate q = η·sq with η the log strain: sq = √V (Å^1.5) puts the box stiffness per q on the
      // scale of an atom's, so one line search serves both kinds of degree of freedom.
      sq_ = std::sqrt(s_.box.volume());
    }
  }

  MinStats run(const MinCallback& cb);

 private:
  size_t n() const { return s_.atoms.size(); }
  double evaluate();
  void follow_ids();
  void store_start();
  void trial(double alpha);
  double slope(double alpha) const;
  double dot_atoms(const std::vector<double>& a, const std::vector<double>& b) const;
  double fnorm_sqr() const;
  double fnorm_inf() const;  // largest |component|, squared
  double fnorm_max() const;  // largest per-atom |f|, squared
  double ftol_measure() const;
  bool energy_converged(double ecur, double eprev) const {
    return std::fabs(ecur - eprev) < ms_.etol * 0.5 * (std::fabs(ecur) + std::fabs(eprev) + kEpsEnergy);
  }
  void gather_forces(std::vector<double>& f) const;
  const char* line_search(double& alpha_out);
  const char* line_search_lammps(bool quadratic, double& alpha_out);
  const char* iterate_cg(const MinCallback& cb);
  const char* iterate_fire(const MinCallback& cb);
  bool budget_done(const char*& why) const;

  State& s_;
  Backend& b_;
  const potentials::EamTables& t_;
  NeighborSettings nb_;
  const MinSettings& ms_;
  const BoxRelax& br_;
  const Comm& comm_;

  int nq_ = 0;                // box degrees of freedom: 0, 1 (iso) or up to 3
  double sq_ = 1.0;           // box coordinate scale
  double fq_[3] = {0, 0, 0};  // generalised force on each box coordinate (eV / sq)
  double gq_[3] = {0, 0, 0}, hq_[3] = {0, 0, 0};
  Box box0_, box_setup_;  // box at the line-search start; box of the last backend set-up
  bool have_setup_ = false;
  std::vector<int64_t> ids_;                      // atom order the per-atom vectors below follow
  std::vector<double> x0_, img0_, g_, h_, fvec_;  // 3 per atom
  double ecurrent_ = 0.0;
  MinStats st_;
};

// Backend set-up when the box changed (the neighbour list must see the new lengths), otherwise the usual
// per-step compute, which rebuilds the list when some atom moved more than half the skin.
double Minimizer::evaluate() {
  bool box_changed = !have_setup_;
  for (int d = 0; d < 3 && !box_changed; ++d)
    box_changed = s_.box.lo[d] != box_setup_.lo[d] || s_.box.hi[d] != box_setup_.hi[d];
  if (box_changed) {
    if (have_setup_) {
      add_stats(st_.neighbors, b_.neighbor_stats());
      add_times(st_.times, b_.phase_times());
    }
    b_.setup(s_, t_, nb_, false);
    box_setup_ = s_.box;
    have_setup_ = true;
  } else {
    b_.compute(s_, false, true);
  }
  ++st_.evaluations;
  follow_ids();
  const ForceResult& r = b_.result();
  double e = r.energy;
  if (br_.active) {
    const double v = s_.box.volume();
    double ptarget_ev = 0.0;  // all relaxed dimensions share one target (fix box/relax checks it)
    for (int d = 2; d >= 0; --d)
      if (br_.dim[d]) ptarget_ev = br_.target[d] / units::nktv2p;
    e += ptarget_ev * v;
    for (int k = 0; k < 3; ++k) fq_[k] = 0.0;
    int k = 0;
    for (int d = 0; d < 3; ++d) {
      if (!br_.dim[d]) continue;
      // −∂(E + P·V)/∂η_d = W_dd − P·V (the virial is −∂E/∂η under affine strain, images included)
      fq_[k] += (r.virial[d] - ptarget_ev * v) / sq_;
      if (!br_.couple) ++k;
    }
  }
  return e;
}

// Per-atom vectors follow atoms by id, across ranks too, if the backend reordered or migrated them.
void Minimizer::follow_ids() {
  const bool changed = ids_ != s_.atoms.id;
  if (!comm_.any(changed)) return;
  const size_t nold = ids_.size();
  std::vector<double> pack(nold * 12);
  std::vector<std::vector<double>*> vecs = {&x0_, &img0_, &g_, &h_};
  for (size_t i = 0; i < nold; ++i) {
    for (int v = 0; v < 4; ++v) {
      for (int d = 0; d < 3; ++d) pack[12 * i + 3 * v + d] = (*vecs[v])[3 * i + d];
    }
  }
  const std::vector<int64_t> all_ids = comm_.allgather(ids_);
  const std::vector<double> all = comm_.allgather(pack);
  std::unordered_map<int64_t, size_t> where;
  where.reserve(all_ids.size());
  for (size_t k = 0; k < all_ids.size(); ++k) where[all_ids[k]] = k;
  const size_t nn = n();
  for (auto* v : vecs) v->assign(3 * nn, 0.0);
  for (size_t i = 0; i < nn; ++i) {
    auto it = where.find(s_.atoms.id[i]);
    if (it == where.end()) throw RunError("minimize: atom " + std::to_string(s_.atoms.id[i]) + " appeared");
    for (int v = 0; v < 4; ++v) {
      for (int d = 0; d < 3; ++d) (*vecs[v])[3 * i + d] = all[12 * it->second + 3 * v + d];
    }
  }
  ids_ = s_.atoms.id;
}

// The start of a line search: positions, image counts and the box that trial(α) moves away from.
void Minimizer::store_start() {
  const Atoms& a = s_.atoms;
  const size_t nn = n();
  x0_.resize(3 * nn), img0_.resize(3 * nn);
  for (size_t i = 0; i < nn; ++i) {
    x0_[3 * i] = a.x[i], x0_[3 * i + 1] = a.y[i], x0_[3 * i + 2] = a.z[i];
    img0_[3 * i] = a.ix[i], img0_[3 * i + 1] = a.iy[i], img0_[3 * i + 2] = a.iz[i];
  }
  box0_ = s_.box;
}

// Positions x0 + α·h, then the box scaled by exp(α·hq/sq) about its centre with atoms following affinely.
void Minimizer::trial(double alpha) {
  Atoms& a = s_.atoms;
  double scale[3] = {1.0, 1.0, 1.0}, centre[3];
  if (nq_ > 0) {
    int k = 0;
    for (int d = 0; d < 3; ++d) {
      if (!br_.dim[d]) continue;
      scale[d] = std::exp(alpha * hq_[k] / sq_);
      if (!br_.couple) ++k;
    }
  }
  for (int d = 0; d < 3; ++d) {
    centre[d] = 0.5 * (box0_.lo[d] + box0_.hi[d]);
    const double half = 0.5 * box0_.prd(d) * scale[d];
    s_.box.lo[d] = scale[d] == 1.0 ? box0_.lo[d] : centre[d] - half;
    s_.box.hi[d] = scale[d] == 1.0 ? box0_.hi[d] : centre[d] + half;
  }
  double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
  int* img[3] = {a.ix.data(), a.iy.data(), a.iz.data()};
  for (size_t i = 0; i < n(); ++i) {
    for (int d = 0; d < 3; ++d) {
      const double u = x0_[3 * i + d] + alpha * h_[3 * i + d];
      pos[d][i] = scale[d] == 1.0 ? u : centre[d] + (u - centre[d]) * scale[d];
      img[d][i] = static_cast<int>(img0_[3 * i + d]);
    }
  }
}

// dH/dα at the current trial: −(F_u·h + F_q·hq), with F_u = F·scale the force on the unscaled coordinates.
double Minimizer::slope(double alpha) const {
  const Atoms& a = s_.atoms;
  double scale[3] = {1.0, 1.0, 1.0};
  int k = 0;
  for (int d = 0; d < 3 && nq_ > 0; ++d) {
    if (!br_.dim[d]) continue;
    scale[d] = std::exp(alpha * hq_[k] / sq_);
    if (!br_.couple) ++k;
  }
  double local = 0.0;
  for (size_t i = 0; i < n(); ++i) {
    local += scale[0] * a.fx[i] * h_[3 * i] + scale[1] * a.fy[i] * h_[3 * i + 1] +
             scale[2] * a.fz[i] * h_[3 * i + 2];
  }
  double fh = comm_.sum(local);
  for (int q = 0; q < nq_; ++q) fh += fq_[q] * hq_[q];
  return -fh;
}

double Minimizer::dot_atoms(const std::vector<double>& a, const std::vector<double>& b) const {
  double local = 0.0;
  for (size_t k = 0; k < a.size(); ++k) local += a[k] * b[k];
  return comm_.sum(local);
}

void Minimizer::gather_forces(std::vector<double>& f) const {
  const Atoms& a = s_.atoms;
  f.resize(3 * n());
  for (size_t i = 0; i < n(); ++i) f[3 * i] = a.fx[i], f[3 * i + 1] = a.fy[i], f[3 * i + 2] = a.fz[i];
}

double Minimizer::fnorm_sqr() const {
  const Atoms& a = s_.atoms;
  double local = 0.0;
  for (size_t i = 0; i < n(); ++i) local += a.fx[i] * a.fx[i] + a.fy[i] * a.fy[i] + a.fz[i] * a.fz[i];
  double f2 = comm_.sum(local);
  for (int q = 0; q < nq_; ++q) f2 += fq_[q] * fq_[q];
  return f2;
}

double Minimizer::fnorm_inf() const {
  const Atoms& a = s_.atoms;
  double m = 0.0;
  for (size_t i = 0; i < n(); ++i) m = std::max({m, a.fx[i] * a.fx[i], a.fy[i] * a.fy[i], a.fz[i] * a.fz[i]});
  m = comm_.max(m);
  for (int q = 0; q < nq_; ++q) m = std::max(m, fq_[q] * fq_[q]);
  return m;
}

double Minimizer::fnorm_max() const {
  const Atoms& a = s_.atoms;
  double m = 0.0;
  for (size_t i = 0; i < n(); ++i) m = std::max(m, a.fx[i] * a.fx[i] + a.fy[i] * a.fy[i] + a.fz[i] * a.fz[i]);
  m = comm_.max(m);
  for (int q = 0; q < nq_; ++q) m = std::max(m, fq_[q] * fq_[q]);
  return m;
}

double Minimizer::ftol_measure() const {
  if (ms_.norm == "max") return fnorm_max();
  if (ms_.norm == "inf") return fnorm_inf();
  return fnorm_sqr();
}

bool Minimizer::budget_done(const char*& why) const {
  if (st_.evaluations >= ms_.maxeval) {
    why = "max force evaluations";
    return true;
  }
  return false;
}

// Line search along (h, hq) from the stored start: sufficient decrease plus |φ'(α)| ≤ 0.1·|φ'(0)|, steps
// chosen by secants of the slope φ' (exact for a quadratic energy, and precise where energy differences are
// lost to round-off — the slope comes from forces). Returns nullptr on success, else LAMMPS's stop text.
const char* Minimizer::line_search(double& alpha_out) {
  const double e0 = ecurrent_;
  const double d0 = slope(0.0);
  if (!(d0 < 0.0)) return "search direction is not downhill";
  double hmax = 0.0;
  for (double v : h_) hmax = std::max(hmax, std::fabs(v));
  hmax = comm_.max(hmax);
  double alpha_max = kAlphaMax;
  if (hmax > 0.0) alpha_max = std::min(alpha_max, ms_.dmax / hmax);
  for (int q = 0; q < nq_; ++q) {
    if (hq_[q] != 0.0) alpha_max = std::min(alpha_max, br_.vmax * sq_ / std::fabs(hq_[q]));
  }
  // Energy differences below this are round-off, not evidence of an uphill step.
  const double noise = 1.0e-14 * std::max(1.0, std::fabs(e0));
  double a_lo = 0.0, d_lo = d0, e_lo = e0;  // downhill end of the bracket
  double a_hi = -1.0, d_hi = 0.0;           // far end (a_hi < 0: none yet)
  double a_best = 0.0, e_best = e0;         // lowest acceptable energy seen, the fallback
  double alpha = alpha_max, a_cur = 0.0;
  for (int k = 0; k < kMaxTries; ++k) {
    trial(alpha);
    const double e = evaluate();
    a_cur = alpha;
    const double d = slope(alpha);
    const bool acceptable = e - e0 <= kArmijo * alpha * d0 + noise;
    if (acceptable && e < e_best) a_best = alpha, e_best = e;
    if (acceptable && std::fabs(d) <= kCurvature * std::fabs(d0)) {
      ecurrent_ = e;
      alpha_out = alpha;
      return nullptr;
    }
    double next;
    if (!acceptable || e > e_lo + noise || d > 0.0) {
      // too far: the minimum lies in (a_lo, alpha)
      a_hi = alpha, d_hi = d;
      const double span = alpha - a_lo;
      double step;
      if (d > 0.0) {
        step = -d_lo * span / (d - d_lo);  // slope secant
      } else {
        const double curv = e - e_lo - d_lo * span;  // quadratic through (a_lo, e_lo, d_lo) and (alpha, e)
        step = curv > 0.0 ? -d_lo * span * span / (2.0 * curv) : 0.5 * span;
      }
      next = a_lo + std::clamp(step, 0.1 * span, 0.9 * span);
    } else {
      // still downhill with a lower energy: move the near end out
      const double prev = a_lo, dprev = d_lo;
      a_lo = alpha, d_lo = d, e_lo = e;
      if (a_hi > 0.0) {
        const double span = a_hi - a_lo;
        const double step = d_hi > 0.0 ? -d_lo * span / (d_hi - d_lo) : 0.5 * span;
        next = a_lo + std::clamp(step, 0.1 * span, 0.9 * span);
      } else {
        if (alpha >= alpha_max) {  // the step limit (dmax, vmax) holds us back: take the largest step
          ecurrent_ = e;
          alpha_out = alpha;
          return nullptr;
        }
        next = d != dprev ? alpha - d * (alpha - prev) / (d - dprev) : 4.0 * alpha;
        next = std::min(std::clamp(next, 1.1 * alpha, 4.0 * alpha), alpha_max);
      }
    }
    if (!(next > 0.0) || next == alpha) break;
    alpha = next;
  }
  // No point met both conditions: settle for the lowest energy seen if it is downhill at all.
  if (a_best > 0.0) {
    if (a_cur != a_best) {
      trial(a_best);
      e_best = evaluate();
    }
    ecurrent_ = e_best;
    alpha_out = a_best;
    return nullptr;
  }
  trial(0.0);
  ecurrent_ = evaluate();
  alpha_out = 0.0;
  return "linesearch alpha is zero";
}

// LAMMPS's linemin_backtrack and linemin_quadratic (min_modify line backtrack|quadratic, the default) for
// atom coordinates: from α = min(1, dmax/max|h|), halve α until the energy drops by 0.4·α·F·h; quadratic
// first tries the secant root of F·h between the last two trials when the energy change agrees with the
// trapezoid of the slopes to 10%. Their stopping texts are LAMMPS's, so a script takes lmp's iterations.
const char* Minimizer::line_search_lammps(bool quadratic, double& alpha_out) {
  constexpr double kBacktrackSlope = 0.4, kAlphaReduce = 0.5, kQuadraticTol = 0.1, kEmach = 1.0e-8,
                   kEpsQuad = 1.0e-28;
  const double fdothall = -slope(0.0);
  if (fdothall <= 0.0) return "search direction is not downhill";
  double hmax = 0.0;
  for (double v : h_) hmax = std::max(hmax, std::fabs(v));
  hmax = comm_.max(hmax);
  if (hmax == 0.0) return "forces are zero";
  // The step limit bounds the first trial and the secant root alike (LAMMPS's alphamax).
  const double alpha_max = std::min(kAlphaMax, ms_.dmax / hmax);
  double alpha = alpha_max;
  const double eoriginal = ecurrent_;
  double alphaprev = 0.0, fhprev = fdothall, engprev = eoriginal;
  auto reset = [&](const char* why) {
    trial(0.0);
    ecurrent_ = evaluate();
    alpha_out = alpha;
    return why;
  };
  while (true) {
    trial(alpha);
    ecurrent_ = evaluate();
    double fh = 0.0;
    if (quadratic) {
      fh = -slope(alpha);
      const double delfh = fh - fhprev;
      if (std::fabs(fh) < kEpsQuad || std::fabs(delfh) < kEpsQuad) return reset("quadratic factors are zero");
      const double relerr =
          std::fabs(1.0 - (0.5 * (alpha - alphaprev) * (fh + fhprev) + ecurrent_) / engprev);
      const double alpha0 = alpha - (alpha - alphaprev) * fh / delfh;
      if (relerr <= kQuadraticTol && alpha0 > 0.0 && alpha0 < alpha_max) {
        trial(alpha0);
        ecurrent_ = evaluate();
        if (ecurrent_ - eoriginal < kEmach) {
          alpha_out = alpha;
          return nullptr;
        }
      }
    }
    const double de_ideal = -kBacktrackSlope * alpha * fdothall;
    if (ecurrent_ - eoriginal <= de_ideal) {
      alpha_out = alpha;
      return nullptr;
    }
    fhprev = fh, engprev = ecurrent_, alphaprev = alpha;
    alpha *= kAlphaReduce;
    if (alpha <= 0.0 || de_ideal >= -kEmach) return reset("linesearch alpha is zero");
  }
}

const char* Minimizer::iterate_cg(const MinCallback& cb) {
  gather_forces(g_);
  for (int q = 0; q < nq_; ++q) gq_[q] = fq_[q];
  h_ = g_;
  for (int q = 0; q < nq_; ++q) hq_[q] = gq_[q];
  double gg = fnorm_sqr();
  const int64_t ndof = comm_.sum(static_cast<int64_t>(3 * n())) + nq_;
  for (int64_t iter = 0; iter < ms_.maxiter; ++iter) {
    ++s_.step;
    ++st_.iterations;
    const double eprevious = ecurrent_;
    store_start();
    double alpha = 0.0;
    // LAMMPS's backtrack and quadratic searches move atoms only; box relaxation keeps the slope-based search.
    const bool lammps_search = nq_ == 0 && ms_.line != "forcezero";
    const char* fail =
        lammps_search ? line_search_lammps(ms_.line == "quadratic", alpha) : line_search(alpha);
    st_.alpha_final = alpha;
    st_.e_next_to_last = eprevious;
    if (fail) {
      cb(false, true);
      return fail;
    }
    const char* why = nullptr;
    if (budget_done(why)) {
      cb(false, true);
      return why;
    }
    if (energy_converged(ecurrent_, eprevious)) {
      cb(false, true);
      return "energy tolerance";
    }
    std::vector<double>& f = fvec_;
    gather_forces(f);
    double ff = dot_atoms(f, f), fg = dot_atoms(f, g_);
    for (int q = 0; q < nq_; ++q) ff += fq_[q] * fq_[q], fg += fq_[q] * gq_[q];
    if (ftol_measure() < ms_.ftol * ms_.ftol) {
      cb(false, true);
      return "force tolerance";
    }
    if (ff == 0.0) {
      cb(false, true);
      return "forces are zero";
    }
    double beta = std::max(0.0, (ff - fg) / gg);
    if ((iter + 1) % ndof == 0) beta = 0.0;
    gg = ff;
    for (size_t k = 0; k < f.size(); ++k) {
      g_[k] = f[k];
      h_[k] = g_[k] + beta * h_[k];
    }
    for (int q = 0; q < nq_; ++q) gq_[q] = fq_[q], hq_[q] = gq_[q] + beta * hq_[q];
    // reset to steepest descent if the new direction is not downhill
    double hg = dot_atoms(h_, g_);
    for (int q = 0; q < nq_; ++q) hg += hq_[q] * gq_[q];
    if (hg <= 0.0) {
      h_ = g_;
      for (int q = 0; q < nq_; ++q) hq_[q] = gq_[q];
    }
    const bool last = iter + 1 == ms_.maxiter;
    cb(false, last);
  }
  return "max iterations";
}

// FIRE 2.0 with the semi-implicit Euler integrator, LAMMPS `min_style fire` semantics and defaults.
const char* Minimizer::iterate_fire(const MinCallback& cb) {
  Atoms& a = s_.atoms;
  for (size_t i = 0; i < n(); ++i) a.vx[i] = a.vy[i] = a.vz[i] = 0.0;
  double dt = s_.dt;
  const double dtmax = ms_.tmax * dt, dtmin = ms_.tmin * dt;
  double alpha = ms_.alpha0;
  const int64_t start = s_.step;
  int64_t last_negative = start, vdotf_negative = 0;
  for (int64_t iter = 0; iter < ms_.maxiter; ++iter) {
    const int64_t step = ++s_.step;
    ++st_.iterations;
    double local = 0.0;
    for (size_t i = 0; i < n(); ++i) local += a.vx[i] * a.fx[i] + a.vy[i] * a.fy[i] + a.vz[i] * a.fz[i];
    const double vdotf = comm_.sum(local);
    if (vdotf > 0.0) {
      vdotf_negative = 0;
      if (step - last_negative > ms_.delaystep) {
        dt = std::min(dt * ms_.dtgrow, dtmax);
        alpha *= ms_.alphashrink;
      }
    } else {
      last_negative = step;
      const bool delay = !(ms_.initialdelay && step - start < ms_.delaystep);
      if (delay) {
        alpha = ms_.alpha0;
        if (dt * ms_.dtshrink >= dtmin) dt *= ms_.dtshrink;
      }
      ++vdotf_negative;
      if (ms_.vdfmax > 0 && vdotf_negative > ms_.vdfmax) {
        cb(false, true);
        return "max iterations with v.f negative";
      }
      if (ms_.halfstepback) {
        for (size_t i = 0; i < n(); ++i) {
          a.x[i] -= 0.5 * dt * a.vx[i], a.y[i] -= 0.5 * dt * a.vy[i], a.z[i] -= 0.5 * dt * a.vz[i];
        }
      }
      for (size_t i = 0; i < n(); ++i) a.vx[i] = a.vy[i] = a.vz[i] = 0.0;
    }
    // no atom moves further than dmax in one step
    double dtv = dt;
    for (size_t i = 0; i < n(); ++i) {
      const double vmax = std::max({std::fabs(a.vx[i]), std::fabs(a.vy[i]), std::fabs(a.vz[i])});
      if (dtv * vmax > ms_.dmax) dtv = ms_.dmax / vmax;
    }
    dtv = comm_.min(dtv);
    const double dtf = dtv * units::ftm2v;
    for (size_t i = 0; i < n(); ++i) {
      const double dtfm = dtf / s_.mass[a.type[i]];
      a.vx[i] += dtfm * a.fx[i], a.vy[i] += dtfm * a.fy[i], a.vz[i] += dtfm * a.fz[i];
    }
    if (vdotf > 0.0) {
      double vv = 0.0, ff = 0.0;
      for (size_t i = 0; i < n(); ++i) {
        vv += a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i];
        ff += a.fx[i] * a.fx[i] + a.fy[i] * a.fy[i] + a.fz[i] * a.fz[i];
      }
      vv = comm_.sum(vv), ff = comm_.sum(ff);
      const double s1 = 1.0 - alpha, s2 = ff <= 1e-20 ? 0.0 : alpha * std::sqrt(vv / ff);
      for (size_t i = 0; i < n(); ++i) {
        a.vx[i] = s1 * a.vx[i] + s2 * a.fx[i];
        a.vy[i] = s1 * a.vy[i] + s2 * a.fy[i];
        a.vz[i] = s1 * a.vz[i] + s2 * a.fz[i];
      }
    }
    for (size_t i = 0; i < n(); ++i) {
      a.x[i] += dtv * a.vx[i], a.y[i] += dtv * a.vy[i], a.z[i] += dtv * a.vz[i];
    }
    st_.alpha_final = dtv;
    const double eprevious = ecurrent_;
    ecurrent_ = evaluate();
    st_.e_next_to_last = eprevious;
    const char* why = nullptr;
    if (budget_done(why)) {
      cb(false, true);
      return why;
    }
    if (ms_.etol > 0.0 && step - last_negative > ms_.delaystep && energy_converged(ecurrent_, eprevious)) {
      cb(false, true);
      return "energy tolerance";
    }
    if (ms_.ftol > 0.0 && ftol_measure() < ms_.ftol * ms_.ftol) {
      cb(false, true);
      return "force tolerance";
    }
    cb(false, iter + 1 == ms_.maxiter);
  }
  return "max iterations";
}

MinStats Minimizer::run(const MinCallback& cb) {
  ids_ = s_.atoms.id;
  x0_.assign(3 * n(), 0.0), img0_.assign(3 * n(), 0.0), g_.assign(3 * n(), 0.0), h_.assign(3 * n(), 0.0);
  ecurrent_ = evaluate();
  st_.e_initial = st_.e_next_to_last = ecurrent_;
  st_.fnorm2_initial = std::sqrt(fnorm_sqr());
  st_.fnorminf_initial = std::sqrt(fnorm_inf());
  cb(true, false);
  const char* stop = nullptr;
  if (ms_.maxiter == 0) {
    stop = "max iterations";
    cb(false, true);
  } else if (ms_.ftol > 0.0 && ftol_measure() < ms_.ftol * ms_.ftol) {
    // LAMMPS also stops at once when the start already meets the force tolerance
    stop = "force tolerance";
    cb(false, true);
  } else {
    stop = ms_.style == "fire" ? iterate_fire(cb) : iterate_cg(cb);
  }
  st_.stop = stop;
  st_.e_final = ecurrent_;
  st_.fnorm2_final = std::sqrt(fnorm_sqr());
  st_.fnorminf_final = std::sqrt(fnorm_inf());
  add_stats(st_.neighbors, b_.neighbor_stats());
  add_times(st_.times, b_.phase_times());
  return st_;
}

}  // namespace

MinStats minimize(State& s, Backend& backend, const potentials::EamTables& tables, const NeighborSettings& nb,
                  const MinSettings& settings, const BoxRelax& box, const Comm& comm,
                  const MinCallback& each_iteration) {
  Minimizer m(s, backend, tables, nb, settings, box, comm);
  return m.run(each_iteration);
}

}  // namespace wmd::md
