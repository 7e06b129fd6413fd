// Dump styles by name (LAMMPS's `dump ID group STYLE N file args…`): each style is one file in md/run/dumps/
// that registers itself with WMD_DUMP_STYLE, as fixes and computes do. The `dump`, `dump_modify`, `undump`
// and `write_dump` commands, the run layer's frames and is_available("dump", …) find a style here and test
// no style name of their own.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/command.hpp"
#include "io/dump_text.hpp"
#include "md/core/box.hpp"
#include "md/core/registry.hpp"

namespace wmd::md {

class Simulation;
struct Dump;

/// What the `dump` command has read when the style takes over: `dump ID group STYLE` (or write_dump's).
struct DumpHead {
  std::string id;
  uint32_t group = 1;
  std::string written;    // the style as written (e.g. custom/gz)
  std::string base;       // its registered name (custom)
  bool gz = false;        // the /gz variant
  bool one_shot = false;  // write_dump's single frame
};

/// The frame's box header: bounds and boundary letters; a triclinic box's bounding box and tilts, which
/// LAMMPS's text dumps print as `ITEM: BOX BOUNDS xy xz yz`.
inline void fill_frame_box(const Box& b, io::DumpFrame& f) {
  for (int k = 0; k < 3; ++k) {
    f.lo[k] = b.triclinic ? b.bound_lo(k) : b.lo[k];
    f.hi[k] = b.triclinic ? b.bound_hi(k) : b.hi[k];
    f.boundary[k] = std::string(1, static_cast<char>(b.face[k][0])) + static_cast<char>(b.face[k][1]);
  }
  f.triclinic = b.triclinic;
  f.tilt[0] = b.xy, f.tilt[1] = b.xz, f.tilt[2] = b.yz;
  for (int k = 0; k < 3; ++k) f.prd[k] = b.prd(k);
}

/// One dump style: how `dump` reads the rest of its arguments. One stateless object per style.
class DumpStyle {
 public:
  virtual ~DumpStyle() = default;
  /// Whether STYLE/gz (the gzip-compressed variant) exists.
  virtual bool has_gz() const { return false; }
  /// Whether write_dump writes this style (false: a `dump` over `run 0` does).
  virtual bool one_frame() const { return true; }
  /// Reads the rest of the `dump` command (from the interval on) and adds the dump to `sim`.
  virtual void define(Simulation& sim, io::ArgCursor& a, const DumpHead& head) const = 0;
};

/// A LAMMPS text dump: an interval and a file (a '*' in its name: one file per frame; .gz: compressed), the
/// style's columns, frames gathered by the run layer (md/run/dump_output.cpp: per atom, or the local rows
/// of computes) and written in the style's layout. A style says what differs from the others.
class TextDumpStyle : public DumpStyle {
 public:
  bool has_gz() const override { return true; }
  /// The interval and the file, then the style's columns (read_columns), then the file is opened.
  void define(Simulation& sim, io::ArgCursor& a, const DumpHead& head) const final;
  /// Reads the style's arguments after the file name into d.columns and sets what the style fixes.
  virtual void read_columns(Simulation& sim, io::ArgCursor& a, Dump& d, const DumpHead& head) const = 0;
  /// The dump_modify keywords beyond the common ones (every, first, pad, sort, format, element) that this
  /// style takes: thresh, label, scale, image.
  virtual bool takes(const std::string& /*key*/) const { return false; }
  /// dump_modify `key` as this style reads it: true when handled here (a keyword it takes, or a common one
  /// it refuses or reads differently); false leaves a common keyword to the command.
  virtual bool modify(Simulation& /*sim*/, io::ArgCursor& /*a*/, const std::string& /*key*/,
                      Dump& /*d*/) const {
    return false;
  }
  /// Frames of the local rows of computes (dump local), not of atoms.
  virtual bool local_rows() const { return false; }
  /// Whether column `col` holds integers (%d by default; dump_modify format int applies to it).
  virtual bool integer_column(const std::string& col) const;
  /// The text of one gathered frame (rank 0).
  virtual std::string frame_text(const io::DumpFrame& f, const Dump& d) const = 0;
};

/// A per-atom dump whose atoms dump_modify thresh selects (custom and cfg, as LAMMPS 2021).
class ThresholdDumpStyle : public TextDumpStyle {
 public:
  bool takes(const std::string& key) const override { return key == "thresh"; }
  bool modify(Simulation& sim, io::ArgCursor& a, const std::string& key, Dump& d) const override;
};

using DumpRegistry = Registry<std::shared_ptr<const DumpStyle>>;

/// The style that `name` (STYLE, or STYLE/gz where the style has it) names, or null; `gz` tells which.
const DumpStyle* find_dump_style(const std::string& name, bool* gz = nullptr);
/// "atom, cfg, …": the registered styles for messages, with the /gz variants' note.
std::string dump_style_list();

// ---- What several styles share -------------------------------------------------------------------------
/// The per-atom attributes a column may name (atom_style atomic): id type element mass x y z xs … fz.
const std::vector<std::string>& peratom_dump_columns();
/// Columns of dump custom (and cfg): attributes and per-atom c_ID, c_ID[i], f_ID, f_ID[i], v_name.
void read_peratom_columns(Simulation& sim, io::ArgCursor& a, Dump& d);
/// `dump_modify ID thresh attribute op value|LAST` or `thresh none` (dump custom and cfg).
void read_threshold(Simulation& sim, io::ArgCursor& a, Dump& d);
/// d's dump_modify formats and element names, for the writers.
io::DumpFormats dump_formats(const Dump& d);

}  // namespace wmd::md

/// Registers the dump style CLASS (a DumpStyle) under NAME; one line next to the style's code.
#define WMD_DUMP_STYLE(NAME, CLASS) \
  WMD_REGISTER(::wmd::md::DumpRegistry, NAME, std::make_shared<const CLASS>())
