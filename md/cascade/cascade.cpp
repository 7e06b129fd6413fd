#include "md/cascade/cascade.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "base/error.hpp"
#include "base/units.hpp"

namespace wmd::md {

double damage_energy(double e, double z, double a) {
  const double el = 86.931 * std::pow(z, 7.0 / 3.0);
  const double k = 0.133745 * std::pow(z, 2.0 / 3.0) / std::sqrt(a);
  const double eps = e / el;
  const double g = 3.4008 * std::pow(eps, 1.0 / 6.0) + 0.40244 * std::pow(eps, 0.75) + eps;
  return e / (1.0 + k * g);
}

std::optional<DpaParams> dpa_params(const std::string& element) {
  // Nordlund et al., Nat. Commun. 9, 1084 (2018), Table 1 (E_d, b, c).
  if (element == "Fe") return DpaParams{40.0, -0.568, 0.286};
  if (element == "W") return DpaParams{70.0, -0.56, 0.12};
  if (element == "Cu") return DpaParams{33.0, -0.68, 0.16};
  return std::nullopt;
}

double nrt_dpa(double td, const DpaParams& p) {
  if (td < p.ed) return 0.0;
  if (td < 2.0 * p.ed / 0.8) return 1.0;
  return 0.8 * td / (2.0 * p.ed);
}

double arc_dpa(double td, const DpaParams& p) {
  if (td < 2.0 * p.ed / 0.8) return nrt_dpa(td, p);
  const double xi = (1.0 - p.c) / std::pow(2.0 * p.ed / 0.8, p.b) * std::pow(td, p.b) + p.c;
  return nrt_dpa(td, p) * xi;
}

namespace {
uint64_t next64(uint64_t& state) {  // splitmix64
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
double uniform(uint64_t& state) {
  return static_cast<double>(next64(state) >> 11) * (1.0 / 9007199254740992.0);
}
}  // namespace

std::array<double, 3> random_direction(uint64_t seed, double min_angle_deg) {
  uint64_t st = seed;
  const double cmax = std::cos(min_angle_deg * M_PI / 180.0);
  for (;;) {
    const double cz = 2.0 * uniform(st) - 1.0;
    const double phi = 2.0 * M_PI * uniform(st);
    const double sz = std::sqrt(std::max(0.0, 1.0 - cz * cz));
    const std::array<double, 3> d = {sz * std::cos(phi), sz * std::sin(phi), cz};
    // |d·u|/|u| for the axes ⟨100⟩, ⟨110⟩, ⟨111⟩ (all sign combinations via absolute values).
    const double ax = std::fabs(d[0]), ay = std::fabs(d[1]), az = std::fabs(d[2]);
    double best = std::max({ax, ay, az});
    best =
        std::max({best, (ax + ay) / std::sqrt(2.0), (ax + az) / std::sqrt(2.0), (ay + az) / std::sqrt(2.0)});
    best = std::max(best, (ax + ay + az) / std::sqrt(3.0));
    // Over the sign variants of an axis, |d·u| is largest with all components of |d| positive, so `best` is
    // the cosine of the angle to the closest low-index axis.
    if (best < cmax) return d;
  }
}

int64_t nearest_atom(const State& s, const Comm& comm, const double p[3]) {
  const Atoms& a = s.atoms;
  double best = std::numeric_limits<double>::max();
  int64_t id = -1;
  for (size_t i = 0; i < a.size(); ++i) {
    const double x[3] = {a.x[i], a.y[i], a.z[i]};
    double d2 = 0.0;
    if (s.box.triclinic) {  // LAMMPS's minimum image along the edge vectors
      double dx = x[0] - p[0], dy = x[1] - p[1], dz = x[2] - p[2];
      s.box.minimum_image(dx, dy, dz);
      d2 = dx * dx + dy * dy + dz * dz;
    }
    for (int d = 0; d < 3 && !s.box.triclinic; ++d) {
      double dx = x[d] - p[d];
      if (s.box.periodic(d)) dx -= s.box.prd(d) * std::round(dx / s.box.prd(d));
      d2 += dx * dx;
    }
    if (d2 < best || (d2 == best && a.id[i] < id)) best = d2, id = a.id[i];
  }
  struct Cand {
    double d2;
    int64_t id;
  };
  const auto all = comm.allgather(std::vector<Cand>{{best, id}});
  Cand win{std::numeric_limits<double>::max(), -1};
  for (const auto& c : all) {
    if (c.id >= 0 && (c.d2 < win.d2 || (c.d2 == win.d2 && c.id < win.id))) win = c;
  }
  return win.id;
}

bool kick_pka(State& s, const Comm& comm, int64_t id, double energy, const double dir[3]) {
  Atoms& a = s.atoms;
  const double norm = std::sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
  double added[4] = {0, 0, 0, 0};  // momentum the kick adds; owner flag
  for (size_t i = 0; i < a.size(); ++i) {
    if (a.id[i] != id) continue;
    const double m = s.mass[a.type[i]];
    const double v = std::sqrt(2.0 * energy / (m * units::mvv2e));  // E = ½ m v² · mvv2e
    const double dv[3] = {v * dir[0] / norm, v * dir[1] / norm, v * dir[2] / norm};
    a.vx[i] += dv[0], a.vy[i] += dv[1], a.vz[i] += dv[2];
    added[0] = m * dv[0], added[1] = m * dv[1], added[2] = m * dv[2], added[3] = 1.0;
  }
  comm.sum_in_rank_order(added, 4);  // one rank holds the atom, the others add zeros: exact
  if (added[3] < 1.0) return false;
  TermSum total_mass(comm, 1);
  for (size_t i = 0; i < a.size(); ++i) total_mass.add(0, s.mass[a.type[i]]);
  const double mass = total_mass.total()[0];
  const double dv[3] = {added[0] / mass, added[1] / mass, added[2] / mass};
  for (size_t i = 0; i < a.size(); ++i) a.vx[i] -= dv[0], a.vy[i] -= dv[1], a.vz[i] -= dv[2];
  return true;
}

DefectTracker::DefectTracker(const State& s, const std::string& style, const double spacing[3],
                             const std::vector<std::array<double, 3>>& basis, double cutoff, int every,
                             SourcePos at)
    : at_(std::move(at)), cutoff_(cutoff), every_(every) {
  (void)style;
  refuse_triclinic(s.box);
  sites_ = perfect_lattice_sites(s.box, spacing, basis);
}

void DefectTracker::refuse_triclinic(const Box& box) const {
  // The reference sites are cubic cells along x, y, z and the defect search bins an orthogonal box.
  if (box.triclinic)
    fail_input(at_,
               "defects: the Wigner-Seitz defect analysis needs an orthogonal box (its "
               "reference lattice is cubic cells along x, y, z); this box is triclinic");
}

NamedArrays DefectTracker::save_state() const {
  NamedArrays out;
  out["sites"] = sites_;
  out["settings"] = {cutoff_, static_cast<double>(every_), static_cast<double>(peak_), peak_time_};
  out["last"] = {
      static_cast<double>(last_.vacancies),        static_cast<double>(last_.interstitials),
      static_cast<double>(last_.frenkel_pairs),    static_cast<double>(last_.clusters),
      static_cast<double>(last_.vacancy_clusters), static_cast<double>(last_.interstitial_clusters),
      static_cast<double>(last_.largest_cluster)};
  std::vector<double>& series = out["series"];
  for (const auto& row : series_) series.insert(series.end(), row.begin(), row.end());
  return out;
}

void DefectTracker::restore_state(const NamedArrays& state) {
  auto get = [&](const char* key, size_t min_size) -> const std::vector<double>& {
    const auto it = state.find(key);
    if (it == state.end() || it->second.size() < min_size)
      throw RunError(std::string("the checkpoint's defect analysis lacks '") + key + "'");
    return it->second;
  };
  sites_ = get("sites", 0);
  const auto& set = get("settings", 4);
  cutoff_ = set[0], every_ = static_cast<int>(set[1]), peak_ = static_cast<int64_t>(set[2]),
  peak_time_ = set[3];
  const auto& l = get("last", 7);
  last_ = WsResult{};
  last_.vacancies = static_cast<int64_t>(l[0]), last_.interstitials = static_cast<int64_t>(l[1]);
  last_.frenkel_pairs = static_cast<int64_t>(l[2]), last_.clusters = static_cast<int64_t>(l[3]);
  last_.vacancy_clusters = static_cast<int64_t>(l[4]),
  last_.interstitial_clusters = static_cast<int64_t>(l[5]);
  last_.largest_cluster = static_cast<int64_t>(l[6]);
  const auto& ser = get("series", 0);
  series_.clear();
  for (size_t k = 0; k + 5 <= ser.size(); k += 5)
    series_.push_back({ser[k], ser[k + 1], ser[k + 2], ser[k + 3], ser[k + 4]});
}

void DefectTracker::sample(const State& s, const Comm& comm) {
  refuse_triclinic(s.box);  // a box made triclinic after `defects` (change_box)
  const Atoms& a = s.atoms;
  std::vector<double> local(3 * a.size());
  for (size_t i = 0; i < a.size(); ++i)
    local[3 * i] = a.x[i], local[3 * i + 1] = a.y[i], local[3 * i + 2] = a.z[i];
  const std::vector<double> all = comm.gather(local);
  int64_t counts[6] = {0, 0, 0, 0, 0, 0};
  if (comm.root()) {
    last_ = wigner_seitz(s.box, sites_, all, cutoff_);
    last_.occupancy.clear();
    counts[0] = last_.vacancies, counts[1] = last_.interstitials, counts[2] = last_.clusters;
    counts[3] = last_.vacancy_clusters, counts[4] = last_.interstitial_clusters,
    counts[5] = last_.largest_cluster;
  }
  comm.broadcast(counts, 6);
  last_.vacancies = counts[0], last_.interstitials = counts[1], last_.clusters = counts[2];
  last_.vacancy_clusters = counts[3], last_.interstitial_clusters = counts[4],
  last_.largest_cluster = counts[5];
  last_.frenkel_pairs = std::min(last_.vacancies, last_.interstitials);
  const int64_t defects = last_.vacancies;
  if (defects > peak_) peak_ = defects, peak_time_ = s.time;
  series_.push_back({s.time, static_cast<double>(s.step), static_cast<double>(last_.vacancies),
                     static_cast<double>(last_.interstitials), static_cast<double>(last_.clusters)});
}

}  // namespace wmd::md
