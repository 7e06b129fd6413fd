#include "md/minimize/minimizer.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "base/error.hpp"
#include "base/units.hpp"

namespace wmd::md {
namespace {

// LAMMPS's constants (min_cg.cpp, min_linesearch.cpp).
constexpr double kEpsEnergy = 1.0e-8;    // EPS_ENERGY: normalisation floor of the energy tolerance
constexpr double kAlphaMax = 1.0;        // ALPHA_MAX: largest line-search step, Å²/eV
constexpr double kAlphaReduce = 0.5;     // ALPHA_REDUCE
constexpr double kBacktrackSlope = 0.4;  // BACKTRACK_SLOPE
constexpr double kQuadraticTol = 0.1;    // QUADRATIC_TOL
constexpr double kEmach = 1.0e-8;        // EMACH: energy changes below this are machine noise
constexpr double kEpsQuad = 1.0e-28;     // EPS_QUAD

// LAMMPS's stopping texts (Min::stopstrings).
constexpr const char* kMaxIterations = "max iterations";
constexpr const char* kMaxEvaluations = "max force evaluations";
constexpr const char* kEnergyTolerance = "energy tolerance";
constexpr const char* kForceTolerance = "force tolerance";
constexpr const char* kNotDownhill = "search direction is not downhill";
constexpr const char* kZeroAlpha = "linesearch alpha is zero";
constexpr const char* kZeroForce = "forces are zero";
constexpr const char* kZeroQuad = "quadratic factors are zero";

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
    if (br_.active) box_init();
  }

  MinStats run(const MinCallback& cb);

 private:
  size_t n() const { return s_.atoms.size(); }
  double energy_force();
  double alpha_step(double alpha, bool resetflag);
  void reset_coords();
  void follow_ids();
  void store_start();
  double fdoth() const;
  double hmax_atoms() const;
  double dot_atoms(const std::vector<double>& a, const std::vector<double>& b) const;
  double fnorm_sqr() const;
  double fnorm_inf() const;  // largest component², LAMMPS 2021's fnorm_inf
  double fnorm_max() const;  // largest per-atom |f|², LAMMPS's fnorm_max
  bool energy_converged(double ecur, double eprev) const {
    return std::fabs(ecur - eprev) < ms_.etol * 0.5 * (std::fabs(ecur) + std::fabs(eprev) + kEpsEnergy);
  }
  void gather_forces(std::vector<double>& f) const;
  const char* linemin_backtrack(double eoriginal, double& alpha);
  const char* linemin_quadratic(double eoriginal, double& alpha);
  const char* linemin_forcezero(double eoriginal, double& alpha);
  bool min_reset_ref();
  const char* iterate_cg(const MinCallback& cb);
  const char* iterate_fire(const MinCallback& cb);

  // fix box/relax (LAMMPS's FixBoxRelax)
  void box_init();
  double min_energy();
  double max_alpha_extra() const;
  void box_remap(const double ds[6], bool move_atoms);
  void box_min_step(double alpha);

  State& s_;
  Backend& b_;
  const potentials::EamTables& t_;
  NeighborSettings nb_;
  const MinSettings& ms_;
  const BoxRelax& br_;
  const Comm& comm_;

  // Extra global degrees of freedom (LAMMPS's nextra_global): 1 for iso, 6 with a relaxed tilt, 3 otherwise,
  // 0 without box/relax.
  int nextra_ = 0;
  double fextra_[6] = {0, 0, 0, 0, 0, 0}, gextra_[6] = {0, 0, 0, 0, 0, 0}, hextra_[6] = {0, 0, 0, 0, 0, 0};
  BoxRelaxReference ref_;  // reference box and targets (init, compute_sigma)
  Box box0_;               // the box at the line-search start (min_store)

  bool have_setup_ = false;
  int64_t begin_step_ = 0;
  double natoms_ = 1.0;       // all ranks' atoms (thermo_modify norm yes divides energies and F·h by it)
  std::vector<int64_t> ids_;  // atom order the per-atom vectors below follow
  std::vector<double> x0_, img0_, g_, h_, fvec_;  // 3 per atom
  double ecurrent_ = 0.0;
  MinStats st_;
};

// LAMMPS's FixBoxRelax::init at the start of this minimisation.
void Minimizer::box_init() {
  nextra_ = br_.ndof();
  box_relax_init(br_, s_.box, ref_);
  if (br_.reference) *br_.reference = ref_;
}

