// `region ID union N reg1 reg2 …` and `region ID intersect N reg1 reg2 …`: points any (all) of the
// sub-regions match, each with its own side and motion.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "md/styles/region_style.hpp"

namespace wmd::md {
namespace {

class RegCombined : public RegionShape {
 public:
  std::vector<Region> parts;
  bool any = true;  // union; false: intersect
  bool inside(double x, double y, double z) const override {
    for (const Region& r : parts)
      if (r.match(x, y, z) == any) return any;
    return !any;
  }
  bool extent(double l[3], double h[3]) const override {
    // LAMMPS: a union has a bounding box when every part has one, an intersection when any part has one.
    bool first = true;
    for (const Region& r : parts) {
      double pl[3], ph[3];
      if (!r.extent(pl, ph)) {
        if (any) return false;
        continue;
      }
      for (int d = 0; d < 3; ++d) {
        if (first) {
          l[d] = pl[d], h[d] = ph[d];
        } else if (any) {
          l[d] = std::min(l[d], pl[d]), h[d] = std::max(h[d], ph[d]);
        } else {
          l[d] = std::max(l[d], pl[d]), h[d] = std::min(h[d], ph[d]);
        }
      }
      first = false;
    }
    return !first;
  }
  bool variable_shape() const override {
    for (const Region& r : parts)
      if (r.dynamic()) return true;
    return false;
  }
  void prematch_parts() const override {
    for (const Region& r : parts) r.prematch();
  }
  int depth() const override { return depth_; }
  double tests() const override { return tests_; }
  int depth_ = 1;
  double tests_ = 0.0;
};

// Sub-regions are held by value, so a region cannot contain itself; but nesting is recursive (inside(),
// prematch, the destructor: 300,000 levels overflow the stack) and a region used twice at each of 40 levels
// is tested 2^40 times per point. Both are bounded when the region is defined, as expressions bound their
// nesting.
constexpr int kMaxRegionDepth = 200;
constexpr double kMaxRegionTests = 100000.0;

std::shared_ptr<RegionShape> make_combined(RegionArgs& r, bool any) {
  auto s = std::make_shared<RegCombined>();
  s->any = any;
  const long long n = r.a.integer("the number of regions", 2, 1000);
  for (long long k = 0; k < n; ++k) {
    const std::string rid = r.a.word("a region ID");
    const auto it = r.regions.find(rid);
    if (it == r.regions.end()) r.a.fail("region " + r.id + ": unknown region '" + rid + "'");
    s->parts.push_back(it->second);
    s->depth_ = std::max(s->depth_, 1 + it->second.shape().depth());
    s->tests_ += it->second.shape().tests();
  }
  if (s->depth_ > kMaxRegionDepth)
    r.a.fail("region " + r.id + ": regions nested more than " + std::to_string(kMaxRegionDepth) +
             " levels deep (union and intersect of unions and intersects)");
  if (s->tests_ > kMaxRegionTests)
    r.a.fail("region " + r.id + " would test " + fmt::format("{:.4g}", s->tests_) +
             " plain regions for each point, more than " + std::to_string(static_cast<int>(kMaxRegionTests)) +
             " (sub-regions used many times over)");
  return s;
}

std::shared_ptr<RegionShape> make_union(RegionArgs& r) {
  return make_combined(r, true);
}
std::shared_ptr<RegionShape> make_intersect(RegionArgs& r) {
  return make_combined(r, false);
}

}  // namespace

WMD_REGION_STYLE("union", make_union, -1)
WMD_REGION_STYLE("intersect", make_intersect, -1)

}  // namespace wmd::md
