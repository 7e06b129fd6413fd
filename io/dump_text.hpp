// LAMMPS `dump custom` text frames (the layout OVITO, ASE and MDAnalysis read).
#pragma once
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace wmd::io {

/// One frame: header data plus per-atom columns (all as doubles; integer columns flagged).
struct DumpFrame {
  int64_t step = 0;
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  std::string boundary[3] = {"pp", "pp", "pp"};  // e.g. "pp", "ff", "fs"
  std::vector<std::string> columns;
  std::vector<bool> is_integer;
  std::vector<std::vector<double>> values;  // [column][atom]
};

class DumpTextWriter {
 public:
  /// Opens (truncates) `path`; returns false if it cannot be written.
  bool open(const std::string& path);
  /// Per-column formats: `formats[c]` empty means LAMMPS's default (%d for integers, %g for reals).
  void set_formats(const std::vector<std::string>& formats) { formats_ = formats; }
  /// dump_modify format line: one format per column.
  void set_line_format(const std::string& line) { line_ = line; }
  /// Appends one frame; false on an I/O error.
  bool write(const DumpFrame& frame);
  void close() { out_.close(); }

 private:
  std::ofstream out_;
  std::vector<std::string> formats_;
  std::string line_;
};

}  // namespace wmd::io
