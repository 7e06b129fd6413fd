// PE cores stepping a program cycle by cycle beside the routers (see pe_cores.hpp).
#include "fabric/pe_cores.hpp"

#include <algorithm>

namespace wmd::fabric {

PeCores::PeCores(const PeProgram& p, const MergedSchedule& m)
    : p_(p),
      m_(m),
      T_(static_cast<int>(p.tasks.size())),
      S_(m.schedule.slots_per_pe),
      A_(static_cast<int>(p.activities.size())) {
  const int n = p.grid.size();
  land_.assign(static_cast<std::size_t>(n) * S_, -1);
  timing_.assign(static_cast<std::size_t>(n) * T_, TaskTiming{});
  CommTiming none;
  none.end = -1;  // not ended yet
  comm_.assign(p.comms.size(), none);
  busy_until_.assign(n, 0);
  free_since_.assign(n, 0);
  busy_.assign(n, 0);
  act_busy_.assign(static_cast<std::size_t>(n) * A_, 0);
  cur_task_.assign(n, -1);
  cur_item_.assign(n, 0);
  tasks_left_ = static_cast<long long>(n) * T_;
  for (int pe = 0; pe < n; ++pe)
    for (int t = 0; t < T_; ++t) {
      const int k = p.class_of(pe);
      const std::int32_t i0 = p.first_item(k, t);
      TaskTiming& x = timing_[static_cast<std::size_t>(pe) * T_ + t];
      if (i0 < p.last_item(k, t) && p.items[i0].comm >= 0) x.first_comm = p.items[i0].comm;
    }
}

void PeCores::begin_phase(int phase, long long cycle) {
  const int c = m_.comm_of_phase[phase];
  if (phase == 0 || m_.comm_of_phase[phase - 1] != c) comm_[c].start = cycle;
  gate_ = p_.comms[c].gate;
}

void PeCores::end_phase(int phase, long long cycle) {
  const int c = m_.comm_of_phase[phase];
  const bool last =
      phase + 1 == static_cast<int>(m_.comm_of_phase.size()) || m_.comm_of_phase[phase + 1] != c;
  if (!last) return;
  CommTiming& ct = comm_[c];
  ct.end = cycle;
  const int g = p_.comms[c].gate;
  if (g >= 0)
    for (int pe = 0; pe < p_.grid.size(); ++pe) {
      const long long e = timing_[static_cast<std::size_t>(pe) * T_ + g].end;
      if (e > ct.gate) ct.gate = e, ct.gate_unit = pe;
    }
}

bool PeCores::activated(int pe, int t, long long cycle) const {
  const TaskSpec& s = p_.tasks[t];
  if (s.after >= 0) {
    const long long e = timing_[static_cast<std::size_t>(pe) * T_ + s.after].end;
    if (e < 0 || e > cycle) return false;
  }
  if (s.wait_comm >= 0) {
    const CommTiming& ct = comm_[s.wait_comm];
    if (ct.end < 0 || ct.end > cycle) return false;
  }
  const int k = p_.class_of(pe);
  const std::int32_t i0 = p_.first_item(k, t);
  if (i0 < p_.last_item(k, t) && p_.items[i0].comm >= 0) {  // a data task: its first word must have landed
    const TaskItem& it = p_.items[i0];
    const std::int32_t l = land_[static_cast<std::size_t>(pe) * S_ + m_.slot_base[it.comm] + it.slot];
    if (l < 0 || l > cycle) return false;
  }
  return true;
}

bool PeCores::step_pe(int pe, long long cycle) {
  if (busy_until_[pe] > cycle) return true;
  const int k = p_.class_of(pe);
  for (;;) {
    int t = cur_task_[pe];
    if (t < 0) {
      for (int c = 0; c < T_ && t < 0; ++c)
        if (timing_[static_cast<std::size_t>(pe) * T_ + c].start < 0 && activated(pe, c, cycle)) t = c;
      if (t < 0) return false;
      cur_task_[pe] = t;
      cur_item_[pe] = p_.first_item(k, t);
      timing_[static_cast<std::size_t>(pe) * T_ + t].start = cycle;
      free_since_[pe] = cycle;
    }
    TaskTiming& x = timing_[static_cast<std::size_t>(pe) * T_ + t];
    const std::int32_t i = cur_item_[pe];
    if (i >= p_.last_item(k, t)) {
      x.end = cycle;
      last_end_ = std::max(last_end_, cycle);
      cur_task_[pe] = -1;
      --tasks_left_;
      continue;
    }
    const TaskItem& it = p_.items[i];
    if (it.comm >= 0) {
      const std::int32_t l = land_[static_cast<std::size_t>(pe) * S_ + m_.slot_base[it.comm] + it.slot];
      if (l < 0 || l > cycle) return false;  // idle: the word is not here yet
      if (cycle > free_since_[pe]) x.data_wait = cycle, x.data_comm = it.comm;
    }
    ++cur_item_[pe];
    if (it.cycles == 0) continue;
    busy_until_[pe] = cycle + it.cycles;
    free_since_[pe] = busy_until_[pe];
    busy_[pe] += it.cycles;
    x.busy += it.cycles;
    act_busy_[static_cast<std::size_t>(pe) * A_ + p_.tasks[t].activity] += it.cycles;
    return true;
  }
}

bool PeCores::step(long long cycle) {
  if (tasks_left_ == 0) return false;
  bool any = false;
  for (int pe = 0; pe < p_.grid.size(); ++pe) any |= step_pe(pe, cycle);
  return any;
}

}  // namespace wmd::fabric
