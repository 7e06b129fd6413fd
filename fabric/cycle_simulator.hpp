// Cycle-level simulator of the mesh: wavelets move hop by hop through finite router queues with
// back-pressure.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "fabric/hardware.hpp"
#include "fabric/schedule.hpp"

namespace wmd::fabric {

/// Per-PE receive buffers, flat: word `slot` of PE `pe` at pe * slots_per_pe + slot.
struct ReceiveBuffers {
  int slots_per_pe = 0;
  std::vector<std::uint32_t> value;
  std::vector<std::int32_t> src;     // tag: physical PE the word came from, -1 while empty
  std::vector<std::int16_t> word;    // tag: word index within that PE's payload
  std::vector<std::uint8_t> writes;  // times the slot was written (1 expected; >1 = delivered twice)
  std::vector<std::int32_t> landed;  // cycle the last write landed, -1 while empty
};

/// What a simulation measured.
struct SimulationResult {
  long long cycles = 0;                 // cycles until the last phase's last word landed
  std::vector<long long> phase_cycles;  // duration of each phase
  long long stall_cycles = 0;           // sum over cycles of queue heads that were due but could not move
  long long link_hops = 0;              // wavelet traversals of directed links
  double link_utilisation = 0;          // link_hops / (directed links × cycles)
  long long delivered = 0;              // words written into receive slots
  long long duplicates = 0;             // words written into an already written slot
  long long misdelivered = 0;           // words whose slot does not exist at the receiver
  bool deadlock = false;                // no progress possible while work remained
  std::string deadlock_detail;          // where it stuck (first blocked queue)
};

/// Knobs for a simulation run.
struct SimulationOptions {
  bool check_routes = true;          // run the route checker first (tests switch it off to run bad routes)
  long long max_cycles = 100000000;  // stop with RunError beyond this
  int deadlock_idle_cycles = 1000;   // cycles without any progress that mean deadlock
};

/// Runs `schedule` on wafer `hw` with `payload` (physical PE × schedule.spec.words words); fills `recv` if
/// given.
SimulationResult simulate(const Schedule& schedule, const HardwareSpec& hw,
                          const std::vector<std::uint32_t>& payload, ReceiveBuffers* recv = nullptr,
                          const SimulationOptions& options = {});

class PeCores;
/// The same cycle loop with the cores of a PE program stepping beside the routers (program_simulator.hpp):
/// own words leave a PE once `cores` says so, and every landing is reported to them.
SimulationResult simulate_with_cores(const Schedule& schedule, const HardwareSpec& hw,
                                     const std::vector<std::uint32_t>& payload, PeCores& cores,
                                     const SimulationOptions& options = {});

}  // namespace wmd::fabric
