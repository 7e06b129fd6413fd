#include "io/yaml_input.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "io/text_file.hpp"

namespace wmd::io {
namespace {

// A YAML input larger than this is refused (inputs are a page or two).
constexpr size_t kMaxYamlBytes = size_t(16) << 20;

class Translator {
 public:
  Translator(std::string path, YamlInput& out) : path_(std::move(path)), out_(out) {}

  SourcePos pos(const YAML::Node& n) const {
    // A key that is absent has no place in the file (yaml-cpp throws for its mark).
    if (!n.IsDefined()) return SourcePos{path_, 0};
    return SourcePos{path_, n.Mark().line >= 0 ? n.Mark().line + 1 : 0};
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const { fail_input(pos(n), msg); }

  void only_keys(const YAML::Node& map, const std::string& where,
                 const std::set<std::string>& allowed) const {
    if (!map.IsMap()) fail(map, where + " must be a mapping of keys");
    for (const auto& kv : map) {
      const std::string k = kv.first.as<std::string>();
      if (!allowed.count(k)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(kv.first,
             "unknown key '" + (where.empty() ? k : where + "." + k) + "' (expected one of: " + list + ")");
      }
    }
  }
  std::string scalar(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(n, what + " must be a single value");
    return n.as<std::string>();
  }
  double number(const YAML::Node& n, const std::string& what) const {
    double v;
    if (!n.IsScalar() || !parse_double(n.as<std::string>(), v)) fail(n, what + " must be a number");
    return v;
  }
  long long integer(const YAML::Node& n, const std::string& what, long long lo, long long hi) const {
    long long v;
    if (!n.IsScalar() || !parse_integer(n.as<std::string>(), v)) fail(n, what + " must be an integer");
    if (v < lo || v > hi) {
      fail(n, what + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                  std::to_string(v));
    }
    return v;
  }
  bool boolean(const YAML::Node& n, const std::string& what) const {
    const std::string v = scalar(n, what);
    if (v == "true" || v == "yes") return true;
    if (v == "false" || v == "no") return false;
    fail(n, what + " must be true or false, got '" + v + "'");
  }
  std::vector<std::string> list(const YAML::Node& n, const std::string& what) const {
    std::vector<std::string> v;
    if (n.IsScalar()) {
      std::istringstream in(n.as<std::string>());
      for (std::string w; in >> w;) v.push_back(w);
    } else if (n.IsSequence()) {
      for (const auto& e : n) v.push_back(scalar(e, what + " entries"));
    } else {
      fail(n, what + " must be a list");
    }
    if (v.empty()) fail(n, what + " must list at least one entry");
    return v;
  }
  void emit(const YAML::Node& at, std::string name, std::vector<std::string> args) {
    std::string text = name;
    for (const auto& a : args) text += " " + a;
    out_.commands.push_back(Command{std::move(name), std::move(args), pos(at), text});
  }
  static std::string str(double v) {
    std::ostringstream s;
    s.precision(17);
    s << v;
    return s.str();
  }

  void translate(const YAML::Node& root) {
    if (!root.IsMap()) fail_input(SourcePos{path_, 1}, "the input must be a YAML mapping of keys");
    only_keys(root, "",
              {"backend", "deterministic", "simd", "mesh", "cluster", "system", "potential", "velocity",
               "neighbor", "timestep", "minimize", "run", "stages", "output", "thermostat", "equilibrate",
               "cascade", "limits"});
    settings(root);
    emit(root, "units", {"metal"});
    emit(root, "atom_style", {"atomic"});
    if (!root["system"])
      fail_input(SourcePos{path_, 1}, "missing key 'system' (the atoms: lattice or read_data)");
    if (!root["potential"]) fail_input(SourcePos{path_, 1}, "missing key 'potential'");
    if (!root["potential"].IsMap())
      fail(root["potential"], "potential must be a mapping of keys (style, file, elements, ...)");
    system(root["system"], root["potential"]);
    potential(root["potential"]);
    if (root["velocity"] && !root["minimize"]) velocity(root["velocity"]);
    // Native inputs rebuild as soon as an atom moved half the skin (delay 0), unless they say otherwise;
    // LAMMPS scripts keep LAMMPS's default (delay 10).
    if (!root["neighbor"] || !root["neighbor"]["delay"]) emit(root, "neigh_modify", {"delay", "0"});
    if (root["neighbor"]) neighbor(root["neighbor"]);
    if (root["timestep"]) emit(root["timestep"], "timestep", {str(number(root["timestep"], "timestep"))});
    emit(root, "fix", {"integrate", "all", "nve"});
    if (root["output"]) output(root["output"]);
    if (root["thermostat"]) thermostat(root["thermostat"]);
    if (root["equilibrate"]) equilibrate(root["equilibrate"]);
    if (root["cascade"]) {
      if (root["run"] || root["stages"])
        fail(root["cascade"], "a cascade input takes its length from cascade.time_ps: drop 'run'/'stages'");
      cascade(root["cascade"], root["potential"]);
      return;
    }
    if (root["run"] && root["stages"]) fail(root["stages"], "give either 'run' or 'stages', not both");
    // As in a LAMMPS script: minimise at rest, then create velocities on the relaxed structure.
    if (root["minimize"]) {
      minimize(root["minimize"]);
      if (root["velocity"]) velocity(root["velocity"]);
    }
    if (root["run"]) {
      emit(root["run"], "run", {std::to_string(integer(root["run"], "run (steps)", 0, 2000000000LL))});
    } else if (root["stages"]) {
      const YAML::Node& st = root["stages"];
      if (!st.IsSequence()) fail(st, "stages must be a list");
      if (st.size() == 0) fail(st, "stages must list at least one stage (each with 'run')");
      for (const auto& s : st) stage(s);
    } else if (!root["minimize"]) {
      fail_input(SourcePos{path_, 1}, "missing key 'run' (number of steps), 'stages' or 'minimize'");
    }
  }

  void settings(const YAML::Node& root) {
    RunSettings& s = out_.settings;
    auto set = [&](const YAML::Node& n, const std::string& key) {
      apply_setting(s, key, key == "output.trajectory.fields" ? join(list(n, key)) : scalar(n, key), pos(n));
    };
    if (root["backend"]) set(root["backend"], "backend");
    if (root["deterministic"]) set(root["deterministic"], "deterministic");
    if (root["simd"]) set(root["simd"], "simd");
    if (const auto m = root["mesh"]) {
      only_keys(m, "mesh", {"precision", "wafer", "mapping", "audit", "timeline_every"});
      if (m["precision"]) set(m["precision"], "mesh.precision");
      if (m["wafer"]) set(m["wafer"], "mesh.wafer");
      if (m["mapping"]) set(m["mapping"], "mesh.mapping");
      if (m["audit"]) set(m["audit"], "mesh.audit");
      if (m["timeline_every"]) set(m["timeline_every"], "mesh.timeline_every");
    }
    if (const auto c = root["cluster"]) {
      only_keys(c, "cluster", {"precision", "grid"});
      if (c["precision"]) set(c["precision"], "cluster.precision");
      if (c["grid"]) set(c["grid"], "cluster.grid");
    }
    if (const auto l = root["limits"]) {
      only_keys(l, "limits", {"memory_gb"});
      if (l["memory_gb"]) set(l["memory_gb"], "limits.memory_gb");
    }
    if (const auto o = root["output"]) {
      only_keys(o, "output",
                {"dir", "thermo_every", "thermo", "thermo_format", "dump", "trajectory", "checkpoint_every"});
      if (o["dir"]) set(o["dir"], "output.dir");
      if (o["checkpoint_every"]) set(o["checkpoint_every"], "output.checkpoint_every");
      if (const auto t = o["trajectory"]) {
        only_keys(t, "output.trajectory", {"every", "fields"});
        if (t["every"]) set(t["every"], "output.trajectory.every");
        if (t["fields"]) set(t["fields"], "output.trajectory.fields");
      }
    }
  }
  static std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& w : v) s += (s.empty() ? "" : ",") + w;
    return s;
  }

