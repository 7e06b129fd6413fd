// PE programs: instruction costs, the merged schedule of a program's communication steps, and the critical
// path walk the simulator and the model share.
#include "fabric/pe_program.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fabric/schedules/schedules.hpp"

namespace wmd::fabric {

double op_cycles(OpClass op, const ComputeCycles& c) {
  switch (op) {
    case OpClass::Fadd:
      return c.fadd;
    case OpClass::Fmul:
      return c.fmul;
    case OpClass::Fma:
      return c.fma;
    case OpClass::Fminmax:
      return c.fminmax;
    case OpClass::Fdiv:
      return c.fdiv;
    case OpClass::Fsqrt:
      return c.fsqrt;
    case OpClass::MemWord:
      return c.mem_word;
    case OpClass::FpToInt:
      return c.fp_to_int;
    case OpClass::IntOp:
      return c.int_op;
    case OpClass::LoopIteration:
      return c.loop_iteration;
    case OpClass::TaskActivation:
      return c.task_activation;
    case OpClass::LandWord:
      return c.land_word;
    case OpClass::SendWord:
      return c.send_word;
  }
  return 0;
}

double instr_cycles(const std::vector<Instr>& seq, const ComputeCycles& c) {
  double t = 0;
  for (const Instr& i : seq) {
    const double one = op_cycles(i.op, c);
    const bool control = i.op == OpClass::LoopIteration || i.op == OpClass::TaskActivation ||
                         i.op == OpClass::LandWord || i.op == OpClass::SendWord;
    if (i.elements <= 0 || control)
      t += i.count * one;
    else if (i.gather)  // scalar per element, each gathered word stored for the vector operations
      t += static_cast<double>(i.count) * i.elements * (one + (i.op == OpClass::MemWord ? c.mem_word : 0.0));
    else if (i.op == OpClass::MemWord)  // a DSD operand or destination of the vector operation
      continue;
    else
      t += i.count * (c.vector_issue + std::ceil(i.elements / c.vector_elements_per_cycle) * one);
  }
  return t;
}

void check_program(const PeProgram& p) {
  const int T = static_cast<int>(p.tasks.size());
  auto fail = [&](const std::string& m) { throw std::logic_error("PE program '" + p.name + "': " + m); };
  if (T == 0) fail("no tasks");
  if (p.item_offset.size() < 2 || (p.item_offset.size() - 1) % T != 0)
    fail("item offsets are not classes x tasks + 1");
  if (!p.pe_class.empty() && p.pe_class.size() != static_cast<std::size_t>(p.grid.size()))
    fail("pe_class does not cover the grid");
  for (std::int32_t k : p.pe_class)
    if (k < 0 || k >= p.classes()) fail("pe_class names a class that has no items");
  const int A = static_cast<int>(p.activities.size()), C = static_cast<int>(p.comms.size());
  for (int t = 0; t < T; ++t) {
    const TaskSpec& s = p.tasks[t];
    if (s.activity < 0 || s.activity >= A) fail("task " + s.name + " has no activity");
    if (s.after < -1 || s.after >= T || s.after == t) fail("task " + s.name + " follows a bad task");
    if (s.wait_comm < -1 || s.wait_comm >= C) fail("task " + s.name + " waits on a bad comm");
  }
  for (const CommStep& c : p.comms) {
    if (c.activity < 0 || c.activity >= A) fail("a comm has no activity");
    if (c.gate < -1 || c.gate >= T) fail("a comm is gated by a bad task");
    if (c.spec.grid.width != p.grid.width || c.spec.grid.height != p.grid.height || c.spec.wrap != p.wrap)
      fail("a comm runs on another mesh");
  }
  for (const TaskItem& it : p.items)
    if (it.cycles < 0 || it.comm < -1 || it.comm >= C || (it.comm >= 0 && it.slot < 0))
      fail("an item is malformed");
}

MergedSchedule merge_comms(const PeProgram& p) {
  check_program(p);
  MergedSchedule m;
  Schedule& out = m.schedule;
  out.name = p.name;
  out.spec.kind = ScheduleKind::WindowMulticast;
  out.spec.grid = p.grid;
  out.spec.wrap = p.wrap;
  out.spec.words = 1;
  out.map = MeshMap(p.grid, p.wrap);
  std::vector<Schedule> parts;
  std::vector<int> color_base;
  int colors = 0;
  for (const CommStep& c : p.comms) {
    parts.push_back(build_schedule(c.spec));
    const Schedule& s = parts.back();
    // Schedules built on the same map route their links identically (LinkColors), so they share colors.
    int base = -1;
    for (std::size_t i = 0; i + 1 < parts.size() && base < 0; ++i)
      if (parts[i].routes.colors == s.routes.colors && parts[i].routes.rx == s.routes.rx &&
          parts[i].routes.tx == s.routes.tx)
        base = color_base[i];
    if (base < 0) {
      base = colors;
      colors += s.routes.colors;
    }
    color_base.push_back(base);
    out.spec.words = std::max(out.spec.words, c.spec.words);
    if (c.spec.kind == ScheduleKind::Reduction) out.spec.op = c.spec.op;
  }
  out.routes = RouteTable(p.grid, std::max(colors, 1));
  int slots = 0;
  for (std::size_t c = 0; c < parts.size(); ++c) {
    const Schedule& s = parts[c];
    for (int pe = 0; pe < p.grid.size(); ++pe)
      for (int col = 0; col < s.routes.colors; ++col) {
        const std::size_t to = static_cast<std::size_t>(pe) * out.routes.colors + color_base[c] + col;
        out.routes.rx[to] |= s.routes.rx_mask(pe, col);
        out.routes.tx[to] |= s.routes.tx_mask(pe, col);
      }
    m.slot_base.push_back(slots);
    for (Phase ph : s.phases) {
      for (Stream& st : ph.streams)
        if (st.color >= 0) st.color = static_cast<std::int16_t>(st.color + color_base[c]);
      for (SendItem& it : ph.items) {
        if (it.dst_slot >= 0) it.dst_slot += slots;
        if (it.kind == ItemKind::Slot) it.a += slots;
      }
      for (FoldSpec& f : ph.folds) {
        if (f.base >= 0) f.base += slots;
        if (f.local_slot >= 0) f.local_slot += slots;
      }
      for (std::int32_t& in : ph.fold_inputs) in += slots;
      out.phases.push_back(std::move(ph));
      m.comm_of_phase.push_back(static_cast<int>(c));
    }
    slots += s.slots_per_pe;
  }
  out.slots_per_pe = slots;
  return m;
}

namespace {

struct Walker {
  const PeProgram& p;
  const std::vector<CommTiming>& comms;
  const std::vector<TaskTiming>& timing;
  std::vector<PathSegment> path;
  int T;

