// What the text dump styles share: the interval and file of `dump`, custom's per-atom columns and
// thresholds (custom and cfg), and the lookup of a style by name.
#include "md/run/dump_style.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "md/run/simulation.hpp"
#include "md/styles/reference.hpp"

namespace wmd::md {

const DumpStyle* find_dump_style(const std::string& name, bool* gz) {
  const auto& reg = DumpRegistry::get();
  if (gz) *gz = false;
  if (const auto* s = reg.find(name)) return s->get();
  const size_t n = name.size();
  if (n <= 3 || name.compare(n - 3, 3, "/gz") != 0) return nullptr;
  const auto* s = reg.find(name.substr(0, n - 3));
  if (!s || !(*s)->has_gz()) return nullptr;
  if (gz) *gz = true;
  return s->get();
}

std::string dump_style_list() {
  std::string with_gz;
  for (const std::string& n : DumpRegistry::get().names())
    if ((*DumpRegistry::get().find(n))->has_gz()) with_gz += (with_gz.empty() ? "" : ", ") + n;
  return DumpRegistry::get().name_list() + "; " + with_gz + " also as STYLE/gz";
}

bool TextDumpStyle::integer_column(const std::string& col) const {
  return col == "id" || col == "type" || col == "ix" || col == "iy" || col == "iz";
}

void TextDumpStyle::define(Simulation& sim, io::ArgCursor& a, const DumpHead& head) const {
  Dump d;
  d.id = head.id;
  d.group = head.group;
  d.style = head.base;
  d.kind = this;
  d.gz = head.gz;
  d.every = static_cast<int>(a.integer("the dump interval (steps)", 1, 2000000000));
  d.file = a.word("a file name");
  if (d.file.find('%') != std::string::npos)
    a.fail("dump file names with '%' (one file per processor) are not supported");
  d.multifile = d.file.find('*') != std::string::npos;
  if (d.gz && !io::is_gz_name(d.file)) a.fail("dump " + head.written + " needs a file name ending in .gz");
  // LAMMPS (built with gzip, as Debian's) compresses any text dump whose file name ends in .gz.
  d.gz = d.gz || io::is_gz_name(d.file);
  read_columns(sim, a, d, head);
  d.column_formats.assign(d.columns.size(), "");
  if (d.multifile) {
    // One file per frame, created when the frame is written: refuse an unwritable place now.
    const std::string parent = std::filesystem::path(d.file).parent_path().string();
    if (::access(parent.empty() ? "." : parent.c_str(), W_OK) != 0)
      a.fail("cannot write dump file '" + d.file + "' (its directory is missing or not writable)");
  } else if (!sim.dry_run) {
    // Rank 0 writes the file; every rank learns whether it could be opened, so all stop alike.
    int ok = 1;
    if (sim.comm.root()) {
      d.writer = std::make_unique<io::DumpTextWriter>();
      ok = d.writer->open(d.file, d.gz) ? 1 : 0;
    }
    sim.comm.broadcast(&ok, 1);
    if (!ok) a.fail("cannot write dump file '" + d.file + "'");
  }
  sim.dumps.push_back(std::move(d));
}

const std::vector<std::string>& peratom_dump_columns() {
  static const std::vector<std::string> cols = {
      "id",  "type", "element", "mass", "x",  "y",  "z",  "xs", "ys", "zs", "xu", "yu", "zu",
      "xsu", "ysu",  "zsu",     "ix",   "iy", "iz", "vx", "vy", "vz", "fx", "fy", "fz"};
  return cols;
}

void read_peratom_columns(Simulation& sim, io::ArgCursor& a, Dump& d) {
  while (!a.done()) {
    const std::string col = a.word("columns");
    Reference r;
    if (parse_reference(col, r, a)) {  // c_ID, c_ID[i], f_ID, f_ID[i]: per-atom values
      check_reference(r, Reference::Shape::peratom, sim, a, "dump custom");
    } else if (std::find(peratom_dump_columns().begin(), peratom_dump_columns().end(), col) ==
               peratom_dump_columns().end()) {
      a.fail("unknown dump custom column '" + col + "'");
    }
    d.columns.push_back(col);
  }
  if (d.columns.empty()) a.fail("dump custom needs at least one column");
}

// LAMMPS's DumpCustom::modify_param: the attribute is any per-atom column, element, or a per-atom c_/f_/v_
// reference.
void read_threshold(Simulation& sim, io::ArgCursor& a, Dump& d) {
  const std::string attr = a.word("a threshold attribute (a dump column, c_ID, f_ID, v_name, or none)");
  if (attr == "none") {
    d.thresholds.clear();
    return;
  }
  DumpThreshold t;
  t.attribute = attr;
  Reference r;
  const auto& cols = peratom_dump_columns();
  if (parse_reference(attr, r, a)) {
    check_reference(r, Reference::Shape::peratom, sim, a, "dump_modify thresh");
  } else if (attr == "proc" || attr == "procp1") {
    a.fail("dump_modify thresh " + attr +
           ": the rank holding an atom is not LAMMPS's here (another "
           "decomposition)");
  } else if (attr != "element" && std::find(cols.begin(), cols.end(), attr) == cols.end()) {
    a.fail("invalid dump_modify thresh attribute '" + attr + "' (atom_style atomic: " +
           "id type element mass x y z xs ys zs xu yu zu xsu ysu zsu ix iy iz vx vy vz fx fy fz, c_ID, "
           "c_ID[i], f_ID, f_ID[i], v_name)");
  }
  t.op = read_comparison(a, "a threshold operator");
  if (a.peek() == "LAST") {
    a.word("LAST");
    t.last = true;
  } else {
    t.value = a.real("a threshold value (a number or LAST)");
  }
  d.thresholds.push_back(std::move(t));
}

bool ThresholdDumpStyle::modify(Simulation& sim, io::ArgCursor& a, const std::string& key, Dump& d) const {
  if (key != "thresh") return false;
  read_threshold(sim, a, d);
  return true;
}

io::DumpFormats dump_formats(const Dump& d) {
  return io::DumpFormats{d.elements, d.column_formats, d.line_format};
}

}  // namespace wmd::md