  void system(const YAML::Node& s, const YAML::Node& pot) {
    only_keys(s, "system", {"boundary", "lattice", "cells", "types", "read_data", "masses"});
    std::vector<std::string> boundary = {"p", "p", "p"};
    if (s["boundary"]) {
      boundary = list(s["boundary"], "system.boundary");
      if (boundary.size() != 3)
        fail(s["boundary"], "system.boundary needs three entries (x y z), e.g. [p, p, p]");
    }
    emit(s, "boundary", boundary);
    if (s["read_data"]) {
      if (s["lattice"] || s["cells"])
        fail(s["read_data"], "give either system.read_data or system.lattice/cells");
      emit(s["read_data"], "read_data", {scalar(s["read_data"], "system.read_data")});
    } else {
      const auto lat = s["lattice"];
      if (!lat) fail(s, "system needs 'lattice' and 'cells', or 'read_data'");
      only_keys(lat, "system.lattice", {"style", "constant"});
      if (!lat["style"] || !lat["constant"])
        fail(lat, "system.lattice needs 'style' (fcc|bcc|sc) and 'constant' (Å)");
      emit(lat, "lattice",
           {scalar(lat["style"], "system.lattice.style"),
            str(number(lat["constant"], "system.lattice.constant"))});
      const auto cells = s["cells"];
      if (!cells) fail(s, "system needs 'cells: [nx, ny, nz]' (unit cells along x, y, z)");
      const auto c = list(cells, "system.cells");
      if (c.size() != 3) fail(cells, "system.cells needs three entries [nx, ny, nz]");
      std::vector<std::string> block = {"box", "block"};
      for (int d = 0; d < 3; ++d) {
        long long n;
        if (!parse_integer(c[d], n) || n < 1 || n > 100000)
          fail(cells, "system.cells entries must be integers >= 1");
        block.push_back("0");
        block.push_back(c[d]);
      }
      emit(cells, "region", block);
      int ntypes = 1;
      if (s["types"])
        ntypes = static_cast<int>(integer(s["types"], "system.types", 1, 1000));
      else if (pot["elements"])
        ntypes = static_cast<int>(list(pot["elements"], "potential.elements").size());
      else if (pot["files"])
        ntypes = static_cast<int>(list(pot["files"], "potential.files").size());
      emit(cells, "create_box", {std::to_string(ntypes), "box"});
      emit(cells, "create_atoms", {"1", "box"});
    }
    if (const auto m = s["masses"]) {
      if (!m.IsMap()) fail(m, "system.masses must map type numbers to masses, e.g. {1: 63.55}");
      for (const auto& kv : m) {
        emit(kv.second, "mass", {scalar(kv.first, "a type"), str(number(kv.second, "a mass"))});
      }
    }
  }

