// Replays the recorded progress of CPUs (how much work each virtual CPU got done, slot by slot: nothing while
// the host stopped it, less while the host slowed it) against ranks that compute in pieces and wait for each
// other, so host_stalls can say what slack, longer pieces or timing-based balancing would win on a host;
// tests/validation checks the replay on synthetic patterns.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace wafermd::perf {

struct Interval {
  double begin, end;  // seconds since the common start
};

// A CPU's progress over a recording: done[i] is the work (in seconds of work at full speed) finished by time
// i·slot, non-decreasing from done[0] = 0. A stall is a slot without progress, a slowdown one with less than
// a slot's worth.
struct Progress {
  double slot = 1e-4;
  std::vector<double> done = {0.0};
  double seconds() const { return slot * static_cast<double>(done.size() - 1); }
  // Work finished by time t (linear within a slot; the total past the end).
  double at(double t) const {
    const double x = t / slot;
    if (!(x < static_cast<double>(done.size() - 1))) return done.back();
    const size_t i = static_cast<size_t>(std::max(0.0, x));
    return done[i] + (x - static_cast<double>(i)) * (done[i + 1] - done[i]);
  }
  // The average CPU speed over the recording, as a share of full speed.
  double mean_speed() const { return seconds() > 0.0 ? done.back() / seconds() : 0.0; }
};

// The progress of a CPU that runs at full speed except during these (sorted, disjoint) stalls.
inline Progress from_stalls(const std::vector<Interval>& stalls, double seconds, double slot) {
  Progress p;
  p.slot = slot;
  const size_t n = static_cast<size_t>(std::ceil(seconds / slot - 1e-9));
  p.done.assign(n + 1, 0.0);
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    const double a = static_cast<double>(i) * slot, b = a + slot;
    double stalled = 0.0;
    while (k < stalls.size() && stalls[k].end <= a) ++k;
    for (size_t j = k; j < stalls.size() && stalls[j].begin < b; ++j)
      stalled += std::max(0.0, std::min(b, stalls[j].end) - std::max(a, stalls[j].begin));
    p.done[i + 1] = p.done[i] + (slot - stalled);
  }
  return p;
}

// The time at which a rank that starts `work` seconds of full-speed computing at `t` on this CPU finishes
// (infinity past the recording).
inline double finish(const Progress& p, double t, double work) {
  if (work <= 0.0) return t;
  const double target = p.at(t) + work;
  if (target > p.done.back()) return std::numeric_limits<double>::infinity();
  size_t i = std::min(static_cast<size_t>(std::max(0.0, t / p.slot)), p.done.size() - 2);
  while (p.done[i + 1] < target) ++i;
  const double gained = p.done[i + 1] - p.done[i];
  const double into = gained > 0.0 ? (target - p.done[i]) / gained : 0.0;
  return std::max(t, (static_cast<double>(i) + std::clamp(into, 0.0, 1.0)) * p.slot);
}

// The average speed of the CPUs over their recordings (what one rank on one of them gets, on average).
inline double mean_speed(const std::vector<Progress>& per_cpu) {
  double s = 0.0;
  for (const Progress& p : per_cpu) s += p.mean_speed() / static_cast<double>(per_cpu.size());
  return s;
}

// The time every CPU's recording covers.
inline double common_seconds(const std::vector<Progress>& per_cpu) {
  double seconds = per_cpu.empty() ? 0.0 : per_cpu[0].seconds();
  for (const Progress& p : per_cpu) seconds = std::min(seconds, p.seconds());
  return seconds;
}

// The parallel efficiency of ranks (one per CPU) that compute in pieces of `piece` seconds, where a rank may
// start its piece i only once every other rank has finished its piece i − 1 − `lead`: lead 0 is lockstep with
// a synchronisation after every piece, and a larger lead is slack at the exchanges. Replayed over the
// recorded progress; the work done per second of wall time against one CPU's average.
inline double replayed_efficiency(const std::vector<Progress>& per_cpu, double piece, int lead) {
  const size_t n = per_cpu.size();
  const double seconds = common_seconds(per_cpu);
  std::vector<std::vector<double>> done(n);  // each rank's finishing time of each piece
  long pieces = 0;
  for (;;) {
    double latest = 0.0;
    for (size_t k = 0; k < n; ++k) {
      double start = pieces > 0 ? done[k][pieces - 1] : 0.0;
      const long needed = pieces - 1 - lead;
      if (needed >= 0)
        for (size_t p = 0; p < n; ++p) start = std::max(start, done[p][needed]);
      done[k].push_back(finish(per_cpu[k], start, piece));
      latest = std::max(latest, done[k].back());
    }
    if (latest > seconds) break;
    ++pieces;
  }
  double end = 0.0;
  for (size_t k = 0; k < n && pieces > 0; ++k) end = std::max(end, done[k][pieces - 1]);
  const double mean = mean_speed(per_cpu);
  return end > 0.0 && mean > 0.0 ? pieces * piece / end / mean : 0.0;
}

// Lockstep ranks that synchronise after every `piece` of average work, but split the work by speed: every
// `window` seconds each rank's share moves halfway to what its rate over the last window (work over the time
// it computed, stalls included, as a rank measures it) asks for, within half and one and a half of an equal
// share, as a damped timing-based load balancer would. Replayed like replayed_efficiency.
inline double balanced_efficiency(const std::vector<Progress>& per_cpu, double piece, double window) {
  const size_t n = per_cpu.size();
  const double seconds = common_seconds(per_cpu);
  std::vector<double> share(n, 1.0), busy(n, 0.0), work(n, 0.0), finished(n);
  double t = 0.0, done = 0.0, window_end = window;
  for (;;) {
    double end = t;
    for (size_t k = 0; k < n; ++k) {
      finished[k] = finish(per_cpu[k], t, piece * share[k]);
      end = std::max(end, finished[k]);
    }
    if (end > seconds) break;
    for (size_t k = 0; k < n; ++k) busy[k] += finished[k] - t, work[k] += piece * share[k];
    done += piece * static_cast<double>(n), t = end;
    if (t >= window_end) {
      double total = 0.0;
      for (size_t k = 0; k < n; ++k) total += work[k] / busy[k];
      for (size_t k = 0; k < n; ++k) {
        const double asked = static_cast<double>(n) * (work[k] / busy[k]) / total;
        share[k] = std::clamp(0.5 * (share[k] + asked), 0.5, 1.5);
      }
      std::fill(busy.begin(), busy.end(), 0.0), std::fill(work.begin(), work.end(), 0.0);
      window_end = t + window;
    }
  }
  const double mean = mean_speed(per_cpu);
  return t > 0.0 && mean > 0.0 ? done / static_cast<double>(n) / t / mean : 0.0;
}

}  // namespace wafermd::perf
