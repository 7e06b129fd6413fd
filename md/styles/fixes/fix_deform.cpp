// fix deform N x|y|z style args … [remap x|v|none] [units lattice|box] [flip yes|no], as LAMMPS fix deform
// on an orthogonal box: every N steps (end_of_step) the box bounds move to where the style puts them at
// that point of the run — final lo hi, delta dlo dhi, scale f, vel V (Å/ps), erate R (1/ps, engineering
// strain rate), trate R (1/ps, true strain rate) — and with `remap x` (the default) the group's atoms keep
// their fractional coordinates. Start and stop follow from the box at each run's init and that run's
// length, as LAMMPS's init does, and so do the box's rates of change (Box::h_rate, h_ratelo; trate's at
// each box change). With `remap v` the atoms stay where they are and an atom of the group that crosses a
// periodic face takes the rate along (md/core/box.hpp remap_velocity; compute temp/deform removes that
// streaming profile). Tilt factors, volume, wiggle and variable are refused.
#include <cmath>

#include "md/styles/fix.hpp"

namespace wmd::md {
namespace {

class FixDeform : public Fix {
 public:
  enum class Style { none, final_, delta, scale, vel, erate, trate };
  struct Dim {
    Style style = Style::none;
    double a = 0.0, b = 0.0;  // final: lo hi; delta: dlo dhi; scale/vel/erate/trate: the one value in a
    double lo_start = 0.0, hi_start = 0.0, lo_stop = 0.0, hi_stop = 0.0;
  };
  enum class Remap { x, v, none };
  FixDeform(const FixArgs& f, int64_t every, const Dim (&dims)[3], Remap remap)
      : Fix(f.id, f.style, f.group), every_(every), remap_(remap) {
    for (int d = 0; d < 3; ++d) dim_[d] = dims[d];
  }
  bool changes_box() const override { return true; }
  bool keeps_restart_state() const override { return true; }  // LAMMPS writes it to restart files
  bool reads_energy() const override { return false; }

  // LAMMPS's init: start from the present box, stop where the style says at the run's end.
  void init(FixContext& c) override {
    const double delt = static_cast<double>(c.run_end - c.run_begin) * c.s.dt;
    for (int d = 0; d < 3; ++d) {
      Dim& x = dim_[d];
      x.lo_start = c.s.box.lo[d], x.hi_start = c.s.box.hi[d];
      const double mid = 0.5 * (x.lo_start + x.hi_start), len = x.hi_start - x.lo_start;
      switch (x.style) {
        case Style::none:
          break;
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
      if (x.style != Style::none && x.hi_stop <= x.lo_stop)
        throw RunError("fix deform " + id_ + ": the box would invert along " + std::string(1, "xyz"[d]) +
                       " during this run");
      // Constant rates for the linear styles; trate's follows the box (end_of_step), from 0 until then.
      if (x.style != Style::none && x.style != Style::trate) {
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
    Box& b = c.s.box;
    double lo[3], hi[3];
    for (int d = 0; d < 3; ++d) {
      const Dim& x = dim_[d];
      lo[d] = b.lo[d], hi[d] = b.hi[d];
      if (x.style == Style::none) continue;
      if (x.style == Style::trate) {
        const double delt = static_cast<double>(c.s.step - c.run_begin) * c.s.dt;
        const double mid = 0.5 * (x.lo_start + x.hi_start);
        const double half = 0.5 * ((x.hi_start - x.lo_start) * std::exp(x.a * delt));
        lo[d] = mid - half, hi[d] = mid + half;
        b.h_rate[d] = x.a * b.prd(d), b.h_ratelo[d] = -0.5 * b.h_rate[d];  // of the box before this change
      } else {
        lo[d] = x.lo_start + frac * (x.lo_stop - x.lo_start);
        hi[d] = x.hi_start + frac * (x.hi_stop - x.hi_start);
      }
    }
    Atoms& a = c.s.atoms;
    double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
    for (int d = 0; d < 3; ++d) {
      if (dim_[d].style == Style::none) continue;
      // LAMMPS's x2lamda with the old box, lamda2x with the new one
      const double inv = 1.0 / b.prd(d), oldlo = b.lo[d], prd = hi[d] - lo[d];
      if (remap_ == Remap::x)
        for (size_t i = 0; i < a.size(); ++i)
          if (a.mask[i] & group_) pos[d][i] = prd * (inv * (pos[d][i] - oldlo)) + lo[d];
      b.lo[d] = lo[d], b.hi[d] = hi[d];
    }
  }

 private:
  int64_t every_;
  Dim dim_[3];
  Remap remap_;
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
      } else {
        a.fail("fix deform: style '" + s + "' is not supported (final, delta, scale, vel, erate, trate)");
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
  // LAMMPS scales final, delta and vel by the lattice spacing with units lattice (the default).
  for (int d = 0; d < 3; ++d) {
    FixDeform::Dim& x = dims[d];
    using S = FixDeform::Style;
    if (!lattice_units || (x.style != S::final_ && x.style != S::delta && x.style != S::vel)) continue;
    // without a lattice command LAMMPS's lattice is `none 1.0`
    const double scale = f.ctx.lattice[d] > 0.0 ? f.ctx.lattice[d] : 1.0;
    x.a *= scale, x.b *= scale;
  }
  return std::make_unique<FixDeform>(f, every, dims, remap);
}

}  // namespace

WMD_FIX_STYLE("deform", make)

}  // namespace wmd::md
