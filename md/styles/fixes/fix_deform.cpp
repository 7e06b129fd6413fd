// fix deform N x|y|z|xy|xz|yz style args … [remap x|v|none] [units lattice|box] [flip yes|no], as LAMMPS fix
// deform: every N steps (end_of_step) the box moves to where the styles put it at that point of the run.
// Lengths (x, y, z): final lo hi, delta dlo dhi, scale f, vel V (Å/ps), erate R (1/ps, engineering strain
// rate), trate R (1/ps, true strain rate), wiggle A Tp (an oscillation of amplitude A and period Tp),
// variable v_dl v_rate (the change of length and its rate, equal-style variables evaluated then) and volume
// (the length that keeps the run's starting volume from the other dimensions' new lengths). Tilt factors of a
// triclinic box (xy, xz, yz): final T, delta dT, vel V, erate R (of the perpendicular length at the start:
// y for xy, z for xz and yz), trate R (T0·e^(R·t)), wiggle A Tp and variable v_dT v_rate. Start and stop
// follow from the box at each run's init and that run's length, or from the box when the fix was defined when
// the run has `start` before its first step (LAMMPS's firststep ≠ beginstep), as LAMMPS's init does, and so
// do the box's rates of change (Box::h_rate, h_ratelo; h_rate[3..5] the tilts' in LAMMPS's order yz, xz, xy:
// constant for the linear styles, set at each change for trate, wiggle and variable, zero for volume as in
// LAMMPS). `remap x` (the default) keeps the group's atoms at their fractional coordinates (LAMMPS's x2lamda
// with the old box, lamda2x with the new); with `remap v` the atoms stay where they are and an atom of the
// group that crosses a periodic face takes the rate along, tilt rates included (the backends' wrap; compute
// temp/deform removes that streaming profile). `flip yes` (the default): a tilt past half its period (xy and
// xz: lx, yz: ly) in a periodic direction is flipped by one period at the next step (LAMMPS's pre_exchange),
// the image flags changed so that every unwrapped position stays (Domain::image_flip), every atom remapped
// into the flipped box, and the backend re-neighbours there (LAMMPS's next_reneighbor). With `flip no` the
// tilt goes on past the half period, as lmp 2021 lets it (it has no error for it: a very skewed box runs
// until atoms are lost).
#include <fmt/format.h>

#include <cmath>

#include "md/core/boundaries.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"

namespace wmd::md {
namespace {

// LAMMPS's index of a tilt (its h[3..5] order): yz, xz, xy.
constexpr int kYz = 3, kXz = 4, kXy = 5;
const char* const kParamName[6] = {"x", "y", "z", "yz", "xz", "xy"};

double& tilt_of(Box& b, int i) {
  return i == kYz ? b.yz : i == kXz ? b.xz : b.xy;
}
double tilt_of(const Box& b, int i) {
  return i == kYz ? b.yz : i == kXz ? b.xz : b.xy;
}

class FixDeform : public Fix {
 public:
  enum class Style { none, final_, delta, scale, vel, erate, trate, wiggle, variable, volume };
  // How a volume dimension follows the others (LAMMPS's substyles): from one changing dimension with the
  // third fixed, from two changing ones, or shared with a second volume dimension.
  enum class Volume { one_from_one, one_from_two, two_from_one };
  // One of LAMMPS's six parameters: lengths 0..2 (x y z), tilts 3..5 (yz xz xy).
  struct Param {
    Style style = Style::none;
    double a = 0.0, b = 0.0;  // final: lo hi (tilt: T); delta: dlo dhi (dT); wiggle: amplitude period; else a
    std::string var, rate_var;  // variable: the change of length (tilt) and its rate
    Volume volume = Volume::one_from_one;
    int fixed = -1, dynamic1 = -1, dynamic2 = -1;  // volume: the dimensions it follows
    // Lengths: the box when the fix was defined, at the run's start and at its end (volume, variable and
    // unchanged lengths have no stop: 0, as LAMMPS's zeroed Set, which its yz-with-xy check reads).
    double lo_initial = 0.0, hi_initial = 0.0, vol_initial = 0.0;
    double lo_start = 0.0, hi_start = 0.0, lo_stop = 0.0, hi_stop = 0.0, vol_start = 0.0;
    // Tilts: likewise, the extremes a wiggle reaches in the run, this change's target and the flipped value.
    double tilt_initial = 0.0, tilt_start = 0.0, tilt_stop = 0.0, tilt_min = 0.0, tilt_max = 0.0;
    double tilt_target = 0.0, tilt_flip = 0.0;
  };
  enum class Remap { x, v, none };
  FixDeform(const FixArgs& f, int64_t every, const Param (&params)[6], Remap remap, bool flip)
      : Fix(f.id, f.style, f.group), every_(every), remap_(remap), flip_allowed_(flip), at_(f.a.pos()) {
    const Box& box = f.ctx.s.box;
    for (int i = 0; i < 6; ++i) {
      p_[i] = params[i];
      variable_ = variable_ || params[i].style == Style::variable;
      tilts_ = tilts_ || (i >= 3 && params[i].style != Style::none);
    }
    // LAMMPS's values at the time the fix is issued (the start of a run that begins after its `start`).
    for (int d = 0; d < 3; ++d) {
      p_[d].lo_initial = box.lo[d], p_[d].hi_initial = box.hi[d];
      p_[d].vol_initial = box.prd(0) * box.prd(1) * box.prd(2);
    }
    for (int i = 3; i < 6; ++i) p_[i].tilt_initial = tilt_of(box, i);
  }
  bool changes_box() const override { return true; }
  unsigned box_components() const override {  // LAMMPS's dimflag: x y z yz xz xy with a style
    unsigned bits = 0;
    for (int d = 0; d < 6; ++d) bits |= p_[d].style != Style::none ? 1u << d : 0u;
    return bits;
  }
  bool keeps_restart_state() const override { return true; }  // LAMMPS writes it to restart files
  bool reads_energy() const override { return false; }

