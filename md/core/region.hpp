// Regions (LAMMPS's `region` command). A Region is a cheap handle: its id, side (in/out), optional motion
// (`move`, `rotate`) and a shared shape, one class per LAMMPS region style (md/styles/regions/, registered by
// name). Copies share the shape and the motion, so a fix's copy follows the displacement the simulation
// evaluates once per step (prematch), as LAMMPS's region does.
#pragma once
#include <functional>
#include <memory>
#include <string>

namespace wmd::md {

/// Evaluates an equal-style variable by name (the region's `v_name` parameters).
using RegionVariable = std::function<double(const std::string& name)>;

/// One region style's geometry, in the region's own (unmoved) frame.
class RegionShape {
 public:
  virtual ~RegionShape() = default;
  /// True when the point is inside or on the surface (LAMMPS's inside()).
  virtual bool inside(double x, double y, double z) const = 0;
  /// Bounding box of the interior (LAMMPS's extent with bboxflag set); false when the shape has none.
  virtual bool extent(double lo[3], double hi[3]) const {
    (void)lo, (void)hi;
    return false;
  }
  /// Re-evaluates variable parameters (LAMMPS's shape_update), before each use.
  virtual void update() {}
  /// True when some parameter is a variable.
  virtual bool variable_shape() const { return false; }
  /// The bounds of a block region (create_box accepts only those); false for other styles.
  virtual bool block_bounds(double lo[3], double hi[3]) const {
    (void)lo, (void)hi;
    return false;
  }
  /// The corner bounds and tilts (xy, xz, yz) of a prism region (create_box makes a triclinic box of
  /// them); false for other styles.
  virtual bool prism_bounds(double lo[3], double hi[3], double tilt[3]) const {
    (void)lo, (void)hi, (void)tilt;
    return false;
  }
  /// True for regions built from other regions (union, intersect): their sub-regions prematch themselves.
  virtual void prematch_parts() const {}
  /// Nesting depth (1 for a plain shape) and the number of plain shapes one inside() may test (each use of
  /// a shared sub-region counts): union and intersect bound both when they are defined.
  virtual int depth() const { return 1; }
  virtual double tests() const { return 1.0; }
};

class Region {
 public:
  std::string id;     // region ID
  std::string style;  // LAMMPS style name (block, sphere, …)

  Region() = default;
  Region(std::string rid, std::string rstyle, std::shared_ptr<RegionShape> shape, bool interior)
      : id(std::move(rid)), style(std::move(rstyle)), shape_(std::move(shape)), interior_(interior) {}

  /// `move v_x v_y v_z` (empty name: NULL): the region is displaced by the variables' values.
  void set_move(const std::string names[3], RegionVariable eval);
  /// `rotate v_theta Px Py Pz Rx Ry Rz` (point already in box units).
  void set_rotate(const std::string& theta, const double point[3], const double axis[3], RegionVariable eval);

  /// LAMMPS's match(): undo the motion, then inside() XOR side out.
  bool match(double x, double y, double z) const {
    if (motion_) motion_->inverse(x, y, z);
    return shape_->inside(x, y, z) == interior_;
  }
  /// Evaluates the region's variables (shape and motion) for the coming matches.
  void prematch() const;
  /// The bounding box create_atoms may narrow its loops to: interior, static regions with one.
  bool extent(double lo[3], double hi[3]) const {
    return interior_ && !motion_ && shape_ && shape_->extent(lo, hi);
  }
  /// True when the region moves, rotates or has variable parameters (re-evaluated every step in a run).
  bool dynamic() const { return motion_ != nullptr || (shape_ && shape_->variable_shape()); }
  bool interior() const { return interior_; }
  bool defined() const { return shape_ != nullptr; }
  const RegionShape& shape() const { return *shape_; }

 private:
  struct Motion {
    std::string move[3], theta;  // variable names; empty: none
    RegionVariable eval;
    double d[3] = {0.0, 0.0, 0.0};
    double angle = 0.0;
    bool rotate = false;
    double point[3] = {0.0, 0.0, 0.0}, runit[3] = {0.0, 0.0, 1.0};
    void inverse(double& x, double& y, double& z) const;
  };
  std::shared_ptr<RegionShape> shape_;
  std::shared_ptr<Motion> motion_;
  bool interior_ = true;
};

}  // namespace wmd::md
