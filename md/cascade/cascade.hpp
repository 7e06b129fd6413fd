// Radiation-damage cascade tools: PKA choice and kick, random directions away from channelling axes, the
// Lindhard–Robinson damage energy and the NRT-dpa / arc-dpa defect estimates (Nordlund et al., Nat. Commun.
// 9, 1084 (2018)), and the Wigner–Seitz defect time series of a running cascade.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "md/cascade/wigner_seitz.hpp"
#include "md/core/comm.hpp"
#include "md/core/state.hpp"
#include "md/force/backend.hpp"

namespace wmd::md {

/// Lindhard–Robinson damage energy (NRT standard, self-ion: Z1 = Z2 = z, A1 = A2 = a): the part of a recoil
/// energy E (eV) that goes into nuclear collisions, T_d = E/(1 + k·g(ε)), ε = E/E_L, E_L = 86.931 z^{7/3} eV,
/// k = 0.133745 z^{2/3}/√a, g(ε) = 3.4008 ε^{1/6} + 0.40244 ε^{3/4} + ε.
double damage_energy(double e, double z, double a);

/// Displacement parameters of an element for NRT/arc-dpa (Nordlund 2018); nullopt when not tabulated.
struct DpaParams {
  double ed = 0.0;          // threshold displacement energy, eV
  double b = 0.0, c = 0.0;  // arc-dpa efficiency ξ = (1−c)/(2E_d/0.8)^b · T_d^b + c
};
std::optional<DpaParams> dpa_params(const std::string& element);

/// NRT-dpa number of Frenkel pairs for damage energy td: 0 below E_d, 1 up to 2E_d/0.8, then 0.8·td/(2E_d).
double nrt_dpa(double td, const DpaParams& p);
/// arc-dpa: the NRT high-energy branch times the efficiency ξ(td).
double arc_dpa(double td, const DpaParams& p);

/// A unit vector uniformly random on the sphere from `seed`, redrawn while it lies within `min_angle_deg`
/// of a ⟨100⟩, ⟨110⟩ or ⟨111⟩ axis (channelling directions).
std::array<double, 3> random_direction(uint64_t seed, double min_angle_deg);

/// Id of the atom nearest (minimum image) to point p, over all ranks.
int64_t nearest_atom(const State& s, const Comm& comm, const double p[3]);

/// Adds a kick of kinetic energy `energy` (eV) along `dir` (normalised here) to atom `id` on top of its
/// thermal velocity, then removes the momentum the kick added from all atoms (centre of mass at rest as
/// before). Returns false if no rank owns the id.
bool kick_pka(State& s, const Comm& comm, int64_t id, double energy, const double dir[3]);

/// Wigner–Seitz defect tracking of one cascade: the reference lattice is fixed when it starts. Orthogonal
/// boxes only (a triclinic box stops with exit 2).
class DefectTracker {
 public:
  /// Reference sites: the perfect lattice (style, spacing, basis) fitted to the current box. `at`: the
  /// command that started the analysis (its refusals name that line).
  DefectTracker(const State& s, const std::string& style, const double spacing[3],
                const std::vector<std::array<double, 3>>& basis, double cutoff, int every, SourcePos at);
  /// Analyses the current positions (gathered on rank 0, counts broadcast) and appends a sample.
  void sample(const State& s, const Comm& comm);
  int every() const { return every_; }
  const WsResult& last() const { return last_; }
  int64_t peak_defects() const { return peak_; }
  double peak_time() const { return peak_time_; }
  size_t sites() const { return sites_.size() / 3; }
  /// The samples as columns: time (ps), step, vacancies, interstitials, clusters.
  const std::vector<std::array<double, 5>>& series() const { return series_; }
  /// Everything later samples and the summary depend on (reference sites, counts, peak, series): checkpoints.
  NamedArrays save_state() const;
  /// Restores what save_state wrote (a restarted cascade keeps the reference lattice of the run that wrote
  /// it).
  void restore_state(const NamedArrays& state);

 private:
  /// Stops (exit 2, at the starting command's line) on a triclinic box.
  void refuse_triclinic(const Box& box) const;

  SourcePos at_;
  std::vector<double> sites_;
  double cutoff_;
  int every_;
  WsResult last_;
  int64_t peak_ = 0;
  double peak_time_ = 0.0;
  std::vector<std::array<double, 5>> series_;
};

}  // namespace wmd::md