  void potential(const YAML::Node& p) {
    only_keys(p, "potential", {"style", "file", "files", "elements", "zbl", "write"});
    if (!p["style"]) fail(p, "potential needs 'style' (eam, eam/alloy or eam/fs)");
    const std::string style = scalar(p["style"], "potential.style");
    emit(p["style"], "pair_style", {style});
    if (style == "eam") {
      if (!p["files"]) fail(p, "potential style eam needs 'files': one funcfl file per atom type");
      const auto files = list(p["files"], "potential.files");
      for (size_t t = 0; t < files.size(); ++t) {
        emit(p["files"], "pair_coeff", {std::to_string(t + 1), std::to_string(t + 1), files[t]});
      }
    } else {
      if (!p["file"] || !p["elements"]) fail(p, "potential style " + style + " needs 'file' and 'elements'");
      std::vector<std::string> args = {"*", "*", scalar(p["file"], "potential.file")};
      for (const auto& e : list(p["elements"], "potential.elements")) args.push_back(e);
      emit(p["file"], "pair_coeff", args);
    }
    if (const auto z = p["zbl"]) {
      // potential.zbl: true (defaults) or {r_f: Å, b_f: 1/Å}; the elements name the nuclear charges.
      std::vector<std::string> args;
      if (p["elements"]) {
        args = list(p["elements"], "potential.elements");
      } else {
        fail(z, "potential.zbl needs potential.elements (the element of each type, for the nuclear charges)");
      }
      if (z.IsMap()) {
        only_keys(z, "potential.zbl", {"r_f", "b_f"});
        if (z["r_f"]) args.insert(args.end(), {"r_f", str(positive(z["r_f"], "potential.zbl.r_f"))});
        if (z["b_f"]) args.insert(args.end(), {"b_f", str(positive(z["b_f"], "potential.zbl.b_f"))});
      } else if (!boolean(z, "potential.zbl")) {
        args.clear();
      }
      if (!args.empty()) emit(z, "zbl_splice", args);
    }
    if (p["write"]) emit(p["write"], "write_potential", {scalar(p["write"], "potential.write")});
  }

