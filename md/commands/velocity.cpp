// `velocity group create|set|scale|ramp|zero ...` with LAMMPS's keywords (md/core/velocity.hpp does the
// work); set takes numbers, NULL or v_name (equal- or atom-style) components.
#include "md/core/velocity.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_velocity(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const uint32_t group = sim.group_of(a, a.word("a group ID"));
  const std::string style = a.choice("a velocity style", {"create", "set", "scale", "ramp", "zero"});
  VelocityCreate opt;
  opt.group = group;
  double setv[3] = {0, 0, 0};
  bool setflag[3] = {false, false, false};
  std::string setvar[3];  // velocity set: v_name components (equal- or atom-style)
  std::string zero_what;
  int ramp_v = 0, ramp_dim = 0;
  double ramp_vlo = 0, ramp_vhi = 0, ramp_clo = 0, ramp_chi = 0;
  Compute* temp = nullptr;  // `temp ID`
  if (style == "create") {
    opt.temperature = a.non_negative("the temperature (K)");
    opt.seed = static_cast<int>(a.integer("the random seed", 1, 2147483646));
  } else if (style == "set") {
    for (int d = 0; d < 3; ++d) {
      const std::string w = a.word("three velocity components (a number, v_name or NULL)");
      if (w == "NULL") continue;
      setflag[d] = true;
      if (w.rfind("v_", 0) == 0) {
        setvar[d] = w.substr(2);
        continue;
      }
      if (!io::parse_double(w, setv[d]))
        a.fail("velocity set expected a number, v_name or NULL, got '" + w + "'");
    }
  } else if (style == "scale") {
    opt.temperature = a.non_negative("the temperature (K)");
  } else if (style == "ramp") {
    // velocity ramp vdim vlo vhi dim clo chi: v_vdim = vlo + f·(vhi − vlo), f = (x_dim − clo)/(chi − clo)
    // clamped to [0, 1] (LAMMPS Velocity::ramp).
    ramp_v = a.choice("vx, vy or vz", {"vx", "vy", "vz"})[1] - 'x';
    ramp_vlo = a.real("vlo"), ramp_vhi = a.real("vhi");
    ramp_dim = a.choice("x, y or z", {"x", "y", "z"})[0] - 'x';
    ramp_clo = a.real("clo"), ramp_chi = a.real("chi");
  } else {
    zero_what = a.choice("linear or angular", {"linear", "angular"});
  }
  bool lattice_units = true;
  while (!a.done()) {
    const std::string key =
        a.choice("a velocity keyword", {"dist", "sum", "mom", "rot", "loop", "units", "temp", "bias"});
    if (key == "temp") {
      const std::string id = a.word("a temperature compute ID");
      temp = sim.find_compute(id);
      if (!temp) a.fail("velocity: compute " + id + " does not exist");
      if (!temp->is_temperature()) a.fail("velocity: compute " + id + " does not compute a temperature");
    } else if (key == "bias") {
      if (a.yes_no("bias"))
        a.fail("velocity … bias yes is not supported (velocities are scaled with their bias)");
    } else if (key == "dist")
      opt.gaussian = a.choice("dist", {"uniform", "gaussian"}) == "gaussian";
    else if (key == "sum")
      opt.sum = a.yes_no("sum");
    else if (key == "mom")
      opt.zero_momentum = a.yes_no("mom");
    else if (key == "rot")
      opt.zero_rotation = a.yes_no("rot");
    else if (key == "units")
      lattice_units = a.choice("units", {"lattice", "box"}) == "lattice";
    else {
      const std::string l = a.choice("loop", {"all", "local", "geom"});
      opt.loop = l == "all" ? VelocityLoop::all : l == "local" ? VelocityLoop::local : VelocityLoop::geom;
    }
  }
  if (temp && style != "create" && style != "scale")
    a.fail("velocity " + style + " takes no temperature compute (temp is for create and scale)");
  // The temperature compute's value, computed afresh as LAMMPS's velocity does (init, then compute_scalar).
  std::function<double()> temperature_of;
  if (temp) {
    temperature_of = [&sim, temp] {
      const ComputeContext cc = sim.compute_context();
      temp->init(cc);
      return temp->compute_scalar(cc);
    };
  }
  opt.temperature_of = temperature_of;
  if (style != "zero" && style != "set" && style != "ramp") {
    // The same verdict on every rank: the smallest massless type held by any rank.
    int64_t massless = sim.state.ntypes + 1;
    for (size_t i = 0; i < sim.state.atoms.size(); ++i) {
      if (sim.state.mass[sim.state.atoms.type[i]] <= 0.0)
        massless = std::min<int64_t>(massless, sim.state.atoms.type[i]);
    }
    massless = sim.comm.min(massless);
    if (massless <= sim.state.ntypes) {
      a.fail("atom type " + std::to_string(massless) + " has no mass (use mass or pair_coeff first)");
    }
    if (group_count(sim.state, sim.comm, group) < 2)
      a.fail("velocity " + style + " needs at least two atoms in the group");
  }
  if (style == "create") {
    try {
      velocity_create(sim.state, sim.comm, opt);
    } catch (const std::invalid_argument& e) {
      a.fail(e.what());
    }
  } else if (style == "scale") {
    if (temperature_of) {
      const double t_old = temperature_of();
      const double factor = t_old > 0.0 ? std::sqrt(opt.temperature / t_old) : 1.0;
      Atoms& at = sim.state.atoms;
      for (size_t i = 0; i < at.size(); ++i)
        if (at.mask[i] & group) at.vx[i] *= factor, at.vy[i] *= factor, at.vz[i] *= factor;
    } else {
      scale_group_temperature(sim.state, sim.comm, group, opt.temperature);
    }
  } else if (style == "ramp") {
    const double vscale = lattice_units ? sim.lattice.spacing[ramp_v] : 1.0;
    const double cscale = lattice_units ? sim.lattice.spacing[ramp_dim] : 1.0;
    const double vlo = vscale * ramp_vlo, vhi = vscale * ramp_vhi;
    const double clo = cscale * ramp_clo, chi = cscale * ramp_chi;
    Atoms& at = sim.state.atoms;
    std::vector<double>* v = ramp_v == 0 ? &at.vx : ramp_v == 1 ? &at.vy : &at.vz;
    const std::vector<double>* x = ramp_dim == 0 ? &at.x : ramp_dim == 1 ? &at.y : &at.z;
    for (size_t i = 0; i < at.size(); ++i) {
      if (!(at.mask[i] & group)) continue;
      const double fraction = std::min(1.0, std::max(0.0, ((*x)[i] - clo) / (chi - clo)));
      const double vramp = vlo + fraction * (vhi - vlo);
      (*v)[i] = opt.sum ? (*v)[i] + vramp : vramp;
    }
  } else if (style == "zero") {
    if (zero_what == "linear")
      zero_group_momentum(sim.state, sim.comm, group);
    else
      zero_group_rotation(sim.state, sim.comm, group);
  } else {
    // LAMMPS's Velocity::set: numbers are scaled by the lattice (units lattice), variables are not; every
    // variable is evaluated (x, y, z) before any velocity changes.
    Atoms& at = sim.state.atoms;
    bool atom_style[3] = {false, false, false};
    std::vector<double> field[3];
    for (int d = 0; d < 3; ++d) {
      if (setvar[d].empty()) continue;
      const std::string& name = setvar[d];
      if (!sim.vars || !sim.vars->defined(name)) a.fail("velocity set: variable " + name + " does not exist");
      if (sim.vars->equal_style(name)) continue;
      if (!sim.has_atom_variable(name))
        a.fail("velocity set: variable " + name + " is " + sim.vars->style_of(name) +
               "-style (it must be equal- or atom-style)");
      atom_style[d] = true;
    }
    for (int d = 0; d < 3; ++d) {
      if (setvar[d].empty())
        setv[d] *= lattice_units ? sim.lattice.spacing[d] : 1.0;
      else if (atom_style[d])
        sim.atom_variable(setvar[d], c.pos, field[d]);
      else
        setv[d] = sim.vars->value(setvar[d], c.pos);
    }
    std::vector<double>* v[3] = {&at.vx, &at.vy, &at.vz};
    for (size_t i = 0; i < at.size(); ++i) {
      if (!(at.mask[i] & group)) continue;
      for (int d = 0; d < 3; ++d) {
        if (!setflag[d]) continue;
        const double val = atom_style[d] ? field[d][i] : setv[d];
        (*v[d])[i] = opt.sum ? (*v[d])[i] + val : val;
      }
    }
  }
}

}  // namespace

WMD_COMMAND("velocity", cmd_velocity, kNoPhysics | kSkippedOnRestart)

}  // namespace wmd::md
