#include "md/styles/computes/voronoi_cell.hpp"

#include <algorithm>
#include <cmath>

namespace wmd::md {
namespace {

using Point = VoronoiCell::Point;

Point cross(const Point& a, const Point& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const Point& a, const Point& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// Orders the points of a convex polygon counter-clockwise seen from the side `normal` points to.
void order_around(std::vector<Point>& p, const Point& normal) {
  Point c = {0.0, 0.0, 0.0};
  for (const Point& q : p)
    for (int k = 0; k < 3; ++k) c[k] += q[k];
  for (int k = 0; k < 3; ++k) c[k] /= static_cast<double>(p.size());
  // e1: the direction to the point farthest from the centre (well conditioned), e2 = n × e1.
  Point e1 = {0.0, 0.0, 0.0};
  double best = -1.0;
  for (const Point& q : p) {
    const Point r = {q[0] - c[0], q[1] - c[1], q[2] - c[2]};
    if (dot(r, r) > best) best = dot(r, r), e1 = r;
  }
  const Point e2 = cross(normal, e1);
  std::vector<std::pair<double, size_t>> angle(p.size());
  for (size_t k = 0; k < p.size(); ++k) {
    const Point r = {p[k][0] - c[0], p[k][1] - c[1], p[k][2] - c[2]};
    angle[k] = {std::atan2(dot(r, e2), dot(r, e1)), k};
  }
  std::sort(angle.begin(), angle.end());
  std::vector<Point> out(p.size());
  for (size_t k = 0; k < p.size(); ++k) out[k] = p[angle[k].second];
  p.swap(out);
}

}  // namespace

void VoronoiCell::init_box(const double lo[3], const double hi[3]) {
  faces_.clear();
  for (int d = 0; d < 3; ++d)
    for (int side = 0; side < 2; ++side) {
      Face f;
      f.neighbor = -(2 * d + side + 1);
      const int a = (d + 1) % 3, b = (d + 2) % 3;
      for (int ka = 0; ka < 2; ++ka)
        for (int kb = 0; kb < 2; ++kb) {
          Point q;
          q[d] = side ? hi[d] : lo[d];
          q[a] = ka ? hi[a] : lo[a];
          q[b] = kb ? hi[b] : lo[b];
          f.v.push_back(q);
        }
      Point n = {0.0, 0.0, 0.0};
      n[d] = side ? 1.0 : -1.0;
      order_around(f.v, n);
      faces_.push_back(std::move(f));
    }
  update_radius();
}

bool VoronoiCell::cut(const double d[3], double rsq, int64_t neighbor) {
  const Point dir = {d[0], d[1], d[2]};
  auto u_of = [&](const Point& p) { return 2.0 * (p[0] * d[0] + p[1] * d[1] + p[2] * d[2]) - rsq; };
  bool any_out = false;
  for (const Face& f : faces_) {
    for (const Point& p : f.v)
      if (u_of(p) > kTolerance) {
        any_out = true;
        break;
      }
    if (any_out) break;
  }
  if (!any_out) return false;

  section_.clear();
  size_t w = 0;
  std::vector<double>& u = u_;
  for (size_t fi = 0; fi < faces_.size(); ++fi) {
    Face& f = faces_[fi];
    const size_t n = f.v.size();
    u.resize(n);
    bool has_in = false, has_out = false;
    for (size_t k = 0; k < n; ++k) {
      u[k] = u_of(f.v[k]);
      if (u[k] > kTolerance)
        has_out = true;
      else if (u[k] < -kTolerance)
        has_in = true;
      else
        section_.push_back(f.v[k]);  // on the plane: a corner of the new face
    }
    if (has_out && !has_in) continue;  // the face is cut away
    if (has_out) {
      kept_.clear();
      for (size_t k = 0; k < n; ++k) {
        const size_t k1 = (k + 1) % n;
        if (u[k] <= kTolerance) kept_.push_back(f.v[k]);
        const bool a_in = u[k]<-kTolerance, a_out = u[k]> kTolerance;
        const bool b_in = u[k1]<-kTolerance, b_out = u[k1]> kTolerance;
        if ((a_in && b_out) || (a_out && b_in)) {
          // From the inside vertex to the outside one, whichever face walks the edge: the same bits in both.
          const Point& pi = a_in ? f.v[k] : f.v[k1];
          const Point& po = a_in ? f.v[k1] : f.v[k];
          const double ui = a_in ? u[k] : u[k1], uo = a_in ? u[k1] : u[k];
          const double t = ui / (ui - uo);
          const Point p = {pi[0] + t * (po[0] - pi[0]), pi[1] + t * (po[1] - pi[1]),
                           pi[2] + t * (po[2] - pi[2])};
          kept_.push_back(p);
          section_.push_back(p);
        }
      }
      f.v.swap(kept_);
    }
    if (w != fi) faces_[w] = std::move(f);
    ++w;
  }
  faces_.resize(w);
  std::sort(section_.begin(), section_.end());
  section_.erase(std::unique(section_.begin(), section_.end()), section_.end());
  if (section_.size() >= 3) {
    Face nf;
    nf.neighbor = neighbor;
    nf.v = section_;
    order_around(nf.v, dir);
    faces_.push_back(std::move(nf));
  }
  update_radius();
  return true;
}

void VoronoiCell::update_radius() {
  rmax_sq_ = 0.0;
  for (const Face& f : faces_)
    for (const Point& p : f.v) rmax_sq_ = std::max(rmax_sq_, dot(p, p));
}

double VoronoiCell::volume() const {
  // Divergence theorem over the outward-oriented faces: Σ v0·(vk × vk+1)/6, also right when the atom lies
  // outside its own (radical) cell.
  double v = 0.0;
  for (const Face& f : faces_)
    for (size_t k = 1; k + 1 < f.v.size(); ++k) v += dot(f.v[0], cross(f.v[k], f.v[k + 1]));
  return v / 6.0;
}

double VoronoiCell::area(const Face& f) {
  Point s = {0.0, 0.0, 0.0};
  for (size_t k = 1; k + 1 < f.v.size(); ++k) {
    const Point a = {f.v[k][0] - f.v[0][0], f.v[k][1] - f.v[0][1], f.v[k][2] - f.v[0][2]};
    const Point b = {f.v[k + 1][0] - f.v[0][0], f.v[k + 1][1] - f.v[0][1], f.v[k + 1][2] - f.v[0][2]};
    const Point c = cross(a, b);
    for (int i = 0; i < 3; ++i) s[i] += c[i];
  }
  return 0.5 * std::sqrt(dot(s, s));
}

double VoronoiCell::surface_area() const {
  double a = 0.0;
  for (const Face& f : faces_) a += area(f);
  return a;
}

}  // namespace wmd::md
