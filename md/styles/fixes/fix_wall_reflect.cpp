// fix wall/reflect face pos … [units lattice|box], as LAMMPS: after each step's drift an atom of the group
// that crossed a wall (EDGE: the box face where the fix is defined, a position, or an equal-style variable)
// is put back as far inside as it went beyond, and its velocity normal to the wall reversed. Non-periodic
// faces only.
#include "md/styles/fixes/number_or_variable.hpp"

namespace wmd::md {
namespace {

struct Reflector {
  int dim = 0;
  bool lo = true;
  NumberOrVariable coord;
};

class FixWallReflect : public Fix {
 public:
  FixWallReflect(const FixArgs& f, std::vector<Reflector> walls, const double scale[3])
      : Fix(f.id, f.style, f.group), walls_(std::move(walls)), at_(f.a.pos()) {
    for (int d = 0; d < 3; ++d) scale_[d] = scale[d];
  }
  bool reads_energy() const override { return false; }
  void post_integrate(FixContext& c) override {
    bool variables = false;
    for (const Reflector& w : walls_) variables |= w.coord.is_variable();
    if (variables && c.styles) c.styles->clearstep_computes();
    Atoms& a = c.s.atoms;
    for (const Reflector& w : walls_) {
      const double coord =
          w.coord.get(c, at_, "fix wall/reflect") * (w.coord.is_variable() ? scale_[w.dim] : 1.0);
      double* x = w.dim == 0 ? a.x.data() : w.dim == 1 ? a.y.data() : a.z.data();
      double* v = w.dim == 0 ? a.vx.data() : w.dim == 1 ? a.vy.data() : a.vz.data();
      for (size_t i = 0; i < a.size(); ++i) {
        if (!(a.mask[i] & group_)) continue;
        if (w.lo ? x[i] < coord : x[i] > coord) {
          x[i] = w.lo ? coord + (coord - x[i]) : coord - (x[i] - coord);
          v[i] = -v[i];
        }
      }
    }
  }

 private:
  std::vector<Reflector> walls_;
  SourcePos at_;
  double scale_[3] = {1.0, 1.0, 1.0};
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  io::ArgCursor& a = f.a;
  const std::vector<std::string> faces = {"xlo", "xhi", "ylo", "yhi", "zlo", "zhi"};
  std::vector<Reflector> walls;
  std::vector<bool> edge;
  bool lattice_units = true;
  while (!a.done()) {
    const std::string key =
        a.choice("a face or keyword", {"xlo", "xhi", "ylo", "yhi", "zlo", "zhi", "units"});
    if (key == "units") {
      lattice_units = a.choice("units", {"lattice", "box"}) == "lattice";
      continue;
    }
    const int which = static_cast<int>(std::find(faces.begin(), faces.end(), key) - faces.begin());
    Reflector w;
    w.dim = which / 2, w.lo = which % 2 == 0;
    for (const Reflector& o : walls)
      if (o.dim == w.dim && o.lo == w.lo) a.fail("Wall defined twice in fix wall/reflect command");
    if (f.ctx.s.box.periodic(w.dim)) a.fail("Cannot use fix wall/reflect in periodic dimension");
    edge.push_back(a.peek() == "EDGE");
    if (edge.back()) {
      // The box face where the fix is defined (LAMMPS reads it once, here).
      a.word("EDGE");
      w.coord.number = w.lo ? f.ctx.s.box.lo[w.dim] : f.ctx.s.box.hi[w.dim];
    } else {
      w.coord = NumberOrVariable::read(a, "the wall position (EDGE, a number or v_name)");
    }
    walls.push_back(w);
  }
  if (walls.empty()) a.fail("fix wall/reflect needs at least one face");
  // LAMMPS scales numeric positions (not EDGE; variables when they are read) by the lattice spacings.
  double scale[3];
  for (int d = 0; d < 3; ++d) scale[d] = lattice_units && f.ctx.lattice[d] > 0.0 ? f.ctx.lattice[d] : 1.0;
  for (size_t m = 0; m < walls.size(); ++m)
    if (!edge[m] && !walls[m].coord.is_variable()) walls[m].coord.number *= scale[walls[m].dim];
  return std::make_unique<FixWallReflect>(f, std::move(walls), scale);
}

}  // namespace

WMD_FIX_STYLE("wall/reflect", make)

}  // namespace wmd::md
