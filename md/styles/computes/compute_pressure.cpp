// compute pressure TEMP-ID [ke pair virial]: the pressure (bar) from a temperature compute's kinetic part
// and the pair virial, and the 6-element pressure tensor, as LAMMPS compute pressure (group all).
#include "base/units.hpp"
#include "md/styles/compute.hpp"

namespace wmd::md {
namespace {

class ComputePressure : public Compute {
 public:
  ComputePressure(const ComputeArgs& c, std::string temp_id, bool ke, bool virial)
      : Compute(c.id, c.style, c.group), temp_id_(std::move(temp_id)), ke_(ke), virial_(virial) {}
  OutputShape shape() const override { return {true, 6, -1, false}; }
  bool is_pressure() const override { return true; }

  double compute_scalar(const ComputeContext& c) override {
    invoked_scalar = c.s.step;
    const double* w = virial(c);
    const double inv_volume = 1.0 / c.s.box.volume();
    double kinetic = 0.0;
    if (ke_) {
      Compute& t = temperature(c);
      const double temp = t.invoked_scalar == c.s.step ? t.scalar() : t.compute_scalar(c);
      kinetic = t.dof() * units::boltz * temp;
    }
    scalar_ = (kinetic + w[0] + w[1] + w[2]) / 3.0 * inv_volume * units::nktv2p;
    return scalar_;
  }
  void compute_vector(const ComputeContext& c) override {
    invoked_vector = c.s.step;
    const double* w = virial(c);
    const double inv_volume = 1.0 / c.s.box.volume();
    double ke[6] = {0, 0, 0, 0, 0, 0};
    if (ke_) {
      Compute& t = temperature(c);
      if (t.invoked_vector != c.s.step) t.compute_vector(c);
      for (int k = 0; k < 6; ++k) ke[k] = t.vector()[k];
    }
    vector_.resize(6);
    for (int k = 0; k < 6; ++k) vector_[k] = (ke[k] + w[k]) * inv_volume * units::nktv2p;
  }

 private:
  Compute& temperature(const ComputeContext& c) const {
    Compute* t = c.styles ? c.styles->compute(temp_id_) : nullptr;
    if (!t)
      throw RunError("compute " + id_ + " (pressure): temperature compute " + temp_id_ + " does not exist");
    return *t;
  }
  const double* virial(const ComputeContext& c) {
    static const double zero[6] = {0, 0, 0, 0, 0, 0};
    if (!virial_ || !c.force) return zero;
    if (!c.force->tallied)
      throw RunError("compute " + id_ + " (pressure) read at step " + std::to_string(c.s.step) +
                     ", whose virial was not summed (LAMMPS: \"Virial was not tallied on needed timestep\")");
    return c.force->virial;
  }
  std::string temp_id_;
  bool ke_, virial_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  if (c.group != 1u) c.a.fail("compute pressure must use group all (as LAMMPS)");
  const std::string temp_id = c.a.word("a temperature compute ID (or NULL)");
  bool ke = true, virial = true;
  if (!c.a.done()) {
    ke = virial = false;
    while (!c.a.done()) {
      // EAM's virial is all pair virial; bond, angle, … terms are zero and fix virials are not supported.
      const std::string k = c.a.choice("a compute pressure term", {"ke", "pair", "virial"});
      (k == "ke" ? ke : virial) = true;
    }
  }
  if (ke) {
    if (temp_id == "NULL") c.a.fail("compute pressure: the ke term needs a temperature compute, not NULL");
    const Compute* t = c.ctx.styles ? c.ctx.styles->compute(temp_id) : nullptr;
    if (c.ctx.styles && !t) c.a.fail("compute pressure: temperature compute " + temp_id + " does not exist");
    if (t && !t->is_temperature()) c.a.fail("compute pressure: compute " + temp_id + " is not a temperature");
  }
  return std::make_unique<ComputePressure>(c, temp_id, ke, virial);
}

}  // namespace

WMD_COMPUTE_STYLE("pressure", make)

}  // namespace wmd::md