  double positive(const YAML::Node& n, const std::string& what) const {
    const double v = number(n, what);
    if (!(v > 0)) fail(n, what + " must be > 0");
    return v;
  }

  // thermostat: {style: langevin|nvt|npt|berendsen, temperature: K, damp: ps, seed: N, pressure: bar,
  // pressure_damp: ps} — the ensemble of the main run.
  void thermostat(const YAML::Node& t) {
    only_keys(t, "thermostat", {"style", "temperature", "damp", "seed", "pressure", "pressure_damp"});
    if (!t["style"] || !t["temperature"]) fail(t, "thermostat needs 'style' and 'temperature'");
    const std::string style = scalar(t["style"], "thermostat.style");
    const std::string temp = str(positive(t["temperature"], "thermostat.temperature"));
    const std::string damp = str(t["damp"] ? positive(t["damp"], "thermostat.damp") : 0.1);
    if (style == "langevin") {
      const long long seed = t["seed"] ? integer(t["seed"], "thermostat.seed", 1, 2147483646) : 12345;
      emit(t, "fix",
           {"thermostat", "all", "langevin", temp, temp, damp, std::to_string(seed), "zero", "yes"});
    } else if (style == "berendsen") {
      emit(t, "fix", {"thermostat", "all", "temp/berendsen", temp, temp, damp});
    } else if (style == "nvt" || style == "npt") {
      emit(t, "unfix", {"integrate"});
      std::vector<std::string> a = {"integrate", "all", style, "temp", temp, temp, damp};
      if (style == "npt") {
        const std::string p = str(t["pressure"] ? number(t["pressure"], "thermostat.pressure") : 0.0);
        const std::string pd =
            str(t["pressure_damp"] ? positive(t["pressure_damp"], "thermostat.pressure_damp") : 1.0);
        a.insert(a.end(), {"iso", p, p, pd});
      }
      emit(t, "fix", a);
    } else {
      fail(t["style"], "thermostat.style must be langevin, nvt, npt or berendsen, got '" + style + "'");
    }
  }

  // equilibrate: {temperature: K, pressure: bar (0), time_ps: t, timestep: ps (the input's), damp: 0.1,
  // pressure_damp: 1.0} — Nosé–Hoover NPT, then NVE restored and the clock reset to step 0, time 0.
  void equilibrate(const YAML::Node& e) {
    only_keys(e, "equilibrate", {"temperature", "pressure", "time_ps", "timestep", "damp", "pressure_damp"});
    if (!e["temperature"] || !e["time_ps"]) fail(e, "equilibrate needs 'temperature' (K) and 'time_ps'");
    const double t = positive(e["temperature"], "equilibrate.temperature");
    const double p = e["pressure"] ? number(e["pressure"], "equilibrate.pressure") : 0.0;
    const double time = positive(e["time_ps"], "equilibrate.time_ps");
    const double dt = e["timestep"] ? positive(e["timestep"], "equilibrate.timestep") : 0.002;
    const double damp = e["damp"] ? positive(e["damp"], "equilibrate.damp") : 0.1;
    const double pdamp = e["pressure_damp"] ? positive(e["pressure_damp"], "equilibrate.pressure_damp") : 1.0;
    emit(e, "timestep", {str(dt)});
    emit(e, "unfix", {"integrate"});
    emit(e, "fix",
         {"integrate", "all", "npt", "temp", str(t), str(t), str(damp), "iso", str(p), str(p), str(pdamp)});
    // The step count is checked as a double first: beyond a run's limit it would not fit (1e30 ps once
    // wrapped into one step).
    const double steps = std::round(time / dt);
    if (!(steps <= static_cast<double>(kMaxRunSteps)))
      fail(e["time_ps"],
           fmt::format("equilibrate.time_ps / timestep is {:.3g} steps, more than a run takes ({})", steps,
                       kMaxRunSteps));
    emit(e, "run", {std::to_string(std::max(1LL, static_cast<long long>(steps)))});
    emit(e, "unfix", {"integrate"});
    emit(e, "fix", {"integrate", "all", "nve"});
    emit(e, "reset_timestep", {"0", "time", "0"});
  }