  // LAMMPS's init: start from the present box (or the box when the fix was defined, for a run that starts
  // after its `start` step), stop where the style says at the run's end.
  void init(FixContext& c) override {
    const double delt = static_cast<double>(c.run_end - c.run_begin) * c.s.dt;
    for (const Param& x : p_) {
      if (x.style != Style::variable) continue;
      for (const std::string* v : {&x.var, &x.rate_var}) {
        if (!c.styles || !c.styles->has_variable(*v) || c.styles->has_atom_variable(*v))
          fail_input(at_, "fix deform " + id_ + ": variable " + *v + " does not exist or is not equal-style");
      }
    }
    Box& box = c.s.box;
    if (tilts_ && !box.triclinic)
      fail_input(at_, "fix deform " + id_ +
                          ": tilt factors need a triclinic box (LAMMPS: \"Fix deform tilt factors require "
                          "triclinic box\"); the box is orthogonal now");
    const bool from_now = c.s.step == c.run_begin;  // LAMMPS's firststep == beginstep
    for (int d = 0; d < 3; ++d) {
      Param& x = p_[d];
      x.lo_start = from_now ? box.lo[d] : x.lo_initial;
      x.hi_start = from_now ? box.hi[d] : x.hi_initial;
      x.vol_start = from_now ? box.prd(0) * box.prd(1) * box.prd(2) : x.vol_initial;
      box.h_rate[d] = box.h_ratelo[d] = 0.0;  // set below for the linear styles, later for the others
      const double mid = 0.5 * (x.lo_start + x.hi_start), len = x.hi_start - x.lo_start;
      switch (x.style) {
        case Style::none:
        case Style::variable:
        case Style::volume:
          break;
        case Style::wiggle: {
          const double shift = 0.5 * x.a * std::sin(kTwoPi * delt / x.b);
          x.lo_stop = x.lo_start - shift, x.hi_stop = x.hi_start + shift;
          break;
        }
        case Style::final_:
          x.lo_stop = x.a, x.hi_stop = x.b;
          break;
        case Style::delta:
          x.lo_stop = x.lo_start + x.a, x.hi_stop = x.hi_start + x.b;
          break;
        case Style::scale: {
          const double shift = 0.5 * x.a * len;
          x.lo_stop = mid - shift, x.hi_stop = mid + shift;
          break;
        }
        case Style::vel: {
          const double shift = 0.5 * delt * x.a;
          x.lo_stop = x.lo_start - shift, x.hi_stop = x.hi_start + shift;
          break;
        }
        case Style::erate: {
          const double shift = 0.5 * delt * x.a * len;
          x.lo_stop = x.lo_start - shift, x.hi_stop = x.hi_start + shift;
          break;
        }
        case Style::trate: {
          const double shift = 0.5 * (len * std::exp(x.a * delt));
          x.lo_stop = mid - shift, x.hi_stop = mid + shift;
          break;
        }
      }
      const bool linear = x.style == Style::final_ || x.style == Style::delta || x.style == Style::scale ||
                          x.style == Style::vel || x.style == Style::erate;
      if ((linear || x.style == Style::trate) && x.hi_stop <= x.lo_stop)
        throw RunError("fix deform " + id_ + ": the box would invert along " + std::string(1, "xyz"[d]) +
                       " during this run");
      // Constant rates for the linear styles; trate's, wiggle's and variable's follow the box (end_of_step),
      // from 0 until then; volume's stay 0 (LAMMPS sets none).
      if (linear) {
        const double dlo = delt != 0.0 ? (x.lo_stop - x.lo_start) / delt : 0.0;
        const double dhi = delt != 0.0 ? (x.hi_stop - x.hi_start) / delt : 0.0;
        box.h_rate[d] = dhi - dlo, box.h_ratelo[d] = dlo;
      }
    }
    for (int i = 3; i < 6; ++i) init_tilt(c, i, delt, from_now);
    if (remap_ == Remap::v) box.vremap_group = group_;
  }

