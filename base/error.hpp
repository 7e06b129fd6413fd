// Error reporting shared by every layer: bad input (exit 2) and failed runs (exit 3).
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

#include "base/printable_line.hpp"

namespace wmd {

inline constexpr int exit_ok = 0;
inline constexpr int exit_bad_input = 2;
inline constexpr int exit_run_failed = 3;

/// Bad input: a file, a command line or a value the user supplied. what() reads "FILE:LINE: message", one
/// line whatever the input held.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, int line, const std::string& message)
      : std::runtime_error(printable_line(file, 200) + ":" + std::to_string(line) + ": " +
                           printable_line(message, 600)),
        file_(std::move(file)),
        line_(line),
        message_(message) {}
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  int line_;
  std::string message_;
};

/// A run that started but cannot go on (lost atom, non-finite value, I/O failure, interruption).
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Where a value came from, for error messages: file and 1-based line.
struct SourcePos {
  std::string file = "<input>";
  int line = 0;
};

/// Throws InputError at `pos` with `message`.
[[noreturn]] inline void fail_input(const SourcePos& pos, const std::string& message) {
  throw InputError(pos.file, pos.line, message);
}

}  // namespace wmd
