// `region ID block xlo xhi ylo yhi zlo zhi`: closed intervals on every side.
#include "md/styles/region_style.hpp"

namespace wmd::md {
namespace {

class RegBlock : public RegionShape {
 public:
  double lo[3], hi[3];
  bool interior = true;
  bool inside(double x, double y, double z) const override {
    return x >= lo[0] && x <= hi[0] && y >= lo[1] && y <= hi[1] && z >= lo[2] && z <= hi[2];
  }
  bool extent(double l[3], double h[3]) const override {
    for (int d = 0; d < 3; ++d) l[d] = lo[d], h[d] = hi[d];
    return true;
  }
  bool block_bounds(double l[3], double h[3]) const override { return extent(l, h); }
};

std::shared_ptr<RegionShape> make_block(RegionArgs& r) {
  auto b = std::make_shared<RegBlock>();
  static const char* names[6] = {"xlo", "xhi", "ylo", "yhi", "zlo", "zhi"};
  for (int k = 0; k < 6; ++k) {
    const double v = region_bound(r, names[k], k / 2, k % 2 == 1);
    (k % 2 == 0 ? b->lo : b->hi)[k / 2] = v;
  }
  for (int d = 0; d < 3; ++d) {
    if (b->lo[d] > b->hi[d])
      r.a.fail("region " + r.id + ": block " + names[2 * d] + " exceeds " + names[2 * d + 1]);
  }
  return b;
}

}  // namespace

WMD_REGION_STYLE("block", make_block, 6)

}  // namespace wmd::md
