// Counted cost model: cycles of a schedule from its geometry alone (no routes or wavelets built), so it
// prices a full wafer in microseconds of host time. Validated against the cycle simulator (tests/fabric).
#pragma once
#include <vector>

#include "fabric/hardware.hpp"
#include "fabric/schedule.hpp"

namespace wmd::fabric {

/// Predicted cost of one run of a schedule.
struct ScheduleCost {
  long long cycles = 0;                 // total, phase gaps included
  std::vector<long long> phase_cycles;  // per phase, in schedule order
  double seconds = 0;                   // cycles / clock
};

/// Cycles of the schedule `spec` on wafer `hw` (spec.grid is the mesh; use wafer_grid(hw) for a full wafer).
ScheduleCost model_schedule(const ScheduleSpec& spec, const HardwareSpec& hw);
/// Modeled landing cycle of every receive slot of `spec` at an interior PE (one whose whole window exists),
/// counted from the schedule's start: a slot's word lands as its phase ends less the words still behind it in
/// the streams the PE's ramp interleaves. Slots of swaps and reductions land when the schedule ends; -1 marks
/// slots never filled at an interior PE.
std::vector<long long> model_slot_landing(const ScheduleSpec& spec, const HardwareSpec& hw);
/// The full-wafer grid of `hw`.
inline Grid wafer_grid(const HardwareSpec& hw) {
  return Grid{hw.grid_width, hw.grid_height};
}

}  // namespace wmd::fabric
