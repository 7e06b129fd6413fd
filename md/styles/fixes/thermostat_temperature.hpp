// The temperature a rescaling thermostat or a barostat reads (fix temp/berendsen, temp/rescale,
// press/berendsen): its own compute temp on the fix group (LAMMPS's `ID_temp`, degrees of freedom counted at
// each run's set-up, so atoms inserted or lost during the run change the kinetic energy but not the dof), or
// the compute `fix_modify ID temp cID` names, whose bias a thermostat removes before scaling.
#pragma once
#include <memory>
#include <string>

#include "md/styles/fix.hpp"

namespace wmd::md {

/// `fix_modify ID temp cID`'s argument: the ID of an existing temperature compute (bad ones fail at `a`).
inline std::string read_temperature_compute(io::ArgCursor& a, const StyleLookup& styles) {
  const std::string id = a.word("a temperature compute ID");
  const Compute* t = styles.compute(id);
  if (!t) a.fail("fix_modify temp: compute " + id + " does not exist");
  if (!t->is_temperature()) a.fail("fix_modify temp: compute " + id + " does not compute a temperature");
  return id;
}

class ThermostatTemperature {
 public:
  explicit ThermostatTemperature(const FixArgs& f)
      : own_(make_own_temperature(f)), fix_(f.style + " " + f.id) {}
  /// `fix_modify ID temp cID`; false for any other keyword.
  bool modify_param(const std::string& key, io::ArgCursor& a, const StyleLookup& styles) {
    if (key != "temp") return false;
    temp_id_ = read_temperature_compute(a, styles);
    return true;
  }
  /// At the run's set-up: the own compute's dof from the group's count.
  void setup(FixContext& c) { own_->init(c.compute_context()); }
  Compute& get(FixContext& c) {
    if (temp_id_.empty()) return *own_;
    Compute* t = c.styles ? c.styles->compute(temp_id_) : nullptr;
    if (!t) throw RunError("fix " + fix_ + ": temperature compute " + temp_id_ + " was deleted");
    return *t;
  }

 private:
  std::unique_ptr<Compute> own_;
  std::string fix_, temp_id_;
};

}  // namespace wmd::md
