// Measures how a shared host takes the CPUs away or slows them: one thread pinned to each CPU does small,
// equal units of arithmetic in a tight loop and reads the clock after each. A gap between two reads longer
// than 100 µs is a stall (the hypervisor ran someone else on that virtual CPU, or the guest kernel did); the
// units finished per 0.1 ms slot give the CPU's speed, which also shows a CPU slowed without being stopped
// (another guest on the same core). Reports each CPU's stalled share, stall lengths and speed, the time all
// CPUs were stalled at once and the time any was, and the parallel efficiency that stops alone leave ranks in
// lockstep: (1 − any) / (1 − mean stalled share), since such a step advances only while every rank runs, and
// a 1-rank run while its one CPU does. It then replays the recorded progress (stops and slowdowns) against
// ranks that synchronise after every W of work, against ranks that may run up to S ahead of each other, which
// says how long a step's pieces between exchanges, or how much slack at them, would let the host's hiccups
// average out; and against ranks that split the work by their speed over the last window, which bounds what
// timing-based load balancing would win.
// Usage: host_stalls [SECONDS [NCPU]], defaults 5 s and every CPU this process may run on.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <thread>
#include <utility>
#include <vector>

#include "stall_replay.hpp"

namespace {

using wafermd::perf::balanced_efficiency;
using wafermd::perf::Interval;
using wafermd::perf::Progress;
using wafermd::perf::replayed_efficiency;

using Clock = std::chrono::steady_clock;
// A stall: longer than any clock read, unit of work or page fault; shorter than a host's time slice.
constexpr double kStall = 100e-6;
constexpr double kSlot = 1e-4;  // the resolution of the recorded speed

// What one CPU did: its stalls, and the units of work it finished in each slot.
struct Recording {
  std::vector<Interval> gaps;
  std::vector<unsigned> units;
};

// One unit of work, ≈ 1 µs: multiply-adds over a 4 kB array in L1, with a result the next unit depends on.
double unit(const double* a, double carry) {
  double s0 = carry, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  for (int pass = 0; pass < 4; ++pass)
    for (int i = 0; i < 512; i += 4)
      s0 += a[i] * a[i + 1], s1 += a[i + 1] * a[i + 2], s2 += a[i + 2] * a[i + 3], s3 += a[i + 3] * a[i];
  return (s0 + s1 + s2 + s3) * 1e-30;
}

// Works on `cpu` for `seconds`: the gaps between clock reads longer than kStall, and the units per slot.
Recording watch(int cpu, Clock::time_point t0, double seconds) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  std::vector<double> a(516);
  for (size_t i = 0; i < a.size(); ++i) a[i] = 1.0 + 1e-3 * static_cast<double>(i % 7);
  Recording r;
  r.gaps.reserve(1 << 16);
  r.units.assign(static_cast<size_t>(seconds / kSlot), 0);
  double carry = 0.0, last = std::chrono::duration<double>(Clock::now() - t0).count();
  for (;;) {
    carry = unit(a.data(), carry);
    const double t = std::chrono::duration<double>(Clock::now() - t0).count();
    if (t - last > kStall) r.gaps.push_back({last, t});
    last = t;
    const size_t slot = static_cast<size_t>(t / kSlot);
    if (slot >= r.units.size()) break;
    ++r.units[slot];
  }
  volatile double sink = carry;  // keeps the units from being optimised away
  (void)sink;
  return r;
}

// The CPUs' progress in seconds of full-speed work, full speed being the fastest 10 ms that any CPU ran.
std::vector<Progress> progress(const std::vector<Recording>& rec) {
  constexpr size_t kWindow = 100;  // slots: 10 ms
  double full = 0.0;               // units per second
  for (const Recording& r : rec)
    for (size_t w = 0; w + kWindow <= r.units.size(); w += kWindow) {
      unsigned n = 0;
      for (size_t i = w; i < w + kWindow; ++i) n += r.units[i];
      full = std::max(full, n / (kWindow * kSlot));
    }
  std::vector<Progress> out(rec.size());
  for (size_t k = 0; k < rec.size(); ++k) {
    out[k].slot = kSlot;
    for (const unsigned n : rec[k].units)
      out[k].done.push_back(out[k].done.back() + (full > 0 ? n / full : 0.0));
  }
  return out;
}

// Seconds during which at least one, and all, of the CPUs' stall sets were active (a sweep over the ends).
std::pair<double, double> any_and_all(const std::vector<Recording>& rec) {
  std::vector<std::pair<double, int>> ev;
  for (const Recording& r : rec)
    for (const Interval& g : r.gaps) ev.push_back({g.begin, +1}), ev.push_back({g.end, -1});
  std::sort(ev.begin(), ev.end());
  const int n = static_cast<int>(rec.size());
  double any = 0.0, all = 0.0, prev = 0.0;
  int active = 0;
  for (const auto& [t, d] : ev) {
    if (active > 0) any += t - prev;
    if (active == n) all += t - prev;
    active += d, prev = t;
  }
  return {any, all};
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * v.size()))];
}

