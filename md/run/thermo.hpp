// Thermo keywords (LAMMPS names and headers) and their values from the state and the last force result.
#pragma once
#include <string>
#include <vector>

#include "md/core/comm.hpp"
#include "md/core/state.hpp"
#include "md/force/backend.hpp"

namespace wmd::md {

/// Header word LAMMPS prints for a custom thermo keyword (e.g. pe → PotEng); empty if unknown.
std::string thermo_header(const std::string& keyword);
/// True for keywords whose value is an integer (step, atoms, elapsed).
bool thermo_is_integer(const std::string& keyword);
/// True for extensive keywords (divided by N under thermo_modify norm yes).
bool thermo_is_extensive(const std::string& keyword);

/// Everything thermo keywords are computed from at one step.
struct ThermoContext {
  const State* state = nullptr;
  const ForceResult* force = nullptr;
  double cpu_seconds = 0.0;  // wall time since the run started
  int64_t run_start_step = 0;
  bool normalise = false;
  const Comm* comm = nullptr;  // the ranks holding the atoms (null: this rank's atoms are all of them)
  // The temperature and its degrees of freedom once summed: temp, ke, etotal and press of one line (same
  // velocities) share one pass over the atoms and its collectives. dof < 0: not summed yet.
  mutable double temp_sum = 0.0, temp_dof = -1.0;
  // `thermo_modify temp ID`: that compute's kinetic tensor (xx yy zz xy xz yz, eV) for pxx…pyz; null: all
  // atoms' (the temperature and dof above are then filled from the compute before any keyword is read).
  const double* ktensor = nullptr;
  int64_t run_end_step = 0;  // the run's last step, for cpuremain (0: not in a run)
  double fix_energy = 0.0;   // the fixes' energy `fix_modify energy yes` adds to pe, etotal and enthalpy
  double lattice[3] = {1.0, 1.0, 1.0};  // xlat ylat zlat: the lattice spacings (LAMMPS's default lattice: 1)
  int64_t run_begin_step =
      0;  // elaplong counts from here: LAMMPS's beginstep (`run … start S`, else the run's first)
};

/// Value of a built-in keyword; returns false for unknown keywords. Collective over ctx.comm.
bool thermo_value(const std::string& keyword, const ThermoContext& ctx, double& value);

}  // namespace wmd::md