// LAMMPS's FixBoxRelax::min_energy: the P·V (and strain) energy of the extra degrees of freedom and their
// forces, from the virial-only pressure (compute pressure … virial) of the current box, coupled as LAMMPS's
// couple() (the tilts' components in Voigt order: yz, xz, xy).
double Minimizer::min_energy() {
  const double pv2e = 1.0 / units::nktv2p;
  const double* w = b_.result().virial;
  const Box& b = s_.box;
  const double inv_volume = 1.0 / (b.prd(0) * b.prd(1) * b.prd(2));
  const double* prdinit = ref_.prdinit;
  const double vol0 = ref_.vol0;
  if (br_.iso()) {
    const double p_current = (w[0] + w[1] + w[2]) / 3.0 * inv_volume * units::nktv2p;
    const double scale = b.prd(0) / prdinit[0];
    fextra_[0] = pv2e * (p_current - br_.target[0]) * 3.0 * scale * scale * vol0;
    return box_relax_energy(br_, ref_, b);
  }
  double t[6], p[6];
  for (int k = 0; k < 6; ++k) t[k] = w[k] * inv_volume * units::nktv2p;
  using C = BoxRelax::Couple;
  p[0] = t[0], p[1] = t[1], p[2] = t[2];
  if (br_.couple == C::xyz) p[0] = p[1] = p[2] = 1.0 / 3.0 * (t[0] + t[1] + t[2]);
  if (br_.couple == C::xy) p[0] = p[1] = 0.5 * (t[0] + t[1]);
  if (br_.couple == C::yz) p[1] = p[2] = 0.5 * (t[1] + t[2]);
  if (br_.couple == C::xz) p[0] = p[2] = 0.5 * (t[0] + t[2]);
  p[3] = t[5], p[4] = t[4], p[5] = t[3];  // LAMMPS's xy-xz-yz to Voigt
  double scale[3] = {1.0, 1.0, 1.0};
  for (int d = 0; d < 3; ++d)
    if (br_.dim[d]) scale[d] = b.prd(d) / prdinit[d];
  const double p_hydro = ref_.p_hydro;
  for (int q = 0; q < 6; ++q) fextra_[q] = 0.0;
  if (br_.dim[0]) fextra_[0] = pv2e * (p[0] - p_hydro) * scale[1] * scale[2] * vol0;
  if (br_.dim[1]) fextra_[1] = pv2e * (p[1] - p_hydro) * scale[0] * scale[2] * vol0;
  if (br_.dim[2]) fextra_[2] = pv2e * (p[2] - p_hydro) * scale[0] * scale[1] * vol0;
  if (br_.triclinic()) {
    if (br_.dim[3]) fextra_[3] = pv2e * p[3] * scale[1] * prdinit[1] * scale[0] * prdinit[0] * prdinit[1];
    if (br_.dim[4]) fextra_[4] = pv2e * p[4] * scale[0] * prdinit[0] * scale[1] * prdinit[1] * prdinit[0];
    if (br_.dim[5]) fextra_[5] = pv2e * p[5] * scale[0] * prdinit[0] * scale[2] * prdinit[2] * prdinit[0];
  }
  if (ref_.deviatoric) {
    // compute_deviatoric: fdev = pv2e·(h·sigma) row by row, h the current box (Voigt: xx yy zz yz xz xy)
    const double h[6] = {b.prd(0), b.prd(1), b.prd(2), b.yz, b.xz, b.xy};
    const double* sg = ref_.sigma;
    const double fdev[6] = {pv2e * (h[0] * sg[0] + h[5] * sg[5] + h[4] * sg[4]),
                            pv2e * (h[1] * sg[1] + h[3] * sg[3]),
                            pv2e * (h[2] * sg[2]),
                            pv2e * (h[1] * sg[3] + h[3] * sg[2]),
                            pv2e * (h[0] * sg[4] + h[5] * sg[3] + h[4] * sg[2]),
                            pv2e * (h[0] * sg[5] + h[5] * sg[1] + h[4] * sg[3])};
    for (int d = 0; d < 3; ++d)
      if (br_.dim[d]) fextra_[d] -= fdev[d] * prdinit[d];
    if (br_.triclinic()) {
      if (br_.dim[3]) fextra_[3] -= fdev[3] * prdinit[1];
      if (br_.dim[4]) fextra_[4] -= fdev[4] * prdinit[0];
      if (br_.dim[5]) fextra_[5] -= fdev[5] * prdinit[0];
    }
  }
  return box_relax_energy(br_, ref_, b);
}

// LAMMPS's FixBoxRelax::max_alpha: no box component changes by more than vmax of the reference in one step.
double Minimizer::max_alpha_extra() const {
  if (br_.iso()) return br_.vmax / std::fabs(hextra_[0]);
  double alpha = 1.0;
  for (int q = 0; q < 6; ++q)
    if (br_.dim[q] && (q < 3 || br_.triclinic())) alpha = std::min(alpha, br_.vmax / std::fabs(hextra_[q]));
  return alpha;
}

