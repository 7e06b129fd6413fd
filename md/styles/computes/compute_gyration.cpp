// compute gyration: the group's radius of gyration about its centre of mass, sqrt(Σ m |r − r_cm|² / M) (a
// global scalar), and the mass-weighted gyration tensor xx yy zz xy xz yz (a global vector), both from
// unwrapped positions and intensive, as LAMMPS compute gyration.
#include <cmath>

#include "md/core/unwrapped_position.hpp"
#include "md/styles/compute.hpp"
#include "md/styles/computes/group_moments.hpp"

namespace wmd::md {
namespace {

class ComputeGyration : public Compute {
 public:
  using Compute::Compute;
  OutputShape shape() const override { return {true, 6, -1, false}; }
  double compute_scalar(const ComputeContext& c) override {
    invoked_scalar = c.s.step;
    double t[6];
    const double mass = tensor(c, t);
    scalar_ = mass > 0.0 ? std::sqrt((t[0] + t[1] + t[2]) / mass) : 0.0;
    return scalar_;
  }
  void compute_vector(const ComputeContext& c) override {
    invoked_vector = c.s.step;
    double t[6];
    const double mass = tensor(c, t);
    vector_.assign(t, t + 6);
    if (mass > 0.0)
      for (double& v : vector_) v /= mass;
  }

 private:
  // Σ m dx², Σ m dy², Σ m dz², Σ m dx dy, Σ m dx dz, Σ m dy dz about the centre of mass; returns the mass.
  double tensor(const ComputeContext& c, double t[6]) const {
    double cm[3];
    const double mass = group_centre_of_mass(c.s, c.comm, group_, cm);
    const Atoms& a = c.s.atoms;
    TermSum sum(c.comm, 6);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!in_group(a, i)) continue;
      const double m = c.s.mass[a.type[i]];
      double u[3];
      unwrapped_position(c.s, i, u);  // LAMMPS's domain->unmap
      const double dx = u[0] - cm[0], dy = u[1] - cm[1], dz = u[2] - cm[2];
      sum.add(0, dx * dx * m), sum.add(1, dy * dy * m), sum.add(2, dz * dz * m);
      sum.add(3, dx * dy * m), sum.add(4, dx * dz * m), sum.add(5, dy * dz * m);
    }
    const std::vector<double> v = sum.total();
    std::copy(v.begin(), v.end(), t);
    return mass;
  }
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  c.a.finish();
  return std::make_unique<ComputeGyration>(c.id, c.style, c.group);
}

}  // namespace

WMD_COMPUTE_STYLE("gyration", make)

}  // namespace wmd::md
