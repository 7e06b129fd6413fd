// What the temperature computes (temp, temp/partial, temp/com, temp/region) share: LAMMPS's output shape (a
// global scalar and the 6-element kinetic tensor, intensive), the tempflag, and the degrees of freedom taken
// from the group's atom count at the run's set-up (LAMMPS's setup → dof_compute), or at every evaluation
// with compute_modify dynamic/dof yes or a dynamic group (LAMMPS's `dynamic`). A compute first evaluated
// after fix deposit inserted atoms therefore still counts the set-up's atoms, as in LAMMPS.
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
  void init(const ComputeContext& c) override {
    dynamic_group_ = false;
    for (size_t k = 0; k < c.s.group_names.size(); ++k)
      if ((1u << k) == group_ && c.styles && c.styles->fix("GROUP_" + c.s.group_names[k]))
        dynamic_group_ = true;
    setup_count_ = static_cast<double>(group_count(c.s, c.comm, group_));
    dof_known_ = false;
  }

 protected:
  /// LAMMPS's dof_compute: nper·N − (nper/3)·extra_dof (nper: the velocity components counted).
  void update_dof(const ComputeContext& c, int nper = 3) {
    const bool dynamic = dynamic_dof_ || dynamic_group_;
    if (dof_known_ && !dynamic) return;
    const double n =
        dynamic || setup_count_ < 0.0 ? static_cast<double>(group_count(c.s, c.comm, group_)) : setup_count_;
    dof_ = nper * n - (nper / 3.0) * extra_dof_;
    natoms_temp_ = n;
    dof_known_ = true;
  }
  /// The temperature from Σ m v² (amu Å²/ps²) and the dof; 0 without degrees of freedom, an error when the
  /// dof are negative (LAMMPS: "Temperature compute degrees of freedom < 0").
  double temperature(double mv2) const {
    if (dof_ < 0.0 && natoms_temp_ > 0.0)
      throw RunError("compute " + id_ + ": temperature degrees of freedom < 0 (compute_modify extra/dof)");
    return temperature_of(mv2, dof_);
  }

  bool dof_known_ = false, dynamic_group_ = false;
  double natoms_temp_ = 0.0;
  double setup_count_ = -1.0;  // the group's atoms at init (−1: not initialised by a run yet)
};

}  // namespace wmd::md
