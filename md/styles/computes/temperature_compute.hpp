// What the temperature computes (temp, temp/partial, temp/com, temp/region) share: LAMMPS's output shape (a
// global scalar and the 6-element kinetic tensor, intensive), the tempflag, and the degrees of freedom taken
// from the group's atom count at init (or at every evaluation with compute_modify dynamic/dof yes).
#pragma once
#include "base/units.hpp"
#include "md/core/velocity.hpp"
#include "md/styles/compute.hpp"

namespace wmd::md {

class TemperatureCompute : public Compute {
 public:
  using Compute::Compute;
  OutputShape shape() const override { return {true, 6, -1, false}; }
  bool is_temperature() const override { return true; }
  void init(const ComputeContext&) override { dof_known_ = false; }

 protected:
  /// LAMMPS's dof_compute: nper·N − (nper/3)·extra_dof (nper: the velocity components counted).
  void update_dof(const ComputeContext& c, int nper = 3) {
    if (dof_known_ && !dynamic_dof_) return;
    const double n = static_cast<double>(group_count(c.s, c.comm, group_));
    dof_ = nper * n - (nper / 3.0) * extra_dof_;
    natoms_temp_ = n;
    dof_known_ = true;
  }
  /// The temperature from Σ m v² (amu Å²/ps²) and the dof; 0 without degrees of freedom, an error when the
  /// dof are negative (LAMMPS: "Temperature compute degrees of freedom < 0").
  double temperature(double mv2) const {
    if (dof_ < 0.0 && natoms_temp_ > 0.0)
      throw RunError("compute " + id_ + ": temperature degrees of freedom < 0 (compute_modify extra/dof)");
    return dof_ > 0.0 ? mv2 * (units::mvv2e / (dof_ * units::boltz)) : 0.0;
  }

  bool dof_known_ = false;
  double natoms_temp_ = 0.0;
};

}  // namespace wmd::md
