// Error reporting shared by every layer: bad input (exit 2) and failed runs (exit 3).
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace wmd {

inline constexpr int exit_ok = 0;
inline constexpr int exit_bad_input = 2;
inline constexpr int exit_run_failed = 3;

/// `text` made safe to print as part of a one-line message: control bytes (a newline, a NUL) and bytes
/// that are not UTF-8 (binary input) as \xNN, and at most about `max` bytes kept (hostile input may be
/// megabytes long).
inline std::string printable(const std::string& text, size_t max = 400) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (out.size() >= max) return out + "... (" + std::to_string(text.size() - i) + " more bytes)";
    const auto c = static_cast<unsigned char>(text[i]);
    // A well-formed UTF-8 sequence (an Å in a message) is kept whole.
    const size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 1;
    bool utf8 = n > 1 && i + n <= text.size();
    for (size_t k = 1; utf8 && k < n; ++k) utf8 = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
    if (utf8) {
      out.append(text, i, n);
      i += n;
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
      ++i;
    }
  }
  return out;
}

/// Bad input: a file, a command line or a value the user supplied. what() reads "FILE:LINE: message", one
/// line whatever the input held.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, int line, const std::string& message)
      : std::runtime_error(printable(file, 200) + ":" + std::to_string(line) + ": " +
                           printable(message, 600)),
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
