// `region ID cone dim c1 c2 radlo radhi lo hi`: a truncated cone along x, y or z.
#include <cmath>

#include "md/styles/region_style.hpp"

namespace wmd::md {
namespace {

class RegCone : public RegionShape {
 public:
  int axis = 2, d1 = 0, d2 = 1;
  double c1 = 0.0, c2 = 0.0, radiuslo = 0.0, radiushi = 0.0, lo = 0.0, hi = 0.0;
  bool inside(double x, double y, double z) const override {
    const double p[3] = {x, y, z};
    const double del1 = p[d1] - c1, del2 = p[d2] - c2;
    const double dist = std::sqrt(del1 * del1 + del2 * del2);
    const double current = radiuslo + (p[axis] - lo) * (radiushi - radiuslo) / (hi - lo);
    return dist <= current && p[axis] >= lo && p[axis] <= hi;
  }
  bool extent(double l[3], double h[3]) const override {
    const double maxr = radiuslo > radiushi ? radiuslo : radiushi;
    l[axis] = lo, h[axis] = hi;
    l[d1] = c1 - maxr, h[d1] = c1 + maxr;
    l[d2] = c2 - maxr, h[d2] = c2 + maxr;
    return true;
  }
};

std::shared_ptr<RegionShape> make_cone(RegionArgs& r) {
  auto c = std::make_shared<RegCone>();
  const std::string dim = r.a.choice("the cone axis", {"x", "y", "z"});
  c->axis = dim[0] - 'x';
  c->d1 = c->axis == 0 ? 1 : 0;
  c->d2 = c->axis == 2 ? 1 : 2;
  const double rscale = c->axis == 0 ? r.scale[1] : r.scale[0];
  c->c1 = r.scale[c->d1] * r.a.real("the first coordinate of the axis");
  c->c2 = r.scale[c->d2] * r.a.real("the second coordinate of the axis");
  c->radiuslo = rscale * r.a.real("the radius at the lower end");
  c->radiushi = rscale * r.a.real("the radius at the upper end");
  // LAMMPS (29 Sep 2021) reads the upper end as the box face whenever the lower end is EDGE, and along y
  // whenever the upper end is INF or EDGE (its cone tests the wrong argument); followed so that cone regions
  // select LAMMPS's atoms.
  const bool lo_edge = r.a.peek() == "EDGE";
  c->lo = region_bound(r, "the lower end", c->axis, false);
  const std::string hi_word = r.a.peek();
  c->hi = region_bound(r, "the upper end", c->axis, true);
  if (lo_edge || hi_word == "INF" || hi_word == "EDGE") {
    const bool inf = hi_word == "INF" && c->axis != 1;
    c->hi = inf ? 1.0e20 : region_edge(r, c->axis, true);
  }
  if (c->radiuslo < 0.0 || c->radiushi < 0.0) r.a.fail("region " + r.id + ": cone radii must be >= 0");
  if (c->radiuslo == 0.0 && c->radiushi == 0.0) r.a.fail("region " + r.id + ": cone radii cannot both be 0");
  if (c->hi == c->lo) r.a.fail("region " + r.id + ": cone length is 0");
  return c;
}

}  // namespace

WMD_REGION_STYLE("cone", make_cone, 7)

}  // namespace wmd::md
