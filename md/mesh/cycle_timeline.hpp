// The mesh backend's cycle account over a run's simulated time. The backend samples its counters every
// `every` steps; each interval between samples is priced as its own average step (that interval's busiest-PE
// neighbour counts, rebuilds, remaps and window radius), so a run whose work changes as it goes — a cascade's
// ballistic phase, thermal spike and relaxed end — is predicted piece by piece, not as one average step.
// One PE program prices every interval, as one program would run the whole run on a wafer: the fastest of
// those the emulator runs (full window, with or without kept distances, in each table layout) that fits the
// PE's memory in every interval; where none does, the one that needs the least memory at its worst interval
// (program.fits false, and each interval says whether it fits).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "fabric/hardware.hpp"
#include "md/mesh/cycle_account.hpp"
#include "potentials/eam_tables.hpp"

namespace wmd::md::mesh {

/// The table sizes a PE keeps for `t` (the F(ρ̄) arrays its types use; LAMMPS adds an unused one).
fabric::TableShape table_shape(const potentials::EamTables& t);

class CycleTimeline {
 public:
  /// Samples every `every` steps (0: no timeline); at most kMaxSamples are kept (past that, every other
  /// sample is dropped and the interval doubles, so a long run keeps its whole span).
  void configure(int every) { every_ = every; }
  bool active() const { return every_ > 0; }
  /// After a step's (or a set-up's) force pass at `step`, simulated time `time_ps`, window radius `b`: keeps
  /// the counters if the step is a sampling step, or if `baseline` (a run's set-up) and nothing is kept yet
  /// or steps were counted since the last sample; remembers the call as the timeline's present.
  void sample(int64_t step, double time_ps, int b, const MeshCounters& c, bool baseline);
  /// report.json's `fabric.timeline`: the intervals up to the present (`now`: the current counters), priced
  /// on `hw` with `shape` (grid, words, trigger, tables) and each interval's own counts and window radius.
  nlohmann::json report(const StepWork& shape, const fabric::HardwareSpec& hw, const MeshCounters& now) const;

  static constexpr size_t kMaxSamples = 4096;

  /// The samples as doubles, for a checkpoint: every, the present (step, time, b), the sample count, then per
  /// sample its step, time, b and every counter (for_each_counter's order).
  std::vector<double> state() const;
  /// Takes state() back (false, unchanged, where it is malformed).
  bool set_state(const std::vector<double>& v);

 private:
  struct Sample {
    int64_t step = 0;
    double time_ps = 0.0;
    int b = 1;
    MeshCounters c;
  };
  int every_ = 0;
  std::vector<Sample> samples_;
  int64_t last_step_ = 0;
  double last_time_ = 0.0;
  int last_b_ = 1;
};

}  // namespace wmd::md::mesh
