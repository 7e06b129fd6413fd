// How `wafermd` ends when something fails: every failure, whatever threw it, becomes one line on stderr
// ("error: ..."; control bytes escaped) and exit status 2 (bad input) or 3 (a failed run).
#pragma once
#include <exception>
#include <stdexcept>
#include <string>

namespace wmd::md {

struct Failure {
  int exit_code;
  std::string message;  // without the "error: " prefix
  int rank = -1;        // the one rank it happened on when not every rank failed (printed "rank N: "), or -1
};

/// The error line's text: "[rank N: ][run failed: ]message" (exit 3: a run failure).
std::string failure_line(const Failure& f);

/// A failure every rank already knows (agreed, md/programs/lockstep.hpp): passed up without agreeing again,
/// and described as it is.
struct AgreedFailure : std::runtime_error {
  explicit AgreedFailure(Failure f) : std::runtime_error(f.message), failure(std::move(f)) {}
  Failure failure;
};

/// What `error` means for the user: InputError → 2, RunError → 3, an allocation failure → "out of memory",
/// any other exception → `unexpected_exit` (2 while the input is read and checked, 3 once it runs).
Failure describe_failure(const std::exception_ptr& error, int unexpected_exit);

/// Writes "error: MESSAGE\n" to stderr in one write, the message made one printable line.
void print_failure(const std::string& message);

/// From now on an exception that escapes where it cannot be caught (std::terminate) is reported as one
/// error line and exit 3 rather than an abort.
void report_terminate();

}  // namespace wmd::md
