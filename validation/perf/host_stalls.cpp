// Measures how often a shared host takes the CPUs away: one thread pinned to each CPU reads the clock in a
// tight loop, and a gap between two reads longer than 100 µs is a stall (the hypervisor ran someone else on
// that virtual CPU, or the guest kernel did). Reports each CPU's stalled share and stall lengths, the time
// all CPUs were stalled at once and the time any was, and the parallel efficiency of a k-rank run in lockstep
// (no slack between the ranks): (1 − any) / (1 − mean stalled share), since such a step advances only while
// every rank runs, and a 1-rank run while its one CPU does. Slack at the exchanges absorbs stalls shorter
// than it; so it also replays the recorded stalls against ranks that synchronise after every W of work, and
// against ranks that may run up to S ahead of each other, which says how long a step's pieces between
// exchanges, or how much slack at them, would let the stalls average out; and against ranks that split the
// work by their speed over the last window, which bounds what timing-based load balancing would win.
// Usage: host_stalls [SECONDS [NCPU]], defaults 5 s and every CPU this process may run on.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <utility>
#include <vector>

#include "stall_replay.hpp"

namespace {

using wafermd::perf::balanced_efficiency;
using wafermd::perf::Interval;
using wafermd::perf::replayed_efficiency;

using Clock = std::chrono::steady_clock;
constexpr double kStall = 100e-6;  // longer than any clock read or page fault; shorter than a host time slice

// Spins on `cpu` for `seconds` and returns the gaps between clock reads longer than kStall.
std::vector<Interval> watch(int cpu, Clock::time_point t0, double seconds) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  std::vector<Interval> gaps;
  gaps.reserve(1 << 16);
  double last = std::chrono::duration<double>(Clock::now() - t0).count();
  for (;;) {
    const double t = std::chrono::duration<double>(Clock::now() - t0).count();
    if (t - last > kStall) gaps.push_back({last, t});
    last = t;
    if (t > seconds) return gaps;
  }
}

// Seconds during which at least one, and all, of the CPUs' stall sets were active (a sweep over the ends).
std::pair<double, double> any_and_all(const std::vector<std::vector<Interval>>& per_cpu) {
  std::vector<std::pair<double, int>> ev;
  for (const auto& v : per_cpu)
    for (const Interval& g : v) ev.push_back({g.begin, +1}), ev.push_back({g.end, -1});
  std::sort(ev.begin(), ev.end());
  const int n = static_cast<int>(per_cpu.size());
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
  std::vector<std::vector<Interval>> gaps(cpus.size());
  std::vector<std::thread> threads;
  const Clock::time_point t0 = Clock::now();
  for (size_t k = 0; k < cpus.size(); ++k)
    threads.emplace_back([&, k] { gaps[k] = watch(cpus[k], t0, seconds); });
  for (auto& t : threads) t.join();

  std::printf("host_stalls: %zu CPUs for %.1f s; a stall is a gap over %.0f us between two clock reads\n",
              cpus.size(), seconds, kStall * 1e6);
  double mean = 0.0, independent_all = 1.0;
  for (size_t k = 0; k < cpus.size(); ++k) {
    std::vector<double> len;
    double total = 0.0;
    for (const Interval& g : gaps[k]) len.push_back(g.end - g.begin), total += g.end - g.begin;
    const double share = total / seconds;
    mean += share / cpus.size();
    independent_all *= share;
    std::printf("cpu %d: stalled %.1f %% in %zu stalls, median %.2f ms, 90th percentile %.2f ms\n", cpus[k],
                100.0 * share, len.size(), 1e3 * percentile(len, 0.5), 1e3 * percentile(len, 0.9));
  }
  const auto [any, all] = any_and_all(gaps);
  std::printf("all stalled at once %.1f %% (%.1f %% if independent); any stalled %.1f %%\n",
              100.0 * all / seconds, 100.0 * independent_all, 100.0 * any / seconds);
  if (cpus.size() < 2) return 0;
  // What a run whose slack between exchanges is far shorter than a stall approaches.
  std::printf("a %zu-rank run in lockstep: %.0f %% parallel efficiency\n", cpus.size(),
              100.0 * (1.0 - any / seconds) / (1.0 - mean));
  // The recorded stalls replayed against ranks in lockstep that synchronise after every W of work, against
  // ranks that synchronise every 0.1 ms but may run up to S ahead of the other, and against a balancer.
  std::printf("replayed, ranks synchronising after every W of work:");
  const char* sep = "";
  for (double w_ms : {0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0}) {
    if (w_ms * 1e-3 * 4 > seconds) break;
    std::printf("%s W %g ms %.0f %%", sep, w_ms,
                100.0 * replayed_efficiency(gaps, seconds, w_ms * 1e-3, 0, mean));
    sep = ",";
  }
  std::printf("\nreplayed, ranks that may run up to S ahead of the other (0.1 ms pieces):");
  sep = "";
  for (double s_ms : {0.0, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0}) {
    if (s_ms * 1e-3 * 4 > seconds) break;
    std::printf("%s S %g ms %.0f %%", sep, s_ms,
                100.0 * replayed_efficiency(gaps, seconds, 1e-4, static_cast<int>(s_ms * 10.0 + 0.5), mean));
    sep = ",";
  }
  std::printf("\nreplayed, lockstep every 1 ms with the work split by each rank's speed over the last B:");
  sep = "";
  for (double b_s : {0.01, 0.1, 0.5, 1.0, 2.0}) {
    if (b_s * 4 > seconds) break;
    std::printf("%s B %g s %.0f %%", sep, b_s, 100.0 * balanced_efficiency(gaps, seconds, 1e-3, b_s, mean));
    sep = ",";
  }
  std::printf("\n");
  return 0;
}
