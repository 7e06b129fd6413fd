// The cores of a PE program inside the cycle simulator: every cycle each core either keeps working on an
// item, starts the next item whose word has landed, or picks the lowest-numbered task whose triggers have
// fired. A started task holds its core to the end (waiting for words is idle time); sends of the fabric
// (injection, forwarding) are the router's and the core's data movers' business and do not take core cycles
// [E].
#pragma once
#include <cstdint>
#include <vector>

#include "fabric/pe_program.hpp"

namespace wmd::fabric {

class PeCores {
 public:
  PeCores(const PeProgram& p, const MergedSchedule& m);

  /// The simulator enters phase `phase` at `cycle` / its last word landed at `cycle`.
  void begin_phase(int phase, long long cycle);
  void end_phase(int phase, long long cycle);
  /// Cycle from which PE `pe` may inject its own words in the current phase, or -1 while its gate runs.
  long long own_ready(int pe) const {
    const int g = gate_;
    if (g < 0) return 0;
    return timing_[static_cast<std::size_t>(pe) * T_ + g].end;
  }
  /// A word landed in merged slot `slot` of `pe` at `when`.
  void landed(int pe, int slot, long long when) {
    land_[static_cast<std::size_t>(pe) * S_ + slot] = static_cast<std::int32_t>(when);
  }
  /// One cycle of every core; true when some core worked.
  bool step(long long cycle);
  bool done() const { return tasks_left_ == 0; }
  /// Cycle by which every task ended (valid once done()).
  long long last_end() const { return last_end_; }

  const std::vector<TaskTiming>& timing() const { return timing_; }
  const std::vector<CommTiming>& comms() const { return comm_; }
  const std::vector<long long>& busy() const { return busy_; }
  /// Cycles PE `pe` spent on activity `a`.
  long long activity_busy(int pe, int a) const { return act_busy_[static_cast<std::size_t>(pe) * A_ + a]; }

 private:
  bool activated(int pe, int t, long long cycle) const;
  bool step_pe(int pe, long long cycle);

  const PeProgram& p_;
  const MergedSchedule& m_;
  int T_, S_, A_;
  int gate_ = -1;
  std::vector<std::int32_t> land_;
  std::vector<TaskTiming> timing_;
  std::vector<CommTiming> comm_;
  std::vector<long long> busy_until_, free_since_, busy_, act_busy_;
  std::vector<std::int32_t> cur_task_, cur_item_;
  long long tasks_left_ = 0, last_end_ = 0;
};

}  // namespace wmd::fabric
