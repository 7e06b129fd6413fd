// The rebuild trigger: when the neighbour slots must change. Either one global decision per step (LAMMPS's
// `check yes`: each PE flags a move beyond skin/2 and a max-reduction, the vote, tells every PE; or every N
// steps with `check no`), or the local criterion with no vote: a PE whose atom moved beyond skin/2 from its
// reference resets the reference and raises a flag word, every PE within b of a flagged PE rescans, and the
// pairs where a PE flagged at the last check exchange atoms at this one (docs/fabric.md, "The mesh
// backend"). Each system takes whichever its wafer program prices lower.
#pragma once
#include <cstdint>
#include <vector>

#include "fabric/grid.hpp"
#include "fabric/hardware.hpp"
#include "md/core/atoms.hpp"
#include "md/core/neighbor_settings.hpp"
#include "md/mesh/band_transport.hpp"
#include "md/mesh/cycle_account.hpp"
#include "md/mesh/pe_memory.hpp"

namespace wmd::md::mesh {

class RebuildTrigger {
 public:
  /// A run's neighbour settings; `global` (deterministic mode, shrink-wrapped faces) always takes the global
  /// decision.
  void configure(const NeighborSettings& nb, bool global) { nb_ = nb, deterministic_ = global; }
  /// Tests: the local criterion (true) or the vote (false) whatever the prices (choose).
  void force(bool local) { forced_ = local ? 1 : 0; }
  /// True when rebuilds are decided per PE (no global vote): `check yes`, not `once`, not global, and
  /// cheaper than the vote on this system's wafer program (choose).
  bool local() const { return nb_.check && !nb_.once && !deterministic_ && local_choice_; }
  /// report.json's name of the trigger: local, vote or interval.
  const char* name() const { return local() ? "local" : (nb_.check && !nb_.once ? "vote" : "interval"); }

  /// Prices the step with the vote and with the local criterion from the busiest PE's slots of the first scan
  /// (every rank's band), on a `grid` with window radius b, and keeps the cheaper, as the wafer's program
  /// would be chosen per input.
  void choose(const BandPes& pes, const BandTransport& t, const fabric::Grid& grid, bool wrap, int b,
              bool fp64, const fabric::HardwareSpec& hw);

  /// The global decision at a step: true when the slots are rebuilt now (the vote runs when `check yes`).
  bool rebuild_due(const Atoms& a, const BandPes& pes, BandTransport& t, CycleAccount& account);

  /// The local criterion at a step: true when this step checks (every/delay).
  bool local_check_due() {
    ++ago_;
    return !(ago_ < nb_.delay || ago_ % nb_.every != 0);
  }
  /// Flags (flag: one word per PE of the npe-PE grid) the band's PEs whose atom moved beyond skin/2 from its
  /// reference; returns how many on this rank.
  int64_t flag_moved(const Atoms& a, const BandPes& pes, const BandTransport& t, int npe,
                     std::vector<uint32_t>& flag);
  /// Whether some PE flagged at the last check (its pairs exchange atoms at this one).
  bool any_active() const;
  /// Per PE of the grid: flagged at the last check.
  const std::vector<uint32_t>& active() const { return active_; }
  /// The band's PEs that rescan (every PE within b of a flagged PE), band-indexed; `rescans` counts them.
  std::vector<char> rescan_set(const std::vector<uint32_t>& flag, BandTransport& t, int b,
                               int64_t& rescans) const;
  /// This check's flags are the next check's active pairs (flag is left with the old ones).
  void checked(std::vector<uint32_t>& flag) { active_.swap(flag); }
  /// A global rebuild of an npe-PE grid: every reference was reset, no pair is active.
  void rebuilt(int npe) {
    ago_ = 0;
    active_.assign(npe, 0u);
  }

  // Checkpoint state (mesh_checkpoint).
  int ago() const { return ago_; }
  bool local_choice() const { return local_choice_; }
  void set_ago(int ago) { ago_ = ago; }
  void set_active(std::vector<uint32_t> active) { active_ = std::move(active); }
  void set_local_choice(bool local) { local_choice_ = local; }

 private:
  NeighborSettings nb_;
  bool deterministic_ = false;
  int ago_ = 0;                   // steps since the last global rebuild
  std::vector<uint32_t> active_;  // [pe] every PE: its atom's reference was reset last check (local)
  bool local_choice_ = true;      // the local criterion is cheaper than the vote for this system (choose)
  int forced_ = -1;               // force: -1 none, 0 vote, 1 local
};

}  // namespace wmd::md::mesh
