// The live progress line of long runs: one line on stderr, rewritten in place at most a few times a second,
// shown only when stderr is a terminal (logs and pipes stay clean). It never starts with a bare number.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

namespace wmd::md {

class ProgressLine {
 public:
  /// Active when `enabled` (rank 0) and stderr is a terminal; covers steps first..last of one run.
  ProgressLine(bool enabled, int64_t first_step, int64_t last_step);
  ~ProgressLine();
  /// Redraws the line if at least the refresh interval has passed; temp (K) and etotal (eV) from thermo.
  void update(int64_t step, double temp, double etotal);
  /// Erases the line (before normal output resumes, and at the end of the run).
  void clear();
  bool active() const { return active_; }

  /// The text of the line (without the carriage return and erase codes), for tests.
  static std::string format(int64_t step, int64_t first, int64_t last, double steps_per_second, double temp,
                            double etotal);

 private:
  bool active_ = false;
  bool shown_ = false;
  int64_t first_, last_;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace wmd::md
