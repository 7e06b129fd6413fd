// SIMD targets: which of the instruction sets the hot kernels are compiled for (Google Highway's dynamic
// dispatch; docs/performance.md) this CPU runs, which one the kernels use, and forcing one for tests and
// comparisons (`--set simd=NAME`, or the WAFERMD_SIMD environment variable). The choice is process-wide:
// each kernel looks it up once per pass (HWY_DYNAMIC_DISPATCH), never per atom.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "hwy/targets.h"

namespace wmd::simd {

/// The environment variable that forces a target when no `--set simd=` is given.
inline constexpr const char* kEnvironment = "WAFERMD_SIMD";

/// Our name of a Highway target: scalar, sse4, avx2, avx512, avx512_dl (x86); neon, sve, sve2 (Arm).
inline std::string target_name(int64_t target) {
  switch (target) {
    case HWY_SCALAR:
    case HWY_EMU128:
      return "scalar";
    case HWY_SSSE3:
      return "ssse3";
    case HWY_SSE4:
      return "sse4";
    case HWY_AVX2:
      return "avx2";
    case HWY_AVX3:
      return "avx512";
    case HWY_AVX3_DL:
      return "avx512_dl";
    case HWY_NEON:
      return "neon";
    case HWY_SVE:
    case HWY_SVE_256:
      return "sve";
    case HWY_SVE2:
    case HWY_SVE2_128:
      return "sve2";
    default: {
      std::string s = hwy::TargetName(target);
      for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      return s;
    }
  }
}

namespace detail {
// The target forced by use() (0: none, the best one runs).
inline int64_t& forced() {
  static int64_t t = 0;
  return t;
}
// Targets in `mask`, best first (Highway numbers better targets with lower bits).
inline std::vector<int64_t> split(int64_t mask) {
  std::vector<int64_t> out;
  for (; mask != 0; mask &= mask - 1) out.push_back(mask & -mask);
  return out;
}
// The CPU's own supported targets, whatever use() forced.
inline int64_t cpu_targets() {
  hwy::DisableTargets(0);
  const int64_t supported = hwy::SupportedTargets();
  if (forced() != 0) hwy::DisableTargets(~forced());
  return supported;
}
}  // namespace detail

/// The CPU's model name (Linux's /proc/cpuinfo), or "unknown CPU".
inline std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

/// The targets this binary's kernels are compiled for, best first.
inline std::vector<std::string> compiled_targets() {
  std::vector<std::string> out;
  for (int64_t t : detail::split(HWY_TARGETS)) out.push_back(target_name(t));
  return out;
}

/// The compiled targets this CPU can run, best first (the last is always scalar, or the build's baseline).
inline std::vector<std::string> available_targets() {
  std::vector<std::string> out;
  for (int64_t t : detail::split(HWY_TARGETS & detail::cpu_targets())) out.push_back(target_name(t));
  return out;
}

/// The target the kernels run: the forced one, else the best available.
inline std::string active_target() {
  return target_name(detail::split(HWY_TARGETS & hwy::SupportedTargets()).front());
}

/// Makes the kernels run `name` ("auto": the best this CPU has). A name this binary does not know, or a
/// target this CPU lacks, is an InputError at `pos` (exit 2) that names the ones it could run.
inline void use(const std::string& name, const SourcePos& pos) {
  if (name == "auto" || name.empty()) {
    detail::forced() = 0;
    hwy::DisableTargets(0);
    return;
  }
  const int64_t cpu = detail::cpu_targets();
  std::string avail;
  for (const std::string& a : available_targets()) avail += (avail.empty() ? "" : ", ") + a;
  for (int64_t t : detail::split(HWY_TARGETS)) {
    if (target_name(t) != name) continue;
    if ((cpu & t) == 0)
      fail_input(pos, "simd=" + name + ": this CPU (" + cpu_model() + ") cannot run it; it runs " + avail);
    detail::forced() = t;
    // Every other target disabled: Highway's dispatch then picks t (its scalar fallback stays).
    hwy::DisableTargets(~t);
    return;
  }
  std::string all;
  for (const std::string& c : compiled_targets()) all += (all.empty() ? "" : ", ") + c;
  fail_input(pos, "simd=" + name + " is not a SIMD target of this build (" + all +
                      ", or auto); this CPU runs " + avail);
}

/// Applies WAFERMD_SIMD when it is set (tools and tests that take no `--set`).
inline void use_environment() {
  if (const char* v = std::getenv(kEnvironment)) use(v, SourcePos{kEnvironment, 0});
}

}  // namespace wmd::simd
