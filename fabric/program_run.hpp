// Running and pricing a PE program: the cycle simulator executes it on every PE beside the routers; the model
// prices the same program from its PE classes and the schedules' counted phase times, fast enough for a
// full wafer. Both report the step's cycles, its critical path by activity and per-activity busy cycles.
#pragma once
#include <vector>

#include "fabric/cycle_simulator.hpp"
#include "fabric/pe_program.hpp"

namespace wmd::fabric {

/// What one run of a program took (simulated or modeled).
struct ProgramTimes {
  long long cycles = 0;                  // the critical path: cycle the last task ended or word landed
  std::vector<CommTiming> comms;         // per communication step
  std::vector<TaskTiming> timing;        // per unit (PE or class) x task
  std::vector<PathSegment> path;         // the critical path, earliest first
  std::vector<long long> path_cycles;    // per activity: cycles it holds on the critical path
  std::vector<long long> activity;       // per activity: busy cycles on the busiest unit (comms: wire time)
  int busiest = 0;                       // unit (PE or class) with the most busy cycles
  long long max_busy = 0, min_busy = 0;  // busy cycles of the busiest / least busy unit
};

/// The simulator's run, with the fabric's own figures.
struct ProgramSimulation : ProgramTimes {
  SimulationResult fabric;
  std::vector<long long> busy;  // per physical PE; idle = cycles - busy
};

/// Fills the figures of `r` (busy, activity, critical path) from its timing of `units` units and its comms.
void summarise(const PeProgram& p, ProgramTimes& r, int units);
/// Executes `p` on the cycle simulator (meshes of simulator size).
ProgramSimulation simulate_program(const PeProgram& p, const HardwareSpec& hw,
                                   const SimulationOptions& options = {});
/// Prices `p` analytically: units are PE classes, each with the landing times of an interior PE.
ProgramTimes model_program(const PeProgram& p, const HardwareSpec& hw);
/// Cycles of `p` with nothing overlapped: every communication step plus every task of the busiest class,
/// one after another (the additive account).
long long additive_cycles(const PeProgram& p, const HardwareSpec& hw);

}  // namespace wmd::fabric