  // LAMMPS's pre_exchange: the flip decided at the last change, before this step's re-neighbouring.
  bool pre_exchange(FixContext& c) override {
    if (!flip_) return false;
    Box& b = c.s.box;
    for (int i = 3; i < 6; ++i) tilt_of(b, i) = p_[i].tilt_target = p_[i].tilt_flip;
    flip_images(b, c.s.atoms, flip_xy_, flip_xz_, flip_yz_, "fix deform " + id_);
    flip_ = false;
    return true;
  }

  void end_of_step(FixContext& c) override {
    if (c.s.step % every_ != 0) return;
    double frac = static_cast<double>(c.s.step - c.run_begin);
    if (frac != 0.0) frac /= static_cast<double>(c.run_end - c.run_begin);
    const double delt = static_cast<double>(c.s.step - c.run_begin) * c.s.dt;
    Box& b = c.s.box;
    if (variable_ && c.styles) c.styles->clearstep_computes();
    double lo[3], hi[3];
    for (int d = 0; d < 3; ++d) {
      const Param& x = p_[d];
      lo[d] = b.lo[d], hi[d] = b.hi[d];
      switch (x.style) {
        case Style::none:
        case Style::volume:  // below, from the others' new lengths
          break;
        case Style::trate: {
          const double mid = 0.5 * (x.lo_start + x.hi_start);
          const double half = 0.5 * ((x.hi_start - x.lo_start) * std::exp(x.a * delt));
          lo[d] = mid - half, hi[d] = mid + half;
          b.h_rate[d] = x.a * b.prd(d), b.h_ratelo[d] = -0.5 * b.h_rate[d];  // of the box before this change
          break;
        }
        case Style::wiggle: {
          const double shift = 0.5 * x.a * std::sin(kTwoPi * delt / x.b);
          lo[d] = x.lo_start - shift, hi[d] = x.hi_start + shift;
          b.h_rate[d] = kTwoPi / x.b * x.a * std::cos(kTwoPi * delt / x.b),
          b.h_ratelo[d] = -0.5 * b.h_rate[d];
          break;
        }
        case Style::variable: {
          const double del = c.styles->variable(x.var);
          lo[d] = x.lo_start - 0.5 * del, hi[d] = x.hi_start + 0.5 * del;
          b.h_rate[d] = c.styles->variable(x.rate_var), b.h_ratelo[d] = -0.5 * b.h_rate[d];
          break;
        }
        default:
          lo[d] = x.lo_start + frac * (x.lo_stop - x.lo_start);
          hi[d] = x.hi_start + frac * (x.hi_stop - x.hi_start);
      }
    }
    // A volume dimension keeps the run's starting volume with the other dimensions' new lengths (a fixed
    // dimension counts with its starting length), in LAMMPS's order of operations.
    for (int d = 0; d < 3; ++d) {
      const Param& x = p_[d];
      if (x.style != Style::volume) continue;
      const double mid = 0.5 * (x.lo_start + x.hi_start);
      const double len1 = hi[x.dynamic1] - lo[x.dynamic1];
      double half = 0.0;
      if (x.volume == Volume::one_from_one) {
        const Param& f = p_[x.fixed];
        half = 0.5 * (x.vol_start / len1 / (f.hi_start - f.lo_start));
      } else if (x.volume == Volume::one_from_two) {
        half = 0.5 * (x.vol_start / len1 / (hi[x.dynamic2] - lo[x.dynamic2]));
      } else {
        const Param& f = p_[x.fixed];
        half = 0.5 * std::sqrt(x.vol_start / len1 / (f.hi_start - f.lo_start) * (x.hi_start - x.lo_start));
      }
      lo[d] = mid - half, hi[d] = mid + half;
    }
    // A box that leaves ±1e20 (or inverts, or stops being finite) is where LAMMPS's neighbour binning fails
    // ("Domain too large for neighbor bins"): a run failure, before any atom is moved into it.
    for (int d = 0; d < 3; ++d) {
      if (p_[d].style == Style::none) continue;
      if (!box_interval_ok(lo[d], hi[d]))
        throw RunError(
            fmt::format("fix deform {}: at step {} the box along {} would be [{:.6g}, {:.6g}], not a "
                        "finite interval lo < hi within ±1e20",
                        id_, c.s.step, "xyz"[d], lo[d], hi[d]));
    }
    if (b.triclinic) {
      for (int i = 3; i < 6; ++i) tilt_target(c, i, frac, delt, lo, hi);
      if (flip_allowed_) decide_flip(c, lo, hi);
    }
    // LAMMPS's x2lamda with the old box, lamda2x with the new one, for every coordinate of the group's atoms
    // (a dimension the fix leaves alone goes through the round trip too, as in LAMMPS).
    const Box old = b;
    for (int d = 0; d < 3; ++d)
      if (p_[d].style != Style::none) b.lo[d] = lo[d], b.hi[d] = hi[d];
    if (b.triclinic)
      for (int i = 3; i < 6; ++i)
        if (p_[i].style != Style::none) tilt_of(b, i) = p_[i].tilt_target;
    if (remap_ != Remap::x) return;
    Atoms& a = c.s.atoms;
    if (b.triclinic) {
      for (size_t k = 0; k < a.size(); ++k) {
        if (!(a.mask[k] & group_)) continue;
        double p[3] = {a.x[k], a.y[k], a.z[k]}, l[3];
        old.to_lamda(p, l);
        b.from_lamda(l, p);
        a.x[k] = p[0], a.y[k] = p[1], a.z[k] = p[2];
      }
      return;
    }
    // The orthogonal box's fractional coordinates, one direction at a time (the tilt terms are zeros).
    double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
    for (int d = 0; d < 3; ++d) {
      const double inv = 1.0 / old.prd(d), oldlo = old.lo[d], prd = b.prd(d), newlo = b.lo[d];
      for (size_t k = 0; k < a.size(); ++k)
        if (a.mask[k] & group_) pos[d][k] = prd * (inv * (pos[d][k] - oldlo)) + newlo;
    }
  }

