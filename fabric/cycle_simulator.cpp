// The cycle loop. Each cycle every router moves at most one due wavelet per input queue and one per output
// port (all-or-nothing for multicast: every output must be granted and every downstream queue must have
// room), then every core injects at most one wavelet into its ramp queue. Room is judged on queue contents at
// the start of the cycle plus what already arrived in it (departures free room only next cycle, like credits
// returning), which needs 2-deep queues for full rate. State lives in flat arrays; nothing is allocated per
// wavelet.
#include "fabric/cycle_simulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/error.hpp"
#include "fabric/pe_cores.hpp"
#include "fabric/route_checker.hpp"

namespace wmd::fabric {
namespace {

// The hot half of a receive slot (read to forward, fold and check readiness); tags live in a cold array.
struct SlotState {
  std::uint32_t value;
  std::int32_t fill;  // cycle the word landed, -1 while empty
};
struct SlotTags {
  std::int32_t src;
  std::int16_t word;
  std::uint8_t writes;
};

struct Wavelet {
  std::uint32_t value;
  std::int32_t slot;
  std::int32_t src;
  std::int32_t ready;  // first cycle this wavelet may leave the queue it sits in
  std::int16_t word;
  std::int16_t color;
};

class Simulator {
 public:
  Simulator(const Schedule& s, const HardwareSpec& hw, const std::vector<std::uint32_t>& payload,
            const SimulationOptions& opt, PeCores* cores = nullptr)
      : s_(s),
        g_(s.routes.grid),
        hw_(hw),
        payload_(payload),
        cores_(cores),
        opt_(opt),
        B_(hw.router_buffer_wavelets),
        S_(s.slots_per_pe),
        fifo_(static_cast<std::size_t>(g_.size()) * port_count * B_),
        head_(g_.size() * port_count, 0),
        count_(g_.size() * port_count, 0),
        pops_(g_.size() * port_count, 0),
        rr_out_(static_cast<std::size_t>(g_.size()) * port_count, 0),
        rr_core_(g_.size(), 0) {
    slots_.assign(static_cast<std::size_t>(g_.size()) * S_, SlotState{0, -1});
    tags_.assign(slots_.size(), SlotTags{-1, 0, 0});
    op_cycles_ =
        static_cast<int>(std::ceil(s.spec.op == ReduceOp::Sum ? hw.compute.fadd : hw.compute.fminmax));
    held_.assign(g_.size(), 0);
    streams_of_.assign(g_.size(), 0);
    nb_.resize(static_cast<std::size_t>(g_.size()) * link_port_count);
    for (int pe = 0; pe < g_.size(); ++pe)
      for (int p = 0; p < link_port_count; ++p)
        nb_[pe * link_port_count + p] = g_.neighbour(pe, static_cast<Port>(p));
  }

  SimulationResult run() {
    long long start = 0;
    for (std::size_t i = 0; i < s_.phases.size(); ++i) {
      if (cores_) cores_->begin_phase(static_cast<int>(i), start);
      const long long end = run_phase(s_.phases[i], start);
      r_.phase_cycles.push_back(end - start);
      if (r_.deadlock) {
        r_.cycles = end;
        break;
      }
      if (cores_) cores_->end_phase(static_cast<int>(i), end);
      r_.cycles = end;
      start = end + hw_.phase_sync_cycles;
    }
    if (cores_ && !r_.deadlock) finish_cores();
    const double denom = static_cast<double>(g_.directed_links()) * static_cast<double>(r_.cycles);
    r_.link_utilisation = denom > 0 ? static_cast<double>(r_.link_hops) / denom : 0.0;
    return r_;
  }

  ReceiveBuffers take_buffers() const {
    ReceiveBuffers rb;
    const std::size_t n = slots_.size();
    rb.slots_per_pe = S_;
    rb.value.resize(n);
    rb.src.resize(n);
    rb.word.resize(n);
    rb.writes.resize(n);
    rb.landed.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      rb.value[i] = slots_[i].value;
      rb.src[i] = tags_[i].src;
      rb.word[i] = tags_[i].word;
      rb.writes[i] = tags_[i].writes;
      rb.landed[i] = slots_[i].fill;
    }
    return rb;
  }

