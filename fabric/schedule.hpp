// A schedule: static routes plus phases of injections, in the flat form the simulator runs.
// Phases are statically timed: phase k+1 starts when every delivery of phase k has landed.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fabric/routes.hpp"
#include "fabric/torus.hpp"

namespace wmd::fabric {

/// What a schedule does.
enum class ScheduleKind : std::uint8_t {
  WindowMulticast,  // every PE receives the payload of every PE within Chebyshev distance b
  NeighbourSwap,    // every PE receives the payload of each of its (up to) four logical neighbours
  Reduction,        // global sum/min/max of each payload word, broadcast back to every PE
};

/// Combining operation of a reduction (on fp32 words).
enum class ReduceOp : std::uint8_t { Sum, Min, Max };

/// The largest payload of one schedule, in 32-bit words per PE.
constexpr int kMaxPayloadWords = 4096;

/// Everything that defines a schedule; the cost model and the fast transport work from this alone.
struct ScheduleSpec {
  ScheduleKind kind = ScheduleKind::WindowMulticast;
  Grid grid;          // mesh (logical and physical dimensions are equal)
  int b = 1;          // window radius (WindowMulticast only)
  int words = 1;      // 32-bit words per PE payload
  bool wrap = false;  // periodic in both dimensions through the folded torus
  ReduceOp op = ReduceOp::Sum;
};

/// op(a, b) on two fp32 words given as bits; the one combining rule the simulator and the fast transport
/// share.
inline std::uint32_t combine_words(ReduceOp op, std::uint32_t a, std::uint32_t b) {
  float fa, fb;
  std::memcpy(&fa, &a, 4);
  std::memcpy(&fb, &b, 4);
  float r = op == ReduceOp::Sum ? fa + fb : op == ReduceOp::Min ? (fb < fa ? fb : fa) : (fb > fa ? fb : fa);
  std::uint32_t out;
  std::memcpy(&out, &r, 4);
  return out;
}

/// Throws wmd::InputError (file "<schedule>") when `spec` cannot be built (mesh too small for b, ...).
void validate_spec(const ScheduleSpec& spec);

/// What a core sends (or computes locally) next. Values are 32-bit words.
enum class ItemKind : std::uint8_t {
  Own,   // word `a` of this PE's payload
  Slot,  // the word this PE received in receive slot `a`
  Fold,  // Phase::folds[a]: op(base, inputs...) in order
};

/// One word a core emits (16 bytes: the simulator streams millions). Tags (src_pe, word) travel with the
/// wavelet so delivery can be checked.
struct SendItem {
  std::int32_t a = 0;
  std::int32_t dst_slot = -1;  // receive slot at the destination(s); -1 for a local fold
  std::int32_t src_pe = -1;    // physical PE whose data the word is (tag)
  std::int16_t word = 0;       // word index within that payload (tag)
  ItemKind kind = ItemKind::Own;
};

/// A fold: base = slot `base` (>= 0) or own word -1-base; inputs are Phase::fold_inputs[input_begin,
/// input_end).
struct FoldSpec {
  std::int32_t base = 0;
  std::int32_t input_begin = 0, input_end = 0;
  std::int32_t local_slot = -1;  // slot at this PE that keeps the result, or -1
};

/// A run of items one core emits on one color (color -1: local computation, no wavelets).
struct Stream {
  std::int32_t pe = 0;
  std::int16_t color = -1;
  std::int32_t item_begin = 0, item_end = 0;
};

/// One phase: streams sorted by PE, with pe_offset[pe]..pe_offset[pe+1] indexing a PE's streams.
struct Phase {
  std::vector<Stream> streams;
  std::vector<std::int32_t> pe_offset;
  std::vector<SendItem> items;
  std::vector<FoldSpec> folds;
  std::vector<std::int32_t> fold_inputs;
};

/// A buildable, simulable schedule for a mesh of simulator size.
struct Schedule {
  std::string name;
  ScheduleSpec spec;
  MeshMap map;           // logical ↔ physical PE ids
  RouteTable routes;     // static for the whole schedule
  int slots_per_pe = 0;  // receive-buffer words per PE
  std::vector<Phase> phases;
};

/// Adds streams to a phase under construction, PE by PE, then seals it (fills pe_offset).
class PhaseBuilder {
 public:
  explicit PhaseBuilder(int pe_count) : pe_count_(pe_count) {}
  /// Starts a stream on `color` (-1 = local) for `pe`; PEs must come in non-decreasing order.
  void begin_stream(int pe, int color);
  /// Appends an item to the current stream.
  void add(const SendItem& item) { phase_.items.push_back(item); }
  /// Records a fold of `base` with `input_slots` (kept in `local_slot` if >= 0); returns its index for
  /// SendItem::a.
  std::int32_t add_fold(std::int32_t base, const std::vector<std::int32_t>& input_slots,
                        std::int32_t local_slot);
  /// Finishes the phase; empty streams are dropped.
  Phase finish();

 private:
  int pe_count_;
  Phase phase_;
};

/// Routes a one-direction path from `from` to `to` (same row or column) on `color`:
/// Ramp in at `from`, straight through, Ramp out at `to`.
void route_path(RouteTable& routes, int from, int to, int color);

}  // namespace wmd::fabric