  // The checkpoint: a flip decided at the last change and not yet made, the targets, the values when the fix
  // was defined, and the styles (a restart file's fix must have the same).
  void save_state(FixStateMap& out) const override {
    auto& initial = out["deform_initial"];
    for (int d = 0; d < 3; ++d)
      initial.insert(initial.end(), {p_[d].lo_initial, p_[d].hi_initial, p_[d].vol_initial});
    for (int i = 3; i < 6; ++i) initial.push_back(p_[i].tilt_initial);
    auto& styles = out["deform_styles"];
    for (const Param& x : p_) styles.insert(styles.end(), {double(x.style), double(x.volume)});
    auto& flip = out["deform_flip"];
    flip = {flip_ ? 1.0 : 0.0, double(flip_xy_), double(flip_xz_), double(flip_yz_)};
    for (int i = 3; i < 6; ++i) flip.insert(flip.end(), {p_[i].tilt_target, p_[i].tilt_flip});
  }
  void restore_state(const FixStateMap& in) override {
    // Checked before use (issue 46): the pending flip is a flag, three image shifts of -1, 0 or 1 (the flag
    // set exactly when one is not 0) and finite tilts; then the restart file's part.
    const FixStateReader r(in, *this);
    const std::vector<double>* v = r.sized_finite("deform_flip", {10});
    if (v) {
      const bool flag = r.integer(*v, 0, "deform_flip", 0, 1) != 0;
      bool any = false;
      for (size_t k = 1; k < 4; ++k) any = r.integer(*v, k, "deform_flip", -1, 1) != 0 || any;
      if (flag != any) r.fail("deform_flip", "has a flip flag that disagrees with its image shifts");
    }
    restore_restart_state(in);
    if (!v) return;
    flip_ = (*v)[0] != 0.0;
    flip_xy_ = static_cast<int>((*v)[1]), flip_xz_ = static_cast<int>((*v)[2]),
    flip_yz_ = static_cast<int>((*v)[3]);
    for (int i = 3; i < 6; ++i)
      p_[i].tilt_target = (*v)[4 + 2 * (i - 3)], p_[i].tilt_flip = (*v)[5 + 2 * (i - 3)];
  }
  // LAMMPS's FixDeform::restart: the values when the fix was first defined (for runs with `start`), and an
  // error when the styles differ; a pending flip is not carried.
  void restore_restart_state(const FixStateMap& in) override {
    // Checked before use: 6 (style, volume) pairs that are this fix's, 12 finite initial values.
    const FixStateReader r(in, *this);
    const auto st = in.find("deform_styles");
    if (r.sized("deform_styles", {12})) {
      for (int i = 0; i < 6; ++i)
        if (st->second[2 * i] != double(p_[i].style) || st->second[2 * i + 1] != double(p_[i].volume))
          fail_input(at_, "fix deform " + id_ +
                              ": its settings differ from those the restart file recorded (LAMMPS: \"Fix "
                              "deform settings not consistent with restart\")");
    }
    const std::vector<double>* init = r.sized_finite("deform_initial", {12});
    if (!init) return;
    const std::vector<double>& v = *init;
    for (int d = 0; d < 3; ++d)
      p_[d].lo_initial = v[3 * d], p_[d].hi_initial = v[3 * d + 1], p_[d].vol_initial = v[3 * d + 2];
    for (int i = 3; i < 6; ++i) p_[i].tilt_initial = v[9 + i - 3];
  }