// A CPU's speed over each window of `slots` slots, as shares of full speed.
std::vector<double> window_speeds(const Progress& p, size_t slots) {
  std::vector<double> v;
  for (size_t i = 0; i + slots < p.done.size(); i += slots)
    v.push_back((p.done[i + slots] - p.done[i]) / (static_cast<double>(slots) * p.slot));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 5.0;
  cpu_set_t allowed;
  sched_getaffinity(0, sizeof(allowed), &allowed);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  if (argc > 2) cpus.resize(std::min(cpus.size(), static_cast<size_t>(std::max(1, std::atoi(argv[2])))));
  if (!(seconds > 0.0) || cpus.empty()) {
    std::fprintf(stderr, "usage: host_stalls [SECONDS [NCPU]]\n");
    return 2;
  }
  std::vector<Recording> rec(cpus.size());
  std::vector<std::thread> threads;
  const Clock::time_point t0 = Clock::now();
  for (size_t k = 0; k < cpus.size(); ++k)
    threads.emplace_back([&, k] { rec[k] = watch(cpus[k], t0, seconds); });
  for (auto& t : threads) t.join();
  const std::vector<Progress> prog = progress(rec);

  char when[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf(
      "host_stalls: %zu CPUs for %.1f s, ending %s; a stall is a gap over %.0f us between two clock reads; "
      "speed is work done against the fastest 10 ms of any CPU\n",
      cpus.size(), seconds, when, kStall * 1e6);
  double mean = 0.0, independent_all = 1.0;
  for (size_t k = 0; k < cpus.size(); ++k) {
    std::vector<double> len;
    double total = 0.0;
    for (const Interval& g : rec[k].gaps) len.push_back(g.end - g.begin), total += g.end - g.begin;
    const double share = total / seconds;
    mean += share / cpus.size();
    independent_all *= share;
    // The spread over 1 ms windows is what ranks that exchange every millisecond or so feel; over 100 ms
    // what a balancer could follow.
    const std::vector<double> ms = window_speeds(prog[k], 10), w = window_speeds(prog[k], 1000);
    std::printf(
        "cpu %d: stalled %.1f %% in %zu stalls, median %.2f ms, 90th percentile %.2f ms; speed %.0f %% "
        "(10th-90th percentile over 1 ms windows %.0f-%.0f %%, over 100 ms windows %.0f-%.0f %%)\n",
        cpus[k], 100.0 * share, len.size(), 1e3 * percentile(len, 0.5), 1e3 * percentile(len, 0.9),
        100.0 * prog[k].mean_speed(), 100.0 * percentile(ms, 0.1), 100.0 * percentile(ms, 0.9),
        100.0 * percentile(w, 0.1), 100.0 * percentile(w, 0.9));
  }
  const auto [any, all] = any_and_all(rec);
  std::printf("all stalled at once %.1f %% (%.1f %% if independent); any stalled %.1f %%\n",
              100.0 * all / seconds, 100.0 * independent_all, 100.0 * any / seconds);
  if (cpus.size() < 2) return 0;
  // What a run whose slack between exchanges is far shorter than a stall approaches, counting stops only.
  std::printf("a %zu-rank run in lockstep, from the stops alone: %.0f %% parallel efficiency\n", cpus.size(),
              100.0 * (1.0 - any / seconds) / (1.0 - mean));
  // The recorded progress replayed against ranks in lockstep that synchronise after every W of work, against
  // ranks that synchronise every 0.1 ms but may run up to S ahead of the other, and against a balancer.
  std::printf("replayed (stops and slowdowns), ranks synchronising after every W of work:");
  const char* sep = "";
  for (double w_ms : {0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0}) {
    if (w_ms * 1e-3 * 4 > seconds) break;
    std::printf("%s W %g ms %.0f %%", sep, w_ms, 100.0 * replayed_efficiency(prog, w_ms * 1e-3, 0));
    sep = ",";
  }
  std::printf("\nreplayed, ranks that may run up to S ahead of the other (0.1 ms pieces):");
  sep = "";
  for (double s_ms : {0.0, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0}) {
    if (s_ms * 1e-3 * 4 > seconds) break;
    std::printf("%s S %g ms %.0f %%", sep, s_ms,
                100.0 * replayed_efficiency(prog, 1e-4, static_cast<int>(s_ms * 10.0 + 0.5)));
    sep = ",";
  }
  std::printf("\nreplayed, lockstep every 1 ms with the work split by each rank's speed over the last B:");
  sep = "";
  for (double b_s : {0.01, 0.1, 0.5, 1.0, 2.0}) {
    if (b_s * 4 > seconds) break;
    std::printf("%s B %g s %.0f %%", sep, b_s, 100.0 * balanced_efficiency(prog, 1e-3, b_s));
    sep = ",";
  }
  std::printf("\n");
  return 0;
}
