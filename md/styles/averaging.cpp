#include "md/styles/averaging.hpp"

#include <filesystem>

#include "base/error.hpp"

namespace wmd::md {

AveragingSchedule read_averaging_schedule(io::ArgCursor& a, const std::string& who, bool standard_rule) {
  AveragingSchedule s;
  s.nevery = a.integer("Nevery", 1, 2000000000);
  s.nrepeat = a.integer("Nrepeat", 1, 2000000000);
  s.nfreq = a.integer("Nfreq", 1, 2000000000);
  if (standard_rule && (s.nfreq % s.nevery != 0 || (s.nrepeat - 1) * s.nevery >= s.nfreq))
    a.fail(who +
           ": Nfreq must be a multiple of Nevery and (Nrepeat-1)*Nevery less than Nfreq (LAMMPS's rule)");
  return s;
}

int64_t averaging_next_valid(int64_t step, int64_t nevery, int64_t nrepeat, int64_t nfreq, int64_t start) {
  int64_t nvalid = (step / nfreq) * nfreq + nfreq;
  while (nvalid < start) nvalid += nfreq;
  if (nvalid - nfreq == step && nrepeat == 1)
    nvalid = step;
  else
    nvalid -= (nrepeat - 1) * nevery;
  if (nvalid < step) nvalid += nfreq;
  return nvalid;
}

void finish_average_write(std::ofstream& out, const std::string& file, bool overwrite,
                          const std::string& who) {
  out.flush();
  if (!out) throw RunError(who + ": cannot write '" + file + "'");
  if (!overwrite) return;
  std::error_code ec;
  std::filesystem::resize_file(file, static_cast<std::uintmax_t>(out.tellp()), ec);
  if (ec) throw RunError(who + ": cannot truncate '" + file + "'");
}

}  // namespace wmd::md
