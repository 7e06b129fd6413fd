// Fuzzes the LAMMPS data-file reader (read_data): header counts and box, Masses, Atoms, Velocities.
#include <cstdint>

#include "harness.hpp"
#include "io/lammps_data.hpp"
#include "scratch_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = wmd::fuzz::scratch_input(data, size, "data.data");
  return wmd::fuzz::guarded([&] {
    const wmd::io::DataFile d = wmd::io::read_lammps_data(path, wmd::SourcePos{"<fuzz>", 0});
    // What the reader returns must be consistent: every per-atom array as long as the ids.
    const size_t n = d.id.size();
    if (d.type.size() != n || d.x.size() != n || d.ix.size() != n || (d.has_velocities && d.vx.size() != n) ||
        d.mass.size() != static_cast<size_t>(d.ntypes) + 1)
      __builtin_trap();
  });
}