 private:
  static constexpr double kTwoPi = 2.0 * M_PI;

  // LAMMPS's init of tilt i: its start, its stop at the run's end (a wiggle's extremes over the run), its
  // rate when constant, and the checks on trate and on yz changing with xy.
  void init_tilt(FixContext& c, int i, double delt, bool from_now) {
    Param& x = p_[i];
    Box& box = c.s.box;
    box.h_rate[i] = 0.0;
    x.tilt_start = from_now ? tilt_of(box, i) : x.tilt_initial;
    switch (x.style) {
      case Style::final_:
        x.tilt_stop = x.a;
        break;
      case Style::delta:
        x.tilt_stop = x.tilt_start + x.a;
        break;
      case Style::vel:
        x.tilt_stop = x.tilt_start + delt * x.a;
        break;
      case Style::erate: {
        // The engineering shear strain of the perpendicular length at the start (z for yz and xz, y for xy).
        const Param& perp = p_[i == kXy ? 1 : 2];
        x.tilt_stop = x.tilt_start + delt * x.a * (perp.hi_start - perp.lo_start);
        break;
      }
      case Style::trate:
        x.tilt_stop = x.tilt_start * std::exp(x.a * delt);
        if (x.tilt_start == 0.0)
          fail_input(at_, "fix deform " + id_ + ": trate of " + kParamName[i] +
                              " on a box whose tilt is zero (LAMMPS: \"Cannot use fix deform trate on a box "
                              "with zero tilt\")");
        break;
      case Style::wiggle: {
        const double s = std::sin(kTwoPi * delt / x.b);
        x.tilt_stop = x.tilt_start + x.a * s;
        // The extremes the tilt reaches in the run (LAMMPS's quarter-period cases, by the amplitude's sign).
        const double t0 = x.tilt_start, A = x.a, T = x.b;
        if (A >= 0.0) {
          x.tilt_min = delt < 0.5 * T ? t0 : delt < 0.75 * T ? t0 - A * s : t0 - A;
          x.tilt_max = delt < 0.25 * T ? t0 + A * s : t0 + A;
        } else {
          x.tilt_min = delt < 0.25 * T ? t0 - A * s : t0 - A;
          x.tilt_max = delt < 0.5 * T ? t0 : delt < 0.75 * T ? t0 + A * s : t0 + A;
        }
        break;
      }
      default:
        break;
    }
    if (x.style == Style::final_ || x.style == Style::delta || x.style == Style::vel ||
        x.style == Style::erate)
      box.h_rate[i] = delt != 0.0 ? (x.tilt_stop - x.tilt_start) / delt : 0.0;
    // yz flipping while xy changes would move xz on for ever (its flips add xy): LAMMPS refuses a yz that can
    // leave ±½ly while xy changes, with flips on.
    if (i == kXy && p_[kYz].style != Style::none && x.style != Style::none && flip_allowed_) {
      const Param& yz = p_[kYz];
      if (yz.style == Style::variable)
        fail_input(at_,
                   "fix deform " + id_ +
                       ": yz variable together with xy (LAMMPS: \"Fix deform cannot use yz variable with "
                       "xy\")");
      const double lo = yz.style == Style::wiggle ? yz.tilt_min : yz.tilt_stop;
      const double hi = yz.style == Style::wiggle ? yz.tilt_max : yz.tilt_stop;
      const Param& y = p_[1];
      bool bad = lo / (y.hi_start - y.lo_start) < -0.5 || hi / (y.hi_start - y.lo_start) > 0.5;
      if (y.style != Style::none)
        bad = bad || lo / (y.hi_stop - y.lo_stop) < -0.5 || hi / (y.hi_stop - y.lo_stop) > 0.5;
      if (bad)
        fail_input(at_,
                   "fix deform " + id_ +
                       ": yz would pass half of ly while xy changes (LAMMPS: \"Fix deform is changing yz too "
                       "much with xy\")");
    }
  }

