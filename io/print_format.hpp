// User printf formats (`variable format`, `$(expr:%fmt)`, thermo_modify and dump_modify format): only
// LAMMPS's documented forms ever reach snprintf — text, one `%[flags][width][.precision]` conversion of a
// real (f e g E G) or an integer (d i, with l or ll), text — with width and precision bounded, so a format
// from an input script can neither read a missing argument (%s, %n), print a double as an int, nor ask
// for a 2-GB field.
#pragma once
#include <string>

namespace wmd::io {

/// Width and precision above this are refused (LAMMPS's own buffers hold a few hundred characters).
inline constexpr int kMaxFormatWidth = 300;
/// A format longer than this (its surrounding text included) is refused.
inline constexpr size_t kMaxFormatLength = 256;

/// One checked format.
struct PrintFormat {
  std::string before, after;  // literal text around the conversion (%% kept, snprintf prints it as %)
  std::string flags;
  int width = -1, precision = -1;  // -1: not given
  char conversion = 'g';
  bool is_integer() const { return conversion == 'd' || conversion == 'i'; }
  /// `v` printed by this format; an integer conversion prints the value truncated toward zero (or, when it
  /// does not fit a 64-bit integer, as %g with the same width).
  std::string print(double v) const;
};

/// Parses `fmt`; false with `why` (a phrase) when it is not one of the accepted forms. `allow_integer`:
/// whether %d and %i are accepted.
bool parse_print_format(const std::string& fmt, bool allow_integer, PrintFormat& out, std::string& why);

}  // namespace wmd::io