  // cascade: see docs/input.md. PKA kick, border Langevin slab, adaptive timestep, optional electronic
  // stopping, Wigner–Seitz defects every N steps, run for time_ps.
  void cascade(const YAML::Node& c, const YAML::Node& pot) {
    only_keys(c, "cascade",
              {"pka_id", "pka_near", "energy_ev", "direction", "seed", "min_angle", "time_ps", "border",
               "dt_reset", "electronic_stopping", "defects_every", "cluster_cutoff", "thermo_every"});
    if (!c["energy_ev"] || !c["time_ps"]) fail(c, "cascade needs 'energy_ev' and 'time_ps'");
    const std::string every =
        c["defects_every"] ? std::to_string(integer(c["defects_every"], "cascade.defects_every", 1, 1000000))
                           : "20";
    std::vector<std::string> d = {"every", every};
    if (c["cluster_cutoff"])
      d.insert(d.end(), {"cutoff", str(positive(c["cluster_cutoff"], "cascade.cluster_cutoff"))});
    emit(c, "defects", d);
    std::vector<std::string> a;
    if (c["pka_id"] && c["pka_near"]) fail(c, "give cascade.pka_id or cascade.pka_near, not both");
    if (c["pka_id"]) {
      a = {"id", std::to_string(integer(c["pka_id"], "cascade.pka_id", 1, 4000000000000000000LL))};
    } else if (c["pka_near"]) {
      const auto p = list(c["pka_near"], "cascade.pka_near");
      if (p.size() != 3) fail(c["pka_near"], "cascade.pka_near needs [x, y, z] (Å)");
      a = {"near", p[0], p[1], p[2]};
    } else {
      fail(c, "cascade needs 'pka_id' or 'pka_near: [x, y, z]'");
    }
    a.insert(a.end(), {"energy", str(positive(c["energy_ev"], "cascade.energy_ev"))});
    const YAML::Node dir = c["direction"];
    if (!dir || (dir.IsScalar() && dir.as<std::string>() == "random")) {
      if (!c["seed"]) fail(c, "a random cascade direction needs cascade.seed");
      a.insert(a.end(),
               {"random", std::to_string(integer(c["seed"], "cascade.seed", 1, 4000000000000000000LL))});
      if (c["min_angle"]) a.insert(a.end(), {"min_angle", str(number(c["min_angle"], "cascade.min_angle"))});
    } else {
      const auto v = list(dir, "cascade.direction");
      if (v.size() != 3) fail(dir, "cascade.direction needs [dx, dy, dz] or 'random'");
      a.insert(a.end(), {"direction", v[0], v[1], v[2]});
    }
    const double cascade_time = positive(c["time_ps"], "cascade.time_ps");
    a.insert(a.end(), {"time", str(cascade_time)});
    if (pot["elements"]) a.insert(a.end(), {"element", list(pot["elements"], "potential.elements")[0]});
    std::string border_temp;
    YAML::Node b = c["border"];
    if (b) {
      only_keys(b, "cascade.border", {"thickness", "temperature", "damp", "seed"});
      if (!b["thickness"] || !b["temperature"])
        fail(b, "cascade.border needs 'thickness' (Å) and 'temperature' (K)");
      a.insert(a.end(), {"border", str(positive(b["thickness"], "cascade.border.thickness"))});
    }
    emit(c, "cascade", a);
    if (b) {
      const std::string t = str(positive(b["temperature"], "cascade.border.temperature"));
      const std::string damp = str(b["damp"] ? positive(b["damp"], "cascade.border.damp") : 0.1);
      const long long seed = b["seed"] ? integer(b["seed"], "cascade.border.seed", 1, 2147483646) : 4928459;
      emit(b, "fix", {"cascade_border", "cascade_border", "langevin", t, t, damp, std::to_string(seed)});
    }
    // Adaptive timestep, LAMMPS fix dt/reset semantics; defaults follow common cascade practice.
    double xmax = 0.05, tmax = 0.002, tmin = 1e-6, emax = 20.0;
    if (const auto r = c["dt_reset"]) {
      if (!r.IsScalar() && !r.IsMap()) fail(r, "cascade.dt_reset must be true, false or a mapping");
      if (r.IsScalar() && !boolean(r, "cascade.dt_reset")) xmax = -1.0;
      if (r.IsMap()) {
        only_keys(r, "cascade.dt_reset", {"xmax", "tmin", "tmax", "emax"});
        if (r["xmax"]) xmax = positive(r["xmax"], "cascade.dt_reset.xmax");
        if (r["tmin"]) tmin = positive(r["tmin"], "cascade.dt_reset.tmin");
        if (r["tmax"]) tmax = positive(r["tmax"], "cascade.dt_reset.tmax");
        if (r["emax"]) emax = positive(r["emax"], "cascade.dt_reset.emax");
      }
    }
    // The cascade is one run of at most 2e9 steps, each at most tmax long: a time it cannot reach is refused
    // rather than cut short at the run's end.
    constexpr double kCascadeSteps = 2000000000.0;
    if (xmax > 0 && !(cascade_time <= kCascadeSteps * tmax))
      fail(c["time_ps"],
           fmt::format("cascade.time_ps {:g} needs more than the cascade run's {:.0e} steps of at "
                       "most tmax = {:g} ps",
                       cascade_time, kCascadeSteps, tmax));
    if (xmax > 0)
      emit(c, "fix",
           {"cascade_dt", "all", "dt/reset", "1", str(tmin), str(tmax), str(xmax), "emax", str(emax), "units",
            "box"});
    std::vector<std::string> thermo = {"custom",  "step",   "time",  "dt",        "temp",
                                       "pe",      "etotal", "press", "vacancies", "interstitials",
                                       "clusters"};
    if (const auto s = c["electronic_stopping"]) {
      only_keys(s, "cascade.electronic_stopping", {"table", "ecut"});
      if (!s["table"])
        fail(s, "cascade.electronic_stopping needs 'table' (LAMMPS fix electron/stopping format)");
      const std::string ecut = str(s["ecut"] ? number(s["ecut"], "cascade.electronic_stopping.ecut") : 10.0);
      emit(s, "fix",
           {"cascade_stopping", "all", "electron/stopping", ecut,
            scalar(s["table"], "cascade.electronic_stopping.table")});
      thermo.push_back("f_cascade_stopping");
    }
    emit(c, "thermo_style", thermo);
    if (c["thermo_every"])
      emit(c["thermo_every"], "thermo",
           {std::to_string(integer(c["thermo_every"], "cascade.thermo_every", 0, 2000000000LL))});
    emit(c, "run", {std::to_string(static_cast<long long>(kCascadeSteps))});
  }

