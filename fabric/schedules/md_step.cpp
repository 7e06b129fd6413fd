// The MD step as a PE program. LAMMPS's order: drift; the rebuild trigger and its vote; on a rebuild step the
// swaps and the window scan; the positions multicast; the density pass; embedding; the F′ multicast; the
// force pass; the closing half kick. With the local trigger there is no vote: the positions carry a flag
// word that the density pass checks slot by slot, and a rescan step rescans from the PE's references.
// Streaming passes are data tasks that take neighbour k as soon as its
// word has landed; a serial program waits for each multicast's last word, which is the additive account.
#include "fabric/schedules/md_step.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "fabric/cost_model.hpp"
#include "fabric/schedules/schedules.hpp"

namespace wmd::fabric {
namespace {

using I = Instr;
using O = OpClass;

Instr gather(O op, int count) {
  Instr i{op, count};
  i.gather = true;
  return i;
}

// Per-entry and per-atom instruction sequences, scalar forms (docs/fabric.md lists them). Memory words of
// streamed data (window slots, kept distances, list stores) are DSD operands in vector forms; table lookups
// are gathers and stay scalar.
// A candidate: load 3 position words, displacement (3 sub), r² (mul + 2 fma), compare with the cutoff.
const std::vector<Instr> kCandidate = {
    {O::MemWord, 3}, {O::Fadd, 3}, {O::Fmul, 1}, {O::Fma, 2}, {O::Fminmax, 1}};
// The knot interval of r (or ρ̄): x·(1/dx), to an integer and back, the fraction, the clamp to the table.
const std::vector<Instr> kIndex = {gather(O::Fmul, 1), gather(O::FpToInt, 2), gather(O::Fadd, 1),
                                   gather(O::Fminmax, 2)};
// One table's cubic at the interval found: the address, the knot's words, the value and/or the derivative.
void append_eval(std::vector<Instr>& v, TableLayout t, bool value, bool deriv) {
  v.push_back(gather(O::IntOp, 1));
  switch (t) {
    case TableLayout::Spline7:  // value cubic 4 coefficients, derivative cubic 3 (LAMMPS's spline[m][0..6])
      v.push_back(gather(O::MemWord, (value ? 4 : 0) + (deriv ? 3 : 0)));
      if (value) v.push_back({O::Fma, 3});
      if (deriv) v.push_back({O::Fma, 2});
      return;
    case TableLayout::Spline4:  // the derivative from the value cubic: (3d·p + 2c)·p + b, times 1/dx
      v.push_back(gather(O::MemWord, value ? 4 : 3));
      break;
    case TableLayout::Hermite2:  // f0, f0', f1, f1': Δ, c = 3Δ − 2f0' − f1', d = f0' + f1' − 2Δ
      v.push_back(gather(O::MemWord, 4));
      v.push_back({O::Fadd, 3});
      v.push_back({O::Fmul, 1});
      v.push_back({O::Fma, 2});
      break;
  }
  if (value) v.push_back({O::Fma, 3});
  if (deriv) {
    v.push_back({O::Fmul, 3});
    v.push_back({O::Fma, 2});
  }
}
std::vector<Instr> join(std::initializer_list<std::vector<Instr>> parts) {
  std::vector<Instr> v;
  for (const auto& p : parts) v.insert(v.end(), p.begin(), p.end());
  return v;
}
// Density of a pair: sqrt, the interval, ρ(r), the sum (Newton: the neighbour's share too, and its store);
// with kept distances the displacement, r and the interval are stored for the force pass.
std::vector<Instr> density_pair(const MdStepSpec& s) {
  std::vector<Instr> v = join({{{O::Fsqrt, 1}}, kIndex});
  append_eval(v, s.table_layout, true, false);
  v.push_back({O::Fadd, 1});
  if (s.newton) v.insert(v.end(), {{O::Fadd, 1}, {O::MemWord, 1}});
  if (s.keep_distances) v.push_back({O::MemWord, 6});
  return v;
}
// Force of a pair: r, 1/r and the interval (recomputed, or read back when kept); ρ′ (once for one species,
// ρ′_i and ρ′_j otherwise); z2r and z2r′; the neighbour's F′; ψ′, φ, φ′, fpair and the three components
// (Newton: the neighbour's share, three adds and stores).
std::vector<Instr> force_pair(const MdStepSpec& s) {
  std::vector<Instr> v;
  if (s.keep_distances)
    v = {{O::MemWord, 6}, {O::Fdiv, 1}};
  else
    v = join({{{O::Fsqrt, 1}, {O::Fdiv, 1}}, kIndex});
  append_eval(v, s.table_layout, false, true);
  if (!s.one_species) append_eval(v, s.table_layout, false, true);
  append_eval(v, s.table_layout, true, true);
  v.push_back({O::MemWord, 1});
  if (s.one_species)
    v.insert(v.end(), {{O::Fadd, 1}, {O::Fmul, 1}});
  else
    v.insert(v.end(), {{O::Fmul, 1}, {O::Fma, 1}});
  v.insert(v.end(), {{O::Fmul, 2}, {O::Fma, 1}, {O::Fadd, 1}, {O::Fmul, 1}, {O::Fma, 3}});
  if (s.newton) v.insert(v.end(), {{O::Fadd, 3}, {O::MemWord, 3}});
  return v;
}
// Embedding of the own atom: the interval of ρ̄, F and F′.
std::vector<Instr> embed_seq(const MdStepSpec& s) {
  std::vector<Instr> v = kIndex;
  append_eval(v, s.table_layout, true, true);
  v.push_back({O::Fadd, 1});
  return v;
}
// Velocity Verlet: half kick and drift before the step's exchanges, the closing half kick after the force.
const std::vector<Instr> kDrift = {{O::Fma, 6}, {O::MemWord, 10}};
const std::vector<Instr> kKick = {{O::Fma, 3}, {O::MemWord, 5}};
// Rebuild trigger: displacement since the last build (3 sub, 3 fma) and a compare.
const std::vector<Instr> kTrigger = {{O::Fadd, 3}, {O::Fma, 3}, {O::Fminmax, 1}};
// Window scan per slot: a candidate plus the periodic-shift choice (3 compares); per kept entry a list store.
const std::vector<Instr> kScanExtra = {{O::Fminmax, 3}};
const std::vector<Instr> kListStore = {{O::MemWord, 2}};
// Local trigger: each window slot's flag word, loaded and folded into the PE's "rescan" flag as it lands.
const std::vector<Instr> kFlagCheck = {{O::MemWord, 1}, {O::Fminmax, 1}};
// Newton variant: each reverse-sum word received is folded in.
const std::vector<Instr> kFold = {{O::MemWord, 1}, {O::Fadd, 1}};
// A received word lands in memory and, in the systolic multicast, is sent on: as many words leave a PE as
// land there (4b(b+1) per payload word), so each landed word is charged one landing and one send.
const std::vector<Instr> kWire = {{O::LandWord, 1}, {O::SendWord, 1}};

std::int32_t cycles_of(const std::vector<Instr>& seq, const ComputeCycles& c, double times = 1) {
  return static_cast<std::int32_t>(std::ceil(times * instr_cycles(seq, c)));
}

std::uint32_t mix(std::uint32_t x) {  // a fixed integer hash: the same jitter on every machine
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

struct Offset {
  int dx, dy;
};

// The per-entry sequences of the passes, indexed in a pass unit's counts.
enum Seq : int { SeqCandidate = 0, SeqDensity, SeqForce, SeqScan, SeqFlag, SeqFold, SeqWire, kSeqs };

// The Newton variant's half window: the PE computes pairs with these offsets; the rest it receives back.
bool in_half(int dx, int dy) {
  return dy > 0 || (dy == 0 && dx > 0);
}

}  // namespace

namespace {

// Without wrap a PE near the mesh edge has fewer window slots: its counts are clipped to them.
void clip_to_window(MdStepSpec& s) {
  if (s.wrap) return;
  for (int pe = 0; pe < s.grid.size(); ++pe) {
    const int i = pe % s.grid.width, j = pe / s.grid.width;
    const int have = (std::min(i, s.b) + std::min(s.grid.width - 1 - i, s.b) + 1) *
                         (std::min(j, s.b) + std::min(s.grid.height - 1 - j, s.b) + 1) -
                     1;
    s.candidates[pe] = std::min(s.candidates[pe], have);
    s.in_cut[pe] = std::min(s.in_cut[pe], s.candidates[pe]);
  }
}

}  // namespace

void uniform_neighbours(MdStepSpec& s, int candidates, int in_cut) {
  s.candidates.assign(s.grid.size(), candidates);
  s.in_cut.assign(s.grid.size(), in_cut);
  clip_to_window(s);
}

void synthetic_neighbours(MdStepSpec& s, double fraction, double in_cut_fraction) {
  const double window = (2.0 * s.b + 1) * (2.0 * s.b + 1) - 1;
  const int base = static_cast<int>(std::lround(fraction * window));
  s.candidates.resize(s.grid.size());
  s.in_cut.resize(s.grid.size());
  for (int pe = 0; pe < s.grid.size(); ++pe) {
    const int c = std::max(0, base + static_cast<int>(mix(static_cast<std::uint32_t>(pe) + 1u) % 5u) - 2);
    s.candidates[pe] = c;
    s.in_cut[pe] = static_cast<int>(std::lround(in_cut_fraction * c));
  }
  clip_to_window(s);
}

PeProgram build_md_step(const MdStepSpec& s, const HardwareSpec& hw) {
  const Grid& g = s.grid;
  if (s.candidates.size() != static_cast<std::size_t>(g.size()) || s.in_cut.size() != s.candidates.size())
    throw std::logic_error("build_md_step: neighbour counts must cover every PE");
  const ComputeCycles& k = hw.compute;
  PeProgram p;
  p.name = std::string(s.rebuild ? "md_step_rebuild" : "md_step") + (s.newton ? "_newton" : "");
  p.grid = g;
  p.wrap = s.wrap;
  p.activities = {"multicast_positions", "multicast_fp", "reductions",  "swap",    "density",
                  "embedding",           "force",        "integration", "rebuild", "reverse_sums"};

  // Tasks, in priority order; rebuild-only tasks exist only on rebuild steps.
  auto task = [&](const char* name, int activity, int after, int wait_comm) {
    p.tasks.push_back({name, activity, after, wait_comm});
    return static_cast<int>(p.tasks.size()) - 1;
  };
  auto comm = [&](ScheduleKind kind, int words, ReduceOp op, int activity, int gate) {
    CommStep c;
    c.spec = ScheduleSpec{kind, g, s.b, words, s.wrap, op};
    c.activity = activity;
    c.gate = gate;
    p.comms.push_back(c);
    return static_cast<int>(p.comms.size()) - 1;
  };
  const int drift = task("drift", ActIntegration, -1, -1);
  const int trigger = task("rebuild_trigger", ActRebuild, drift, -1);
  if (s.vote && !s.local_trigger) comm(ScheduleKind::Reduction, 1, ReduceOp::Max, ActReductions, trigger);
  int swap = -1, swap_compare = -1, scan = -1;
  if (s.rebuild) {
    swap = comm(ScheduleKind::NeighbourSwap, s.swap_words, ReduceOp::Sum, ActSwap, trigger);
    swap_compare = task("swap_compare", ActRebuild, trigger, swap);
  }
  // The local trigger's positions carry a flag word; a rescan reads the references the PE keeps, so no
  // 5-word scan multicast is needed.
  const int pos_words =
      s.local_trigger ? s.position_words + 1 : (s.rebuild ? s.scan_words : s.position_words);
  const int positions = comm(ScheduleKind::WindowMulticast, pos_words, ReduceOp::Sum, ActPositions,
                             s.rebuild ? swap_compare : drift);
  if (s.rebuild) scan = task("window_scan", ActRebuild, swap_compare, s.streaming ? -1 : positions);
  const int density = task("density", ActDensity, s.rebuild ? scan : trigger, s.streaming ? -1 : positions);
  // Newton: the partial densities go back once the pass has ended; their sum precedes the embedding.
  int rho_back = -1, rho_sum = -1, f_back = -1, f_sum = -1;
  if (s.newton) {
    rho_back = comm(ScheduleKind::WindowMulticast, 1, ReduceOp::Sum, ActReverse, density);
    rho_sum = task("density_sum", ActDensity, density, s.streaming ? -1 : rho_back);
  }
  const int embed = task("embedding", ActEmbedding, s.newton ? rho_sum : density, -1);
  const int fp = comm(ScheduleKind::WindowMulticast, s.fp_words, ReduceOp::Sum, ActFp, embed);
  const int force = task("force", ActForce, embed, s.streaming ? -1 : fp);
  if (s.newton) {
    f_back = comm(ScheduleKind::WindowMulticast, 3, ReduceOp::Sum, ActReverse, force);
    f_sum = task("force_sum", ActForce, force, s.streaming ? -1 : f_back);
  }
  task("kick", ActIntegration, s.newton ? f_sum : force, -1);

  // Window offsets in the order their words land at an interior PE (ties: row-major).
  const ScheduleSpec pos_spec = p.comms[positions].spec;
  const std::vector<long long> land = model_slot_landing(pos_spec, hw);
  std::vector<Offset> by_landing;
  for (int dy = -s.b; dy <= s.b; ++dy)
    for (int dx = -s.b; dx <= s.b; ++dx)
      if (dx || dy) by_landing.push_back({dx, dy});
  auto land_of = [&](const Offset& o) {
    return land[window_slot(s.b, pos_words, o.dx, o.dy, pos_words - 1)];
  };
  std::stable_sort(by_landing.begin(), by_landing.end(),
                   [&](const Offset& a, const Offset& b) { return land_of(a) < land_of(b); });
  // Nearest first (ties in landing order) picks a PE's entries.
  std::vector<Offset> by_distance = by_landing;
  std::stable_sort(by_distance.begin(), by_distance.end(), [](const Offset& a, const Offset& b) {
    return a.dx * a.dx + a.dy * a.dy < b.dx * b.dx + b.dy * b.dy;
  });

  // PE classes: equal counts and equal window clipping give equal items.
  const MeshMap map(g, s.wrap);
  std::map<std::array<int, 6>, int> class_of;
  p.pe_class.assign(g.size(), 0);
  std::vector<std::array<int, 6>> keys;
  for (int pe = 0; pe < g.size(); ++pe) {
    const int lpe = map.logical_pe(pe), i = lpe % g.width, j = lpe / g.width;
    if (s.in_cut[lpe] < 0 || s.in_cut[lpe] > s.candidates[lpe])
      throw std::logic_error("build_md_step: in-cut entries must be 0..candidates");
    std::array<int, 6> key{s.candidates[lpe], s.in_cut[lpe], 0, 0, 0, 0};
    if (!s.wrap)
      key = {s.candidates[lpe], s.in_cut[lpe],
             std::min(i, s.b),  std::min(g.width - 1 - i, s.b),
             std::min(j, s.b),  std::min(g.height - 1 - j, s.b)};
    else
      key[2] = key[3] = key[4] = key[5] = s.b;
    auto it = class_of.find(key);
    if (it == class_of.end()) {
      it = class_of.emplace(key, static_cast<int>(keys.size())).first;
      keys.push_back(key);
    }
    p.pe_class[pe] = it->second;
  }

  // Per-entry sequences. Scalar forms cost n times one entry; vector forms (when the group's candidates are
  // cheaper in DSD form on this preset, and the program allows groups) take, sequence by sequence, the
  // cheaper of one instruction per operation over the group's n elements and n scalar entries.
  std::vector<Instr> scan_seq = kCandidate;
  scan_seq.insert(scan_seq.end(), kScanExtra.begin(), kScanExtra.end());
  const std::vector<Instr> density_seq = density_pair(s), force_seq = force_pair(s);
  const std::array<const std::vector<Instr>*, kSeqs> seqs = {&kCandidate, &density_seq, &force_seq, &scan_seq,
                                                             &kFlagCheck, &kFold,       &kWire};
  auto vector_form = [](const std::vector<Instr>& seq, int n) {
    std::vector<Instr> v = seq;
    for (Instr& i : v) i.elements = n;
    return v;
  };
  const int want = std::max(1, s.vector_group);
  const bool vec = want > 1 && instr_cycles(vector_form(kCandidate, want), k) <
                                   want * std::ceil(instr_cycles(kCandidate, k));
  const int group = vec ? want : 1;
  auto seq_cycles = [&](int q, int n) -> std::int32_t {
    if (n <= 0) return 0;
    const std::int32_t scalar = n * cycles_of(*seqs[q], k);
    if (!vec) return scalar;
    return std::min(scalar, static_cast<std::int32_t>(std::ceil(instr_cycles(vector_form(*seqs[q], n), k))));
  };
  // Each item is one loop iteration (an entry, or a vector group); a data item also wakes its task.
  const std::int32_t loop_cycles = cycles_of({{O::LoopIteration, 1}}, k);
  const std::int32_t wake_cycles = cycles_of({{O::TaskActivation, 1}}, k);
  ProgramBuilder pb(p);
  for (const auto& key : keys) {
    const int cand = key[0], in_cut = key[1];
    auto exists = [&](const Offset& o) {
      return -key[2] <= o.dx && o.dx <= key[3] && -key[4] <= o.dy && o.dy <= key[5];
    };
    std::vector<Offset> entries;  // nearest first
    for (const Offset& o : by_distance)
      if (exists(o) && static_cast<int>(entries.size()) < cand) entries.push_back(o);
    if (static_cast<int>(entries.size()) < cand)
      throw std::logic_error("build_md_step: more neighbour entries than the window holds at a PE");
    // Newton: of the PE's entries, the half of its pairs it computes (the nearest in its half window; an
    // edge PE with fewer such slots computes what it has, its other pairs fall to their other PEs).
    int kept = cand, kept_cut = in_cut;
    if (s.newton) {
      const int want_half = (cand + 1) / 2, want_cut = (in_cut + 1) / 2;
      entries.clear();
      kept_cut = 0;
      for (const Offset& o : by_distance)
        if (exists(o) && in_half(o.dx, o.dy) && static_cast<int>(entries.size()) < want_half)
          entries.push_back(o);
      kept = static_cast<int>(entries.size());
      kept_cut = std::min(kept, want_cut);
    }
    std::vector<char> near(by_landing.size(), 0), cut(by_landing.size(), 0);
    for (int e = 0; e < kept; ++e)
      for (std::size_t q = 0; q < by_landing.size(); ++q)
        if (by_landing[q].dx == entries[e].dx && by_landing[q].dy == entries[e].dy)
          near[q] = 1, cut[q] = e < kept_cut;
    // One unit of pass work: the word it waits for (comm -1: none) and how many times each per-entry
    // sequence runs on it. Units are emitted one item each (scalar forms) or in groups of `vec_group`
    // (vector forms: one instruction per operation over the group, waiting for the group's last word).
    struct Unit {
      std::int32_t comm = -1, slot = -1;
      std::array<int, kSeqs> n{};
    };
    std::vector<Unit> units;
    auto emit = [&]() {
      for (std::size_t u0 = 0; u0 < units.size(); u0 += static_cast<std::size_t>(group)) {
        const std::size_t u1 = std::min(units.size(), u0 + static_cast<std::size_t>(group));
        std::array<int, kSeqs> n{};
        TaskItem it;
        for (std::size_t u = u0; u < u1; ++u) {
          for (int q = 0; q < kSeqs; ++q) n[q] += units[u].n[q];
          if (units[u].comm >= 0) it.comm = units[u].comm, it.slot = units[u].slot;
        }
        for (int q = 0; q < kSeqs; ++q) it.cycles += seq_cycles(q, n[q]);
        it.cycles += loop_cycles + (it.comm >= 0 ? wake_cycles : 0);
        pb.add(it);
      }
      units.clear();
    };
    auto waits = [&](int c, int words, const Offset& o, Unit u) {
      if (s.streaming) u.comm = c, u.slot = window_slot(s.b, words, o.dx, o.dy, words - 1);
      return u;
    };
    auto unit = [](std::initializer_list<std::pair<int, int>> counts) {
      Unit u;
      for (const auto& [q, m] : counts) u.n[q] = m;
      return u;
    };
    // Words of the slots no entry waits for: landed and sent on, charged as one item at the pass's end.
    auto wire_lump = [&](int words, auto other) {
      int slots = 0;
      for (std::size_t q = 0; q < by_landing.size(); ++q) slots += exists(by_landing[q]) && other(q);
      if (slots > 0) pb.add({-1, -1, cycles_of(kWire, k, static_cast<double>(slots) * words)});
    };
    for (std::size_t t = 0; t < p.tasks.size(); ++t) {
      pb.next_task();
      const int ti = static_cast<int>(t);
      if (ti == drift) pb.add({-1, -1, cycles_of(kDrift, k)});
      if (ti == trigger) pb.add({-1, -1, cycles_of(kTrigger, k)});
      if (ti == swap_compare)  // four phases, each a key compare and the record kept or replaced
        pb.add({-1, -1, cycles_of({{O::Fminmax, 8}, {O::MemWord, 4 * s.swap_words}}, k)});
      if (ti == scan) {
        for (const Offset& o : by_landing)
          if (exists(o))
            units.push_back(waits(positions, pos_words, o, unit({{SeqScan, 1}, {SeqWire, pos_words}})));
        emit();
        if (kept > 0) pb.add({-1, -1, cycles_of(kListStore, k, kept)});
      }
      if (ti == density) {
        for (std::size_t q = 0; q < by_landing.size(); ++q) {
          const Offset& o = by_landing[q];
          if (s.rebuild) {  // after a scan the window is already here: no waits
            if (near[q]) units.push_back(unit({{SeqCandidate, 1}, {SeqDensity, cut[q]}}));
          } else if (exists(o) && (s.local_trigger || near[q])) {  // with the flag, every slot waits
            units.push_back(waits(positions, pos_words, o,
                                  unit({{SeqFlag, s.local_trigger ? 1 : 0},
                                        {SeqCandidate, near[q]},
                                        {SeqDensity, cut[q]},
                                        {SeqWire, pos_words}})));
          }
        }
        emit();
        // The other slots' words land and are sent on too; nothing waits for them.
        if (!s.rebuild && !s.local_trigger) wire_lump(pos_words, [&](std::size_t q) { return !near[q]; });
      }
      if (ti == force) {
        // Entries outside the cutoff need no F′: they go first (with kept distances the density pass has
        // already left them out), then every slot's F′ as it lands, in-cut pairs with their force.
        if (!s.keep_distances)
          for (std::size_t q = 0; q < by_landing.size(); ++q)
            if (near[q] && !cut[q]) units.push_back(unit({{SeqCandidate, 1}}));
        emit();
        const int recheck = s.keep_distances ? 0 : 1;
        for (std::size_t q = 0; q < by_landing.size(); ++q)
          if (near[q] && cut[q])
            units.push_back(waits(fp, s.fp_words, by_landing[q],
                                  unit({{SeqCandidate, recheck}, {SeqForce, 1}, {SeqWire, s.fp_words}})));
        emit();
        wire_lump(s.fp_words, [&](std::size_t q) { return !(near[q] && cut[q]); });
      }
      if (ti == rho_sum || ti == f_sum) {  // the words of the other half's PEs, folded in as they land
        const int c = ti == rho_sum ? rho_back : f_back, words = ti == rho_sum ? 1 : 3;
        for (const Offset& o : by_landing)
          if (exists(o) && !in_half(o.dx, o.dy))
            units.push_back(waits(c, words, o, unit({{SeqFold, words}})));
        emit();
        wire_lump(words, [&](std::size_t q) { return !in_half(by_landing[q].dx, by_landing[q].dy); });
      }
      if (ti == embed) pb.add({-1, -1, cycles_of(embed_seq(s), k)});
      if (ti == static_cast<int>(p.tasks.size()) - 1) pb.add({-1, -1, cycles_of(kKick, k)});
    }
  }
  pb.finish();
  check_program(p);
  return p;
}

int table_words_per_point(TableLayout t) {
  switch (t) {
    case TableLayout::Spline7:
      return 7;
    case TableLayout::Spline4:
      return 4;
    case TableLayout::Hermite2:
      return 2;
  }
  return 7;
}

const char* table_layout_name(TableLayout t) {
  switch (t) {
    case TableLayout::Spline7:
      return "spline7";
    case TableLayout::Spline4:
      return "spline4";
    case TableLayout::Hermite2:
      return "hermite2";
  }
  return "spline7";
}

PeMemory md_step_memory(const MdStepSpec& s, const HardwareSpec& hw) {
  constexpr long long kWord = 4;
  PeMemory m;
  // Code: the runtime's reserve, then every instruction of the program once (each pass is a loop over its
  // entries; vector forms are one instruction per operation, as the scalar ones), and per task a prologue.
  long long instructions = 0;
  auto count = [&](const std::vector<Instr>& seq) {
    for (const Instr& i : seq) instructions += i.count;
  };
  std::vector<Instr> scan_seq = kCandidate;
  scan_seq.insert(scan_seq.end(), kScanExtra.begin(), kScanExtra.end());
  for (const auto& seq : {kCandidate, density_pair(s), force_pair(s), embed_seq(s), kDrift, kKick, kTrigger,
                          scan_seq, kListStore, kFlagCheck, kFold, kWire})
    count(seq);
  constexpr long long kTasks = 12, kPrologue = 8;  // the step's tasks and their entry and exit
  instructions += kTasks * kPrologue;
  m.code =
      hw.runtime_bytes_per_pe +
      static_cast<long long>(std::ceil(hw.code_bytes_per_instruction * static_cast<double>(instructions)));
  m.tables = kWord * table_words_per_point(s.table_layout) *
             (static_cast<long long>(s.tables.r_tables) * s.tables.r_points +
              static_cast<long long>(s.tables.rho_tables) * s.tables.rho_points);
  // Receive buffers: the whole window of positions (a rebuild's scan words in the same buffer), of F′, and
  // of the Newton variant's reverse sums (three words), each with the PE's own slot.
  const long long slots = (2LL * s.b + 1) * (2LL * s.b + 1);
  const int pos_words = s.local_trigger ? s.position_words + 1 : s.position_words;
  m.buffers = kWord * slots * (std::max(pos_words, s.scan_words) + s.fp_words + (s.newton ? 3 : 0)) +
              kWord * 4 * s.swap_words;  // the swap's records, one per neighbour
  long long entries = 0, in_cut = 0;
  for (std::size_t pe = 0; pe < s.candidates.size(); ++pe) {
    entries = std::max<long long>(entries, s.candidates[pe]);
    in_cut = std::max<long long>(in_cut, s.in_cut[pe]);
  }
  // An entry: its slot, periodic image and type in one word; kept distances 6 words per in-cut pair.
  m.lists = kWord * entries + (s.keep_distances ? kWord * 6 * in_cut : 0);
  // The own atom: position, velocity and force (fp32 words), reference position, ρ̄, F′, type, id and the
  // rebuild state.
  m.atom = kWord * 20;
  return m;
}

}  // namespace wmd::fabric
