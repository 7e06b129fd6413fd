#include "md/run/thermo.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "base/error.hpp"
#include "base/units.hpp"
#include "md/core/kinetic_energy.hpp"
#include "md/core/velocity.hpp"

namespace wmd::md {
namespace {

// LAMMPS's Thermo::compute_cell*: the edge lengths |a|, |b|, |c| and the angles between them (degrees) of
// the box's edge vectors; an orthogonal box's lengths and right angles.
double cell_parameter(const Box& b, const std::string& k) {
  const double h0 = b.prd(0), h1 = b.prd(1), h2 = b.prd(2), h3 = b.yz, h4 = b.xz, h5 = b.xy;
  constexpr double kPi = 3.14159265358979323846;
  if (k == "cella") return h0;
  if (!b.triclinic) return k == "cellb" ? h1 : k == "cellc" ? h2 : 90.0;
  if (k == "cellb") return std::sqrt(h1 * h1 + h5 * h5);
  if (k == "cellc") return std::sqrt(h2 * h2 + h3 * h3 + h4 * h4);
  if (k == "cellalpha")
    return std::acos((h5 * h4 + h1 * h3) / std::sqrt((h1 * h1 + h5 * h5) * (h2 * h2 + h3 * h3 + h4 * h4))) *
           180.0 / kPi;
  if (k == "cellbeta") return std::acos(h4 / std::sqrt(h2 * h2 + h3 * h3 + h4 * h4)) * 180.0 / kPi;
  return std::acos(h5 / std::sqrt(h1 * h1 + h5 * h5)) * 180.0 / kPi;
}

const std::map<std::string, std::string>& headers() {
  static const std::map<std::string, std::string> h = {{"step", "Step"},
                                                       {"elapsed", "Elapsed"},
                                                       {"elaplong", "Elaplong"},
                                                       {"dt", "Dt"},
                                                       {"time", "Time"},
                                                       {"cpu", "CPU"},
                                                       {"atoms", "Atoms"},
                                                       {"temp", "Temp"},
                                                       {"press", "Press"},
                                                       {"pe", "PotEng"},
                                                       {"ke", "KinEng"},
                                                       {"etotal", "TotEng"},
                                                       {"evdwl", "E_vdwl"},
                                                       {"ecoul", "E_coul"},
                                                       {"epair", "E_pair"},
                                                       {"ebond", "E_bond"},
                                                       {"eangle", "E_angle"},
                                                       {"edihed", "E_dihed"},
                                                       {"eimp", "E_impro"},
                                                       {"emol", "E_mol"},
                                                       {"elong", "E_long"},
                                                       {"vol", "Volume"},
                                                       {"density", "Density"},
                                                       {"lx", "Lx"},
                                                       {"ly", "Ly"},
                                                       {"lz", "Lz"},
                                                       {"xlo", "Xlo"},
                                                       {"xhi", "Xhi"},
                                                       {"ylo", "Ylo"},
                                                       {"yhi", "Yhi"},
                                                       {"zlo", "Zlo"},
                                                       {"zhi", "Zhi"},
                                                       {"pxx", "Pxx"},
                                                       {"pyy", "Pyy"},
                                                       {"pzz", "Pzz"},
                                                       {"pxy", "Pxy"},
                                                       {"pxz", "Pxz"},
                                                       {"pyz", "Pyz"},
                                                       {"enthalpy", "Enthalpy"},
                                                       {"xy", "Xy"},
                                                       {"xz", "Xz"},
                                                       {"yz", "Yz"},
                                                       {"cpuremain", "CPULeft"},
                                                       {"fmax", "Fmax"},
                                                       {"fnorm", "Fnorm"},
                                                       {"xlat", "Xlat"},
                                                       {"ylat", "Ylat"},
                                                       {"zlat", "Zlat"},
                                                       {"bonds", "Bonds"},
                                                       {"angles", "Angles"},
                                                       {"dihedrals", "Diheds"},
                                                       {"impropers", "Impros"},
                                                       {"cella", "Cella"},
                                                       {"cellb", "Cellb"},
                                                       {"cellc", "Cellc"},
                                                       {"cellalpha", "CellAlpha"},
                                                       {"cellbeta", "CellBeta"},
                                                       {"cellgamma", "CellGamma"}};
  return h;
}

}  // namespace

std::string thermo_header(const std::string& keyword) {
  auto it = headers().find(keyword);
  return it == headers().end() ? std::string() : it->second;
}

bool thermo_is_integer(const std::string& k) {
  return k == "step" || k == "atoms" || k == "elapsed" || k == "elaplong";
}

bool thermo_is_extensive(const std::string& k) {
  return k == "pe" || k == "ke" || k == "etotal" || k == "enthalpy" || k == "evdwl" || k == "ecoul" ||
         k == "epair" || k == "ebond" || k == "eangle" || k == "edihed" || k == "eimp" || k == "emol" ||
         k == "elong";
}

bool thermo_value(const std::string& k, const ThermoContext& c, double& v) {
  const State& s = *c.state;
  const Comm& comm = c.comm ? *c.comm : Comm::local();
  const double vol = s.box.volume();
  auto temp = [&](double* dof) {
    if (c.temp_dof < 0.0) c.temp_sum = group_temperature(s, comm, 1u, &c.temp_dof);
    if (dof) *dof = c.temp_dof;
    return c.temp_sum;
  };
  auto ke = [&]() {
    double dof;
    const double t = temp(&dof);
    return t * 0.5 * dof * units::boltz;
  };
  // The step's energy and virial, refused when the backend skipped them (Simulation::tally_needed said no
  // one reads them: reading them anyway is a bug, better loud than stale).
  auto force = [&]() -> const ForceResult* {
    if (c.force && !c.force->tallied)
      throw RunError("internal error: thermo keyword " + k + " read at step " + std::to_string(s.step) +
                     ", whose energy and virial were not summed; please report");
    return c.force;
  };
  auto epair = [&]() { return force() ? force()->energy : 0.0; };
  if (k == "step")
    v = static_cast<double>(s.step);
  else if (k == "elapsed")
    v = static_cast<double>(s.step - c.run_start_step);
  else if (k == "elaplong")
    v = static_cast<double>(s.step - c.run_begin_step);
  else if (k == "dt")
    v = s.dt;
  else if (k == "time")
    v = s.time_lag_from >= 0 ? s.time + static_cast<double>(s.step - s.time_lag_from) * s.dt : s.time;
  else if (k == "cpu")
    v = c.cpu_seconds;
  else if (k == "atoms")
    v = static_cast<double>(comm.sum(static_cast<int64_t>(s.atoms.size())));
  else if (k == "temp")
    v = temp(nullptr);
  else if (k == "ke")
    v = ke();
  else if (k == "pe")
    v = epair() + c.fix_energy;
  else if (k == "evdwl" || k == "epair")
    v = epair();
  else if (k == "etotal")
    v = ke() + epair() + c.fix_energy;
  else if (k == "ecoul" || k == "ebond" || k == "eangle" || k == "edihed" || k == "eimp" || k == "emol" ||
           k == "elong")
    v = 0.0;
  else if (k == "vol")
    v = vol;
  else if (k == "xy" || k == "xz" || k == "yz")
    v = k == "xy" ? s.box.xy : k == "xz" ? s.box.xz : s.box.yz;  // 0 on an orthogonal box
  else if (k == "cpuremain")  // LAMMPS's estimate: the loop's time so far, scaled to the steps left
    v = s.step > c.run_start_step && c.run_end_step > s.step
            ? c.cpu_seconds * static_cast<double>(c.run_end_step - s.step) /
                  static_cast<double>(s.step - c.run_start_step)
            : 0.0;
  else if (k == "fmax" || k == "fnorm") {
    // LAMMPS: the largest force component in magnitude; the length of the 3N force vector.
    const Atoms& a = s.atoms;
    double fmax = 0.0;
    TermSum f2(comm, 1);
    for (size_t i = 0; i < a.size(); ++i) {
      fmax = std::max({fmax, std::fabs(a.fx[i]), std::fabs(a.fy[i]), std::fabs(a.fz[i])});
      f2.add(0, a.fx[i] * a.fx[i] + a.fy[i] * a.fy[i] + a.fz[i] * a.fz[i]);
    }
    v = k == "fmax" ? comm.max(fmax) : std::sqrt(f2.total()[0]);
  } else if (k == "enthalpy") {
    // LAMMPS: etotal + press·vol/nktv2p (norm divides the whole by N below).
    double p;
    thermo_value("press", ThermoContext{c.state, c.force, 0.0, c.run_start_step, false, c.comm}, p);
    v = ke() + epair() + c.fix_energy + p * vol / units::nktv2p;
  } else if (k == "density") {
    TermSum m(comm, 1);
    for (int t : s.atoms.type) m.add(0, s.mass[t]);
    v = m.total()[0] * units::mv2d / vol;  // LAMMPS's order and constant
  } else if (k == "lx" || k == "ly" || k == "lz")
    v = s.box.prd(k[1] - 'x');
  else if (k == "xlat" || k == "ylat" || k == "zlat")  // the lattice spacings (default lattice none 1.0: 1)
    v = c.lattice[k[0] - 'x'];
  else if (k == "bonds" || k == "angles" || k == "dihedrals" || k == "impropers")  // atom_style atomic
    v = 0.0;
  else if (k == "cella" || k == "cellb" || k == "cellc" || k == "cellalpha" || k == "cellbeta" ||
           k == "cellgamma")
    v = cell_parameter(s.box, k);
  else if (k == "xlo" || k == "ylo" || k == "zlo")
    v = s.box.lo[k[0] - 'x'];
  else if (k == "xhi" || k == "yhi" || k == "zhi")
    v = s.box.hi[k[0] - 'x'];
  else if (k == "press") {
    double dof;
    const double t = temp(&dof);
    v = pressure_scalar(dof, t, force() ? force()->virial : nullptr, vol);
  } else if (k == "pxx" || k == "pyy" || k == "pzz" || k == "pxy" || k == "pxz" || k == "pyz") {
    static const std::map<std::string, int> idx = {{"pxx", 0}, {"pyy", 1}, {"pzz", 2},
                                                   {"pxy", 3}, {"pxz", 4}, {"pyz", 5}};
    const int i = idx.at(k);
    double kt[6], p[6];
    if (c.ktensor)
      std::copy(c.ktensor, c.ktensor + 6, kt);
    else
      kinetic_tensor(s, comm, 1u, kt);  // group all
    pressure_tensor(kt, force() ? force()->virial : nullptr, vol, p);
    v = p[i];
  } else {
    return false;
  }
  if (c.normalise && thermo_is_extensive(k)) {
    const double n = static_cast<double>(comm.sum(static_cast<int64_t>(s.atoms.size())));
    if (n > 0) v /= n;
  }
  return true;
}

}  // namespace wmd::md
