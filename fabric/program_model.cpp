// model_program: the program's PE classes run on a modeled core (the same trigger and item rules as the
// simulator's cores, event by event instead of cycle by cycle), fed with the counted landing times of an
// interior PE; communication step c starts when step c-1 has ended and its gate has ended on every class.
// Steps are resolved in order, each class rerun with the steps known so far, so the cost is
// O(steps × classes × items): milliseconds for a full wafer.
#include <algorithm>
#include <limits>
#include <stdexcept>

#include "fabric/cost_model.hpp"
#include "fabric/program_run.hpp"

namespace wmd::fabric {
namespace {

constexpr long long kUnknown = std::numeric_limits<long long>::max();

struct Model {
  const PeProgram& p;
  int T, K;
  std::vector<std::vector<long long>> rel_land;  // per comm: landing per slot after its effective start
  std::vector<CommTiming> comms;
  std::vector<bool> known;
  std::vector<TaskTiming> timing;

  long long land(int c, int slot) const {
    if (!known[c]) return kUnknown;
    const long long r = rel_land[c][slot];
    if (r < 0) throw std::logic_error("PE program '" + p.name + "': an item waits on a slot never filled");
    return std::max(comms[c].start, comms[c].gate) + r;
  }

  long long activation(int k, int t) const {
    const TaskSpec& s = p.tasks[t];
    long long a = 0;
    if (s.after >= 0) {
      const long long e = timing[static_cast<std::size_t>(k) * T + s.after].end;
      a = std::max(a, e < 0 ? kUnknown : e);
    }
    if (s.wait_comm >= 0) a = std::max(a, known[s.wait_comm] ? comms[s.wait_comm].end : kUnknown);
    const std::int32_t i0 = p.first_item(k, t);
    if (i0 < p.last_item(k, t) && p.items[i0].comm >= 0)
      a = std::max(a, land(p.items[i0].comm, p.items[i0].slot));
    return a;
  }

  // Runs class k's core as far as the known steps allow.
  void run_class(int k) {
    for (int t = 0; t < T; ++t) timing[static_cast<std::size_t>(k) * T + t] = TaskTiming{};
    long long now = 0;
    for (;;) {
      int pick = -1;
      long long soonest = kUnknown;
      for (int t = 0; t < T; ++t) {
        if (timing[static_cast<std::size_t>(k) * T + t].start >= 0) continue;
        const long long a = activation(k, t);
        if (a <= now) {
          pick = t;
          break;
        }
        soonest = std::min(soonest, a);
      }
      if (pick < 0) {
        if (soonest == kUnknown) return;
        now = soonest;
        continue;
      }
      TaskTiming& x = timing[static_cast<std::size_t>(k) * T + pick];
      x.start = now;
      for (std::int32_t i = p.first_item(k, pick); i < p.last_item(k, pick); ++i) {
        const TaskItem& it = p.items[i];
        if (it.comm >= 0) {
          const long long l = land(it.comm, it.slot);
          if (l == kUnknown) return;  // the core holds this task until a later step is resolved
          if (l > now) now = l, x.data_wait = l, x.data_comm = it.comm;
          if (i == p.first_item(k, pick)) x.first_comm = it.comm;
        }
        now += it.cycles;
        x.busy += it.cycles;
      }
      x.end = now;
    }
  }
};

}  // namespace

ProgramTimes model_program(const PeProgram& p, const HardwareSpec& hw) {
  check_program(p);
  Model m{p, static_cast<int>(p.tasks.size()), p.classes(), {}, {}, {}, {}};
  const int C = static_cast<int>(p.comms.size());
  std::vector<long long> duration;
  for (const CommStep& c : p.comms) {
    m.rel_land.push_back(model_slot_landing(c.spec, hw));
    duration.push_back(model_schedule(c.spec, hw).cycles);
  }
  m.comms.assign(C, CommTiming{});
  m.known.assign(C, false);
  m.timing.assign(static_cast<std::size_t>(m.K) * m.T, TaskTiming{});
  for (int c = 0; c <= C; ++c) {
    for (int k = 0; k < m.K; ++k) m.run_class(k);
    if (c == C) break;
    CommTiming& ct = m.comms[c];
    ct.start = c == 0 ? 0 : m.comms[c - 1].end + hw.phase_sync_cycles;
    const int g = p.comms[c].gate;
    if (g >= 0)
      for (int k = 0; k < m.K; ++k) {
        const long long e = m.timing[static_cast<std::size_t>(k) * m.T + g].end;
        if (e < 0) throw std::logic_error("PE program '" + p.name + "': a comm's gate waits on a later comm");
        if (e > ct.gate) ct.gate = e, ct.gate_unit = k;
      }
    ct.end = std::max(ct.start, ct.gate) + duration[c];
    m.known[c] = true;
  }
  ProgramTimes r;
  r.comms = m.comms;
  r.timing = m.timing;
  for (const TaskTiming& x : r.timing)
    if (x.end < 0) throw std::logic_error("PE program '" + p.name + "': a task never runs");
  summarise(p, r, m.K);
  return r;
}

long long additive_cycles(const PeProgram& p, const HardwareSpec& hw) {
  check_program(p);
  long long total = 0;
  for (std::size_t c = 0; c < p.comms.size(); ++c)
    total += model_schedule(p.comms[c].spec, hw).cycles + (c > 0 ? hw.phase_sync_cycles : 0);
  long long busiest = 0;
  for (int k = 0; k < p.classes(); ++k) {
    long long b = 0;
    for (std::size_t t = 0; t < p.tasks.size(); ++t)
      for (std::int32_t i = p.first_item(k, static_cast<int>(t)); i < p.last_item(k, static_cast<int>(t));
           ++i)
        b += p.items[i].cycles;
    busiest = std::max(busiest, b);
  }
  return total + busiest;
}

}  // namespace wmd::fabric
