// Where input files are read. As in LAMMPS (a file is opened on rank 0 and its contents broadcast), every
// rank of a multi-rank run gets rank 0's bytes, or rank 0's error, for every input file it reads: ranks whose
// working directories or node-local file systems hold other copies (or none) still run the same input. The
// readers in io/, potentials/, fabric/ and md/ wrap their whole read (finding the file, the size and
// regular-file checks, decompressing) in read_on_root; md/programs installs the MPI side at start-up.
#pragma once
#include <functional>
#include <string>

namespace wmd {

/// Runs `read` where the run's input files are read and returns its result on this rank: `read` returns a
/// file's text (or any string derived from it: a resolved path, a flag) or throws InputError / RunError.
/// `what` names the read ("data file 'x.data'"): the ranks agree on it first, so that a read one rank makes
/// and another does not is an error on every rank, not a wait.
using RootReader = std::string (*)(const std::string& what, const std::function<std::string()>& read);

namespace detail {
inline RootReader& root_reader() {
  static RootReader reader = nullptr;  // nullptr: this process reads for itself (one rank, unit tests)
  return reader;
}
}  // namespace detail

/// Installs `reader` (nullptr: read locally again). Set once at start-up, before any file is read.
inline void set_root_reader(RootReader reader) {
  detail::root_reader() = reader;
}

/// `read`'s result (reading `what`) as rank 0 produced it: with more than one rank, collective (every rank
/// calls it at the same point of the input, in the same order); rank 0 runs `read`, the others receive its
/// string or throw the same error. With one rank (or none installed), simply read().
inline std::string read_on_root(const std::string& what, const std::function<std::string()>& read) {
  const RootReader reader = detail::root_reader();
  return reader ? reader(what, read) : read();
}

}  // namespace wmd