 private:
  // Cycle at which `it` can be emitted by `pe`, or -1 while an input is still missing.
  long long item_ready(int pe, const Phase& ph, const SendItem& it) const {
    const std::size_t base = static_cast<std::size_t>(pe) * S_;
    switch (it.kind) {
      case ItemKind::Own:
        return cores_ ? cores_->own_ready(pe) : 0;
      case ItemKind::Slot:
        return slots_[base + it.a].fill;
      case ItemKind::Fold: {
        const FoldSpec& fs = ph.folds[it.a];
        long long t = fs.base >= 0 ? slots_[base + fs.base].fill : cores_ ? cores_->own_ready(pe) : 0;
        if (t < 0) return -1;
        for (int k = fs.input_begin; k < fs.input_end; ++k) {
          const SlotState& sl = slots_[base + ph.fold_inputs[k]];
          if (sl.fill < 0) return -1;
          t = std::max(t, static_cast<long long>(sl.fill));
        }
        return t + static_cast<long long>(fs.input_end - fs.input_begin) * op_cycles_;
      }
    }
    return -1;
  }

  std::uint32_t item_value(int pe, const Phase& ph, const SendItem& it) const {
    const std::size_t base = static_cast<std::size_t>(pe) * S_;
    const auto own = [&](int w) { return payload_[static_cast<std::size_t>(pe) * s_.spec.words + w]; };
    switch (it.kind) {
      case ItemKind::Own:
        return own(it.a);
      case ItemKind::Slot:
        return slots_[base + it.a].value;
      case ItemKind::Fold: {
        const FoldSpec& fs = ph.folds[it.a];
        std::uint32_t v = fs.base >= 0 ? slots_[base + fs.base].value : own(-1 - fs.base);
        for (int k = fs.input_begin; k < fs.input_end; ++k)
          v = combine_words(s_.spec.op, v, slots_[base + ph.fold_inputs[k]].value);
        return v;
      }
    }
    return 0;
  }

  void write_slot(int pe, int slot, std::uint32_t value, int src, int word, long long when) {
    if (slot < 0 || slot >= S_) {
      ++r_.misdelivered;
      return;
    }
    const std::size_t i = static_cast<std::size_t>(pe) * S_ + slot;
    SlotTags& tg = tags_[i];
    if (tg.writes) ++r_.duplicates;
    if (tg.writes < 255) ++tg.writes;
    tg.src = src;
    tg.word = static_cast<std::int16_t>(word);
    slots_[i] = SlotState{value, static_cast<std::int32_t>(when)};
    if (cores_) cores_->landed(pe, slot, when);
    last_event_ = std::max(last_event_, when);
  }

  void push(int f, const Wavelet& w) {
    int at = head_[f] + count_[f];
    if (at >= B_) at -= B_;
    fifo_[static_cast<std::size_t>(f) * B_ + at] = w;
    ++count_[f];
    ++in_flight_;
    ++held_[f / port_count];
  }

  // One router, one cycle. Each input queue offers its due head (if every downstream queue has room); outputs
  // are granted in port order, each to the requester after the one it last served (round robin per output). A
  // multicast head needs every one of its outputs; an input refused one output drops its other requests this
  // cycle, so two multicasts can never hold one output each and wait on the other.
  void route(int pe, long long cycle) {
    if (held_[pe] == 0) return;
    std::uint8_t req[port_count] = {0, 0, 0, 0, 0};
    unsigned wanted = 0;
    bool refused[port_count] = {false, false, false, false, false};
    for (int p = 0; p < port_count; ++p) {
      const int f = pe * port_count + p;
      if (count_[f] == 0) continue;
      const Wavelet& w = fifo_[static_cast<std::size_t>(f) * B_ + head_[f]];
      if (w.ready > cycle) continue;
      const unsigned rxm = s_.routes.rx_mask(pe, w.color), txm = s_.routes.tx_mask(pe, w.color);
      if (!(rxm & (1u << p)) || !txm)
        throw RunError(
            fmt::format("simulator: color {} arrived at PE ({},{}) on port {} but is not routed from it",
                        w.color, g_.x_of(pe), g_.y_of(pe), port_name(static_cast<Port>(p))));
      bool room = true;
      for (int t = 0; t < link_port_count && room; ++t) {
        if (!(txm & (1u << t))) continue;
        const int nb = nb_[pe * link_port_count + t];
        if (nb < 0)
          throw RunError(fmt::format("simulator: color {} routed off the mesh edge at PE ({},{})", w.color,
                                     g_.x_of(pe), g_.y_of(pe)));
        room = count_[nb * port_count + opposite(static_cast<Port>(t))] < B_;
      }
      if (room) {
        req[p] = static_cast<std::uint8_t>(txm);
        wanted |= txm;
      } else {
        ++r_.stall_cycles;  // blocked by a full downstream queue
      }
    }
    if (!wanted) return;
    std::uint8_t* rr = &rr_out_[static_cast<std::size_t>(pe) * port_count];
    for (int o = 0; o < port_count; ++o) {
      if (!(wanted & (1u << o))) continue;
      int winner = -1;
      for (int k = 0, i = rr[o]; k < port_count; ++k, i = (i == port_count - 1 ? 0 : i + 1)) {
        if (!(req[i] & (1u << o)) || refused[i]) continue;
        if (winner < 0)
          winner = i;
        else
          refused[i] = true;
      }
    }
    for (int p = 0; p < port_count; ++p) {
      if (!req[p]) continue;
      if (refused[p]) {
        ++r_.stall_cycles;  // lost an output to another queue
        continue;
      }
      const int f = pe * port_count + p;
      const Wavelet wv = fifo_[static_cast<std::size_t>(f) * B_ + head_[f]];
      for (int t = 0; t < port_count; ++t) {
        if (!(req[p] & (1u << t))) continue;
        rr[t] = static_cast<std::uint8_t>(p == port_count - 1 ? 0 : p + 1);
        if (t == Ramp) {
          ++r_.delivered;
          write_slot(pe, wv.slot, wv.value, wv.src, wv.word, cycle + hw_.ramp_latency_cycles);
        } else {
          Wavelet nw = wv;
          nw.ready = static_cast<std::int32_t>(cycle + hw_.hop_latency_cycles);
          push(nb_[pe * link_port_count + t] * port_count + opposite(static_cast<Port>(t)), nw);
          ++r_.link_hops;
        }
      }
      pops_[f] = 1;
      touched_.push_back(f);
      --in_flight_;
      --held_[pe];
      progress_ = true;
    }
  }

