// fix lineforce x y z / fix planeforce x y z, as LAMMPS: the group's forces keep only their component along
// the (normalised) direction (lineforce), or lose it (planeforce: motion within the plane normal to it),
// after the forces of each step, at the set-up and while minimising.
#include <cmath>

#include "md/styles/fix.hpp"

namespace wmd::md {
namespace {

class FixDirectionForce : public Fix {
 public:
  FixDirectionForce(const FixArgs& f, const double dir[3], bool line)
      : Fix(f.id, f.style, f.group), line_(line) {
    for (int d = 0; d < 3; ++d) dir_[d] = dir[d];
  }
  bool reads_energy() const override { return false; }
  bool changes_forces_when_minimizing() const override { return true; }
  void setup(FixContext& c) override { post_force(c); }
  void post_force(FixContext& c) override {
    Atoms& a = c.s.atoms;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      const double dot = a.fx[i] * dir_[0] + a.fy[i] * dir_[1] + a.fz[i] * dir_[2];
      if (line_) {
        a.fx[i] = dot * dir_[0], a.fy[i] = dot * dir_[1], a.fz[i] = dot * dir_[2];
      } else {
        a.fx[i] -= dot * dir_[0], a.fy[i] -= dot * dir_[1], a.fz[i] -= dot * dir_[2];
      }
    }
  }

 private:
  double dir_[3];
  bool line_;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  double dir[3];
  dir[0] = f.a.real("the x direction");
  dir[1] = f.a.real("the y direction");
  dir[2] = f.a.real("the z direction");
  f.a.finish();
  const double len = std::sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
  if (len == 0.0) f.a.fail("fix " + f.style + ": the direction must not be zero");
  for (double& d : dir) d /= len;
  return std::make_unique<FixDirectionForce>(f, dir, f.style == "lineforce");
}

}  // namespace

WMD_FIX_STYLE("lineforce", make)
WMD_FIX_STYLE("planeforce", make)

}  // namespace wmd::md