  void velocity(const YAML::Node& v) {
    only_keys(v, "velocity",
              {"temperature", "seed", "loop", "distribution", "momentum", "rotation", "group"});
    if (!v["temperature"] || !v["seed"]) fail(v, "velocity needs 'temperature' (K) and 'seed'");
    const std::string group = v["group"] ? scalar(v["group"], "velocity.group") : "all";
    std::vector<std::string> a = {group, "create", str(number(v["temperature"], "velocity.temperature")),
                                  std::to_string(integer(v["seed"], "velocity.seed", 1, 2147483646))};
    if (v["distribution"]) a.insert(a.end(), {"dist", scalar(v["distribution"], "velocity.distribution")});
    if (v["loop"]) a.insert(a.end(), {"loop", scalar(v["loop"], "velocity.loop")});
    if (v["momentum"]) a.insert(a.end(), {"mom", boolean(v["momentum"], "velocity.momentum") ? "yes" : "no"});
    if (v["rotation"]) a.insert(a.end(), {"rot", boolean(v["rotation"], "velocity.rotation") ? "yes" : "no"});
    emit(v, "velocity", a);
  }

  void neighbor(const YAML::Node& n) {
    only_keys(n, "neighbor", {"skin", "every", "delay", "check"});
    if (n["skin"]) emit(n["skin"], "neighbor", {str(number(n["skin"], "neighbor.skin")), "bin"});
    std::vector<std::string> a;
    if (n["every"])
      a.insert(a.end(), {"every", std::to_string(integer(n["every"], "neighbor.every", 1, 1000000))});
    if (n["delay"])
      a.insert(a.end(), {"delay", std::to_string(integer(n["delay"], "neighbor.delay", 0, 1000000))});
    if (n["check"]) a.insert(a.end(), {"check", boolean(n["check"], "neighbor.check") ? "yes" : "no"});
    if (!a.empty()) emit(n, "neigh_modify", a);
  }

