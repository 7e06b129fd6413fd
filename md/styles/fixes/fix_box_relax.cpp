// fix box/relax: the box lengths (and, on a triclinic box, its tilt factors) as extra degrees of freedom of
// the next `minimize` (CG), relaxed towards target pressures with LAMMPS's FixBoxRelax
// (md/minimize/minimizer.cpp does its min_energy, min_store, min_step, remap and max_alpha). As in LAMMPS it
// acts only in minimisation: during `run` it does nothing, though it makes thermo_style one print the volume.
// f_ID is the box's P·V energy from the reference box (LAMMPS's scalar). fix ID group box/relax iso|aniso|tri
// P | x P [y P] [z P] [yz P] [xz P] [xy P] [couple none|xyz|xy|yz|xz]
//     [vmax V] [nreset N] [dilate all|partial] [fixedpoint x y z] [scalexy|scalexz|scaleyz yes|no]
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
  // LAMMPS: a non-zero tilt follows its box length unless it is relaxed or scale.. no is given
  br.scalexy = box.periodic(1) && box.xy != 0.0;
  br.scaleyz = box.periodic(2) && box.yz != 0.0;
  br.scalexz = box.periodic(2) && box.xz != 0.0;
  if (a.done()) a.fail("fix box/relax needs iso, aniso, tri or x/y/z/xy/xz/yz with a target pressure (bar)");
  while (!a.done()) {
    const std::string key = a.choice(
        "a box/relax keyword", {"iso", "aniso", "tri", "x", "y", "z", "yz", "xz", "xy", "couple", "vmax",
                                "nreset", "dilate", "fixedpoint", "scalexy", "scalexz", "scaleyz"});
    if (key == "iso" || key == "aniso" || key == "tri") {
      const double p = a.real("the target pressure (bar)");
      br.couple = key == "iso" ? C::xyz : C::none;
      for (int d = 0; d < 3; ++d) br.dim[d] = true, br.target[d] = p;
      if (key == "tri") {
        br.scalexy = br.scalexz = br.scaleyz = false;
        for (int q = 3; q < 6; ++q) br.dim[q] = true, br.target[q] = 0.0;
      }
    } else if (key == "x" || key == "y" || key == "z" || key == "yz" || key == "xz" || key == "xy") {
      // LAMMPS's Voigt order: x y z yz xz xy
      const int q = key == "x" ? 0 : key == "y" ? 1 : key == "z" ? 2 : key == "yz" ? 3 : key == "xz" ? 4 : 5;
      br.target[q] = a.real("the target pressure (bar)");
      br.dim[q] = true;
      br.deviatoric = true;
      if (q == 3) br.scaleyz = false;
      if (q == 4) br.scalexz = false;
      if (q == 5) br.scalexy = false;
    } else if (key == "couple") {
      const std::string how = a.choice("a coupling", {"none", "xyz", "xy", "yz", "xz"});
      br.couple = how == "xyz"  ? C::xyz
                  : how == "xy" ? C::xy
                  : how == "yz" ? C::yz
                  : how == "xz" ? C::xz
                                : C::none;
    } else if (key == "vmax") {
      br.vmax = a.real("vmax (fraction)");
    } else if (key == "nreset") {
      br.nreset = a.integer("nreset", 0, 2000000000);
    } else if (key == "dilate") {
      br.dilate_all = a.choice("dilate all or partial", {"all", "partial"}) == "all";
    } else if (key == "fixedpoint") {
      for (int d = 0; d < 3; ++d) br.fixedpoint[d] = a.real("a fixed-point coordinate (Å)");
    } else {
      const bool on = a.yes_no(key);
      (key == "scalexy" ? br.scalexy : key == "scalexz" ? br.scalexz : br.scaleyz) = on;
    }
  }
  if (!(br.dim[0] || br.dim[1] || br.dim[2] || br.dim[3] || br.dim[4] || br.dim[5]))
    a.fail("fix box/relax needs a target pressure (iso, aniso, tri, x, y, z, yz, xz or xy)");
  // LAMMPS's checks, in its order: coupled dimensions are relaxed, periodic, and share one target; tilts
  // need a periodic second dimension and a triclinic box.
  const bool cx = br.couple == C::xyz || br.couple == C::xy || br.couple == C::xz;
  const bool cy = br.couple == C::xyz || br.couple == C::xy || br.couple == C::yz;
  const bool cz = br.couple == C::xyz || br.couple == C::yz || br.couple == C::xz;
  if ((cx && !br.dim[0]) || (cy && !br.dim[1]) || (cz && !br.dim[2]))
    a.fail("Invalid fix box/relax command pressure settings (a coupled dimension is not relaxed)");
  for (int d = 0; d < 3; ++d) {
    if (br.dim[d] && !box.periodic(d))
      a.fail("Cannot use fix box/relax on a non-periodic dimension (" +
             std::string(1, static_cast<char>('x' + d)) + ")");
  }
  if ((br.dim[3] && !box.periodic(2)) || (br.dim[4] && !box.periodic(2)) || (br.dim[5] && !box.periodic(1)))
    a.fail("Cannot use fix box/relax on a 2nd non-periodic dimension");
  if ((br.scaleyz && !box.periodic(2)) || (br.scalexz && !box.periodic(2)) ||
      (br.scalexy && !box.periodic(1)))
    a.fail("Cannot use fix box/relax with tilt factor scaling on a 2nd non-periodic dimension");
  if ((br.dim[3] && br.scaleyz) || (br.dim[4] && br.scalexz) || (br.dim[5] && br.scalexy))
    a.fail("Cannot use fix box/relax with both relaxation and scaling on a tilt factor");
  if (!box.triclinic && br.triclinic())
    a.fail("Can not specify Pxy/Pxz/Pyz in fix box/relax with non-triclinic box");
  const double* t = br.target;
  if ((cx && cy && t[0] != t[1]) || (cy && cz && t[1] != t[2]) || (cx && cz && t[0] != t[2]))
    a.fail("Invalid fix box/relax pressure settings (coupled dimensions need one target)");
  if (br.vmax <= 0.0) a.fail("fix box/relax vmax must be > 0 (LAMMPS: Illegal fix box/relax command)");
  return std::make_unique<FixBoxRelax>(f, br);
}

}  // namespace

WMD_FIX_STYLE("box/relax", make_fix_box_relax)

}  // namespace wmd::md