  void add(int activity, long long a, long long b) {
    if (b > a) path.push_back({activity, a, b});
  }
  const TaskTiming& tt(int unit, int t) const { return timing[static_cast<std::size_t>(unit) * T + t]; }

  // The comm `c` holds the path until `until`.
  void comm(int c, long long until) {
    const CommTiming& ct = comms[c];
    const long long from = std::max(ct.start, ct.gate);
    add(p.comms[c].activity, from, until);
    if (ct.gate > ct.start && ct.gate_unit >= 0)
      task(ct.gate_unit, p.comms[c].gate, ct.gate);
    else if (c > 0)
      comm(c - 1, std::min(comms[c - 1].end, from));
  }

  // Task `t` of `unit` holds the path until `until`.
  void task(int unit, int t, long long until) {
    const TaskTiming& x = tt(unit, t);
    if (x.data_wait > x.start && x.data_wait <= until && x.data_comm >= 0) {
      add(p.tasks[t].activity, x.data_wait, until);
      comm(x.data_comm, x.data_wait);
      return;
    }
    add(p.tasks[t].activity, x.start, until);
    if (x.start <= 0) return;
    const TaskSpec& s = p.tasks[t];
    if (s.after >= 0 && tt(unit, s.after).end == x.start) return task(unit, s.after, x.start);
    for (int k = 0; k < T; ++k)  // the core was busy with another task until then
      if (k != t && tt(unit, k).end == x.start && tt(unit, k).start < x.start) return task(unit, k, x.start);
    if (s.wait_comm >= 0 && comms[s.wait_comm].end == x.start) return comm(s.wait_comm, x.start);
    if (x.first_comm >= 0) return comm(x.first_comm, x.start);
  }
};

}  // namespace

std::vector<PathSegment> critical_path(const PeProgram& p, const std::vector<CommTiming>& comms,
                                       const std::vector<TaskTiming>& timing, int end_unit, int end_task,
                                       long long total) {
  Walker w{p, comms, timing, {}, static_cast<int>(p.tasks.size())};
  if (end_task >= 0)
    w.task(end_unit, end_task, total);
  else if (!comms.empty())
    w.comm(static_cast<int>(comms.size()) - 1, total);
  std::reverse(w.path.begin(), w.path.end());
  return w.path;
}

}  // namespace wmd::fabric
