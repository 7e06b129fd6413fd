// LAMMPS text dumps: `dump custom` and `dump atom` frames (the layout OVITO, ASE and MDAnalysis read) and
// `dump xyz`, plain or gzip-compressed (the /gz styles).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "io/text_file.hpp"

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

/// custom and atom: LAMMPS's ITEM: blocks; xyz: count, "Atoms. Timestep: N", then `type x y z` rows whose
/// first column is the element name of the type when given (dump_modify element); local: dump local's ITEM:
/// blocks (NUMBER OF ENTRIES, then `ITEM: ENTRIES cols…`, "ENTRIES" being the label, each column name and
/// value followed by a space); cfg: AtomEye's extended CFG as LAMMPS's dump cfg writes it (box matrix,
/// auxiliary names, each atom's mass and element, then its scaled coordinates and auxiliary values).
enum class DumpLayout { custom, xyz, local, cfg };

class DumpTextWriter {
 public:
  /// Opens (truncates) `path`, gzip-compressed when `gz`; returns false if it cannot be written.
  bool open(const std::string& path, bool gz = false);
  void set_layout(DumpLayout layout) { layout_ = layout; }
  /// xyz and cfg: the name written for each type (index 1..ntypes; empty: the type number); custom: the
  /// `element` column's names ("C" where none is given).
  void set_elements(const std::vector<std::string>& elements) { elements_ = elements; }
  /// Per-column formats: `formats[c]` empty means LAMMPS's default (%d for integers, %g for reals).
  void set_formats(const std::vector<std::string>& formats) { formats_ = formats; }
  /// dump_modify format line: one format per column.
  void set_line_format(const std::string& line) { line_ = line; }
  /// dump local's label (dump_modify label): the word of `ITEM: NUMBER OF LABEL` and `ITEM: LABEL cols…`.
  void set_label(const std::string& label) { label_ = label; }
  /// Appends one frame; false on an I/O error.
  bool write(const DumpFrame& frame);
  void close() { out_.close(); }

 private:
  std::string xyz_text(const DumpFrame& f) const;
  std::string cfg_text(const DumpFrame& f) const;
  TextSink out_;
  DumpLayout layout_ = DumpLayout::custom;
  std::vector<std::string> elements_;
  std::vector<std::string> formats_;
  std::string line_;
  std::string label_ = "ENTRIES";
};

}  // namespace wmd::io
