// The process's memory budget: large allocations sized from input (atoms, ghost images, cell and mesh grids,
// potential tables, checkpoint arrays) are checked against it first, so hostile or mistaken input is refused
// with the estimate and the limit instead of swapping or being killed. The default limit is the smaller of
// the memory available now (/proc/meminfo MemAvailable) and the address-space limit (RLIMIT_AS); the
// `limits.memory_gb` setting replaces it.
#pragma once
#include <sys/resource.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "base/error.hpp"

namespace wmd::memory {

namespace detail {
inline double& limit_override() {
  static double bytes = 0.0;  // 0: the default
  return bytes;
}
}  // namespace detail

/// The default limit in bytes: min(MemAvailable, RLIMIT_AS); unknown parts count as unlimited.
inline double default_limit_bytes() {
  double limit = INFINITY;
  std::ifstream in("/proc/meminfo");
  for (std::string line; std::getline(in, line);) {
    std::istringstream w(line);
    std::string key;
    double kb = 0;
    if (w >> key >> kb && key == "MemAvailable:") limit = kb * 1024.0;
  }
  struct rlimit rl {};
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    limit = std::fmin(limit, static_cast<double>(rl.rlim_cur));
  return limit;
}

/// The limit in force, in bytes.
inline double limit_bytes() {
  return detail::limit_override() > 0.0 ? detail::limit_override() : default_limit_bytes();
}

/// Replaces the limit (`limits.memory_gb`); 0 restores the default.
inline void set_limit_gb(double gb) {
  detail::limit_override() = gb * 1e9;
}

/// A size as "12.3 GB" (decimal units, as the setting).
inline std::string gb_text(double bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g GB", bytes / 1e9);
  return buf;
}

/// Refuses (InputError at `at`) an allocation of `bytes` for `what` that does not fit the limit. `bytes` is
/// a double so that products of hostile counts cannot wrap around; a non-finite estimate is refused too.
inline void check_allocation(const std::string& what, double bytes, const SourcePos& at = SourcePos{}) {
  // Small requests cannot matter; they skip reading /proc/meminfo.
  if (bytes < 64e6 && detail::limit_override() == 0.0) return;
  const double limit = limit_bytes();
  if (std::isfinite(bytes) && bytes <= limit) return;
  fail_input(at, what + " would need about " + gb_text(bytes) + " of memory, over the limit of " +
                     gb_text(limit) + " (raise it with --set limits.memory_gb=N)");
}

}  // namespace wmd::memory
