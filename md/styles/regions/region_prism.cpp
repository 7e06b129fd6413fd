// `region ID prism xlo xhi ylo yhi zlo zhi xy xz yz`: the parallelepiped with edges a = (xhi − xlo, 0, 0),
// b = (xy, yhi − ylo, 0), c = (xz, yz, zhi − zlo) from (xlo, ylo, zlo), as LAMMPS's RegPrism. It is only a
// region: any box may hold it, and create_box makes a triclinic box of it (LAMMPS's rule).
#include <algorithm>

#include "md/styles/region_style.hpp"

namespace wmd::md {
namespace {

constexpr double kBig = 1.0e20;  // LAMMPS's BIG: INF bounds

class RegPrism : public RegionShape {
 public:
  double lo[3], hi[3];  // xlo ylo zlo, xhi yhi zhi
  double xy = 0.0, xz = 0.0, yz = 0.0;
  double hinv[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};  // box → tilt coordinates (upper triangular)
  bool has_extent = false;
  double ext_lo[3], ext_hi[3];

  // LAMMPS's inside: the tilt coordinates of the point, each in [0, 1] (closed on every face).
  bool inside(double x, double y, double z) const override {
    const double dx = x - lo[0], dy = y - lo[1], dz = z - lo[2];
    const double a = hinv[0][0] * dx + hinv[0][1] * dy + hinv[0][2] * dz;
    const double b = hinv[1][1] * dy + hinv[1][2] * dz;
    const double c = hinv[2][2] * dz;
    return a >= 0.0 && a <= 1.0 && b >= 0.0 && b <= 1.0 && c >= 0.0 && c <= 1.0;
  }
  bool prism_bounds(double l[3], double h[3], double tilt[3]) const override {
    for (int d = 0; d < 3; ++d) l[d] = lo[d], h[d] = hi[d];
    tilt[0] = xy, tilt[1] = xz, tilt[2] = yz;
    return true;
  }
  bool extent(double l[3], double h[3]) const override {
    if (!has_extent) return false;
    for (int d = 0; d < 3; ++d) l[d] = ext_lo[d], h[d] = ext_hi[d];
    return true;
  }
};

std::shared_ptr<RegionShape> make_prism(RegionArgs& r) {
  auto p = std::make_shared<RegPrism>();
  static const char* names[6] = {"xlo", "xhi", "ylo", "yhi", "zlo", "zhi"};
  for (int k = 0; k < 6; ++k)
    (k % 2 == 0 ? p->lo : p->hi)[k / 2] = region_bound(r, names[k], k / 2, k % 2 == 1, false);
  // Tilts are lengths along their first dimension: xy and xz along x, yz along y.
  p->xy = r.scale[0] * r.a.real("the xy tilt");
  p->xz = r.scale[0] * r.a.real("the xz tilt");
  p->yz = r.scale[1] * r.a.real("the yz tilt");
  const std::string who = "region " + r.id + ": prism ";
  // A flat prism has no inverse; a tilt cannot lean on a dimension that is infinite at both ends (LAMMPS
  // reports both as "Illegal region prism command").
  for (int d = 0; d < 3; ++d)
    if (p->lo[d] >= p->hi[d]) r.a.fail(who + names[2 * d] + " must be less than " + names[2 * d + 1]);
  const auto infinite = [&](int d) { return p->lo[d] == -kBig && p->hi[d] == kBig; };
  if ((p->xy != 0.0 && (infinite(0) || infinite(1))) || (p->xz != 0.0 && (infinite(0) || infinite(2))) ||
      (p->yz != 0.0 && (infinite(1) || infinite(2))))
    r.a.fail(who + "tilt along a dimension that is INF at both ends");

  const double h00 = p->hi[0] - p->lo[0], h11 = p->hi[1] - p->lo[1], h22 = p->hi[2] - p->lo[2];
  p->hinv[0][0] = 1.0 / h00;
  p->hinv[0][1] = -p->xy / (h00 * h11);
  p->hinv[0][2] = (p->xy * p->yz - p->xz * h11) / (h00 * h11 * h22);
  p->hinv[1][1] = 1.0 / h11;
  p->hinv[1][2] = -p->yz / (h11 * h22);
  p->hinv[2][2] = 1.0 / h22;

  // LAMMPS's bounding box (bboxflag, side in only), in its order of operations.
  if (r.interior) {
    p->has_extent = true;
    p->ext_lo[0] = std::min(p->lo[0], p->lo[0] + p->xy);
    p->ext_lo[0] = std::min(p->ext_lo[0], p->ext_lo[0] + p->xz);
    p->ext_lo[1] = std::min(p->lo[1], p->lo[1] + p->yz);
    p->ext_lo[2] = p->lo[2];
    p->ext_hi[0] = std::max(p->hi[0], p->hi[0] + p->xy);
    p->ext_hi[0] = std::max(p->ext_hi[0], p->ext_hi[0] + p->xz);
    p->ext_hi[1] = std::max(p->hi[1], p->hi[1] + p->yz);
    p->ext_hi[2] = p->hi[2];
  }
  return p;
}

}  // namespace

WMD_REGION_STYLE("prism", make_prism, 9)

}  // namespace wmd::md
