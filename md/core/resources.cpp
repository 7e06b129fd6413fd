#include "md/core/resources.hpp"

#include <sched.h>

#include <algorithm>
#include <sstream>

namespace wmd::md {

CpuTicks parse_cpu_ticks(std::istream& stat, const std::vector<int>& cpus) {
  CpuTicks t;
  size_t found = 0;
  for (std::string line; std::getline(stat, line);) {
    // "cpuN user nice system idle iowait irq softirq steal guest guest_nice": guest time is already in user.
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
    std::istringstream in(line.substr(3));
    int cpu = -1;
    long long v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    in >> cpu;
    for (long long& x : v) in >> x;
    if (!in || std::find(cpus.begin(), cpus.end(), cpu) == cpus.end()) continue;
    for (long long x : v) t.total += x;
    t.steal += v[7];
    ++found;
  }
  t.known = !cpus.empty() && found == cpus.size();
  return t;
}

CpuTicks cpu_ticks() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return {};
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  std::ifstream in("/proc/stat");
  if (!in) return {};
  return parse_cpu_ticks(in, cpus);
}

double steal_share(const CpuTicks& before, const CpuTicks& after) {
  if (!before.known || !after.known || after.total < before.total) return -1.0;
  if (after.total == before.total) return 0.0;  // shorter than a clock tick: nothing measurable was taken
  return static_cast<double>(after.steal - before.steal) / static_cast<double>(after.total - before.total);
}

}  // namespace wmd::md
