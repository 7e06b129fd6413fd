// fix recenter x y z [shift group] [units box|lattice|fraction], as LAMMPS fix recenter: at the start of
// each step (after the integrators defined before it) the group's centre of mass (unwrapped) is moved to
// (x,y,z) by shifting the positions of the shift group (default: the fix's group). A component may be NULL
// (left alone) or INIT (the centre of mass at the start of each run). Lattice units (the default) scale
// the target by the lattice spacings; fraction units place it at that fraction of the box (of its bounding
// box when triclinic, as LAMMPS). Scalar: the
// length of the last shift; vector: its components (both extensive in LAMMPS's sense).
#include <cmath>

#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"

namespace wmd::md {
namespace {

enum class Target { value, null, init };
enum class Units { box, lattice, fraction };

struct RecenterSpec {
  Target target[3] = {Target::value, Target::value, Target::value};
  double com[3] = {0.0, 0.0, 0.0};
  uint32_t shift_group = 0;
  Units units = Units::lattice;
};

class FixRecenter : public Fix {
 public:
  FixRecenter(const FixArgs& f, const RecenterSpec& p) : Fix(f.id, f.style, f.group), p_(p) {
    if (!p_.shift_group) p_.shift_group = f.group;
  }
  bool reads_energy() const override { return false; }
  OutputShape shape() const override { return {true, 3, -1, true}; }

  void setup(FixContext& c) override {
    // LAMMPS's init: INIT components take the centre of mass at the start of the run. A run continued from a
    // checkpoint keeps the centre of the run it interrupted (the same run, so the same target).
    if (c.continuing) return;
    if (p_.target[0] == Target::init || p_.target[1] == Target::init || p_.target[2] == Target::init)
      group_xcm(c, group_, init_);
  }
  void initial_integrate(FixContext& c) override {
    const Box& box = c.s.box;
    double target[3];
    for (int d = 0; d < 3; ++d) {
      if (p_.target[d] == Target::init)
        target[d] = init_[d];
      else if (p_.units == Units::fraction)  // of the box's bounding box on a triclinic box (LAMMPS)
        target[d] = box.triclinic ? box.bound_lo(d) + p_.com[d] * (box.bound_hi(d) - box.bound_lo(d))
                                  : box.lo[d] + p_.com[d] * (box.hi[d] - box.lo[d]);
      else
        target[d] = p_.com[d];
    }
    double xcm[3];
    group_xcm(c, group_, xcm);
    for (int d = 0; d < 3; ++d) shift_[d] = p_.target[d] == Target::null ? 0.0 : target[d] - xcm[d];
    distance_ = std::sqrt(shift_[0] * shift_[0] + shift_[1] * shift_[1] + shift_[2] * shift_[2]);
    Atoms& a = c.s.atoms;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(a.mask[i] & p_.shift_group)) continue;
      a.x[i] += shift_[0], a.y[i] += shift_[1], a.z[i] += shift_[2];
    }
  }
  bool scalar(double& v) const override {
    v = distance_;
    return true;
  }
  double vector_value(int i) const override { return i >= 0 && i < 3 ? shift_[i] : 0.0; }

  void save_state(FixStateMap& out) const override {
    out["recenter"] = {init_[0], init_[1], init_[2], shift_[0], shift_[1], shift_[2], distance_};
  }
  void restore_state(const FixStateMap& in) override {
    // Checked before use: the initial centre, the shift and the distance, finite.
    const std::vector<double>* v = FixStateReader(in, *this).sized_finite("recenter", {7});
    if (!v) return;
    for (int d = 0; d < 3; ++d) init_[d] = (*v)[d], shift_[d] = (*v)[d + 3];
    distance_ = (*v)[6];
  }

 private:
  RecenterSpec p_;
  double init_[3] = {0.0, 0.0, 0.0};
  double shift_[3] = {0.0, 0.0, 0.0};
  double distance_ = 0.0;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  RecenterSpec p;
  static const char* axis[3] = {"x", "y", "z"};
  for (int d = 0; d < 3; ++d) {
    const std::string w = f.a.peek();
    if (w == "NULL" || w == "INIT") {
      f.a.word("NULL or INIT");
      p.target[d] = w == "NULL" ? Target::null : Target::init;
    } else {
      p.com[d] = f.a.real(std::string("the ") + axis[d] + " target (a number, NULL or INIT)");
    }
  }
  while (!f.a.done()) {
    const std::string key = f.a.choice("a fix recenter keyword", {"shift", "units"});
    if (key == "shift") {
      const std::string g = f.a.word("the shift group");
      p.shift_group = f.ctx.s.group_bit(g);
      if (!p.shift_group) f.a.fail("fix recenter shift: unknown group '" + g + "'");
    } else {
      const std::string u = f.a.choice("units (box, lattice or fraction)", {"box", "lattice", "fraction"});
      p.units = u == "box" ? Units::box : u == "lattice" ? Units::lattice : Units::fraction;
    }
  }
  if (p.units == Units::lattice)  // LAMMPS's lattice `none 1.0` without a lattice command
    for (int d = 0; d < 3; ++d) p.com[d] *= f.ctx.lattice[d] > 0.0 ? f.ctx.lattice[d] : 1.0;
  // LAMMPS: "Fix recenter group has no atoms". A --restart replay has no atoms yet (they come with the
  // checkpoint), so there the count is the checkpoint's, which had them when the fix was defined.
  const Atoms& a = f.ctx.s.atoms;
  int64_t n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += (a.mask[i] & f.group) ? 1 : 0;
  if (f.ctx.comm) n = f.ctx.comm->sum(n);
  if (n == 0 && !f.ctx.restoring) f.a.fail("fix recenter: group has no atoms (LAMMPS)");
  return std::make_unique<FixRecenter>(f, p);
}

}  // namespace

WMD_FIX_STYLE("recenter", make)

}  // namespace wmd::md