  void output(const YAML::Node& o) {
    if (o["thermo"]) {
      std::vector<std::string> a = {"custom"};
      for (const auto& k : list(o["thermo"], "output.thermo")) a.push_back(k);
      emit(o["thermo"], "thermo_style", a);
    }
    if (const auto f = o["thermo_format"]) {
      only_keys(f, "output.thermo_format", {"int", "float", "line"});
      for (const char* k : {"int", "float", "line"}) {
        if (f[k])
          emit(f[k], "thermo_modify", {"format", k, scalar(f[k], std::string("output.thermo_format.") + k)});
      }
    }
    if (o["thermo_every"]) {
      emit(o["thermo_every"], "thermo",
           {std::to_string(integer(o["thermo_every"], "output.thermo_every", 0, 2000000000LL))});
    }
    if (const auto d = o["dump"]) {
      only_keys(d, "output.dump", {"file", "every", "columns", "sort"});
      if (!d["file"] || !d["every"] || !d["columns"])
        fail(d, "output.dump needs 'file', 'every' and 'columns'");
      std::vector<std::string> a = {"dump", "all", "custom",
                                    std::to_string(integer(d["every"], "output.dump.every", 1, 2000000000LL)),
                                    scalar(d["file"], "output.dump.file")};
      for (const auto& c : list(d["columns"], "output.dump.columns")) a.push_back(c);
      emit(d, "dump", a);
      if (d["sort"]) emit(d["sort"], "dump_modify", {"dump", "sort", scalar(d["sort"], "output.dump.sort")});
    }
  }

  // minimize: {style, etol, ftol, maxiter, maxeval, dmax, box_relax: {mode, pressure, vmax}} → LAMMPS's
  // min_style / min_modify / fix box/relax / minimize / unfix, run before the dynamics.
  void minimize(const YAML::Node& m) {
    if (m.IsNull()) fail(m, "minimize must be a mapping (style, etol, ftol, maxiter, ...)");
    only_keys(m, "minimize", {"style", "etol", "ftol", "maxiter", "maxeval", "dmax", "box_relax"});
    const std::string style = m["style"] ? scalar(m["style"], "minimize.style") : "cg";
    if (style != "cg" && style != "fire")
      fail(m["style"], "minimize.style must be cg or fire, got '" + style + "'");
    emit(m, "min_style", {style});
    if (m["dmax"]) emit(m["dmax"], "min_modify", {"dmax", str(number(m["dmax"], "minimize.dmax"))});
    bool box = false;
    if (const auto b = m["box_relax"]) {
      only_keys(b, "minimize.box_relax", {"mode", "pressure", "vmax"});
      const std::string mode = b["mode"] ? scalar(b["mode"], "minimize.box_relax.mode") : "iso";
      if (mode != "iso" && mode != "aniso")
        fail(b["mode"], "minimize.box_relax.mode must be iso or aniso, got '" + mode + "'");
      std::vector<std::string> a = {
          "wafermd_box_relax", "all", "box/relax", mode,
          str(b["pressure"] ? number(b["pressure"], "minimize.box_relax.pressure") : 0.0)};
      if (b["vmax"]) a.insert(a.end(), {"vmax", str(number(b["vmax"], "minimize.box_relax.vmax"))});
      emit(b, "fix", a);
      box = true;
    }
    const double etol = m["etol"] ? number(m["etol"], "minimize.etol") : 0.0;
    const double ftol = m["ftol"] ? number(m["ftol"], "minimize.ftol") : 1.0e-8;
    const long long maxiter =
        m["maxiter"] ? integer(m["maxiter"], "minimize.maxiter", 0, 2000000000LL) : 10000;
    const long long maxeval =
        m["maxeval"] ? integer(m["maxeval"], "minimize.maxeval", 0, 2000000000LL) : 10 * maxiter;
    emit(m, "minimize", {str(etol), str(ftol), std::to_string(maxiter), std::to_string(maxeval)});
    if (box) emit(m, "unfix", {"wafermd_box_relax"});
  }

  void stage(const YAML::Node& s) {
    only_keys(s, "stages[]", {"run", "timestep", "thermo_every"});
    if (s["timestep"]) emit(s["timestep"], "timestep", {str(number(s["timestep"], "stages[].timestep"))});
    if (s["thermo_every"]) {
      emit(s["thermo_every"], "thermo",
           {std::to_string(integer(s["thermo_every"], "stages[].thermo_every", 0, 2000000000LL))});
    }
    if (!s["run"]) fail(s, "each stage needs 'run' (number of steps)");
    emit(s["run"], "run", {std::to_string(integer(s["run"], "stages[].run", 0, 2000000000LL))});
  }

