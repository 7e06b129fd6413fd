// Thermo lines: the current style's keywords evaluated on the state, printed in LAMMPS's layout, written to
// thermo.csv, and sampled for report.json's energy drift.
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "md/run/simulation.hpp"
#include "md/styles/reference.hpp"

namespace wmd::md {

std::vector<std::string> Simulation::thermo_keywords() const {
  if (thermo.custom) return thermo.keys;
  std::vector<std::string> keys = {"step", "temp", "epair", "emol", "etotal", "press"};
  // thermo_style multi: LAMMPS's MULTI fields after the step and the CPU time of its block's first line.
  if (thermo.multi)
    keys = {"step",   "cpu",    "etotal", "ke",    "temp",  "pe",    "ebond",
            "eangle", "edihed", "eimp",   "evdwl", "ecoul", "elong", "press"};
  // LAMMPS's thermo_style one adds the volume when the box can change (shrink-wrapped faces, npt, …).
  bool box_change = false;
  for (int d = 0; d < 3; ++d)
    for (Face f : state.box.face[d]) box_change = box_change || f == Face::shrink || f == Face::shrink_min;
  for (const auto& f : fixes) box_change = box_change || f->changes_box();
  if (box_change) keys.push_back("vol");
  return keys;
}

// A temperature, energy or pressure that is not finite means the motion diverged (a velocity whose square
// overflows, say, from a 1e-300 s wiggle period): the line is printed, as LAMMPS prints it, and the run fails
// there instead of completing with infinities. Other columns (a compute's or a fix's value) keep LAMMPS's
// behaviour; variables are checked where they are evaluated.
void Simulation::check_thermo_finite(const std::vector<std::string>& keys,
                                     const std::vector<double>& values) const {
  static const std::set<std::string> kState = {"temp",  "ke",    "pe",      "etotal",   "enthalpy", "evdwl",
                                               "epair", "press", "pxx",     "pyy",      "pzz",      "pxy",
                                               "pxz",   "pyz",   "ecouple", "econserve"};
  if (dry_run) return;
  for (size_t k = 0; k < keys.size(); ++k)
    if (!std::isfinite(values[k]) && kState.count(keys[k]))
      throw RunError(fmt::format("thermo {} is {} at step {}: the motion is not finite (diverged)", keys[k],
                                 values[k], state.step));
}

void Simulation::thermo_output(bool header) {
  // LAMMPS's lost_check: atoms dropped through fixed faces since the last line (thermo_modify lost warn or
  // ignore; with error the backend ended the run); warn prints its warning the first time only.
  const int64_t lost = backend->neighbor_stats().lost;
  if (lost > lost_seen) {
    if (thermo.lost == "warn" && !thermo.lost_warned) {
      const int64_t now = natoms();
      log.line(fmt::format("WARNING: Lost atoms: original {} current {}", now + lost - lost_seen, now));
      thermo.lost_warned = true;
    }
    lost_seen = lost;
  }
  if (header) thermo_setup();  // a run's or minimisation's set-up: LAMMPS's Thermo::init
  const auto keys = thermo_keywords();
  clearstep_computes();  // LAMMPS's modify->clearstep_compute(): each compute at most once per line
  ThermoContext ctx = thermo_context(&backend->result(), thermo.norm);
  ctx.cpu_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_clock).count();
  const ComputeContext cc = compute_context();
  const double natoms_all = static_cast<double>(natoms());
  ctx.run_end_step = run_end_step;  // cpuremain
  std::vector<double> values;
  std::vector<std::string> headers;
  std::vector<bool> ints;
  for (const auto& k : keys) {
    double v = 0.0;
    Reference r;
    const io::Command none{"thermo_style", {}, SourcePos{"thermo_style", 0}, ""};
    if (cascade_thermo(k, v)) {
      headers.push_back(k == "vacancies" ? "Vacancies" : k == "interstitials" ? "Interstitials" : "Clusters");
      ints.push_back(true);
    } else if (k.size() > 2 && k[1] == '_' && parse_reference(k, r, io::ArgCursor(none))) {
      // c_ID, c_ID[i], f_ID…, v_name: checked against the style's shape at thermo_style.
      v = reference_value(r, cc, thermo.pos.file.empty() ? SourcePos{"thermo_style " + k, 0} : thermo.pos);
      if (thermo.norm && natoms_all > 0 && reference_extensive(r, *this)) v /= natoms_all;
      headers.push_back(k);
      ints.push_back(false);
    } else {
      thermo_value(k, ctx, v);
      headers.push_back(thermo.custom ? thermo_header(k)
                                      : (k == "epair"  ? "E_pair"
                                         : k == "emol" ? "E_mol"
                                                       : thermo_header(k)));
      ints.push_back(thermo_is_integer(k));
    }
    values.push_back(v);
  }
  if (header) {
    thermo.format.set_columns(headers, ints);
    if (!thermo.format.header().empty()) log.line(thermo.format.header());
    if (csv_) csv_->columns(keys);
  }
  log.line(thermo.format.row(values));
  if (csv_) csv_->row(values);
  check_thermo_finite(keys, values);
  record_thermo_snapshot(ctx);  // what formulas read between runs
  double etotal = 0.0;
  ThermoContext raw = ctx;
  raw.normalise = false;
  thermo_value("etotal", raw, etotal);
  totals.sample_time.push_back(state.time);
  totals.sample_etotal.push_back(etotal);
  if (!totals.have_initial) {
    totals.have_initial = true;
    totals.initial_energy = etotal;
  }
  totals.final_energy = etotal;
}

}  // namespace wmd::md
