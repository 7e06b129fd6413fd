#include "md/run/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace wmd::md {
namespace {
constexpr double refresh_seconds = 0.25;
}

ProgressLine::ProgressLine(bool enabled, int64_t first_step, int64_t last_step)
    : active_(enabled && ::isatty(STDERR_FILENO) == 1), first_(first_step), last_(last_step) {
  start_ = last_draw_ = std::chrono::steady_clock::now();
}

ProgressLine::~ProgressLine() {
  clear();
}

std::string ProgressLine::format(int64_t step, int64_t first, int64_t last, double sps, double temp,
                                 double etotal) {
  const double total = static_cast<double>(std::max<int64_t>(last - first, 1));
  const double pct = 100.0 * static_cast<double>(step - first) / total;
  std::string eta = "--:--:--";
  if (sps > 0) {
    const long s = std::lround(static_cast<double>(last - step) / sps);
    eta = fmt::format("{}:{:02d}:{:02d}", s / 3600, (s / 60) % 60, s % 60);
  }
  return fmt::format("step {}/{} ({:.1f}%)  {:.3g} steps/s  ETA {}  T {:.1f} K  Etot {:.6g} eV", step, last,
                     pct, sps, eta, temp, etotal);
}

void ProgressLine::update(int64_t step, double temp, double etotal) {
  if (!active_) return;
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - last_draw_).count() < refresh_seconds) return;
  last_draw_ = now;
  const double secs = std::chrono::duration<double>(now - start_).count();
  const double sps = secs > 0 ? static_cast<double>(step - first_) / secs : 0.0;
  std::fprintf(stderr, "\r%s\033[K", format(step, first_, last_, sps, temp, etotal).c_str());
  std::fflush(stderr);
  shown_ = true;
}

void ProgressLine::clear() {
  if (!shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace wmd::md
