// Thermo lines in the layout of Debian's LAMMPS (29 Sep 2021): "%8d"/"%12.8g" columns each followed by a
// space, with thermo_modify format overrides.
#pragma once
#include <string>
#include <vector>

namespace wmd::io {

class ThermoFormat {
 public:
  /// Sets the columns: header words and whether each holds an integer.
  void set_columns(const std::vector<std::string>& headers, const std::vector<bool>& is_integer);
  /// thermo_modify format line "f1 f2 ...".
  void set_line(const std::string& formats);
  /// thermo_modify format int FMT.
  void set_int(const std::string& f) { int_ = f; }
  /// thermo_modify format float FMT.
  void set_float(const std::string& f) { float_ = f; }
  /// thermo_modify format N FMT (1-based column).
  void set_column(int n, const std::string& f);
  /// Drops all user formats.
  void reset_user_formats();
  /// LAMMPS's thermo_style multi: no header; each row a block, "---- Step N ----- CPU = t (sec) ----" (the
  /// first two columns) then the fields three to a line as `Name     =     value ` (%14.4f unless a float
  /// format is given).
  void set_multi(bool on) { multi_ = on; }
  /// The header line ("Step Temp ... ").
  std::string header() const;
  /// One row of values.
  std::string row(const std::vector<double>& values) const;

 private:
  std::string format_of(size_t i) const;
  std::vector<std::string> headers_;
  std::vector<bool> is_int_;
  std::vector<std::string> line_;  // the line format's words, one per column
  std::string int_, float_;
  std::vector<std::string> column_;
  bool multi_ = false;
};

/// True when `fmt` is one printf conversion of a double (%g %f %e with flags, width, precision and text
/// around; io/print_format.hpp).
bool valid_float_format(const std::string& fmt);
/// True when `fmt` is one printf conversion of an integer (%d %i %ld).
bool valid_int_format(const std::string& fmt);
/// True when every word of `line` (thermo_modify format line) is a real or integer format.
bool valid_line_format(const std::string& line);
/// Formats one value with a checked printf format (an invalid one prints as %d or %g).
std::string format_value(const std::string& fmt, double value, bool is_integer);

}  // namespace wmd::io
