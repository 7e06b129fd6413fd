// Thermo lines: the current style's keywords evaluated on the state, printed in LAMMPS's layout, written to
// thermo.csv, and sampled for report.json's energy drift.
#include "md/run/simulation.hpp"

namespace wmd::md {

std::vector<std::string> Simulation::thermo_keywords() const {
  if (thermo.custom) return thermo.keys;
  return {"step", "temp", "epair", "emol", "etotal", "press"};
}

void Simulation::thermo_output(bool header) {
  const auto keys = thermo_keywords();
  ThermoContext ctx{&state,
                    &backend->result(),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - run_clock).count(),
                    run_start_step,
                    thermo.norm,
                    &comm};
  ctx.run_end_step = run_end_step;
  std::vector<double> values;
  std::vector<std::string> headers;
  std::vector<bool> ints;
  for (const auto& k : keys) {
    double v = 0.0;
    if (k.rfind("v_", 0) == 0) {
      if (!vars) throw RunError("thermo keyword " + k + " needs variables");
      v = vars->value(k.substr(2), SourcePos{"thermo_style", 0});
      headers.push_back(k);
      ints.push_back(false);
    } else if (cascade_thermo(k, v)) {
      headers.push_back(k == "vacancies" ? "Vacancies" : k == "interstitials" ? "Interstitials" : "Clusters");
      ints.push_back(true);
    } else if (k.rfind("f_", 0) == 0) {
      const Fix* f = find_fix(k.substr(2));
      if (f && !f->scalar(v)) throw RunError("fix " + f->id() + " has no scalar for thermo");
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
    log.line(thermo.format.header());
    if (csv_) csv_->columns(keys);
  }
  log.line(thermo.format.row(values));
  if (csv_) csv_->row(values);
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
