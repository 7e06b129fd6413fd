#include "md/core/region.hpp"

#include <cmath>

namespace wmd::md {

void Region::set_move(const std::string names[3], RegionVariable eval) {
  if (!motion_) motion_ = std::make_shared<Motion>();
  for (int d = 0; d < 3; ++d) motion_->move[d] = names[d];
  motion_->eval = std::move(eval);
}

void Region::set_rotate(const std::string& theta, const double point[3], const double axis[3],
                        RegionVariable eval) {
  if (!motion_) motion_ = std::make_shared<Motion>();
  Motion& m = *motion_;
  m.rotate = true;
  m.theta = theta;
  const double len = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  for (int d = 0; d < 3; ++d) m.point[d] = point[d], m.runit[d] = axis[d] / len;
  m.eval = std::move(eval);
}

void Region::prematch() const {
  if (shape_) {
    shape_->prematch_parts();
    if (shape_->variable_shape()) shape_->update();
  }
  if (!motion_) return;
  Motion& m = *motion_;
  for (int d = 0; d < 3; ++d)
    if (!m.move[d].empty()) m.d[d] = m.eval(m.move[d]);
  if (m.rotate) m.angle = m.eval(m.theta);
}

void Region::Motion::inverse(double& x, double& y, double& z) const {
  // LAMMPS's inverse_transform: undo the displacement, then rotate back by −θ about the point.
  x -= d[0], y -= d[1], z -= d[2];
  if (!rotate) return;
  const double sine = std::sin(-angle), cosine = std::cos(-angle);
  const double dv[3] = {x - point[0], y - point[1], z - point[2]};
  const double x0dotr = dv[0] * runit[0] + dv[1] * runit[1] + dv[2] * runit[2];
  const double c[3] = {x0dotr * runit[0], x0dotr * runit[1], x0dotr * runit[2]};
  const double a[3] = {dv[0] - c[0], dv[1] - c[1], dv[2] - c[2]};
  const double b[3] = {runit[1] * a[2] - runit[2] * a[1], runit[2] * a[0] - runit[0] * a[2],
                       runit[0] * a[1] - runit[1] * a[0]};
  const double disp[3] = {a[0] * cosine + b[0] * sine, a[1] * cosine + b[1] * sine,
                          a[2] * cosine + b[2] * sine};
  x = point[0] + c[0] + disp[0];
  y = point[1] + c[1] + disp[1];
  z = point[2] + c[2] + disp[2];
}

}  // namespace wmd::md
