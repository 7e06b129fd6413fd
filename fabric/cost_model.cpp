// The model counts, phase by phase, the words through the busiest ramp and link and the longest path, then
// adds the pipeline latency the simulator's router obeys: a stream of m words that crosses h hops and the two
// ramps lands its last word (m - 1) + 2·ramp_latency + h·hop_latency cycles after its first was injected.
// Reductions add the fold latency per chain hop and count the root's ramp queue word by word.
#include "fabric/cost_model.hpp"

#include <algorithm>
#include <cmath>

#include "fabric/schedules/schedules.hpp"

namespace wmd::fabric {
namespace {

long long ceil_div(long long a, long long b) {
  return (a + b - 1) / b;
}

struct Lat {
  long long ramp, hop;
  int ramp_bw, link_bw;
};

// Phase time of streams whose busiest ramp carries `ramp_words`, busiest link `link_words`, longest path
// `hops`.
long long stream_phase(const Lat& l, long long ramp_words, long long link_words, int hops) {
  if (ramp_words <= 0) return 0;
  const long long busy = std::max(ceil_div(ramp_words, l.ramp_bw), ceil_div(link_words, l.link_bw));
  return busy - 1 + 2 * l.ramp + hops * l.hop;
}

// Longest physical distance of a logical one-step link in `r` (1 without wrap, 2 with the fold for n >= 3).
int max_link_hops(const RingMap& r) {
  int h = 0;
  for (int i = 0; i < r.n; ++i) {
    const int j = r.step(i, 1);
    if (j >= 0) h = std::max(h, std::abs(r.physical(j) - r.physical(i)));
  }
  return h;
}

// Streams a logical position sends and receives in one step of a 1D stage, for the directions in `dirs`.
struct StepCounts {
  int send = 0, recv = 0;
};
StepCounts step_counts(const RingMap& r, int k, const std::vector<int>& dirs) {
  StepCounts best;
  for (int i = 0; i < r.n; ++i) {
    int send = 0, recv = 0;
    for (int dir : dirs) {
      // Sends dir-ward the payload that started k-1 steps behind; receives the one from k steps behind.
      if (r.step(i, dir) >= 0 && r.step(i, -dir * (k - 1)) >= 0) ++send;
      if (r.step(i, -dir) >= 0 && r.step(i, -dir * k) >= 0) ++recv;
    }
    best.send = std::max(best.send, send);
    best.recv = std::max(best.recv, recv);
  }
  return best;
}

// Largest row window (payloads within b along x) any PE holds.
int max_row_window(const RingMap& r, int b) {
  int best = 0;
  for (int i = 0; i < r.n; ++i) {
    int c = 0;
    for (int dx = -b; dx <= b; ++dx) c += r.step(i, dx) >= 0;
    best = std::max(best, c);
  }
  return best;
}

void window_multicast(const ScheduleSpec& s, const Lat& l, std::vector<long long>& out) {
  const MeshMap m(s.grid, s.wrap);
  const std::vector<std::vector<int>> groups =
      s.wrap ? std::vector<std::vector<int>>{{+1}, {-1}} : std::vector<std::vector<int>>{{+1, -1}};
  const long long P = s.words;
  const int hx = max_link_hops(m.x), hy = max_link_hops(m.y);
  for (int k = 1; k <= s.b; ++k)
    for (const auto& dirs : groups) {
      const StepCounts c = step_counts(m.x, k, dirs);
      out.push_back(stream_phase(l, P * std::max(c.send, c.recv), P, hx));
    }
  const long long row = max_row_window(m.x, s.b) * P;
  for (int k = 1; k <= s.b; ++k)
    for (const auto& dirs : groups) {
      const StepCounts c = step_counts(m.y, k, dirs);
      out.push_back(stream_phase(l, row * std::max(c.send, c.recv), row, hy));
    }
}

void neighbour_swap(const ScheduleSpec& s, const Lat& l, std::vector<long long>& out) {
  const MeshMap m(s.grid, s.wrap);
  for (const RingMap* r : {&m.x, &m.y}) {
    // Mirrors the builder's pairing: even starts, odd starts, then the wrap pair of an odd periodic ring.
    std::vector<std::vector<int>> phases(2);
    for (int i = 0; i < r->n; ++i)
      if (r->step(i, 1) >= 0 && !(r->wrap && r->n % 2 == 1 && i == r->n - 1)) phases[i % 2].push_back(i);
    if (r->wrap && r->n % 2 == 1) phases.push_back({r->n - 1});
    for (const auto& starts : phases) {
      if (starts.empty()) continue;
      int hops = 0;
      for (int i : starts) hops = std::max(hops, std::abs(r->physical(r->step(i, 1)) - r->physical(i)));
      const int copies = s.wrap ? 2 : 1;  // with wrap each direction has its own phase
      for (int c = 0; c < copies; ++c) out.push_back(stream_phase(l, s.words, s.words, hops));
    }
  }
}

// Cycles after the phase start at which word w of a fold chain of `len` PEs reaches the next router's queue.
long long chain_arrival(const Lat& l, long long op, int len, int w) {
  return w + l.ramp + l.hop + static_cast<long long>(len - 1) * (2 * l.ramp + l.hop + op);
}

// One fold phase: chains of lengths a and b (0 = none) meet at a PE that folds both; returns the phase time.
long long fold_phase(const Lat& l, long long op, int a, int b, int words) {
  std::vector<long long> arrive;
  for (int len : {a, b})
    if (len > 0)
      for (int w = 0; w < words; ++w) arrive.push_back(chain_arrival(l, op, len, w));
  const int inputs = (a > 0) + (b > 0);
  if (arrive.empty()) return 0;  // a lone PE folds nothing
  // The meeting PE's ramp delivers one word per cycle, oldest first.
  std::sort(arrive.begin(), arrive.end());
  long long t = -1;
  for (std::size_t k = 0; k < arrive.size(); k += l.ramp_bw) t = std::max(t + 1, arrive[k]);
  return t + l.ramp + inputs * op;
}

void reduction(const ScheduleSpec& s, const HardwareSpec& hw, const Lat& l, std::vector<long long>& out) {
  const Grid& g = s.grid;
  const long long op =
      static_cast<long long>(std::ceil(s.op == ReduceOp::Sum ? hw.compute.fadd : hw.compute.fminmax));
  const int cx = reduction_root_x(g), cy = reduction_root_y(g);
  out.push_back(fold_phase(l, op, cx, g.width - 1 - cx, s.words));
  out.push_back(fold_phase(l, op, cy, g.height - 1 - cy, s.words));
  if (g.size() > 1) {
    const int dist = std::max(cx, g.width - 1 - cx) + std::max(cy, g.height - 1 - cy);
    out.push_back(stream_phase(l, s.words, s.words, dist));
  }
}

}  // namespace

ScheduleCost model_schedule(const ScheduleSpec& spec, const HardwareSpec& hw) {
  validate_spec(spec);
  const Lat l{hw.ramp_latency_cycles, hw.hop_latency_cycles, hw.ramp_wavelets_per_cycle,
              hw.link_wavelets_per_cycle};
  ScheduleCost c;
  switch (spec.kind) {
    case ScheduleKind::WindowMulticast:
      window_multicast(spec, l, c.phase_cycles);
      break;
    case ScheduleKind::NeighbourSwap:
      neighbour_swap(spec, l, c.phase_cycles);
      break;
    case ScheduleKind::Reduction:
      reduction(spec, hw, l, c.phase_cycles);
      break;
  }
  for (long long p : c.phase_cycles) c.cycles += p;
  if (!c.phase_cycles.empty())
    c.cycles += static_cast<long long>(c.phase_cycles.size() - 1) * hw.phase_sync_cycles;
  c.seconds = static_cast<double>(c.cycles) / hw.clock_hz;
  return c;
}

std::vector<long long> model_slot_landing(const ScheduleSpec& spec, const HardwareSpec& hw) {
  const ScheduleCost cost = model_schedule(spec, hw);
  if (spec.kind != ScheduleKind::WindowMulticast) {
    const int slots = spec.kind == ScheduleKind::NeighbourSwap ? 4 * spec.words : ReduceSlots * spec.words;
    return std::vector<long long>(slots, cost.cycles);
  }
  const int b = spec.b, P = spec.words;
  std::vector<long long> land(static_cast<std::size_t>((2 * b + 1) * (2 * b + 1) * P), -1);
  // Phase order of the builder: horizontal k = 1..b, then vertical; with wrap one direction per phase.
  const std::vector<std::vector<int>> groups =
      spec.wrap ? std::vector<std::vector<int>>{{+1}, {-1}} : std::vector<std::vector<int>>{{+1, -1}};
  long long end = 0;
  std::size_t phase = 0;
  for (int stage = 0; stage < 2; ++stage)
    for (int k = 1; k <= b; ++k)
      for (const auto& dirs : groups) {
        if (phase > 0) end += hw.phase_sync_cycles;
        end += cost.phase_cycles[phase++];
        const long long s = static_cast<long long>(dirs.size());  // streams the receiving ramp interleaves
        const int m = stage == 0 ? P : (2 * b + 1) * P;           // words per stream
        for (int dir : dirs)
          for (int j = 0; j < m; ++j) {
            // A payload sent dir-ward from k steps behind lands at offset -dir·k.
            const int dx = stage == 0 ? -dir * k : j / P - b, dy = stage == 0 ? 0 : -dir * k;
            if (dx == 0 && dy == 0) continue;
            land[window_slot(b, P, dx, dy, j % P)] =
                end - s * (m - 1 - j) / static_cast<long long>(hw.ramp_wavelets_per_cycle);
          }
      }
  return land;
}

}  // namespace wmd::fabric
