// Where a potential file named in an input is found: LAMMPS's search, plus the script's own directory.
#pragma once

#include <string>

#include "base/error.hpp"

namespace wmd::potentials {

/// The directory searched last (the build's WAFERMD_POTENTIALS_DIR: where the distribution's lammps-data
/// package puts LAMMPS's potentials, and where Debian's lmp looks too).
const std::string& default_potentials_dir();

/// The file `name` names, searched as LAMMPS does and one step more: `name` as written (relative to the
/// working directory), then relative to the directory of the input that names it (`from.file`), then its file
/// name in $LAMMPS_POTENTIALS, then in default_potentials_dir(). Returns `name` unchanged when none exists,
/// so the caller's "cannot open" names what the user wrote.
std::string find_potential_file(const std::string& name, const SourcePos& from);

/// The places find_potential_file looked, for the message when none had the file.
std::string potential_search_places(const std::string& name, const SourcePos& from);

}  // namespace wmd::potentials