 private:
  std::string path_;
  YamlInput& out_;
};

// Sets node[parts[k]][parts[k+1]]... = value, creating maps on the way. Recursion keeps yaml-cpp's
// reference semantics straight (assigning one Node to another copies contents instead of rebinding).
void set_path(YAML::Node node, const std::vector<std::string>& parts, size_t k, const std::string& key,
              const std::string& value) {
  if (k + 1 == parts.size()) {
    node[parts[k]] = YAML::Load(value);
    return;
  }
  YAML::Node child = node[parts[k]];
  if (!child.IsDefined() || child.IsNull()) {
    node[parts[k]] = YAML::Node(YAML::NodeType::Map);
    child = node[parts[k]];
  } else if (!child.IsMap()) {
    fail_input(SourcePos{"--set", 0}, "--set " + key + ": '" + parts[k] + "' is not a mapping");
  }
  set_path(child, parts, k + 1, key, value);
}

void set_path(YAML::Node root, const std::string& key, const std::string& value) {
  std::vector<std::string> parts;
  std::istringstream in(key);
  for (std::string p; std::getline(in, p, '.');) parts.push_back(p);
  if (parts.empty()) fail_input(SourcePos{"--set", 0}, "empty key in --set");
  set_path(root, parts, 0, key, value);
}

// Before translation, the whole document: every mapping key a single value and given once (yaml-cpp keeps
// duplicates, and a lookup would silently take one), nesting and size bounded (aliases can make a small
// file a huge tree).
class TreeCheck {
 public:
  explicit TreeCheck(const std::string& path) : path_(path) {}
  void check(const YAML::Node& n, int depth) {
    if (++nodes_ > 100000) fail(n, "the YAML document has more than 100000 nodes (counting aliases)");
    if (depth > 64) fail(n, "the YAML document is nested more than 64 levels deep");
    if (n.IsSequence()) {
      for (const auto& e : n) check(e, depth + 1);
    } else if (n.IsMap()) {
      std::map<std::string, int> lines;
      for (const auto& kv : n) {
        if (!kv.first.IsScalar()) fail(kv.first, "a mapping key must be a single value (a word or number)");
        const std::string k = kv.first.as<std::string>();
        const int line = kv.first.Mark().line + 1;
        if (!lines.emplace(k, line).second)
          fail(kv.first, "duplicate key '" + k + "' (first given at line " + std::to_string(lines[k]) + ")");
        check(kv.second, depth + 1);
      }
    }
  }

 private:
  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const {
    fail_input(SourcePos{path_, n.Mark().line >= 0 ? n.Mark().line + 1 : 0}, msg);
  }
  const std::string& path_;
  size_t nodes_ = 0;
};

// yaml-cpp reports problems as exceptions carrying a mark; they become input errors at that line.
[[noreturn]] void yaml_failure(const std::string& file, const YAML::Exception& e, const std::string& what) {
  throw InputError(file, e.mark.line >= 0 ? e.mark.line + 1 : 0, what + e.msg);
}

}  // namespace

YamlInput read_yaml_input(const std::string& path,
                          const std::vector<std::pair<std::string, std::string>>& sets) {
  YamlInput out;
  out.text = read_plain_file(path, "input file", SourcePos{path, 0}, kMaxYamlBytes);
  YAML::Node root;
  try {
    root = YAML::Load(out.text);
  } catch (const YAML::Exception& e) {
    yaml_failure(path, e, "invalid YAML: ");
  }
  if (!root.IsMap()) fail_input(SourcePos{path, 1}, "the input must be a YAML mapping of keys");
  try {
    TreeCheck(path).check(root, 0);
    for (const auto& [k, v] : sets) {
      try {
        set_path(root, k, v);
      } catch (const YAML::Exception& e) {
        yaml_failure("--set", e, "--set " + k + ": invalid YAML value: ");
      }
    }
    Translator(path, out).translate(root);
  } catch (const YAML::Exception& e) {
    // A shape the translator did not foresee (it checks each node before it uses it).
    yaml_failure(path, e, "unexpected YAML structure: ");
  }
  return out;
}

}  // namespace wmd::io