// LAMMPS's FixBoxRelax::remap: from the line-search start box (min_store), each relaxed length grows by
// ds·h0 about the fixed point (divided by the current box length, LAMMPS's domain->h), scaled tilts follow
// their lengths, relaxed tilts grow by ds times the reference length; the atoms (all, or the fix's group with
// `dilate partial`) keep their fractional coordinates, through LAMMPS's x2lamda/lamda2x arithmetic.
// move_atoms false: min_step(0), whose positions the line search overwrites with its start at once.
void Minimizer::box_remap(const double ds[6], bool move_atoms) {
  const Box from = s_.box;  // the box the atoms' fractional coordinates are taken in
  Box& b = s_.box;
  const double* h0 = ref_.h0;
  for (int d = 0; d < 3; ++d) {
    if (!br_.dim[d]) continue;
    const double lo0 = box0_.lo[d], hi0 = box0_.hi[d], h = from.prd(d);
    b.lo[d] = lo0 + (lo0 - br_.fixedpoint[d]) / h * ds[d] * h0[d];
    b.hi[d] = hi0 + (hi0 - br_.fixedpoint[d]) / h * ds[d] * h0[d];
    if (b.lo[d] >= b.hi[d]) throw RunError("fix box/relax generated a negative box length");
  }
  if (br_.scaleyz) b.yz = (b.hi[2] - b.lo[2]) * h0[3] / h0[2];
  if (br_.scalexz) b.xz = (b.hi[2] - b.lo[2]) * h0[4] / h0[2];
  if (br_.scalexy) b.xy = (b.hi[1] - b.lo[1]) * h0[5] / h0[1];
  if (br_.triclinic()) {
    if (br_.dim[3]) b.yz = box0_.yz + ds[3] * ref_.prdinit[1];
    if (br_.dim[4]) b.xz = box0_.xz + ds[4] * ref_.prdinit[0];
    if (br_.dim[5]) b.xy = box0_.xy + ds[5] * ref_.prdinit[0];
  }
  if (!move_atoms) return;
  Atoms& a = s_.atoms;
  for (size_t i = 0; i < n(); ++i) {
    if (!br_.dilate_all && !(a.mask[i] & br_.group)) continue;
    double x[3] = {a.x[i], a.y[i], a.z[i]}, l[3];
    from.to_lamda(x, l);
    b.from_lamda(l, x);
    a.x[i] = x[0], a.y[i] = x[1], a.z[i] = x[2];
  }
}

