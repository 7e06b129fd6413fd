// LAMMPS data files (atom_style atomic; orthogonal or triclinic box): read_data and write_data.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/error.hpp"

namespace wmd::io {

struct DataFile {
  int64_t natoms = 0;
  int ntypes = 0;
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  bool triclinic = false;  // the header has an `xy xz yz` line
  double xy = 0, xz = 0, yz = 0;
  std::vector<double> mass;  // [type], 0 where the file has none
  std::vector<int64_t> id;
  std::vector<int> type;
  std::vector<double> x, y, z;
  std::vector<int> ix, iy, iz;
  bool has_velocities = false;
  std::vector<double> vx, vy, vz;  // in atom order of `id`
  int64_t timestep = 0;
};

/// Reads an atomic-style data file; malformed content is an InputError naming file and line.
DataFile read_lammps_data(const std::string& path, const SourcePos& from);
/// Writes a data file as LAMMPS's write_data does (shortest round-trip numbers); false on I/O failure.
bool write_lammps_data(const std::string& path, const DataFile& d);

}  // namespace wmd::io