  // LAMMPS's new tilt i for this change (an unchanged tilt's is the present one), its rate for trate,
  // wiggle and variable, then the period (lx for xy and xz, ly for yz, at the new lengths) added or taken
  // away until its ratio to that period is the nearest to the present ratio: a flipped box goes on from
  // where it was.
  void tilt_target(FixContext& c, int i, double frac, double delt, const double lo[3], const double hi[3]) {
    Param& x = p_[i];
    Box& b = c.s.box;
    switch (x.style) {
      case Style::none:
        x.tilt_target = tilt_of(b, i);
        break;
      case Style::trate:
        x.tilt_target = x.tilt_start * std::exp(x.a * delt);
        b.h_rate[i] = x.a * tilt_of(b, i);
        break;
      case Style::wiggle:
        x.tilt_target = x.tilt_start + x.a * std::sin(kTwoPi * delt / x.b);
        b.h_rate[i] = kTwoPi / x.b * x.a * std::cos(kTwoPi * delt / x.b);
        break;
      case Style::variable:
        x.tilt_target = x.tilt_start + c.styles->variable(x.var);
        b.h_rate[i] = c.styles->variable(x.rate_var);
        break;
      default:
        x.tilt_target = x.tilt_start + frac * (x.tilt_stop - x.tilt_start);
    }
    const int k = i == kYz ? 1 : 0;
    const double denom = hi[k] - lo[k], current = tilt_of(b, i) / b.prd(k);
    // LAMMPS walks one period at a time; a target that many periods away (or not finite) would walk for ever.
    const double away = x.tilt_target / denom - current;
    if (!std::isfinite(x.tilt_target) || std::fabs(x.tilt_target) >= kMaxBoxCoordinate ||
        !(std::fabs(away) <= kMaxRemapWidths))
      throw RunError(
          fmt::format("fix deform {}: at step {} the tilt {} would be {:.6g}, not finite or more "
                      "than 1e6 periods from the present one",
                      id_, c.s.step, kParamName[i], x.tilt_target));
    while (x.tilt_target / denom - current > 0.0) x.tilt_target -= denom;
    while (x.tilt_target / denom - current < 0.0) x.tilt_target += denom;
    if (std::fabs(x.tilt_target / denom - 1.0 - current) < std::fabs(x.tilt_target / denom - current))
      x.tilt_target -= denom;
  }

  // LAMMPS's flip rule: a tilt past ±½ of its period at the new lengths is flipped by one period (yz first,
  // which moves xz by xy; xz and xy only if x is periodic, yz only if y is); made at the next step.
  void decide_flip(FixContext& c, const double lo[3], const double hi[3]) {
    const double xprd = hi[0] - lo[0], yprd = hi[1] - lo[1];
    const double xinv = 1.0 / xprd, yinv = 1.0 / yprd;
    Param &yz = p_[kYz], &xz = p_[kXz], &xy = p_[kXy];
    const auto out = [](double t, double inv) { return t * inv < -0.5 || t * inv > 0.5; };
    if (!out(yz.tilt_target, yinv) && !out(xz.tilt_target, xinv) && !out(xy.tilt_target, xinv)) return;
    yz.tilt_flip = yz.tilt_target, xz.tilt_flip = xz.tilt_target, xy.tilt_flip = xy.tilt_target;
    flip_xy_ = flip_xz_ = flip_yz_ = 0;
    const Box& b = c.s.box;
    if (b.periodic(1)) {
      if (yz.tilt_flip * yinv < -0.5) {
        yz.tilt_flip += yprd, xz.tilt_flip += xy.tilt_flip;
        flip_yz_ = 1;
      } else if (yz.tilt_flip * yinv > 0.5) {
        yz.tilt_flip -= yprd, xz.tilt_flip -= xy.tilt_flip;
        flip_yz_ = -1;
      }
    }
    if (b.periodic(0)) {
      if (xz.tilt_flip * xinv < -0.5) xz.tilt_flip += xprd, flip_xz_ = 1;
      if (xz.tilt_flip * xinv > 0.5) xz.tilt_flip -= xprd, flip_xz_ = -1;
      if (xy.tilt_flip * xinv < -0.5) xy.tilt_flip += xprd, flip_xy_ = 1;
      if (xy.tilt_flip * xinv > 0.5) xy.tilt_flip -= xprd, flip_xy_ = -1;
    }
    flip_ = flip_xy_ != 0 || flip_xz_ != 0 || flip_yz_ != 0;
  }

