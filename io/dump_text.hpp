// What LAMMPS's text dump styles share: a gathered frame, dump_modify's formats and element names, the
// `ITEM:` layout of dump custom, atom and local, and the file a dump appends its frames to (plain or
// gzip-compressed: the /gz styles, or any name ending in .gz). Each style's own layout lives with the style
// (md/run/dumps/).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "io/text_file.hpp"

namespace wmd::io {

/// One frame: header data plus per-atom (or per-row) columns (all as doubles; integer columns flagged).
struct DumpFrame {
  int64_t step = 0;
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};   // a triclinic box: its bounding box (LAMMPS's *_bound)
  std::string boundary[3] = {"pp", "pp", "pp"};  // e.g. "pp", "ff", "fs"
  bool triclinic = false;
  double tilt[3] = {0, 0, 0};  // xy xz yz
  double prd[3] = {0, 0, 0};   // the edge lengths lx ly lz (dump cfg's H0)
  std::vector<std::string> columns;
  std::vector<bool> is_integer;
  std::vector<std::vector<double>> values;  // [column][row]
};

/// dump_modify's text settings of one dump.
struct DumpFormats {
  /// dump_modify element: the name written for each type (index 1..ntypes; empty: none given).
  std::vector<std::string> elements;
  /// Per-column formats: `columns[c]` empty means LAMMPS's default (%d for integers, %g for reals).
  std::vector<std::string> columns;
  /// dump_modify format line: one format per column (custom, atom, local).
  std::string line;
};

/// The format of each of f's columns: a word of `fm.line` when `with_line`, overridden by a per-column
/// format, else %d for integer columns and %g.
std::vector<std::string> column_formats(const DumpFrame& f, const DumpFormats& fm, bool with_line);

/// The element name of `type` (dump_modify element), or `fallback` where none is given.
std::string element_name(int type, const std::vector<std::string>& elements, const std::string& fallback);

/// LAMMPS's `ITEM:` blocks: TIMESTEP, NUMBER OF <entries>, BOX BOUNDS, then `ITEM: <entries> cols…` and one
/// row per atom. dump custom and atom: entries "ATOMS", an `element` column written as the type's name ("C"
/// where none is given); dump local (`local`): entries is its label, each column name and row followed by a
/// space.
std::string item_frame_text(const DumpFrame& f, const DumpFormats& fm, const std::string& entries,
                            bool local);

/// A dump's file: frames appended as text, flushed after each.
class DumpTextWriter {
 public:
  /// Opens (truncates) `path`, gzip-compressed when `gz`; returns false if it cannot be written.
  bool open(const std::string& path, bool gz = false) { return out_.open(path, gz); }
  /// Appends one frame's text; false on an I/O error.
  bool write(const std::string& text) { return out_.write(text) && out_.flush(); }
  bool close() { return out_.close(); }

 private:
  TextSink out_;
};

}  // namespace wmd::io
