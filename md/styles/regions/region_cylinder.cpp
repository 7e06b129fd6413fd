// `region ID cylinder dim c1 c2 radius lo hi`: axis along x, y or z; c1, c2 and the radius may be variables.
#include <cmath>

#include "base/error.hpp"
#include "md/styles/region_style.hpp"

namespace wmd::md {
namespace {

class RegCylinder : public RegionShape {
 public:
  int axis = 2;        // 0, 1, 2 for x, y, z
  int d1 = 0, d2 = 1;  // the two directions across the axis
  RegionParam c1, c2, radius;
  double lo = 0.0, hi = 0.0;
  RegionVariable eval;
  std::string id;
  bool inside(double x, double y, double z) const override {
    const double p[3] = {x, y, z};
    const double del1 = p[d1] - c1.value, del2 = p[d2] - c2.value;
    const double dist = std::sqrt(del1 * del1 + del2 * del2);
    return dist <= radius.value && p[axis] >= lo && p[axis] <= hi;
  }
  bool extent(double l[3], double h[3]) const override {
    if (variable_shape()) return false;  // LAMMPS: no bounding box for a variable cylinder
    l[axis] = lo, h[axis] = hi;
    l[d1] = c1.value - radius.value, h[d1] = c1.value + radius.value;
    l[d2] = c2.value - radius.value, h[d2] = c2.value + radius.value;
    return true;
  }
  bool variable_shape() const override { return !c1.var.empty() || !c2.var.empty() || !radius.var.empty(); }
  void update() override {
    c1.update(eval), c2.update(eval), radius.update(eval);
    if (radius.value < 0.0) throw RunError("region " + id + ": its variable radius became negative");
  }
};

std::shared_ptr<RegionShape> make_cylinder(RegionArgs& r) {
  auto c = std::make_shared<RegCylinder>();
  c->eval = r.eval;
  c->id = r.id;
  const std::string dim = r.a.choice("the cylinder axis", {"x", "y", "z"});
  c->axis = dim[0] - 'x';
  c->d1 = c->axis == 0 ? 1 : 0;
  c->d2 = c->axis == 2 ? 1 : 2;
  c->c1 = region_param(r, "the first coordinate of the axis", r.scale[c->d1], true);
  c->c2 = region_param(r, "the second coordinate of the axis", r.scale[c->d2], true);
  // LAMMPS scales the radius by ylattice for an x axis, by xlattice otherwise.
  c->radius = region_param(r, "the radius", c->axis == 0 ? r.scale[1] : r.scale[0], true);
  c->lo = region_bound(r, "the lower end", c->axis, false);
  c->hi = region_bound(r, "the upper end", c->axis, true);
  if (c->radius.value <= 0.0) r.a.fail("region " + r.id + ": cylinder radius must be > 0");
  return c;
}

}  // namespace

WMD_REGION_STYLE("cylinder", make_cylinder, 6)

}  // namespace wmd::md
