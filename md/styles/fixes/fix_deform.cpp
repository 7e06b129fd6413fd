// fix deform N x|y|z style args … [remap x|v|none] [units lattice|box] [flip yes|no], as LAMMPS fix deform
// on an orthogonal box: every N steps (end_of_step) the box bounds move to where the style puts them at
// that point of the run — final lo hi, delta dlo dhi, scale f, vel V (Å/ps), erate R (1/ps, engineering
// strain rate), trate R (1/ps, true strain rate), wiggle A Tp (an oscillation of amplitude A and period Tp),
// variable v_dl v_rate (the change of length and its rate, equal-style variables evaluated then) and volume
// (the length that keeps the volume of the run's start, from the other dimensions' new lengths) — and with
// `remap x` (the default) the group's atoms keep their fractional coordinates. Start and stop follow from the
// box at each run's init and that run's length, as LAMMPS's init does, and so do the box's rates of change
// (Box::h_rate, h_ratelo: constant for the linear styles, set at each change for trate, wiggle and variable,
// zero for volume as in LAMMPS). With `remap v` the atoms stay where they are and an atom of the group that
// crosses a periodic face takes the rate along (md/core/box.hpp remap_velocity; compute temp/deform removes
// that streaming profile). Tilt factors are refused (triclinic boxes).
#include <fmt/format.h>

#include <cmath>

#include "md/styles/fix.hpp"

namespace wmd::md {
namespace {

class FixDeform : public Fix {
 public:
  enum class Style { none, final_, delta, scale, vel, erate, trate, wiggle, variable, volume };
  // How a volume dimension follows the others (LAMMPS's substyles): from one changing dimension with the
  // third fixed, from two changing ones, or shared with a second volume dimension.
  enum class Volume { one_from_one, one_from_two, two_from_one };
  struct Dim {
    Style style = Style::none;
    double a = 0.0, b = 0.0;    // final: lo hi; delta: dlo dhi; wiggle: amplitude period; others: a
    std::string var, rate_var;  // variable: the change of length and its rate
    Volume volume = Volume::one_from_one;
    int fixed = -1, dynamic1 = -1, dynamic2 = -1;  // volume: the dimensions it follows
    double lo_start = 0.0, hi_start = 0.0, lo_stop = 0.0, hi_stop = 0.0, vol_start = 0.0;
  };
  enum class Remap { x, v, none };
  FixDeform(const FixArgs& f, int64_t every, const Dim (&dims)[3], Remap remap)
      : Fix(f.id, f.style, f.group), every_(every), remap_(remap), at_(f.a.pos()) {
    for (int d = 0; d < 3; ++d) {
      dim_[d] = dims[d];
      variable_ = variable_ || dims[d].style == Style::variable;
    }
  }
  bool changes_box() const override { return true; }
  bool keeps_restart_state() const override { return true; }  // LAMMPS writes it to restart files
  bool reads_energy() const override { return false; }

  // LAMMPS's init: start from the present box, stop where the style says at the run's end.
  void init(FixContext& c) override {
    const double delt = static_cast<double>(c.run_end - c.run_begin) * c.s.dt;
    for (const Dim& x : dim_) {
      if (x.style != Style::variable) continue;
      for (const std::string* v : {&x.var, &x.rate_var}) {
        if (!c.styles || !c.styles->has_variable(*v) || c.styles->has_atom_variable(*v))
          fail_input(at_, "fix deform " + id_ + ": variable " + *v + " does not exist or is not equal-style");
      }
    }
    for (int d = 0; d < 3; ++d) {
      Dim& x = dim_[d];
      x.lo_start = c.s.box.lo[d], x.hi_start = c.s.box.hi[d];
      x.vol_start = c.s.box.prd(0) * c.s.box.prd(1) * c.s.box.prd(2);
      c.s.box.h_rate[d] = c.s.box.h_ratelo[d] = 0.0;  // set below for the linear styles, later for the others
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
        c.s.box.h_rate[d] = dhi - dlo, c.s.box.h_ratelo[d] = dlo;
      }
    }
    if (remap_ == Remap::v) c.s.box.vremap_group = group_;
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
      const Dim& x = dim_[d];
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
      const Dim& x = dim_[d];
      if (x.style != Style::volume) continue;
      const double mid = 0.5 * (x.lo_start + x.hi_start);
      const double len1 = hi[x.dynamic1] - lo[x.dynamic1];
      double half = 0.0;
      if (x.volume == Volume::one_from_one) {
        const Dim& f = dim_[x.fixed];
        half = 0.5 * (x.vol_start / len1 / (f.hi_start - f.lo_start));
      } else if (x.volume == Volume::one_from_two) {
        half = 0.5 * (x.vol_start / len1 / (hi[x.dynamic2] - lo[x.dynamic2]));
      } else {
        const Dim& f = dim_[x.fixed];
        half = 0.5 * std::sqrt(x.vol_start / len1 / (f.hi_start - f.lo_start) * (x.hi_start - x.lo_start));
      }
      lo[d] = mid - half, hi[d] = mid + half;
    }
    // A box that leaves ±1e20 (or inverts, or stops being finite) is where LAMMPS's neighbour binning fails
    // ("Domain too large for neighbor bins"): a run failure, before any atom is moved into it.
    for (int d = 0; d < 3; ++d) {
      if (dim_[d].style == Style::none) continue;
      if (!box_interval_ok(lo[d], hi[d]))
        throw RunError(
            fmt::format("fix deform {}: at step {} the box along {} would be [{:.6g}, {:.6g}], not a "
                        "finite interval lo < hi within ±1e20",
                        id_, c.s.step, "xyz"[d], lo[d], hi[d]));
    }
    // LAMMPS's x2lamda with the old box, lamda2x with the new one, for every coordinate of the group's atoms
    // (a dimension the fix leaves alone goes through the round trip too, as in LAMMPS).
    Atoms& a = c.s.atoms;
    double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
    for (int d = 0; d < 3; ++d) {
      const double inv = 1.0 / b.prd(d), oldlo = b.lo[d];
      if (dim_[d].style != Style::none) b.lo[d] = lo[d], b.hi[d] = hi[d];
      if (remap_ != Remap::x) continue;
      const double prd = b.prd(d), newlo = b.lo[d];
      for (size_t i = 0; i < a.size(); ++i)
        if (a.mask[i] & group_) pos[d][i] = prd * (inv * (pos[d][i] - oldlo)) + newlo;
    }
  }