  int64_t every_;
  Param p_[6];
  Remap remap_;
  bool flip_allowed_;                            // the flip keyword (LAMMPS's flipflag)
  bool variable_ = false;                        // some parameter follows variables (LAMMPS's varflag)
  bool tilts_ = false;                           // some tilt changes
  bool flip_ = false;                            // a flip to make at the next step (LAMMPS's flip)
  int flip_xy_ = 0, flip_xz_ = 0, flip_yz_ = 0;  // its periods added to xy, xz, yz (LAMMPS's flipxy, …)
  SourcePos at_;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  io::ArgCursor& a = f.a;
  const int64_t every = a.integer("N (steps between box changes)", 1, 2000000000);
  using S = FixDeform::Style;
  FixDeform::Param params[6];
  FixDeform::Remap remap = FixDeform::Remap::x;
  bool lattice_units = true, flip = true, any = false;
  const Box& box = f.ctx.s.box;
  // The styles lengths and tilts share (a rate, a wiggle or two variables); false for another word.
  auto rate_style = [&a](const std::string& s, FixDeform::Param& x, bool tilt) {
    if (s == "vel") {
      x.style = S::vel, x.a = a.real("the velocity");
    } else if (s == "erate") {
      x.style = S::erate,
      x.a = a.real(tilt ? "the engineering shear strain rate (1/ps)" : "the engineering strain rate (1/ps)");
    } else if (s == "trate") {
      x.style = S::trate,
      x.a = a.real(tilt ? "the true shear strain rate (1/ps)" : "the true strain rate (1/ps)");
    } else if (s == "wiggle") {
      x.style = S::wiggle, x.a = a.real("the amplitude"), x.b = a.positive("the period (ps)");
    } else if (s == "variable") {
      x.style = S::variable;
      for (std::string* v : {&x.var, &x.rate_var}) {
        const std::string w = a.word("v_name of an equal-style variable");
        if (w.rfind("v_", 0) != 0) a.fail("fix deform: variable takes two v_name arguments, got '" + w + "'");
        *v = w.substr(2);
      }
    } else {
      return false;
    }
    return true;
  };
  while (!a.done()) {
    const std::string k = a.word("a dimension or keyword");
    if (k == "x" || k == "y" || k == "z") {
      FixDeform::Param& x = params[k[0] - 'x'];
      const std::string s = a.word("a fix deform style");
      if (s == "final") {
        x.style = S::final_, x.a = a.real("lo"), x.b = a.real("hi");
      } else if (s == "delta") {
        x.style = S::delta, x.a = a.real("dlo"), x.b = a.real("dhi");
      } else if (s == "scale") {
        x.style = S::scale, x.a = a.positive("the scale factor");
      } else if (s == "volume") {
        x.style = S::volume;
      } else if (!rate_style(s, x, false)) {
        a.fail("fix deform: style '" + s +
               "' is not supported (final, delta, scale, vel, erate, trate, wiggle, variable, volume)");
      }
      any = true;
    } else if (k == "xy" || k == "xz" || k == "yz") {
      if (!box.triclinic)
        a.fail("fix deform: " + k +
               " needs a triclinic box (LAMMPS: \"Fix deform tilt factors require triclinic box\")");
      FixDeform::Param& x = params[k == "yz" ? 3 : k == "xz" ? 4 : 5];
      const std::string s = a.word("a fix deform tilt style");
      if (s == "final") {
        x.style = S::final_, x.a = a.real("the tilt");
      } else if (s == "delta") {
        x.style = S::delta, x.a = a.real("the change of tilt");
      } else if (!rate_style(s, x, true)) {
        a.fail("fix deform: tilt style '" + s +
               "' is not supported (final, delta, vel, erate, trate, wiggle, variable)");
      }
      any = true;
    } else if (k == "remap") {
      const std::string m = a.choice("remap", {"x", "v", "none"});
      remap = m == "x" ? FixDeform::Remap::x : m == "v" ? FixDeform::Remap::v : FixDeform::Remap::none;
    } else if (k == "units") {
      lattice_units = a.choice("units", {"lattice", "box"}) == "lattice";
    } else if (k == "flip") {
      flip = a.yes_no("flip");
    } else {
      a.fail("fix deform: '" + k + "' is not supported (x, y, z, xy, xz, yz; remap, units, flip)");
    }
  }
  if (!any) a.fail("fix deform: no dimension to deform");
  // Shrink-wrapping would change the length the fix sets, and a tilt's second dimension (y for xy, z for xz
  // and yz), whose shrink-wrap LAMMPS's reset_box would change the tilt with (LAMMPS refuses both too).
  const auto shrink = [&](int d) {
    const auto s = [](Face x) { return x == Face::shrink || x == Face::shrink_min; };
    return s(box.face[d][0]) || s(box.face[d][1]);
  };
  for (int d = 0; d < 3; ++d) {
    if (params[d].style != S::none && shrink(d))
      a.fail(std::string("fix deform: cannot change ") + "xyz"[d] +
             ", a shrink-wrapped dimension (LAMMPS: \"Cannot use fix deform on a shrink-wrapped boundary\")");
  }
  for (int i = 3; i < 6; ++i) {
    const int second = i == 5 ? 1 : 2;
    if (params[i].style != S::none && shrink(second))
      a.fail(std::string("fix deform: cannot change ") +
             (i == 3   ? "yz"
              : i == 4 ? "xz"
                       : "xy") +
             ", whose second dimension is shrink-wrapped (LAMMPS: \"Cannot use fix deform tilt on a "
             "shrink-wrapped 2nd dim\")");
  }
  // LAMMPS scales final, delta, vel and wiggle's amplitude by the lattice spacing with units lattice (the
  // default): a length by its own direction's, a tilt by its first direction's (x for xy and xz, y for yz).
  // Without a lattice command LAMMPS's lattice is `none 1.0`.
  const auto spacing = [&](int d) { return f.ctx.lattice[d] > 0.0 ? f.ctx.lattice[d] : 1.0; };
  for (int i = 0; i < 6; ++i) {
    FixDeform::Param& x = params[i];
    if (!lattice_units ||
        (x.style != S::final_ && x.style != S::delta && x.style != S::vel && x.style != S::wiggle))
      continue;
    const double scale = spacing(i < 3 ? i : i == 3 ? 1 : 0);
    x.a *= scale;
    if (i < 3 && x.style != S::wiggle && x.style != S::vel) x.b *= scale;
  }
  // A volume dimension follows the other two: one of them must change by another style (LAMMPS's links).
  for (int d = 0; d < 3; ++d) {
    FixDeform::Param& x = params[d];
    if (x.style != S::volume) continue;
    const int o1 = (d + 1) % 3, o2 = (d + 2) % 3;
    const S s1 = params[o1].style, s2 = params[o2].style;
    const auto invalid = [&] {
      a.fail(std::string("fix deform: volume along ") + "xyz"[d] +
             " needs another dimension changed by a style other than volume (LAMMPS: \"Fix deform volume "
             "setting is invalid\")");
    };
    using V = FixDeform::Volume;
    if (s1 == S::none) {
      if (s2 == S::none || s2 == S::volume) invalid();
      x.volume = V::one_from_one, x.fixed = o1, x.dynamic1 = o2;
    } else if (s2 == S::none) {
      if (s1 == S::volume) invalid();
      x.volume = V::one_from_one, x.fixed = o2, x.dynamic1 = o1;
    } else if (s1 == S::volume) {
      if (s2 == S::volume) invalid();
      x.volume = V::two_from_one, x.fixed = o1, x.dynamic1 = o2;
    } else if (s2 == S::volume) {
      x.volume = V::two_from_one, x.fixed = o2, x.dynamic1 = o1;
    } else {
      x.volume = V::one_from_two, x.dynamic1 = o1, x.dynamic2 = o2;
    }
  }
  return std::make_unique<FixDeform>(f, every, params, remap, flip);
}

}  // namespace

WMD_FIX_STYLE("deform", make)

}  // namespace wmd::md
