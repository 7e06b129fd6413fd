// wafermd extensions for radiation-damage cascades (not LAMMPS commands; docs/input.md):
//   zbl_splice E1 ... En [r_f R] [b_f B]      splice ZBL into every pair of the EAM tables (per-type
//   elements) write_potential FILE                       write the (spliced) tables as setfl / eam/fs for
//   LAMMPS defects every N [cutoff C]                 Wigner–Seitz analysis against the perfect lattice
//   fitted now cascade (id N | near X Y Z) energy E (direction DX DY DZ | random SEED [min_angle DEG])
//           [border W] [time T] [element SYM]   PKA kick, border group, end time of the next run
#include <fmt/format.h>

#include <cmath>
#include <fstream>

#include "md/run/simulation.hpp"
#include "potentials/zbl_splice.hpp"

namespace wmd::md {

void Simulation::cmd_zbl_splice(const io::Command& c) {
  if (!eam_) fail_input(c.pos, "zbl_splice needs a pair_style and pair_coeff first");
  io::ArgCursor a(c);
  ZblSettings z;
  z.elements.assign(s_.ntypes + 1, "");
  z.z.assign(s_.ntypes + 1, 0);
  z.r_f = potentials::kDefaultZblRf;
  z.b_f = potentials::kDefaultZblBf;
  for (int t = 1; t <= s_.ntypes; ++t) {
    const std::string e = a.word("an element (or atomic number) for type " + std::to_string(t));
    long long n;
    if (io::parse_integer(e, n) && n >= 1 && n <= 92)
      z.z[t] = static_cast<int>(n);
    else if ((z.z[t] = potentials::atomic_number(e)) == 0)
      a.fail("unknown element '" + e + "' (give a symbol H..U or an atomic number)");
    z.elements[t] = e;
  }
  while (!a.done()) {
    const std::string k = a.choice("a zbl_splice keyword", {"r_f", "b_f", "pair"});
    if (k == "pair") {
      ZblSettings::Pair p;
      p.i = static_cast<int>(a.integer("the first type of the pair", 1, s_.ntypes));
      p.j = static_cast<int>(a.integer("the second type of the pair", 1, s_.ntypes));
      p.r_f = a.positive("r_f (Å) of the pair");
      p.b_f = a.positive("b_f (1/Å) of the pair");
      z.pairs.push_back(p);
    } else {
      (k == "r_f" ? z.r_f : z.b_f) = a.positive(k == "r_f" ? "r_f (Å)" : "b_f (1/Å)");
    }
  }
  zbl_ = z;
  tables_.reset();
  forces_current_ = false;
}

void Simulation::apply_zbl(potentials::EamTables& t) const {
  if (!zbl_) return;
  std::vector<int> done, done_rho;
  for (int i = 1; i <= t.ntypes; ++i)
    for (int j = 1; j <= i; ++j) {
      double rf = zbl_->r_f, bf = zbl_->b_f;
      for (const auto& p : zbl_->pairs) {
        if ((p.i == i && p.j == j) || (p.i == j && p.j == i)) rf = p.r_f, bf = p.b_f;
      }
      const int arr = t.z2r_array(i, j);
      if (std::find(done.begin(), done.end(), arr) == done.end()) {  // a shared array is spliced once
        done.push_back(arr);
        potentials::splice_zbl(t, i, j, zbl_->z[i], zbl_->z[j], rf, bf);
      }
      for (const int rho : {t.rho_array(i, j), t.rho_array(j, i)}) {
        if (std::find(done_rho.begin(), done_rho.end(), rho) != done_rho.end()) continue;
        done_rho.push_back(rho);
        potentials::splice_density(t, rho, rf, bf);
      }
    }
}

void Simulation::cmd_write_potential(const io::Command& c) {
  if (!eam_ || !eam_->complete())
    fail_input(c.pos, "write_potential needs a complete pair_style and pair_coeff");
  io::ArgCursor a(c);
  const std::string file = a.word("a file name");
  a.finish();
  if (dry_run_) return;
  const auto& t = tables();
  std::vector<int> z(s_.ntypes + 1, 0);
  std::vector<std::string> names(s_.ntypes + 1, "X");
  for (int k = 1; k <= s_.ntypes; ++k) {
    if (zbl_)
      z[k] = zbl_->z[k], names[k] = zbl_->elements[k];
    else
      names[k] = "T" + std::to_string(k);
  }
  const bool fs = eam_->style() == potentials::EamStyle::finnis_sinclair;
  std::string note = "wafermd " + pair_style_ + " tables";
  if (zbl_)
    note += fmt::format(" with ZBL spliced (Fermi switch r_f = {} A, b_f = {} 1/A)", zbl_->r_f, zbl_->b_f);
  if (!potentials::write_eam_file(t, fs, z, names, file, note))
    fail_input(c.pos, "cannot write '" + file + "'");
  log_.line("Wrote " + std::string(fs ? "eam/fs" : "eam/alloy") + " potential file " + file);
}

void Simulation::cmd_defects(const io::Command& c) {
  require_box(c);
  io::ArgCursor a(c);
  int every = 10;
  double cutoff = -1.0;
  while (!a.done()) {
    const std::string k = a.choice("a defects keyword", {"every", "cutoff", "off"});
    if (k == "off") {
      defects_.reset();
      return;
    }
    if (k == "every")
      every = static_cast<int>(a.integer("the sampling interval (steps)", 1, 2000000000));
    else
      cutoff = a.positive("the cluster cutoff (Å)");
  }
  if (!lattice_.defined())
    a.fail("defects needs the perfect lattice: define it with 'lattice' (or system.lattice) before");
  if (cutoff < 0) cutoff = ws_cluster_cutoff(lattice_.style, lattice_.scale);
  defects_ =
      std::make_unique<DefectTracker>(s_, lattice_.style, lattice_.spacing, lattice_.basis, cutoff, every);
  if (!restart_pending() &&
      static_cast<int64_t>(defects_->sites()) != comm_.sum(static_cast<int64_t>(s_.atoms.size()))) {
    log_.line(fmt::format("WARNING: defects: {} reference sites but {} atoms", defects_->sites(),
                          comm_.sum(static_cast<int64_t>(s_.atoms.size()))));
  }
}

void Simulation::cmd_cascade(const io::Command& c) {
  require_box(c);
  io::ArgCursor a(c);
  int64_t id = -1;
  double point[3] = {0, 0, 0}, energy = -1.0, dir[3] = {0, 0, 0}, border = 0.0, duration = -1.0;
  double min_angle = 10.0;
  bool near = false, random = false, have_dir = false;
  uint64_t seed = 0;
  std::string element;
  while (!a.done()) {
    const std::string k = a.choice("a cascade keyword", {"id", "near", "energy", "direction", "random",
                                                         "min_angle", "border", "time", "element"});
    if (k == "id") {
      id = a.integer("the PKA atom id", 1, 4000000000000000000LL);
    } else if (k == "near") {
      for (double& p : point) p = a.real("a coordinate of the PKA point (Å)");
      near = true;
    } else if (k == "energy") {
      energy = a.positive("the PKA energy (eV)");
    } else if (k == "direction") {
      for (double& d : dir) d = a.real("a direction component");
      if (dir[0] == 0 && dir[1] == 0 && dir[2] == 0) a.fail("the PKA direction must not be zero");
      have_dir = true;
    } else if (k == "random") {
      seed = static_cast<uint64_t>(a.integer("the direction seed", 1, 4000000000000000000LL));
      random = have_dir = true;
    } else if (k == "min_angle") {
      min_angle = a.non_negative("the minimum angle to a low-index axis (degrees)");
      if (min_angle > 20.0) a.fail("min_angle above 20 degrees leaves no direction free");
    } else if (k == "border") {
      border = a.non_negative("the border thermostat thickness (Å)");
    } else if (k == "time") {
      duration = a.positive("the cascade time (ps)");
    } else {
      element = a.word("an element symbol");
    }
  }
  if ((id < 0) == !near) a.fail("cascade needs exactly one of 'id N' or 'near X Y Z'");
  if (energy <= 0) a.fail("cascade needs 'energy E' (eV)");
  if (!have_dir) a.fail("cascade needs 'direction DX DY DZ' or 'random SEED'");
  for (int d = 0; d < 3; ++d) {
    if (border > 0 && 2.0 * border >= s_.box.prd(d)) a.fail("the border slab is thicker than half the box");
  }
  if (random) {
    const auto d = random_direction(seed, min_angle);
    for (int k = 0; k < 3; ++k) dir[k] = d[k];
  }
  if (border > 0.0 && !s_.group_bit("cascade_border")) {
    // Border thermostat group (its members are set below), named now so that fixes can refer to it.
    if (s_.group_names.size() >= 32) a.fail("too many groups for the cascade border group");
    s_.group_names.push_back("cascade_border");
  }
  // A restart's atoms arrive with the checkpoint, already kicked and grouped, with the PKA, stop time and
  // defect samples of the run that wrote it: nothing more to do here.
  if (restart_pending()) return;
  if (near) id = nearest_atom(s_, comm_, point);
  int pka_type = 0;
  for (size_t i = 0; i < s_.atoms.size(); ++i)
    if (s_.atoms.id[i] == id) pka_type = s_.atoms.type[i];
  pka_type = static_cast<int>(comm_.max(static_cast<int64_t>(pka_type)));
  if (pka_type == 0) a.fail("no atom has id " + std::to_string(id));
  if (s_.mass[pka_type] <= 0) a.fail("the PKA's type has no mass yet");
  kick_pka(s_, comm_, id, energy, dir);
  if (border > 0.0) {
    // Border thermostat group: atoms within `border` of a face at this moment (static, as LAMMPS groups are).
    const uint32_t bit = s_.group_bit("cascade_border");
    Atoms& at = s_.atoms;
    const double* pos[3] = {at.x.data(), at.y.data(), at.z.data()};
    for (size_t i = 0; i < at.size(); ++i) {
      bool in = false;
      for (int d = 0; d < 3; ++d)
        in = in || pos[d][i] < s_.box.lo[d] + border || pos[d][i] >= s_.box.hi[d] - border;
      at.mask[i] = in ? (at.mask[i] | bit) : (at.mask[i] & ~bit);
    }
  }
  cascade_stop_time_ = duration > 0 ? s_.time + duration : -1.0;
  if (element.empty() && zbl_) element = zbl_->elements[pka_type];
  cascade_element_ = element;
  const double norm = std::sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
  cascade_report_ = nlohmann::json::object();
  cascade_report_["pka_id"] = id;
  cascade_report_["pka_energy_ev"] = energy;
  cascade_report_["pka_direction"] = {dir[0] / norm, dir[1] / norm, dir[2] / norm};
  cascade_report_["element"] = element;
  if (!dry_run_) {
    log_.line(fmt::format("Cascade: PKA atom {} ({} eV) along ({:.4f}, {:.4f}, {:.4f}){}", id, energy,
                          dir[0] / norm, dir[1] / norm, dir[2] / norm,
                          border > 0 ? fmt::format(", border thermostat group {:.3g} A thick", border) : ""));
  }
}

void Simulation::cascade_end_of_step(bool force) {
  if (!force && s_.step % defects_->every() != 0) return;
  defects_->sample(s_, comm_);
}

bool Simulation::cascade_thermo(const std::string& k, double& v) const {
  if (k != "vacancies" && k != "interstitials" && k != "clusters") return false;
  v = 0.0;
  if (defects_) {
    const WsResult& r = defects_->last();
    v = static_cast<double>(k == "vacancies"       ? r.vacancies
                            : k == "interstitials" ? r.interstitials
                                                   : r.clusters);
  }
  return true;
}

void Simulation::finish_cascade_report() {
  // The summary describes the final configuration: sample it unless the last sample was this step.
  if (defects_->series().empty() || defects_->series().back()[1] != static_cast<double>(s_.step))
    defects_->sample(s_, comm_);
  const WsResult& r = defects_->last();
  nlohmann::json& j = cascade_report_;
  if (!j.is_object()) j = nlohmann::json::object();
  const double e = j.value("pka_energy_ev", 0.0);
  j["frenkel_pairs"] = r.frenkel_pairs;
  j["vacancies"] = r.vacancies;
  j["interstitials"] = r.interstitials;
  j["clusters"] = r.clusters;
  j["vacancy_clusters"] = r.vacancy_clusters;
  j["interstitial_clusters"] = r.interstitial_clusters;
  j["largest_cluster"] = r.largest_cluster;
  j["peak_defects"] = defects_->peak_defects();
  j["peak_time_ps"] = defects_->peak_time();
  j["time_ps"] = s_.time;
  j["damage_energy_model"] = "Lindhard-Robinson (NRT) partition of the PKA energy";
  const int z = potentials::atomic_number(cascade_element_);
  double mass = 0.0;
  for (int t = 1; t <= s_.ntypes; ++t) mass = std::max(mass, s_.mass[t]);
  if (z > 0 && e > 0) {
    const double td = damage_energy(e, z, mass);
    j["damage_energy_ev"] = td;
    if (auto p = dpa_params(cascade_element_)) {
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
  if (!dry_run_ && comm_.root() && !settings_.output_dir.empty()) {
    std::ofstream out(settings_.output_dir + "/defects.csv");
    out << "time_ps,step,vacancies,interstitials,clusters\n";
    for (const auto& row : defects_->series())
      out << fmt::format("{:.9g},{:.0f},{:.0f},{:.0f},{:.0f}\n", row[0], row[1], row[2], row[3], row[4]);
  }
}

}  // namespace wmd::md
