// Replays recorded CPU stalls (times a virtual CPU did not run) against ranks that compute in pieces and wait
// for each other, so host_stalls can say what slack, longer pieces or timing-based balancing would win on a
// host; tests/validation checks the replay on synthetic stall patterns.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace wafermd::perf {

struct Interval {
  double begin, end;  // seconds since the common start
};

// The time at which a rank that starts `work` seconds of computing at `t` on a CPU with these (sorted,
// disjoint) stalls finishes; `next` is the first stall that may end after t and moves forward with it.
inline double finish(const std::vector<Interval>& stalls, size_t& next, double t, double work) {
  while (next < stalls.size() && stalls[next].end <= t) ++next;
  for (size_t k = next; k < stalls.size(); ++k) {
    const Interval& g = stalls[k];
    const double begin = std::max(g.begin, t);
    if (t + work <= begin) break;
    work -= begin - t;
    t = std::max(t, g.end);
  }
  return t + work;
}

// The parallel efficiency of ranks (one per CPU) that compute in pieces of `piece` seconds, where a rank may
// start its piece i only once every other rank has finished its piece i − 1 − `lead`: lead 0 is lockstep with
// a synchronisation after every piece, and a larger lead is slack at the exchanges. Replayed over the
// recorded stalls; the work done per second of wall time against one CPU's average.
inline double replayed_efficiency(const std::vector<std::vector<Interval>>& per_cpu, double seconds,
                                  double piece, int lead, double mean_stalled) {
  const size_t n = per_cpu.size();
  std::vector<size_t> next(n, 0);
  std::vector<std::vector<double>> done(n);  // each rank's finishing time of each piece
  long pieces = 0;
  for (;;) {
    double latest = 0.0;
    for (size_t k = 0; k < n; ++k) {
      double start = pieces > 0 ? done[k][pieces - 1] : 0.0;
      const long needed = pieces - 1 - lead;
      if (needed >= 0)
        for (size_t p = 0; p < n; ++p) start = std::max(start, done[p][needed]);
      done[k].push_back(finish(per_cpu[k], next[k], start, piece));
      latest = std::max(latest, done[k].back());
    }
    if (latest > seconds) break;
    ++pieces;
  }
  double end = 0.0;
  for (size_t k = 0; k < n && pieces > 0; ++k) end = std::max(end, done[k][pieces - 1]);
  return end > 0.0 ? pieces * piece / end / (1.0 - mean_stalled) : 0.0;
}

// Lockstep ranks that synchronise after every `piece` of average work, but split the work by speed: every
// `window` seconds each rank's share moves halfway to what its rate over the last window (work over the time
// it computed, stalls included, as a rank measures it) asks for, within half and one and a half of an equal
// share, as a damped timing-based load balancer would. Replayed like replayed_efficiency.
inline double balanced_efficiency(const std::vector<std::vector<Interval>>& per_cpu, double seconds,
                                  double piece, double window, double mean_stalled) {
  const size_t n = per_cpu.size();
  std::vector<size_t> next(n, 0);
  std::vector<double> share(n, 1.0), busy(n, 0.0), work(n, 0.0), finished(n);
  double t = 0.0, done = 0.0, window_end = window;
  for (;;) {
    double end = t;
    for (size_t k = 0; k < n; ++k) {
      finished[k] = finish(per_cpu[k], next[k], t, piece * share[k]);
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
  return t > 0.0 ? done / static_cast<double>(n) / t / (1.0 - mean_stalled) : 0.0;
}

}  // namespace wafermd::perf
