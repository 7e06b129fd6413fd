// One input command (a LAMMPS line or a translated YAML key) and typed access to its arguments.
#pragma once
#include <string>
#include <vector>

#include "base/error.hpp"

namespace wmd::io {

/// A command word with its arguments and where it was written.
/// The most steps one `run` takes (LAMMPS's MAXSMALLINT: its step count is an int; "Invalid run command N
/// value" beyond it, and for `upto` the steps left).
inline constexpr long long kMaxRunSteps = 2147483647LL;

struct Command {
  std::string name;
  std::vector<std::string> args;
  SourcePos pos;
  std::string text;  // the line as written (after variable substitution), for logs and hashes
};

/// Reads a command's arguments in order, converting and range-checking them; failures name file and line.
class ArgCursor {
 public:
  explicit ArgCursor(const Command& cmd, size_t start = 0) : cmd_(cmd), next_(start) {}

  bool done() const { return next_ >= cmd_.args.size(); }
  size_t remaining() const { return done() ? 0 : cmd_.args.size() - next_; }
  /// The next argument as a string; `what` names it in the error when missing.
  std::string word(const std::string& what);
  /// The next argument without consuming it (empty at the end).
  std::string peek() const { return done() ? std::string() : cmd_.args[next_]; }
  /// The next argument as a finite number.
  double real(const std::string& what);
  /// The next argument as a number > 0.
  double positive(const std::string& what);
  /// The next argument as a number ≥ 0.
  double non_negative(const std::string& what);
  /// The next argument as an integer in [lo, hi].
  long long integer(const std::string& what, long long lo, long long hi);
  /// The next argument as yes/no.
  bool yes_no(const std::string& what);
  /// The next argument, which must be one of `choices`.
  std::string choice(const std::string& what, const std::vector<std::string>& choices);
  /// Fails unless every argument was consumed.
  void finish() const;
  /// Where the command was written (errors a style raises later, at run time, name it).
  const SourcePos& pos() const { return cmd_.pos; }
  /// Throws InputError at the command's position.
  [[noreturn]] void fail(const std::string& message) const;

 private:
  const Command& cmd_;
  size_t next_;
};

/// Parses a whole token as a finite double; false if it is not one.
bool parse_double(const std::string& token, double& value);
/// Parses a whole token as a 64-bit integer; false if it is not one.
bool parse_integer(const std::string& token, long long& value);
/// Parses LAMMPS type bounds "N", "*", "N*", "*M", "N*M" within [1, n].
bool parse_bounds(const std::string& token, int n, int& lo, int& hi);

}  // namespace wmd::io
