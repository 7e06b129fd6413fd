// fix box/relax: the box lengths as extra degrees of freedom of the next `minimize` (CG), relaxed towards
// target pressures with LAMMPS's FixBoxRelax (md/minimize/minimizer.cpp does its min_energy, min_step and
// max_alpha). As in LAMMPS it acts only in minimisation: during `run` it does nothing, though it makes
// thermo_style one print the volume. f_ID is the box's P·V energy from the reference box (LAMMPS's scalar).
// fix ID group box/relax iso|aniso P | x P [y P] [z P] [couple none|xyz|xy|yz|xz] [vmax V] [nreset N]
//     [dilate all|partial] [fixedpoint x y z] [scalexy|scalexz|scaleyz no]
#include "md/minimize/minimizer.hpp"
#include "md/styles/fix.hpp"

namespace wmd::md {
namespace {

class FixBoxRelax : public Fix {
 public:
  FixBoxRelax(const FixArgs& f, const BoxRelax& br)
      : Fix(f.id, "box/relax", f.group), relax_(br), s_(&f.ctx.s) {
    relax_.reference = std::make_shared<BoxRelaxReference>();
    box_relax_init(relax_, s_->box, *relax_.reference);
  }
  bool reads_energy() const override { return false; }
  bool changes_box() const override { return true; }  // LAMMPS's box_change_size: thermo adds Volume
  const BoxRelax* box_relax() const override { return &relax_; }
  // LAMMPS's init at each run (a minimisation sets the reference itself, and resets it with nreset).
  void init(FixContext& c) override { box_relax_init(relax_, c.s.box, *relax_.reference); }
  // LAMMPS's compute_scalar: the P·V (and strain) energy of the box from the reference; 0 at step 0.
  OutputShape shape() const override { return {true, 0, -1, true}; }
  bool scalar(double& v) const override {
    v = s_->step == 0 ? 0.0 : box_relax_energy(relax_, *relax_.reference, s_->box);
    return true;
  }

 private:
  BoxRelax relax_;
  const State* s_;
};

std::unique_ptr<Fix> make_fix_box_relax(const FixArgs& f) {
  io::ArgCursor& a = f.a;
  using C = BoxRelax::Couple;
  BoxRelax br;
  br.active = true;
  br.group = f.group;
  const Box& box = f.ctx.s.box;
  for (int d = 0; d < 3; ++d) br.fixedpoint[d] = 0.5 * (box.lo[d] + box.hi[d]);  // LAMMPS: at definition
  if (a.done()) a.fail("fix box/relax needs iso, aniso or x/y/z with a target pressure (bar)");
  while (!a.done()) {
    const std::string key = a.choice(
        "a box/relax keyword (triclinic tri, xy, xz, yz are not supported: wafermd boxes are orthogonal)",
        {"iso", "aniso", "x", "y", "z", "couple", "vmax", "nreset", "dilate", "fixedpoint", "scalexy",
         "scalexz", "scaleyz"});
    if (key == "iso" || key == "aniso") {
      const double p = a.real("the target pressure (bar)");
      br.couple = key == "iso" ? C::xyz : C::none;
      for (int d = 0; d < 3; ++d) br.dim[d] = true, br.target[d] = p;
    } else if (key == "x" || key == "y" || key == "z") {
      const int d = key[0] - 'x';
      br.target[d] = a.real("the target pressure (bar)");
      br.dim[d] = true;
      br.deviatoric = true;
    } else if (key == "couple") {
      const std::string how = a.choice("a coupling", {"none", "xyz", "xy", "yz", "xz"});
      br.couple = how == "xyz"  ? C::xyz
                  : how == "xy" ? C::xy
                  : how == "yz" ? C::yz
                  : how == "xz" ? C::xz
                                : C::none;
    } else if (key == "vmax") {
      br.vmax = a.positive("vmax (fraction)");
    } else if (key == "nreset") {
      br.nreset = a.integer("nreset", 0, 2000000000);
    } else if (key == "dilate") {
      br.dilate_all = a.choice("dilate all or partial", {"all", "partial"}) == "all";
    } else if (key == "fixedpoint") {
      for (int d = 0; d < 3; ++d) br.fixedpoint[d] = a.real("a fixed-point coordinate (Å)");
    } else {
      // Tilt factors scale with the box only when they are non-zero, which an orthogonal box never has.
      if (a.yes_no(key))
        a.fail("fix box/relax " + key + " yes needs a triclinic box; wafermd boxes are orthogonal");
    }
  }
  if (!(br.dim[0] || br.dim[1] || br.dim[2]))
    a.fail("fix box/relax needs a target pressure (iso, aniso, x, y or z)");
  // LAMMPS's checks of coupled dimensions: each must be relaxed, to one target.
  const bool cx = br.couple == C::xyz || br.couple == C::xy || br.couple == C::xz;
  const bool cy = br.couple == C::xyz || br.couple == C::xy || br.couple == C::yz;
  const bool cz = br.couple == C::xyz || br.couple == C::yz || br.couple == C::xz;
  if ((cx && !br.dim[0]) || (cy && !br.dim[1]) || (cz && !br.dim[2]))
    a.fail("Invalid fix box/relax command pressure settings (a coupled dimension is not relaxed)");
  const double* t = br.target;
  if ((cx && cy && t[0] != t[1]) || (cy && cz && t[1] != t[2]) || (cx && cz && t[0] != t[2]))
    a.fail("Invalid fix box/relax pressure settings (coupled dimensions need one target)");
  for (int d = 0; d < 3; ++d) {
    if (br.dim[d] && !box.periodic(d))
      a.fail("Cannot use fix box/relax on a non-periodic dimension (" +
             std::string(1, static_cast<char>('x' + d)) + ")");
  }
  return std::make_unique<FixBoxRelax>(f, br);
}

}  // namespace

WMD_FIX_STYLE("box/relax", make_fix_box_relax)

}  // namespace wmd::md