// LAMMPS's FixBoxRelax::min_step: ds = α·hextra along the relaxed components (all three lengths with iso).
void Minimizer::box_min_step(double alpha) {
  double ds[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  for (int q = 0; q < 6; ++q) {
    if (br_.iso())
      ds[q] = q < 3 ? alpha * hextra_[0] : 0.0;
    else if (br_.dim[q] && (q < 3 || br_.triclinic()))
      ds[q] = alpha * hextra_[q];
  }
  box_remap(ds, true);
}

// LAMMPS's Min::energy_force: forces and energy at the current positions (plus the P·V energy and the box
// forces with box/relax). After the set-up, the backend's per-step compute, as in a run with a changing box
// (fix npt): it rebuilds the list when some atom moved more than half the skin, less the box faces' motion
// (LAMMPS's boxcheck), and only then wraps atoms and moves shrink-wrapped faces (LAMMPS's reset_box at
// reneighbouring), so the box and its volume change exactly where lmp's do.
double Minimizer::energy_force() {
  if (!have_setup_) {
    b_.setup(s_, t_, nb_, false);
    have_setup_ = true;
  } else {
    b_.compute(s_, false, true);
  }
  follow_ids();
  double e = b_.result().energy;
  if (nextra_) e += min_energy();
  if (ms_.normalize) e /= natoms_;
  return e;
}

// LAMMPS's FixMinimize::reset_coords: where the evaluation re-neighboured and wrapped an atom through a
// periodic face, its line-search start moves to the same image (the minimum image of x − x0, taken in the
// start box's lengths with the current tilts, as LAMMPS's box_swap leaves them), so the next trial starts
// beside the wrapped atom and does not look like a jump of a box length (which would re-neighbour again, and
// move shrink-wrapped faces where lmp does not).
void Minimizer::reset_coords() {
  Atoms& a = s_.atoms;
  Box m = s_.box;
  for (int d = 0; d < 3; ++d) m.lo[d] = box0_.lo[d], m.hi[d] = box0_.hi[d];
  const double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
  const int* img[3] = {a.ix.data(), a.iy.data(), a.iz.data()};
  for (size_t i = 0; i < n(); ++i) {
    double d0[3], dd[3];
    for (int d = 0; d < 3; ++d) d0[d] = dd[d] = pos[d][i] - x0_[3 * i + d];
    m.minimum_image(dd[0], dd[1], dd[2]);
    for (int d = 0; d < 3; ++d) {
      if (dd[d] == d0[d]) continue;
      x0_[3 * i + d] = pos[d][i] - dd[d];
      img0_[3 * i + d] = img[d][i];
    }
  }
}

// LAMMPS's MinLineSearch::alpha_step: back to the line-search start (box and positions), then the box step
// and x0 + α·h; one force evaluation (resetflag: the start follows atoms a re-neighbouring wrapped).
double Minimizer::alpha_step(double alpha, bool resetflag) {
  Atoms& a = s_.atoms;
  // min_step(0): the relaxed components back to the start box (the others keep their current extent)
  if (nextra_) {
    const double zero[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    box_remap(zero, false);
  }
  double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
  int* img[3] = {a.ix.data(), a.iy.data(), a.iz.data()};
  for (size_t i = 0; i < n(); ++i) {
    for (int d = 0; d < 3; ++d) {
      pos[d][i] = x0_[3 * i + d];
      img[d][i] = static_cast<int>(img0_[3 * i + d]);
    }
  }
  if (alpha > 0.0) {
    if (nextra_) box_min_step(alpha);
    for (size_t i = 0; i < n(); ++i) {
      for (int d = 0; d < 3; ++d) pos[d][i] += alpha * h_[3 * i + d];
    }
  }
  ++st_.evaluations;
  const double e = energy_force();
  if (resetflag) reset_coords();
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

// The start of a line search (LAMMPS's x0 and min_store): positions, image counts and the box.
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

// F·h over all degrees of freedom: the atoms' sum over ranks, then the extra ones (LAMMPS's order).
double Minimizer::fdoth() const {
  const Atoms& a = s_.atoms;
  TermSum sum(comm_, 1);
  for (size_t i = 0; i < n(); ++i) {
    sum.add(0, a.fx[i] * h_[3 * i]);
    sum.add(0, a.fy[i] * h_[3 * i + 1]);
    sum.add(0, a.fz[i] * h_[3 * i + 2]);
  }
  double fh = sum.total()[0];
  for (int q = 0; q < nextra_; ++q) fh += fextra_[q] * hextra_[q];
  if (ms_.normalize) fh /= natoms_;
  return fh;
}

double Minimizer::hmax_atoms() const {
  double hme = 0.0;
  for (double v : h_) hme = std::max(hme, std::fabs(v));
  return comm_.max(hme);
}

double Minimizer::dot_atoms(const std::vector<double>& a, const std::vector<double>& b) const {
  TermSum sum(comm_, 1);
  for (size_t k = 0; k < a.size(); ++k) sum.add(0, a[k] * b[k]);
  return sum.total()[0];
}

void Minimizer::gather_forces(std::vector<double>& f) const {
  const Atoms& a = s_.atoms;
  f.resize(3 * n());
  for (size_t i = 0; i < n(); ++i) f[3 * i] = a.fx[i], f[3 * i + 1] = a.fy[i], f[3 * i + 2] = a.fz[i];
}

double Minimizer::fnorm_sqr() const {
  const Atoms& a = s_.atoms;
  TermSum sum(comm_, 1);
  for (size_t i = 0; i < n(); ++i) {
    sum.add(0, a.fx[i] * a.fx[i]);
    sum.add(0, a.fy[i] * a.fy[i]);
    sum.add(0, a.fz[i] * a.fz[i]);
  }
  double f2 = sum.total()[0];
  for (int q = 0; q < nextra_; ++q) f2 += fextra_[q] * fextra_[q];
  return f2;
}

double Minimizer::fnorm_inf() const {
  const Atoms& a = s_.atoms;
  double m = 0.0;
  for (size_t i = 0; i < n(); ++i) m = std::max({m, a.fx[i] * a.fx[i], a.fy[i] * a.fy[i], a.fz[i] * a.fz[i]});
  m = comm_.max(m);
  for (int q = 0; q < nextra_; ++q) m = std::max(m, fextra_[q] * fextra_[q]);
  return m;
}

double Minimizer::fnorm_max() const {
  const Atoms& a = s_.atoms;
  double m = 0.0;
  for (size_t i = 0; i < n(); ++i) m = std::max(m, a.fx[i] * a.fx[i] + a.fy[i] * a.fy[i] + a.fz[i] * a.fz[i]);
  m = comm_.max(m);
  // LAMMPS's fnorm_max steps through the extra degrees of freedom three at a time (only the first counts)
  for (int q = 0; q < nextra_; q += 3) m = std::max(m, fextra_[q] * fextra_[q]);
  return m;
}

// LAMMPS's FixBoxRelax::min_reset_ref after a successful line search: with a deviatoric target and nreset,
// the reference box is reset every nreset iterations (and the energy re-evaluated, its P·V origin moved).
bool Minimizer::min_reset_ref() {
  if (!nextra_ || !ref_.deviatoric || br_.nreset <= 0) return false;
  if ((s_.step - begin_step_) % br_.nreset != 0) return false;
  box_relax_sigma(br_, s_.box, ref_);
  if (br_.reference) *br_.reference = ref_;
  return true;
}

// LAMMPS's linemin_backtrack: from α = min(1, dmax/max|h|, the box's vmax limit), halve α until the energy
// drops by 0.4·α·F·h; at the machine limit it returns to the start, "energy tolerance" if that last trial
// still went down.
const char* Minimizer::linemin_backtrack(double eoriginal, double& alpha) {
  const double fdothall = fdoth();
  if (fdothall <= 0.0) return kNotDownhill;
  double hmaxall = hmax_atoms();
  alpha = std::min(kAlphaMax, ms_.dmax / hmaxall);
  if (nextra_) {
    alpha = std::min(alpha, max_alpha_extra());
    for (int q = 0; q < nextra_; ++q) hmaxall = std::max(hmaxall, std::fabs(hextra_[q]));
  }
  if (hmaxall == 0.0) return kZeroForce;
  store_start();
  while (true) {
    ecurrent_ = alpha_step(alpha, true);
    const double de_ideal = -kBacktrackSlope * alpha * fdothall;
    const double de = ecurrent_ - eoriginal;
    if (de <= de_ideal) {
      if (min_reset_ref()) ecurrent_ = energy_force();
      return nullptr;
    }
    alpha *= kAlphaReduce;
    if (alpha <= 0.0 || de_ideal >= -kEmach) {
      ecurrent_ = alpha_step(0.0, false);
      return de < 0.0 ? kEnergyTolerance : kZeroAlpha;
    }
  }
}

// LAMMPS's linemin_quadratic: backtracking as above, but as soon as the energy change agrees with the
// trapezoid of the slopes to 10%, the secant root of F·h between the last two trials is tried first.
const char* Minimizer::linemin_quadratic(double eoriginal, double& alpha) {
  const double fdothall = fdoth();
  if (fdothall <= 0.0) return kNotDownhill;
  double hmaxall = hmax_atoms();
  double alphamax = std::min(kAlphaMax, ms_.dmax / hmaxall);
  if (nextra_) {
    alphamax = std::min(alphamax, max_alpha_extra());
    for (int q = 0; q < nextra_; ++q) hmaxall = std::max(hmaxall, std::fabs(hextra_[q]));
  }
  if (hmaxall == 0.0) return kZeroForce;
  store_start();
  alpha = alphamax;
  double fhprev = fdothall, engprev = eoriginal, alphaprev = 0.0;
  while (true) {
    ecurrent_ = alpha_step(alpha, true);
    const double fh = fdoth();
    const double delfh = fh - fhprev;
    if (std::fabs(fh) < kEpsQuad || std::fabs(delfh) < kEpsQuad) {
      ecurrent_ = alpha_step(0.0, false);
      return kZeroQuad;
    }
    const double relerr = std::fabs(1.0 - (0.5 * (alpha - alphaprev) * (fh + fhprev) + ecurrent_) / engprev);
    const double alpha0 = alpha - (alpha - alphaprev) * fh / delfh;
    if (relerr <= kQuadraticTol && alpha0 > 0.0 && alpha0 < alphamax) {
      ecurrent_ = alpha_step(alpha0, true);
      if (ecurrent_ - eoriginal < kEmach) {
        if (min_reset_ref()) ecurrent_ = energy_force();
        return nullptr;
      }
    }
    const double de_ideal = -kBacktrackSlope * alpha * fdothall;
    const double de = ecurrent_ - eoriginal;
    if (de <= de_ideal) {
      if (min_reset_ref()) ecurrent_ = energy_force();
      return nullptr;
    }
    fhprev = fh, engprev = ecurrent_, alphaprev = alpha;
    alpha *= kAlphaReduce;
    if (alpha <= 0.0 || de_ideal >= -kEmach) {
      ecurrent_ = alpha_step(0.0, false);
      return kZeroAlpha;
    }
  }
}

// LAMMPS's linemin_forcezero: seeks a zero of F·h along h by secant steps, the energy only kept from
// rising by more than 1e-12; a rejected step leaves the atoms there (as LAMMPS does) while the search goes
// on from the previous point.
const char* Minimizer::linemin_forcezero(double eoriginal, double& alpha) {
  constexpr double kAlphaFact = 0.1, kZeroEnergy = 1e-12, kGradTol = 0.1, kMinAlphaFac = 1e-14,
                   kLimitBoost = 4.0;
  const double fdothall = fdoth();
  if (fdothall <= 0.0) return kNotDownhill;
  double hmaxall = hmax_atoms();
  double alpha_max = ms_.dmax / hmaxall;
  if (nextra_) {
    alpha_max = std::min(alpha_max, max_alpha_extra());
    for (int q = 0; q < nextra_; ++q) hmaxall = std::max(hmaxall, std::fabs(hextra_[q]));
  }
  if (hmaxall == 0.0) return kZeroForce;
  store_start();
  double fhCurr = fdothall;
  const double fhoriginal = fhCurr;
  double engCurr = eoriginal;
  const double alpha_init = 0.1 * std::fabs(eoriginal) / fdothall;
  alpha = 0.0;
  double alpha_del = std::min(alpha_init, 0.5 * alpha_max);
  while (true) {
    bool backtrack = false;
    const double fhPrev = fhCurr, engPrev = engCurr;
    alpha += alpha_del;
    if (alpha > alpha_max) {
      alpha -= alpha_del;
      if (min_reset_ref()) ecurrent_ = energy_force();
      return nullptr;
    }
    engCurr = alpha_step(alpha, true);
    ecurrent_ = engCurr;
    fhCurr = fdoth();
    const double de = engCurr - engPrev;
    if (de >= kZeroEnergy) backtrack = true;
    if (!backtrack && std::fabs(fhCurr / fhoriginal) <= kGradTol) {
      if (min_reset_ref()) ecurrent_ = energy_force();
      return nullptr;
    }
    if (fhCurr < 0.0) backtrack = true;
    if (backtrack) {
      alpha -= alpha_del;
      if (fhCurr < 0.0)
        alpha_del *= fhPrev / (fhPrev - fhCurr);
      else
        alpha_del *= kAlphaFact;
      engCurr = engPrev;
      ecurrent_ = engCurr;
      fhCurr = fhPrev;
      if (hmaxall * alpha_del <= kMinAlphaFac) {
        engCurr = alpha_step(0.0, true);
        ecurrent_ = engCurr;
        return kZeroAlpha;
      }
    } else {
      double boost = kLimitBoost;
      if (fhPrev > fhCurr) boost = fhCurr / (fhPrev - fhCurr);
      boost = std::min(boost, kLimitBoost);
      alpha_del *= boost;
    }
  }
}

// LAMMPS's MinCG::iterate: Polak–Ribière with β ≥ 0, restarted every ndof iterations and whenever the new
// direction is not downhill; the stopping checks in LAMMPS's order (evaluations, energy, force).
const char* Minimizer::iterate_cg(const MinCallback& cb) {
  gather_forces(g_);
  h_ = g_;
  for (int q = 0; q < nextra_; ++q) hextra_[q] = gextra_[q] = fextra_[q];
  double gg = fnorm_sqr();
  const int64_t ndoftotal = comm_.sum(static_cast<int64_t>(3 * n())) + nextra_;
  const int64_t nlimit = std::min<int64_t>(2147483647, ndoftotal);
  for (int64_t niter = 1; niter <= ms_.maxiter; ++niter) {
    ++s_.step;
    ++st_.iterations;
    const double eprevious = ecurrent_;
    double alpha = 0.0;
    const char* fail = ms_.line == "backtrack"   ? linemin_backtrack(ecurrent_, alpha)
                       : ms_.line == "forcezero" ? linemin_forcezero(ecurrent_, alpha)
                                                 : linemin_quadratic(ecurrent_, alpha);
    st_.alpha_final = alpha;
    st_.e_next_to_last = eprevious;
    if (fail) return fail;
    if (st_.evaluations >= ms_.maxeval) return kMaxEvaluations;
    if (energy_converged(ecurrent_, eprevious)) return kEnergyTolerance;
    std::vector<double>& f = fvec_;
    gather_forces(f);
    double ff = dot_atoms(f, f), fg = dot_atoms(f, g_);
    for (int q = 0; q < nextra_; ++q) ff += fextra_[q] * fextra_[q], fg += fextra_[q] * gextra_[q];
    if (ms_.ftol > 0.0) {
      const double fdotf = ms_.norm == "max" ? fnorm_max() : ms_.norm == "inf" ? fnorm_inf() : fnorm_sqr();
      if (fdotf < ms_.ftol * ms_.ftol) return kForceTolerance;
    }
    double beta = std::max(0.0, (ff - fg) / gg);
    if ((niter + 1) % nlimit == 0) beta = 0.0;
    gg = ff;
    for (size_t k = 0; k < f.size(); ++k) {
      g_[k] = f[k];
      h_[k] = g_[k] + beta * h_[k];
    }
    for (int q = 0; q < nextra_; ++q) gextra_[q] = fextra_[q], hextra_[q] = gextra_[q] + beta * hextra_[q];
    // reset to steepest descent if the new direction is not downhill
    double hg = dot_atoms(g_, h_);
    for (int q = 0; q < nextra_; ++q) hg += gextra_[q] * hextra_[q];
    if (hg <= 0.0) {
      h_ = g_;
      for (int q = 0; q < nextra_; ++q) hextra_[q] = gextra_[q];
    }
    cb(false, niter == ms_.maxiter);
  }
  return kMaxIterations;
}

// LAMMPS's MinFire::iterate (FIRE 2.0, semi-implicit Euler): the mixing factors from v and F before the kick,
// the half step back and its force evaluation, the stops in LAMMPS's order.
const char* Minimizer::iterate_fire(const MinCallback& cb) {
  Atoms& a = s_.atoms;
  double dt = s_.dt;
  const double dtmax = ms_.tmax * dt, dtmin = ms_.tmin * dt;
  double alpha = ms_.alpha0;
  const int64_t start = s_.step;
  int64_t last_negative = start, vdotf_negative = 0;
  for (int64_t iter = 0; iter < ms_.maxiter; ++iter) {
    const int64_t step = ++s_.step;
    ++st_.iterations;
    TermSum vdotf_sum(comm_, 1);
    for (size_t i = 0; i < n(); ++i)
      vdotf_sum.add(0, a.vx[i] * a.fx[i] + a.vy[i] * a.fy[i] + a.vz[i] * a.fz[i]);
    const double vdotf = vdotf_sum.total()[0];
    double scale1 = 0.0, scale2 = 0.0;
    if (vdotf > 0.0) {
      vdotf_negative = 0;
      TermSum vv_sum(comm_, 1), ff_sum(comm_, 1);  // two reductions, as LAMMPS's
      for (size_t i = 0; i < n(); ++i)
        vv_sum.add(0, a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i]);
      const double vv = vv_sum.total()[0];
      for (size_t i = 0; i < n(); ++i)
        ff_sum.add(0, a.fx[i] * a.fx[i] + a.fy[i] * a.fy[i] + a.fz[i] * a.fz[i]);
      const double ff = ff_sum.total()[0];
      scale1 = 1.0 - alpha;
      scale2 = ff <= 1e-20 ? 0.0 : alpha * std::sqrt(vv / ff);
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
      if (ms_.vdfmax > 0 && vdotf_negative > ms_.vdfmax) return "max iterations with v.f negative";
      if (ms_.halfstepback) {
        // x(t) = x(t − ½dt) with the step just shrunk, then the forces there (lmp 2021 evaluates them anew:
        // its evaluation counts show one more per half step back)
        for (size_t i = 0; i < n(); ++i) {
          a.x[i] -= 0.5 * dt * a.vx[i], a.y[i] -= 0.5 * dt * a.vy[i], a.z[i] -= 0.5 * dt * a.vz[i];
        }
        ++st_.evaluations;
        ecurrent_ = energy_force();
      }
      for (size_t i = 0; i < n(); ++i) a.vx[i] = a.vy[i] = a.vz[i] = 0.0;
    }
    // no atom moves further than dmax in one step
    double dtvone = dt;
    for (size_t i = 0; i < n(); ++i) {
      const double vmax = std::max({std::fabs(a.vx[i]), std::fabs(a.vy[i]), std::fabs(a.vz[i])});
      if (dtvone * vmax > ms_.dmax) dtvone = ms_.dmax / vmax;
    }
    const double dtv = comm_.min(dtvone);
    const double dtf = dtv * units::ftm2v;
    for (size_t i = 0; i < n(); ++i) {
      const double dtfm = dtf / s_.mass[a.type[i]];
      a.vx[i] += dtfm * a.fx[i], a.vy[i] += dtfm * a.fy[i], a.vz[i] += dtfm * a.fz[i];
      if (vdotf > 0.0) {
        a.vx[i] = scale1 * a.vx[i] + scale2 * a.fx[i];
        a.vy[i] = scale1 * a.vy[i] + scale2 * a.fy[i];
        a.vz[i] = scale1 * a.vz[i] + scale2 * a.fz[i];
      }
      a.x[i] += dtv * a.vx[i], a.y[i] += dtv * a.vy[i], a.z[i] += dtv * a.vz[i];
    }
    st_.alpha_final = dtv;
    const double eprevious = ecurrent_;
    ++st_.evaluations;
    ecurrent_ = energy_force();
    st_.e_next_to_last = eprevious;
    if (st_.evaluations >= ms_.maxeval) return kMaxEvaluations;
    if (ms_.etol > 0.0 && step - last_negative > ms_.delaystep && energy_converged(ecurrent_, eprevious))
      return kEnergyTolerance;
    if (ms_.ftol > 0.0) {
      const double fdotf = ms_.norm == "max" ? fnorm_max() : ms_.norm == "inf" ? fnorm_inf() : fnorm_sqr();
      if (fdotf < ms_.ftol * ms_.ftol) return kForceTolerance;
    }
    cb(false, iter + 1 == ms_.maxiter);
  }
  return kMaxIterations;
}

MinStats Minimizer::run(const MinCallback& cb) {
  ids_ = s_.atoms.id;
  x0_.assign(3 * n(), 0.0), img0_.assign(3 * n(), 0.0), g_.assign(3 * n(), 0.0), h_.assign(3 * n(), 0.0);
  begin_step_ = s_.step;
  natoms_ = static_cast<double>(comm_.sum(static_cast<int64_t>(n())));
  if (ms_.style == "fire") {  // LAMMPS's MinFire::setup_style, before the first thermo line
    Atoms& a = s_.atoms;
    for (size_t i = 0; i < n(); ++i) a.vx[i] = a.vy[i] = a.vz[i] = 0.0;
  }
  ecurrent_ = energy_force();
  st_.evaluations = 0;  // LAMMPS's neval (stats and maxeval) counts the evaluations after the set-up's
  st_.e_initial = st_.e_next_to_last = ecurrent_;
  st_.fnorm2_initial = std::sqrt(fnorm_sqr());
  st_.fnorminf_initial = std::sqrt(fnorm_inf());
  cb(true, false);
  // LAMMPS 2021 checks no tolerance before the first iteration: a minimum already met takes one iteration
  // (and stops on the energy tolerance, its energy unchanged).
  // maxiter 0 (or below): no iteration and no output after the set-up's, as lmp.
  const char* stop = kMaxIterations;
  if (ms_.maxiter > 0) stop = ms_.style == "fire" ? iterate_fire(cb) : iterate_cg(cb);
  if (stop != kMaxIterations) {
    // LAMMPS's Min::run after an early stop: the forces once more at the final positions, then the output
    ecurrent_ = energy_force();
    cb(false, true);
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

void box_relax_init(const BoxRelax& br, const Box& b, BoxRelaxReference& ref) {
  for (int d = 0; d < 3; ++d) ref.prdinit[d] = b.prd(d);
  ref.vol0 = ref.prdinit[0] * ref.prdinit[1] * ref.prdinit[2];
  const double h0[6] = {b.prd(0), b.prd(1), b.prd(2), b.yz, b.xz, b.xy};
  for (int k = 0; k < 6; ++k) ref.h0[k] = h0[k];
  // compute_press_target: the mean of the relaxed lengths' targets; a target that differs from it, or a
  // non-zero tilt target, makes the stress deviatoric
  int nflag = 0;
  ref.p_hydro = 0.0;
  for (int d = 0; d < 3; ++d)
    if (br.dim[d]) ref.p_hydro += br.target[d], ++nflag;
  if (nflag) ref.p_hydro /= nflag;
  ref.deviatoric = br.deviatoric;
  for (int d = 0; d < 3; ++d)
    if (br.dim[d] && std::fabs(ref.p_hydro - br.target[d]) > 1.0e-6) ref.deviatoric = true;
  if (br.triclinic())
    for (int q = 3; q < 6; ++q)
      if (br.dim[q] && std::fabs(br.target[q]) > 1.0e-6) ref.deviatoric = true;
  if (ref.deviatoric) box_relax_sigma(br, b, ref);
}

namespace {

// LAMMPS's MathExtra::times3 (a·b) and times3_transpose (a·bᵀ), term by term.
void times3(const double a[3][3], const double b[3][3], double c[3][3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
}
void times3_transpose(const double a[3][3], const double b[3][3], double c[3][3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c[i][j] = a[i][0] * b[j][0] + a[i][1] * b[j][1] + a[i][2] * b[j][2];
}

}  // namespace

// LAMMPS's FixBoxRelax::compute_sigma: the reference reset to box b, the target's deviatoric part corrected
// for the tilts (its stationarity relation, with the init box h0), sigma = V0·h0⁻¹·P_dev·h0⁻ᵀ.
void box_relax_sigma(const BoxRelax& br, const Box& b, BoxRelaxReference& ref) {
  for (int d = 0; d < 3; ++d) ref.prdinit[d] = b.prd(d);
  ref.vol0 = ref.prdinit[0] * ref.prdinit[1] * ref.prdinit[2];
  b.h_inv(ref.h0_inv);
  const double* hi = ref.h0_inv;
  const double hinv[3][3] = {{hi[0], hi[5], hi[4]}, {0.0, hi[1], hi[3]}, {0.0, 0.0, hi[2]}};
  const double* t = br.target;
  double pd[3][3] = {{0.0, t[5], t[4]}, {t[5], 0.0, t[3]}, {t[4], t[3], 0.0}};
  for (int d = 0; d < 3; ++d)
    if (br.dim[d]) pd[d][d] = t[d] - ref.p_hydro;
  const double* h0 = ref.h0;
  pd[1][1] -= pd[1][2] * hi[3] * h0[1];
  pd[0][1] -= pd[0][2] * hi[3] * h0[1];
  pd[1][0] = pd[0][1];
  pd[0][0] -= pd[0][1] * hi[5] * h0[0] + pd[0][2] * hi[4] * h0[0];
  double tmp[3][3], sg[3][3];
  times3(hinv, pd, tmp);
  times3_transpose(tmp, hinv, sg);
  for (auto& row : sg)
    for (double& v : row) v *= ref.vol0;
  ref.sigma[0] = sg[0][0], ref.sigma[1] = sg[1][1], ref.sigma[2] = sg[2][2];
  ref.sigma[3] = sg[1][2], ref.sigma[4] = sg[0][2], ref.sigma[5] = sg[0][1];
}

double box_relax_energy(const BoxRelax& br, const BoxRelaxReference& ref, const Box& b) {
  const double pv2e = 1.0 / units::nktv2p;
  if (br.iso()) {
    const double scale = b.prd(0) / ref.prdinit[0];
    return pv2e * br.target[0] * (scale * scale * scale - 1.0) * ref.vol0;
  }
  double scale[3] = {1.0, 1.0, 1.0};
  for (int d = 0; d < 3; ++d)
    if (br.dim[d]) scale[d] = b.prd(d) / ref.prdinit[d];
  const double scalevol = scale[0] * scale[1] * scale[2];
  double eng = pv2e * ref.p_hydro * (scalevol - 1.0) * ref.vol0;
  if (ref.deviatoric) {
    // compute_strain_energy: ½ Tr(sigma·h·hᵀ), h the current box (Voigt: xx yy zz yz xz xy)
    const double h[6] = {b.prd(0), b.prd(1), b.prd(2), b.yz, b.xz, b.xy};
    const double* sg = ref.sigma;
    const double d0 = sg[0] * (h[0] * h[0] + h[5] * h[5] + h[4] * h[4]) +
                      sg[5] * (h[1] * h[5] + h[3] * h[4]) + sg[4] * (h[2] * h[4]);
    const double d1 =
        sg[5] * (h[5] * h[1] + h[4] * h[3]) + sg[1] * (h[1] * h[1] + h[3] * h[3]) + sg[3] * (h[2] * h[3]);
    const double d2 = sg[4] * (h[4] * h[2]) + sg[3] * (h[3] * h[2]) + sg[2] * (h[2] * h[2]);
    eng += 0.5 * (d0 + d1 + d2) * pv2e;
  }
  return eng;
}

MinStats minimize(State& s, Backend& backend, const potentials::EamTables& tables, const NeighborSettings& nb,
                  const MinSettings& settings, const BoxRelax& box, const Comm& comm,
                  const MinCallback& each_iteration) {
  Minimizer m(s, backend, tables, nb, settings, box, comm);
  return m.run(each_iteration);
}

}  // namespace wmd::md
