// `thermo N`, `thermo_style one|multi|custom keywords...` and `thermo_modify format|norm|flush|lost|temp`.
#include <algorithm>

#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"
#include "md/styles/reference.hpp"

namespace wmd::md {
namespace {

void cmd_thermo(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  // LAMMPS's `thermo v_name`: an equal-style variable gives each next row's step (checked at the run).
  if (a.peek().rfind("v_", 0) == 0 && a.peek().size() > 2) {
    sim.thermo.every_var = a.word("N or v_name").substr(2);
    sim.thermo.every_pos = c.pos;
    sim.thermo.every = 0;
  } else {
    sim.thermo.every = static_cast<int>(a.integer("the thermo interval (steps)", 0, 2000000000));
    sim.thermo.every_var.clear();
  }
  a.finish();
}

void cmd_thermo_style(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  const std::string style = a.choice("a thermo style", {"one", "multi", "custom"});
  sim.thermo.multi = style == "multi";
  sim.thermo.format.set_multi(sim.thermo.multi);
  if (style == "one" || style == "multi") {
    a.finish();
    sim.thermo.custom = false;
  } else {
    std::vector<std::string> keys;
    // Each column is evaluated and printed every thermo step: a bound keeps a hostile line from stalling
    // the run (LAMMPS's lines have tens of columns).
    if (a.remaining() > 10000) a.fail("thermo_style custom has more than 10000 keywords");
    while (!a.done()) {
      const std::string k = a.word("thermo keywords");
      Reference r;
      if (parse_reference(k, r, a)) {
        // Variables are looked up when the line is printed (they may be defined later, as in LAMMPS);
        // computes and fixes must exist, with the output the reference names.
        if (r.kind != Reference::Kind::variable)
          check_reference(r, Reference::Shape::global, sim, a, "thermo_style custom");
        else if (sim.has_atom_variable(r.id))  // LAMMPS: "Thermo custom variable is not equal-style variable"
          a.fail("thermo_style custom " + k + ": variable " + r.id + " is atom-style (a value per atom)");
        keys.push_back(k);
        continue;
      }
      double unused;
      if (thermo_header(k).empty() && !sim.cascade_thermo(k, unused))
        a.fail("unknown thermo keyword '" + k + "'");
      keys.push_back(k);
    }
    if (keys.empty()) a.fail("thermo_style custom needs at least one keyword");
    sim.thermo.custom = true;
    sim.thermo.keys = keys;
  }
  sim.thermo.format.reset_user_formats();
  sim.thermo.temp_id.clear();  // as LAMMPS's new Thermo: thermo_modify temp is undone
  sim.thermo.lost = "error";   // and so is thermo_modify lost
  sim.thermo.lost_warned = false;
  sim.backend_controls.drop_lost = false;
  sim.thermo.pos = c.pos;
  sim.thermo_snapshot.initialised = false;  // the new Thermo is set up at the next run
}

void cmd_thermo_modify(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  if (a.done()) a.fail("thermo_modify needs keywords (format, norm, flush, lost, temp)");
  while (!a.done()) {
    const std::string key = a.choice("a thermo_modify keyword", {"format", "norm", "flush", "lost", "temp"});
    if (key == "temp") {
      // LAMMPS: thermo's temperature (temp, ke, etotal, press and its dof) becomes this compute's.
      const std::string id = a.word("a temperature compute ID");
      const Compute* t = sim.find_compute(id);
      if (!t) a.fail("thermo_modify temp: compute " + id + " does not exist");
      if (!t->is_temperature())
        a.fail("thermo_modify temp: compute " + id + " does not compute a temperature");
      sim.thermo.temp_id = id;
    } else if (key == "norm") {
      sim.thermo.norm = a.yes_no("norm");
    } else if (key == "flush") {
      a.yes_no("flush");
    } else if (key == "lost") {
      // warn and ignore: an atom that leaves through a fixed face is dropped at the next re-neighbouring and
      // the run goes on, as in LAMMPS (thermo's atom count falls; warn prints LAMMPS's warning once); error
      // ends the run (exit 3).
      sim.thermo.lost = a.choice("lost", {"error", "warn", "ignore"});
      sim.backend_controls.drop_lost = sim.thermo.lost != "error";
      if (sim.thermo.lost != "error" && !sim.backend_has(kDropsLostAtoms) && sim.state.box.defined &&
          !(sim.state.box.periodic(0) && sim.state.box.periodic(1) && sim.state.box.periodic(2)))
        a.fail("thermo_modify lost " + sim.thermo.lost + ": the " + sim.settings.backend +
               " backend cannot drop atoms that leave through a fixed face (one atom per PE); use the "
               "cluster backend, or lost error");
    } else {
      const std::string what = a.word("line, int, float, none or a column number");
      if (what == "none") {
        sim.thermo.format.reset_user_formats();
        continue;
      }
      const std::string fmt = a.word("a format string");
      if (what == "line") {
        if (!io::valid_line_format(fmt))
          a.fail("'" + fmt + "' is not a line of formats like \"%8d %12.8g\" (one %d, %f, %e or %g each)");
        sim.thermo.format.set_line(fmt);
      } else if (what == "int") {
        if (!io::valid_int_format(fmt)) a.fail("'" + fmt + "' is not an integer format like %8d");
        sim.thermo.format.set_int(fmt);
      } else if (what == "float") {
        if (!io::valid_float_format(fmt)) a.fail("'" + fmt + "' is not a float format like %12.8g");
        sim.thermo.format.set_float(fmt);
      } else {
        long long n;
        if (!io::parse_integer(what, n) || n < 1 || n > 1000)
          a.fail("thermo_modify format expected line, int, float or a column number, got '" + what + "'");
        if (!io::valid_float_format(fmt) && !io::valid_int_format(fmt))
          a.fail("'" + fmt + "' is not a printf format");
        sim.thermo.format.set_column(static_cast<int>(n), fmt);
      }
    }
  }
}

}  // namespace

WMD_COMMAND("thermo", cmd_thermo, kNoPhysics)
WMD_COMMAND("thermo_style", cmd_thermo_style, kNoPhysics)
WMD_COMMAND("thermo_modify", cmd_thermo_modify, kNoPhysics)

}  // namespace wmd::md