 private:
  static constexpr double kTwoPi = 2.0 * M_PI;
  int64_t every_;
  Dim dim_[3];
  Remap remap_;
  bool variable_ = false;  // some dimension follows variables (LAMMPS's varflag)
  SourcePos at_;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  io::ArgCursor& a = f.a;
  const int64_t every = a.integer("N (steps between box changes)", 1, 2000000000);
  FixDeform::Dim dims[3];
  FixDeform::Remap remap = FixDeform::Remap::x;
  bool lattice_units = true, any = false;
  while (!a.done()) {
    const std::string k = a.word("a dimension or keyword");
    if (k == "x" || k == "y" || k == "z") {
      FixDeform::Dim& x = dims[k[0] - 'x'];
      const std::string s = a.word("a fix deform style");
      using S = FixDeform::Style;
      if (s == "final") {
        x.style = S::final_, x.a = a.real("lo"), x.b = a.real("hi");
      } else if (s == "delta") {
        x.style = S::delta, x.a = a.real("dlo"), x.b = a.real("dhi");
      } else if (s == "scale") {
        x.style = S::scale, x.a = a.positive("the scale factor");
      } else if (s == "vel") {
        x.style = S::vel, x.a = a.real("the velocity");
      } else if (s == "erate") {
        x.style = S::erate, x.a = a.real("the engineering strain rate (1/ps)");
      } else if (s == "trate") {
        x.style = S::trate, x.a = a.real("the true strain rate (1/ps)");
      } else if (s == "wiggle") {
        x.style = S::wiggle, x.a = a.real("the amplitude"), x.b = a.positive("the period (ps)");
      } else if (s == "variable") {
        x.style = S::variable;
        for (std::string* v : {&x.var, &x.rate_var}) {
          const std::string w = a.word("v_name of an equal-style variable");
          if (w.rfind("v_", 0) != 0)
            a.fail("fix deform: variable takes two v_name arguments, got '" + w + "'");
          *v = w.substr(2);
        }
      } else if (s == "volume") {
        x.style = S::volume;
      } else {
        a.fail("fix deform: style '" + s +
               "' is not supported (final, delta, scale, vel, erate, trate, wiggle, variable, volume)");
      }
      any = true;
    } else if (k == "xy" || k == "xz" || k == "yz") {
      a.fail("fix deform: tilt factors need a triclinic box; wafermd boxes are orthogonal");
    } else if (k == "remap") {
      const std::string m = a.choice("remap", {"x", "v", "none"});
      remap = m == "x" ? FixDeform::Remap::x : m == "v" ? FixDeform::Remap::v : FixDeform::Remap::none;
    } else if (k == "units") {
      lattice_units = a.choice("units", {"lattice", "box"}) == "lattice";
    } else if (k == "flip") {
      a.yes_no("flip");  // only tilt factors flip
    } else {
      a.fail("fix deform: '" + k + "' is not supported (x, y, z; remap, units, flip)");
    }
  }
  if (!any) a.fail("fix deform: no dimension to deform");
  using S = FixDeform::Style;
  // Shrink-wrapping would change the length the fix sets (LAMMPS refuses it too).
  for (int d = 0; d < 3; ++d) {
    const Face* face = f.ctx.s.box.face[d];
    const auto shrink = [](Face x) { return x == Face::shrink || x == Face::shrink_min; };
    if (dims[d].style != S::none && (shrink(face[0]) || shrink(face[1])))
      a.fail(std::string("fix deform: cannot change ") + "xyz"[d] +
             ", a shrink-wrapped dimension (LAMMPS: \"Cannot use fix deform on a shrink-wrapped boundary\")");
  }
  // LAMMPS scales final, delta, vel and wiggle's amplitude by the lattice spacing with units lattice (the
  // default).
  for (int d = 0; d < 3; ++d) {
    FixDeform::Dim& x = dims[d];
    if (!lattice_units ||
        (x.style != S::final_ && x.style != S::delta && x.style != S::vel && x.style != S::wiggle))
      continue;
    // without a lattice command LAMMPS's lattice is `none 1.0`
    const double scale = f.ctx.lattice[d] > 0.0 ? f.ctx.lattice[d] : 1.0;
    x.a *= scale;
    if (x.style != S::wiggle) x.b *= scale;
  }
  // A volume dimension follows the other two: one of them must change by another style (LAMMPS's links).
  for (int d = 0; d < 3; ++d) {
    FixDeform::Dim& x = dims[d];
    if (x.style != S::volume) continue;
    const int o1 = (d + 1) % 3, o2 = (d + 2) % 3;
    const S s1 = dims[o1].style, s2 = dims[o2].style;
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
  return std::make_unique<FixDeform>(f, every, dims, remap);
}

}  // namespace

WMD_FIX_STYLE("deform", make)

}  // namespace wmd::md
