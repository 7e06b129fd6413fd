// simulate_program: the merged schedule on the cycle simulator with the program's cores, then the figures
// both runs report (summarise, shared with the model).
#include <fmt/format.h>

#include <algorithm>

#include "base/error.hpp"
#include "fabric/pe_cores.hpp"
#include "fabric/program_run.hpp"

namespace wmd::fabric {

void summarise(const PeProgram& p, ProgramTimes& r, int units) {
  const int T = static_cast<int>(p.tasks.size()), A = static_cast<int>(p.activities.size());
  r.max_busy = -1;
  r.min_busy = 0;
  int end_unit = -1, end_task = -1;
  long long end = -1;
  for (int u = 0; u < units; ++u) {
    long long b = 0;
    for (int t = 0; t < T; ++t) {
      const TaskTiming& x = r.timing[static_cast<std::size_t>(u) * T + t];
      b += x.busy;
      if (x.end > end) end = x.end, end_unit = u, end_task = t;
    }
    if (b > r.max_busy) r.max_busy = b, r.busiest = u;
    r.min_busy = u == 0 ? b : std::min(r.min_busy, b);
  }
  r.activity.assign(A, 0);
  for (int t = 0; t < T; ++t)
    r.activity[p.tasks[t].activity] += r.timing[static_cast<std::size_t>(r.busiest) * T + t].busy;
  long long comm_end = 0;
  for (std::size_t c = 0; c < r.comms.size(); ++c) {
    const CommTiming& ct = r.comms[c];
    r.activity[p.comms[c].activity] += ct.end - std::max(ct.start, ct.gate);
    comm_end = std::max(comm_end, ct.end);
  }
  if (comm_end >= end) end_task = -1;  // a landing ends the step
  r.cycles = std::max(comm_end, end);
  r.path = critical_path(p, r.comms, r.timing, end_unit, end_task, r.cycles);
  r.path_cycles.assign(A, 0);
  for (const PathSegment& s : r.path) r.path_cycles[s.activity] += s.end - s.start;
}

ProgramSimulation simulate_program(const PeProgram& p, const HardwareSpec& hw,
                                   const SimulationOptions& options) {
  const MergedSchedule m = merge_comms(p);
  PeCores cores(p, m);
  // Payload values do not change timing; 1.0f keeps sums finite.
  const std::vector<std::uint32_t> payload(static_cast<std::size_t>(p.grid.size()) * m.schedule.spec.words,
                                           0x3f800000u);
  ProgramSimulation r;
  r.fabric = simulate_with_cores(m.schedule, hw, payload, cores, options);
  if (r.fabric.deadlock)
    throw RunError("PE program '" + p.name + "' deadlocked: " + r.fabric.deadlock_detail);
  r.timing = cores.timing();
  r.comms = cores.comms();
  r.busy = cores.busy();
  summarise(p, r, p.grid.size());
  return r;
}

}  // namespace wmd::fabric
