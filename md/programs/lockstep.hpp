// Keeps the ranks of `wafermd run` on the same path through the input, so that one rank's failure, early end
// or signal ends the whole job in seconds instead of leaving the others waiting in a collective call.
//
// Every rank runs every command of the input. Before each command (and at the input's end) the ranks agree,
// on a communicator of their own, on what they do next: a command that differs between ranks (a script that
// branches on the rank: `getenv OMPI_COMM_WORLD_RANK`, an early `quit` on one rank) is an input error on
// every rank before it runs (so is a file read one rank makes and another does not); a signal received on any
// rank stops every rank there. A rank that fails inside a command joins the same agreement with its failure:
// the others meet it at their next agreement and end alike (rank 0 prints the one error line); a rank that
// does not come within a few seconds is waiting for the failed one inside a command, so the failed rank
// aborts the job (MPI_Abort, LAMMPS's error->one) with its exit status.
#pragma once
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>

#include "base/error.hpp"
#include "md/core/comm.hpp"
#include "md/programs/failure.hpp"

namespace wmd::io {
struct Command;
}

namespace wmd::md {

class Lockstep {
 public:
  /// Seconds a failed rank waits for the others before it aborts the job.
  static constexpr double kFailureWait = 5.0;

  /// Collective: every rank, before anything else communicates.
  explicit Lockstep(Comm& world);
  /// Before `cmd` (nullptr: the end of the input; `where` names it): throws InputError if the ranks differ,
  /// RunError if a signal arrived on any rank, AgreedFailure if another rank failed.
  void before(const io::Command* cmd, const SourcePos& where) const;
  /// Before a read of an input file (`what` names it; md/programs/root_reads.hpp): as before(), so that a
  /// read one rank makes and another does not (an `include` in a branch on the rank) is an error on every
  /// rank.
  void before_read(const std::string& what) const;
  /// This rank's failure `error`, agreed with the others: the failure every rank reports (rank-prefixed when
  /// not every rank failed). An AgreedFailure is returned as it is. If some rank does not come within
  /// kFailureWait seconds, the job is aborted here with this rank's failure, after `before_abort` (if given)
  /// has recorded it on this rank alone (no collective call: the others are not coming).
  Failure fail(const std::exception_ptr& error, int unexpected_exit,
               const std::function<void(const Failure&)>& before_abort = {}) const;

 private:
  void agree_on(uint64_t token, const std::string& description, const SourcePos& at) const;
  Failure agreed_failure(const Comm::Agreed& a, const Failure& mine) const;
  const Comm& world_;
};

}  // namespace wmd::md
