// The bound on histogram bins that a compute or fix fills and reduces every time it is invoked (compute rdf,
// fix ave/histo): each invocation costs work and memory per bin, so the count LAMMPS accepts without limit
// (Nbin = 10^8 is seconds per step and gigabytes) is refused before anything is allocated. 10^6 bins are a
// bin of 10^-5 Å over a 10 Å cut-off, far finer than any distribution a run samples resolves.
#pragma once
#include <cstdint>
#include <string>

#include "base/error.hpp"

namespace wmd::md {

inline constexpr int64_t kMaxPerStepBins = 1000000;

/// Nbin of `what` from the input, refused above kMaxPerStepBins naming the limit.
inline void check_per_step_bins(const std::string& what, int64_t nbin, const SourcePos& at) {
  if (nbin > kMaxPerStepBins)
    fail_input(at, what + ": " + std::to_string(nbin) + " bins is more than the " +
                       std::to_string(kMaxPerStepBins) +
                       " a histogram filled every invocation may have (each costs work every step)");
}

}  // namespace wmd::md
