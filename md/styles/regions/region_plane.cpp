// `region ID plane px py pz nx ny nz`: the half-space on the normal's side (and the plane itself).
#include <cmath>

#include "md/styles/region_style.hpp"

namespace wmd::md {
namespace {

class RegPlane : public RegionShape {
 public:
  double p[3], n[3];
  bool inside(double x, double y, double z) const override {
    return (x - p[0]) * n[0] + (y - p[1]) * n[1] + (z - p[2]) * n[2] >= 0.0;
  }
};

std::shared_ptr<RegionShape> make_plane(RegionArgs& r) {
  auto s = std::make_shared<RegPlane>();
  static const char* pn[3] = {"the point x", "the point y", "the point z"};
  static const char* nn[3] = {"the normal x", "the normal y", "the normal z"};
  for (int d = 0; d < 3; ++d) s->p[d] = r.scale[d] * r.a.real(pn[d]);
  for (int d = 0; d < 3; ++d) s->n[d] = r.scale[d] * r.a.real(nn[d]);
  const double rsq = s->n[0] * s->n[0] + s->n[1] * s->n[1] + s->n[2] * s->n[2];
  if (rsq == 0.0) r.a.fail("region " + r.id + ": the plane normal is zero");
  for (double& c : s->n) c /= std::sqrt(rsq);
  return s;
}

}  // namespace

WMD_REGION_STYLE("plane", make_plane, 6)

}  // namespace wmd::md
