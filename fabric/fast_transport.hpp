// Fast transport: delivers what a schedule delivers, computed from its geometry instead of moving wavelets,
// and charges the schedule's modeled cycles. Scales to a full wafer: no per-pair containers, coverage is
// arithmetic. PE ids here are LOGICAL (row-major over logical coordinates); with wrap, MeshMap gives the
// physical PE.
#pragma once
#include <cstdint>
#include <vector>

#include "fabric/cost_model.hpp"
#include "fabric/hardware.hpp"
#include "fabric/schedule.hpp"
#include "fabric/torus.hpp"

namespace wmd::fabric {

class FastTransport {
 public:
  /// Prepares delivery for `spec` on wafer `hw`; the cost is modeled once here.
  FastTransport(const ScheduleSpec& spec, const HardwareSpec& hw);

  /// The schedule this transport stands for.
  const ScheduleSpec& spec() const { return spec_; }
  /// Logical ↔ physical PE map (identity without wrap, folded torus with it).
  const MeshMap& map() const { return map_; }
  /// Modeled cycles of one run of the full schedule.
  long long schedule_cycles() const { return cost_.cycles; }
  /// Cycles charged so far (one full schedule per delivery call, whatever subset was asked for).
  long long charged_cycles() const { return charged_; }

  /// Words per PE of deliver_all's output: (2b+1)²·words (window), 4·words (swap), words (reduction).
  int slots_per_pe() const { return slots_per_pe_; }
  /// Logical PE at offset (dx, dy) from logical PE `dst` (wrapped when periodic), or -1 off a non-periodic
  /// edge.
  int offset_pe(int dst, int dx, int dy) const;
  /// True when the schedule brings `src`'s payload to `dst` (window: Chebyshev distance <= b; swap: the four
  /// logical neighbours). A PE never covers itself.
  bool covers(int src, int dst) const;

  /// Window or swap: writes every PE's received payloads into `out` (PE × slots_per_pe() words), in the
  /// simulator's receive-slot layout (window_slot / SwapFrom). Slots with no source are 0; the window's
  /// centre slot holds the PE's own payload. `payload` is PE × words. Charges one schedule.
  void deliver_all(const std::uint32_t* payload, std::uint32_t* out);
  /// Window or swap: for each logical destination d, the sources sources[offsets[d]..offsets[d+1]) (logical
  /// ids); writes their payloads to out[k·words...] for request k. Throws wmd::RunError naming the first
  /// request the schedule does not cover. Charges one schedule.
  void deliver_requested(const std::int32_t* offsets, const std::int32_t* sources,
                         const std::uint32_t* payload, std::uint32_t* out);
  /// Reduction: op over all PEs of each word of `values` (PE × words, logical ids), folded in the schedule's
  /// order so the bits equal the simulator's; writes `words` results to `result`. Charges one schedule.
  void reduce(const std::uint32_t* values, std::uint32_t* result);
  /// reduce()'s first stage for the logical rows [row_begin, row_end) only, so that a grid tiled over
  /// processes in bands of rows reduces to reduce()'s bits: the fold along each physical row holding one of
  /// those logical rows, into rows[y·words + w] for physical row y (other rows untouched). `values` holds the
  /// band's PEs only, PE row_begin·width first. Charges nothing.
  void reduce_rows(const std::uint32_t* values, int row_begin, int row_end, std::uint32_t* rows) const;
  /// reduce()'s second stage: folds every physical row's value (rows, height × words) into result[words].
  /// Charges one schedule.
  void fold_rows(const std::uint32_t* rows, std::uint32_t* result);
  /// deliver_requested for the destinations [d_begin, d_end) only, so a caller can stream a large grid
  /// through a bounded buffer: offsets[i] .. offsets[i+1] index the sources of destination d_begin + i, and
  /// request k lands at out[(k − offsets[0])·words]. Checks coverage like deliver_requested; charges nothing:
  /// the caller charges one schedule per exchange with charge().
  void deliver_requested_range(int d_begin, int d_end, const std::int32_t* offsets,
                               const std::int32_t* sources, const std::uint32_t* payload, std::uint32_t* out);
  /// Checks every request of destinations [d_begin, d_end) (offsets[d − d_begin] .. offsets[d − d_begin + 1]
  /// index `sources`, logical ids) against the schedule's coverage once, and remembers these arrays as
  /// approved: requests that stay fixed between neighbour rebuilds are then delivered every step by
  /// deliver_approved_range without a per-request check. Throws wmd::RunError naming the first request the
  /// schedule does not cover (nothing is approved then).
  void approve_requests(int d_begin, int d_end, const std::int32_t* offsets, const std::int32_t* sources);
  /// deliver_requested_range for requests that approve_requests accepted (destinations inside the approved
  /// range, offsets pointing into the approved offsets, the very same sources; anything else throws): a plain
  /// copy. Word w of request k lands at out[(k − offsets[0])·words + w], or, when
  /// plane_stride > 0, at out[w·plane_stride + (k − offsets[0])] (one plane per word, for SIMD kernels).
  /// Charges nothing (see charge()).
  void deliver_approved_range(int d_begin, int d_end, const std::int32_t* offsets,
                              const std::int32_t* sources, const std::uint32_t* payload, std::uint32_t* out,
                              std::size_t plane_stride = 0) const;
  /// Window multicast: deliver_all's output for destinations [d_begin, d_end) only, PE d_begin + i at
  /// out[i·slots_per_pe()]; for streaming a large grid through a bounded buffer. Charges nothing (see
  /// charge()).
  void deliver_window_range(int d_begin, int d_end, const std::uint32_t* payload, std::uint32_t* out) const;
  /// Charges one run of the full schedule.
  void charge() { charged_ += cost_.cycles; }

 private:
  ScheduleSpec spec_;
  MeshMap map_;
  ScheduleCost cost_;
  int slots_per_pe_ = 0;
  long long charged_ = 0;
  // The request arrays approve_requests last accepted (identity, not contents: the caller re-approves after
  // it changes them).
  const std::int32_t* approved_offsets_ = nullptr;
  const std::int32_t* approved_sources_ = nullptr;
  int approved_begin_ = 0, approved_end_ = -1;
  // Throws unless the schedule brings logical PE s's payload to logical PE d.
  void check_request(int d, int s) const;
  std::vector<std::int32_t>
      row_of_;  // logical row of each PE: coverage checks without a division per request
};

}  // namespace wmd::fabric
