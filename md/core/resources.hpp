// Process resource figures for logs and report.json.
#pragma once
#include <fstream>
#include <iosfwd>
#include <string>
#include <vector>

namespace wmd::md {

/// Peak resident memory of this process in MB (VmHWM), 0 if unknown.
inline double peak_rss_mb() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0.0;
}

/// Current resident memory of this process in MB (VmRSS), 0 if unknown.
inline double current_rss_mb() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0.0;
}

/// Time counters of a set of CPUs from /proc/stat, in clock ticks: all states, and steal (time the hypervisor
/// gave to other guests while these virtual CPUs had work). `known` is false where they could not be read.
struct CpuTicks {
  long long total = 0, steal = 0;
  bool known = false;
};

/// Sums the `cpuN` lines of a /proc/stat text for the CPUs in `cpus`; unknown if any of them is missing.
CpuTicks parse_cpu_ticks(std::istream& stat, const std::vector<int>& cpus);

/// The counters of the CPUs this process may run on (one, for an MPI rank bound to a core).
CpuTicks cpu_ticks();

/// The share of the CPUs' time between two readings that went to steal (0 within one clock tick); negative
/// where either is unknown.
double steal_share(const CpuTicks& before, const CpuTicks& after);

}  // namespace wmd::md
