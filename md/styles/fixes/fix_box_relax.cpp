// fix box/relax: the box lengths as degrees of freedom of the next `minimize` (CG), relaxed towards target
// pressures. As in LAMMPS it acts only in minimisation (md/minimize/): during `run` it does nothing.
// fix ID group box/relax iso|aniso P | x P [y P] [z P] [couple none|xyz] [vmax V] [nreset N] [dilate all]
#include "md/minimize/minimizer.hpp"
#include "md/styles/fix.hpp"

namespace wmd::md {
namespace {

class FixBoxRelax : public Fix {
 public:
  FixBoxRelax(const std::string& id, uint32_t group, const BoxRelax& br)
      : Fix(id, "box/relax", group), relax_(br) {}
  bool reads_energy() const override { return false; }
  const BoxRelax* box_relax() const override { return &relax_; }

 private:
  BoxRelax relax_;
};

std::unique_ptr<Fix> make_fix_box_relax(const FixArgs& f) {
  io::ArgCursor& a = f.a;
  BoxRelax br;
  br.active = true;
  bool have_target = false;
  double target = 0.0;
  auto set_target = [&](double p) {
    if (have_target && p != target)
      a.fail("fix box/relax: different target pressures per dimension are not supported");
    have_target = true;
    target = p;
  };
  if (a.done()) a.fail("fix box/relax needs iso, aniso or x/y/z with a target pressure (bar)");
  while (!a.done()) {
    const std::string key = a.choice("a box/relax keyword",
                                     {"iso", "aniso", "x", "y", "z", "couple", "vmax", "nreset", "dilate"});
    if (key == "iso" || key == "aniso") {
      set_target(a.real("the target pressure (bar)"));
      br.couple = key == "iso";
      for (int d = 0; d < 3; ++d) br.dim[d] = true;
    } else if (key == "x" || key == "y" || key == "z") {
      set_target(a.real("the target pressure (bar)"));
      br.dim[key[0] - 'x'] = true;
    } else if (key == "couple") {
      const std::string how = a.choice("a coupling", {"none", "xyz"});
      br.couple = how == "xyz";
    } else if (key == "vmax") {
      br.vmax = a.positive("vmax (fraction)");
    } else if (key == "nreset") {
      a.integer("nreset", 0, 2000000000);
    } else {
      a.choice("dilate", {"all"});
    }
  }
  if (!have_target) a.fail("fix box/relax needs a target pressure (iso, aniso, x, y or z)");
  for (int d = 0; d < 3; ++d) {
    if (br.dim[d] && !f.ctx.s.box.periodic(d))
      a.fail("fix box/relax cannot change the non-periodic dimension " +
             std::string(1, static_cast<char>('x' + d)));
    br.target[d] = br.dim[d] ? target : 0.0;
  }
  if (br.couple && !(br.dim[0] && br.dim[1] && br.dim[2]))
    a.fail("fix box/relax couple xyz needs all three dimensions relaxed");
  return std::make_unique<FixBoxRelax>(f.id, f.group, br);
}

}  // namespace

WMD_FIX_STYLE("box/relax", make_fix_box_relax)

}  // namespace wmd::md
