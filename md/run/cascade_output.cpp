// A running cascade's outputs: Wigner–Seitz samples during the run, the defect thermo keywords, and the
// `cascade` summary of report.json with defects.csv.
#include <fmt/format.h>

#include <fstream>

#include "io/text_file.hpp"
#include "md/run/simulation.hpp"
#include "potentials/zbl_splice.hpp"

namespace wmd::md {

void Simulation::cascade_end_of_step(bool force) {
  if (!force && state.step % cascade.defects->every() != 0) return;
  cascade.defects->sample(state, comm);
}

bool Simulation::cascade_thermo(const std::string& k, double& v) const {
  if (k != "vacancies" && k != "interstitials" && k != "clusters") return false;
  v = 0.0;
  if (cascade.defects) {
    const WsResult& r = cascade.defects->last();
    v = static_cast<double>(k == "vacancies"       ? r.vacancies
                            : k == "interstitials" ? r.interstitials
                                                   : r.clusters);
  }
  return true;
}

void Simulation::finish_cascade_report() {
  // The summary describes the final configuration: sample it unless the last sample was this step.
  if (cascade.defects->series().empty() ||
      cascade.defects->series().back()[1] != static_cast<double>(state.step))
    cascade.defects->sample(state, comm);
  const WsResult& r = cascade.defects->last();
  nlohmann::json& j = cascade.report;
  if (!j.is_object()) j = nlohmann::json::object();
  const double e = j.value("pka_energy_ev", 0.0);
  j["frenkel_pairs"] = r.frenkel_pairs;
  j["vacancies"] = r.vacancies;
  j["interstitials"] = r.interstitials;
  j["clusters"] = r.clusters;
  j["vacancy_clusters"] = r.vacancy_clusters;
  j["interstitial_clusters"] = r.interstitial_clusters;
  j["largest_cluster"] = r.largest_cluster;
  j["peak_defects"] = cascade.defects->peak_defects();
  j["peak_time_ps"] = cascade.defects->peak_time();
  j["time_ps"] = state.time;
  j["damage_energy_model"] = "Lindhard-Robinson (NRT) partition of the PKA energy";
  const int z = potentials::atomic_number(cascade.element);
  double mass = 0.0;
  for (int t = 1; t <= state.ntypes; ++t) mass = std::max(mass, state.mass[t]);
  if (z > 0 && e > 0) {
    const double td = damage_energy(e, z, mass);
    j["damage_energy_ev"] = td;
    if (auto p = dpa_params(cascade.element)) {
      j["nrt_dpa"] = nrt_dpa(td, *p);
      j["arc_dpa"] = arc_dpa(td, *p);
      j["dpa_parameters"] = {{"ed_ev", p->ed},
                             {"b", p->b},
                             {"c", p->c},
                             {"source", "Nordlund et al., Nat. Commun. 9, 1084 (2018)"}};
    } else {
      j["nrt_dpa"] = nullptr;
      j["arc_dpa"] = nullptr;
    }
  } else {
    j["damage_energy_ev"] = nullptr;
    j["nrt_dpa"] = nullptr;
    j["arc_dpa"] = nullptr;
  }
  // The defect time series beside report.json (rank 0 writes).
  if (!dry_run && comm.root() && !settings.output_dir.empty()) {
    std::ofstream out(settings.output_dir + "/defects.csv");
    out << "time_ps,step,vacancies,interstitials,clusters\n";
    for (const auto& row : cascade.defects->series())
      out << fmt::format("{:.9g},{:.0f},{:.0f},{:.0f},{:.0f}\n", row[0], row[1], row[2], row[3], row[4]);
    io::check_written(out, settings.output_dir + "/defects.csv", "defect file");
  }
}

}  // namespace wmd::md