  void inject(int pe, const Phase& ph, long long cycle) {
    if (streams_of_[pe] == 0) return;
    const int s0 = ph.pe_offset[pe], s1 = ph.pe_offset[pe + 1];
    const int n = s1 - s0;
    int pushes = 0;
    const int ramp = pe * port_count + Ramp;
    const int first = rr_core_[pe] < n ? rr_core_[pe] : 0;
    for (int k = 0, j = first; k < n; ++k, j = (j + 1 == n ? 0 : j + 1)) {
      const int si = s0 + j;
      const Stream& st = ph.streams[si];
      std::int32_t& cur = cursor_[si];
      while (cur < st.item_end) {
        const SendItem& it = ph.items[cur];
        const long long t = item_ready(pe, ph, it);
        if (t < 0 || t > cycle) break;
        if (st.color >= 0 && (pushes >= hw_.ramp_wavelets_per_cycle || count_[ramp] >= B_)) break;
        const std::uint32_t v = item_value(pe, ph, it);
        if (it.kind == ItemKind::Fold && ph.folds[it.a].local_slot >= 0)
          write_slot(pe, ph.folds[it.a].local_slot, v, it.src_pe, it.word, cycle);
        progress_ = true;
        if (++cur == st.item_end) {
          --streams_left_;
          --streams_of_[pe];
        }
        if (st.color < 0) {
          last_event_ = std::max(last_event_, cycle);
          continue;  // local work uses no ramp
        }
        push(ramp, Wavelet{v, it.dst_slot, it.src_pe,
                           static_cast<std::int32_t>(cycle + hw_.ramp_latency_cycles), it.word, st.color});
        ++pushes;
        rr_core_[pe] = static_cast<std::uint16_t>(j + 1 == n ? 0 : j + 1);
        break;  // one word per stream per cycle keeps streams interleaved
      }
    }
  }

  long long run_phase(const Phase& ph, long long start) {
    cursor_.resize(ph.streams.size());
    streams_left_ = 0;
    std::fill(streams_of_.begin(), streams_of_.end(), 0);
    for (std::size_t i = 0; i < ph.streams.size(); ++i) {
      cursor_[i] = ph.streams[i].item_begin;
      ++streams_left_;
      ++streams_of_[ph.streams[i].pe];
    }
    last_event_ = start;
    int idle = 0;
    for (long long cycle = start;; ++cycle) {
      if (streams_left_ == 0 && in_flight_ == 0) return last_event_;
      if (cycle - start > opt_.max_cycles) throw RunError("simulator: phase ran past the cycle limit");
      progress_ = false;
      if (cores_)  // the cores work before the routers move, so a task's end can release its sends this cycle
        for (; cores_cycle_ <= cycle; ++cores_cycle_) progress_ |= cores_->step(cores_cycle_);
      for (int pe = 0; pe < g_.size(); ++pe) route(pe, cycle);
      for (int pe = 0; pe < g_.size(); ++pe) inject(pe, ph, cycle);
      for (int f : touched_) {
        int h = head_[f] + pops_[f];
        if (h >= B_) h -= B_;
        head_[f] = static_cast<std::int16_t>(h);
        count_[f] = static_cast<std::int16_t>(count_[f] - pops_[f]);
        pops_[f] = 0;
      }
      touched_.clear();
      idle = progress_ ? 0 : idle + 1;
      if (idle > opt_.deadlock_idle_cycles) {
        r_.deadlock = true;
        r_.deadlock_detail = describe_block();
        return cycle;
      }
    }
  }

