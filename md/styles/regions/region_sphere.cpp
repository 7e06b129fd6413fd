// `region ID sphere x y z radius`: centre and radius may be equal-style variables (v_name).
#include <cmath>

#include "base/error.hpp"
#include "md/styles/region_style.hpp"

namespace wmd::md {
namespace {

class RegSphere : public RegionShape {
 public:
  RegionParam c[3], radius;
  RegionVariable eval;
  std::string id;
  double lo[3], hi[3];  // extent from the initial centre and radius, as LAMMPS
  bool inside(double x, double y, double z) const override {
    const double dx = x - c[0].value, dy = y - c[1].value, dz = z - c[2].value;
    // LAMMPS compares the distance, not its square: points on the surface round alike.
    return std::sqrt(dx * dx + dy * dy + dz * dz) <= radius.value;
  }
  bool extent(double l[3], double h[3]) const override {
    for (int d = 0; d < 3; ++d) l[d] = lo[d], h[d] = hi[d];
    return true;
  }
  bool variable_shape() const override {
    return !c[0].var.empty() || !c[1].var.empty() || !c[2].var.empty() || !radius.var.empty();
  }
  void update() override {
    for (auto& p : c) p.update(eval);
    radius.update(eval);
    if (radius.value < 0.0) throw RunError("region " + id + ": its variable radius became negative");
  }
};

std::shared_ptr<RegionShape> make_sphere(RegionArgs& r) {
  auto s = std::make_shared<RegSphere>();
  s->eval = r.eval;
  s->id = r.id;
  static const char* names[3] = {"the centre x", "the centre y", "the centre z"};
  for (int d = 0; d < 3; ++d) s->c[d] = region_param(r, names[d], r.scale[d], true);
  s->radius = region_param(r, "the radius", r.scale[0], true);
  if (s->radius.value < 0.0) r.a.fail("region " + r.id + ": sphere radius must be >= 0");
  for (int d = 0; d < 3; ++d)
    s->lo[d] = s->c[d].value - s->radius.value, s->hi[d] = s->c[d].value + s->radius.value;
  return s;
}

}  // namespace

WMD_REGION_STYLE("sphere", make_sphere, 4)

}  // namespace wmd::md