  // After the last phase: the cores run on until every task has ended.
  void finish_cores() {
    int idle = 0;
    for (; !cores_->done(); ++cores_cycle_) {
      idle = cores_->step(cores_cycle_) ? 0 : idle + 1;
      if (idle > opt_.deadlock_idle_cycles) {
        r_.deadlock = true;
        r_.deadlock_detail = "PE tasks wait for words that never arrive";
        return;
      }
    }
  }

  std::string describe_block() const {
    for (int f = 0; f < static_cast<int>(count_.size()); ++f)
      if (count_[f] > 0) {
        const int pe = f / port_count;
        const Wavelet& w = fifo_[static_cast<std::size_t>(f) * B_ + head_[f]];
        return fmt::format("{} wavelets stuck; first at PE ({},{}) input {} (color {}, queue {}/{} full)",
                           in_flight_, g_.x_of(pe), g_.y_of(pe), port_name(static_cast<Port>(f % port_count)),
                           w.color, count_[f], B_);
      }
    return fmt::format("{} streams wait for data that never arrives", streams_left_);
  }

  const Schedule& s_;
  const Grid g_;
  const HardwareSpec& hw_;
  const std::vector<std::uint32_t>& payload_;
  PeCores* cores_;
  const SimulationOptions& opt_;
  const int B_, S_;
  long long cores_cycle_ = 0;  // next cycle the cores have not stepped yet
  int op_cycles_ = 1;
  std::vector<Wavelet> fifo_;
  std::vector<std::int16_t> head_, count_, pops_;
  std::vector<std::uint8_t> rr_out_;  // per (PE, output port): input served last + 1
  std::vector<std::uint16_t> rr_core_;
  std::vector<int> nb_;
  std::vector<std::int32_t> held_;        // wavelets queued at each PE's router
  std::vector<std::int32_t> streams_of_;  // unfinished streams of each PE in this phase
  std::vector<int> touched_;
  std::vector<std::int32_t> cursor_;
  std::vector<SlotState> slots_;
  std::vector<SlotTags> tags_;
  SimulationResult r_;
  long long in_flight_ = 0;
  long long streams_left_ = 0;
  long long last_event_ = 0;
  bool progress_ = false;
};

}  // namespace

namespace {

void check_inputs(const Schedule& schedule, const HardwareSpec& hw, const std::vector<std::uint32_t>& payload,
                  const SimulationOptions& options) {
  if (options.check_routes) check_routes(schedule.routes, hw, schedule.name);
  if (payload.size() != static_cast<std::size_t>(schedule.routes.grid.size()) * schedule.spec.words)
    throw RunError(fmt::format("simulator: payload has {} words, expected {} PEs x {} words", payload.size(),
                               schedule.routes.grid.size(), schedule.spec.words));
  if (hw.link_wavelets_per_cycle != 1 || hw.ramp_wavelets_per_cycle != 1)
    throw RunError(
        "simulator: it models links and ramps of exactly 1 wavelet per cycle (the cost model takes any)");
  if (hw.router_buffer_wavelets < 2 || hw.router_buffer_wavelets > 16000)
    throw RunError("simulator: router_buffer_wavelets must be 2..16000");
}

}  // namespace

SimulationResult simulate(const Schedule& schedule, const HardwareSpec& hw,
                          const std::vector<std::uint32_t>& payload, ReceiveBuffers* recv,
                          const SimulationOptions& options) {
  check_inputs(schedule, hw, payload, options);
  Simulator sim(schedule, hw, payload, options);
  SimulationResult r = sim.run();
  if (recv) *recv = sim.take_buffers();
  return r;
}

SimulationResult simulate_with_cores(const Schedule& schedule, const HardwareSpec& hw,
                                     const std::vector<std::uint32_t>& payload, PeCores& cores,
                                     const SimulationOptions& options) {
  check_inputs(schedule, hw, payload, options);
  Simulator sim(schedule, hw, payload, options, &cores);
  return sim.run();
}

}  // namespace wmd::fabric
