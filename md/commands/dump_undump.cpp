// `dump ID group custom|atom|xyz[/gz]|local|h5md N file ...`, `dump_modify ID keyword value ...` (thresh
// included) and `undump ID`.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"
#include "md/styles/reference.hpp"

namespace wmd::md {
namespace {

const std::vector<std::string>& dump_columns() {
  static const std::vector<std::string> cols = {
      "id",  "type", "element", "mass", "x",  "y",  "z",  "xs", "ys", "zs", "xu", "yu", "zu",
      "xsu", "ysu",  "zsu",     "ix",   "iy", "iz", "vx", "vy", "vz", "fx", "fy", "fz"};
  return cols;
}

// `dump ID all h5md N file.h5 position velocity force image species [author NAME] [box yes]`.
void dump_h5md(Simulation& sim, io::ArgCursor& a, const std::string& id) {
  H5mdDump h;
  h.id = id;
  h.every = static_cast<int>(a.integer("the dump interval (steps)", 1, 2000000000));
  h.file = a.word("a file name");
  // The file is created at the first run (when the atom count is known); refuse an unwritable place now.
  const std::string parent = std::filesystem::path(h.file).parent_path().string();
  if (::access(parent.empty() ? "." : parent.c_str(), W_OK) != 0)
    a.fail("cannot write dump file '" + h.file + "' (its directory is missing or not writable)");
  while (!a.done()) {
    const std::string k = a.choice(
        "an h5md keyword", {"position", "velocity", "force", "image", "species", "id", "author", "box"});
    if (k == "author") {
      h.author = a.word("an author name");
    } else if (k == "box") {
      if (!a.yes_no("box")) a.fail("dump h5md always writes the box (box yes)");
    } else {
      if (std::find(h.fields.begin(), h.fields.end(), k) == h.fields.end()) h.fields.push_back(k);
      long long sub;
      if (io::parse_integer(a.peek(), sub))
        a.fail("per-element intervals ('" + k + " " + a.peek() +
               "') are not supported: every element is "
               "written every " +
               std::to_string(h.every) + " steps");
    }
  }
  if (std::find(h.fields.begin(), h.fields.end(), "position") == h.fields.end())
    h.fields.insert(h.fields.begin(), "position");
  sim.h5md.push_back(std::move(h));
}

// dump atom's columns: id type, scaled or plain coordinates, then the image flags when asked.
void set_atom_columns(Dump& d) {
  d.columns = {"id", "type"};
  for (const char* x : {"x", "y", "z"}) d.columns.push_back(d.scale ? std::string(x) + "s" : std::string(x));
  if (d.image) d.columns.insert(d.columns.end(), {"ix", "iy", "iz"});
  d.column_formats.assign(d.columns.size(), "");
}

// dump local's columns: index and local c_ID / c_ID[i] (f_ID: no fix here has local values), at least one
// compute, as LAMMPS requires.
void read_local_columns(Simulation& sim, io::ArgCursor& a, Dump& d) {
  if (a.done()) a.fail("dump local needs columns (index, c_ID, c_ID[i])");
  bool computed = false;
  while (!a.done()) {
    const std::string col = a.word("columns");
    Reference r;
    if (col != "index") {
      if (!parse_reference(col, r, a) || r.kind == Reference::Kind::variable)
        a.fail("'" + col + "' is not a dump local column (index, c_ID, c_ID[i], f_ID, f_ID[i])");
      check_reference(r, Reference::Shape::local, sim, a, "dump local");
      if (r.kind == Reference::Kind::fix)
        a.fail("dump local " + col + ": fixes with local values are not supported");
      computed = true;
    }
    d.columns.push_back(col);
  }
  if (!computed)
    a.fail("dump local needs a compute column (LAMMPS: \"Dump local attributes contain no compute or fix\")");
}

// `dump_modify ID thresh attribute op value|LAST` or `thresh none` (LAMMPS's DumpCustom::modify_param: dump
// custom and cfg only; the attribute is any per-atom column, element, or a per-atom c_/f_/v_ reference).
void read_threshold(Simulation& sim, io::ArgCursor& a, Dump& d) {
  if (d.style != "custom" && d.style != "cfg")
    a.fail(
        "dump_modify thresh applies to dump custom and cfg only (LAMMPS: \"Illegal dump_modify command\" "
        "for dump " +
        d.style + ")");
  const std::string attr = a.word("a threshold attribute (a dump column, c_ID, f_ID, v_name, or none)");
  if (attr == "none") {
    d.thresholds.clear();
    return;
  }
  DumpThreshold t;
  t.attribute = attr;
  Reference r;
  if (parse_reference(attr, r, a)) {
    check_reference(r, Reference::Shape::peratom, sim, a, "dump_modify thresh");
  } else if (attr == "proc" || attr == "procp1") {
    a.fail("dump_modify thresh " + attr +
           ": the rank holding an atom is not LAMMPS's here (another "
           "decomposition)");
  } else if (attr != "element" &&
             std::find(dump_columns().begin(), dump_columns().end(), attr) == dump_columns().end()) {
    a.fail("invalid dump_modify thresh attribute '" + attr + "' (atom_style atomic: " +
           "id type element mass x y z xs ys zs xu yu zu xsu ysu zsu ix iy iz vx vy vz fx fy fz, c_ID, "
           "c_ID[i], f_ID, f_ID[i], v_name)");
  }
  const std::string op = a.choice("a threshold operator", {"<", "<=", ">", ">=", "==", "!=", "|^"});
  using Op = DumpThreshold::Op;
  t.op = op == "<"    ? Op::lt
         : op == "<=" ? Op::le
         : op == ">"  ? Op::gt
         : op == ">=" ? Op::ge
         : op == "==" ? Op::eq
         : op == "!=" ? Op::ne
                      : Op::xor_;
  if (a.peek() == "LAST") {
    a.word("LAST");
    t.last = true;
  } else {
    t.value = a.real("a threshold value (a number or LAST)");
  }
  d.thresholds.push_back(std::move(t));
}

// `dump`, and write_dump's one-frame dump (`one_shot`: a cfg file needs no '*', as LAMMPS's
// multifile_override).
void make_dump(Simulation& sim, const io::Command& c, bool one_shot) {
  sim.require_box(c);
  io::ArgCursor a(c);
  Dump d;
  d.id = a.word("a dump ID");
  for (const auto& x : sim.dumps) {
    if (x.id == d.id) a.fail("dump ID '" + d.id + "' is already defined");
  }
  for (const auto& x : sim.h5md) {
    if (!x.id.empty() && x.id == d.id) a.fail("dump ID '" + d.id + "' is already defined");
  }
  const std::string group = a.word("a group ID");
  d.group = sim.group_of(a, group);
  const std::string style = a.word("a dump style");
  if (style == "h5md") {
    if (d.group != 1u) a.fail("dump h5md writes group all only (H5MD frames have a fixed atom count)");
    dump_h5md(sim, a, d.id);
    return;
  }
  const std::string base = style.size() > 3 && style.compare(style.size() - 3, 3, "/gz") == 0
                               ? style.substr(0, style.size() - 3)
                               : style;
  if (base != "custom" && base != "atom" && base != "xyz" && base != "cfg" && base != "local")
    a.fail("dump style '" + style +
           "' is not supported (custom, atom, xyz, cfg, their /gz variants, local, and h5md)");
  d.style = base;
  d.gz = base != style;
  d.every = static_cast<int>(a.integer("the dump interval (steps)", 1, 2000000000));
  d.file = a.word("a file name");
  if (d.file.find('%') != std::string::npos)
    a.fail("dump file names with '%' (one file per processor) are not supported");
  d.multifile = d.file.find('*') != std::string::npos;
  if (d.gz && !io::is_gz_name(d.file)) a.fail("dump " + style + " needs a file name ending in .gz");
  // LAMMPS (built with gzip, as Debian's) compresses any text dump whose file name ends in .gz.
  d.gz = d.gz || io::is_gz_name(d.file);
  if (base == "cfg" && !d.multifile && !one_shot)
    a.fail(
        "dump cfg writes one snapshot per file: put a '*' in the file name (LAMMPS: \"Dump cfg requires "
        "one snapshot per file\")");
  if (base == "local") {
    read_local_columns(sim, a, d);
  } else if (base != "custom" && base != "cfg") {
    if (!a.done()) a.fail("dump " + style + " takes no columns (found '" + a.peek() + "')");
    if (base == "atom") set_atom_columns(d);
    if (base == "xyz") {
      d.columns = {"type", "x", "y", "z"}, d.column_formats.assign(4, "");
      d.sort_id = true;  // LAMMPS sorts xyz dumps by id unless dump_modify sort off
    }
  }
  while (!a.done()) {
    const std::string col = a.word("columns");
    Reference r;
    if (parse_reference(col, r, a)) {  // c_ID, c_ID[i], f_ID, f_ID[i]: per-atom values
      check_reference(r, Reference::Shape::peratom, sim, a, "dump custom");
    } else if (std::find(dump_columns().begin(), dump_columns().end(), col) == dump_columns().end()) {
      a.fail("unknown dump custom column '" + col + "'");
    }
    d.columns.push_back(col);
  }
  if (d.columns.empty()) a.fail("dump custom needs at least one column");
  if (base == "cfg") {
    // AtomEye's extended CFG: mass and type (its element), then scaled coordinates, wrapped or not.
    const auto& k = d.columns;
    const bool wrapped = k.size() >= 5 && k[2] == "xs" && k[3] == "ys" && k[4] == "zs";
    const bool unwrapped = k.size() >= 5 && k[2] == "xsu" && k[3] == "ysu" && k[4] == "zsu";
    if (k.size() < 5 || k[0] != "mass" || k[1] != "type" || !(wrapped || unwrapped))
      a.fail("dump cfg columns must start with 'mass type xs ys zs' or 'mass type xsu ysu zsu'");
  }
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
    if (!ok) fail_input(c.pos, "cannot write dump file '" + d.file + "'");
  }
  sim.dumps.push_back(std::move(d));
}

void cmd_dump(Simulation& sim, const io::Command& c) {
  make_dump(sim, c, false);
}

void cmd_dump_modify(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  const std::string id = a.word("a dump ID");
  auto it = std::find_if(sim.dumps.begin(), sim.dumps.end(), [&](const Dump& x) { return x.id == id; });
  if (it == sim.dumps.end() && std::any_of(sim.h5md.begin(), sim.h5md.end(),
                                           [&](const H5mdDump& h) { return !id.empty() && h.id == id; }))
    a.fail("dump_modify does not apply to h5md dump '" + id + "' (its frames are always in id order)");
  if (it == sim.dumps.end()) a.fail("unknown dump ID '" + id + "'");
  if (a.done()) a.fail("dump_modify needs keywords (sort, format, every, first, pad, element, scale, image)");
  while (!a.done()) {
    const std::string key =
        a.choice("a dump_modify keyword",
                 {"sort", "format", "every", "first", "pad", "element", "scale", "image", "label", "thresh"});
    if (it->style == "local" && (key == "element" || key == "scale" || key == "image"))
      a.fail("dump_modify " + key + " does not apply to dump local");
    if (key == "thresh") {
      read_threshold(sim, a, *it);
    } else if (key == "label") {
      if (it->style != "local") a.fail("dump_modify label applies to dump local only");
      it->label = a.word("a label");
    } else if (key == "every") {
      it->every = static_cast<int>(a.integer("the dump interval (steps)", 1, 2000000000));
    } else if (key == "first") {
      it->first = a.yes_no("first");
    } else if (key == "pad") {
      it->pad = static_cast<int>(a.integer("the digits of the step in file names", 0, 30));
    } else if (key == "element") {
      // The names xyz and cfg write per type, and custom's element column; lmp 2021 refuses it for dump atom.
      if (it->style == "atom")
        a.fail("dump_modify element is not for dump atom (LAMMPS: Illegal dump_modify command)");
      it->elements.assign(1, "");
      for (int t = 1; t <= sim.state.ntypes; ++t)
        it->elements.push_back(a.word("an element name per atom type"));
    } else if (key == "scale" || key == "image") {
      if (it->style != "atom") a.fail("dump_modify " + key + " applies to dump atom only");
      (key == "scale" ? it->scale : it->image) = a.yes_no(key);
      set_atom_columns(*it);
    } else if (key == "sort") {
      const std::string v = a.word("off, id or a column number");
      if (v == "off")
        it->sort_id = false;
      else if (v == "id" && it->style == "local")
        a.fail("dump local cannot sort by atom ID (it writes no atoms)");
      else if (v == "id")
        it->sort_id = true, it->sort_desc = false;
      else
        a.fail("dump_modify sort supports off and id, got '" + v + "'");
    } else {
      if (it->style == "xyz") a.fail("dump_modify format is not supported for dump xyz");
      const std::string what = a.word("line, int, float, none or a column number");
      if (what == "none") {
        it->line_format.clear();
        std::fill(it->column_formats.begin(), it->column_formats.end(), "");
        continue;
      }
      const std::string fmt = a.word("a format string");
      if (what == "line") {
        if (!io::valid_line_format(fmt))
          a.fail("'" + fmt + "' is not a line of formats (one %d, %f, %e or %g each)");
        it->line_format = fmt;
      } else if (what == "int" || what == "float") {
        const bool is_int = what == "int";
        if (is_int ? !io::valid_int_format(fmt) : !io::valid_float_format(fmt)) {
          a.fail("'" + fmt + "' is not a valid " + what + " format");
        }
        for (size_t k = 0; k < it->columns.size(); ++k) {
          const std::string& col = it->columns[k];
          const bool col_int = it->style == "local" ? col == "index"
                                                    : col == "id" || col == "type" || col == "ix" ||
                                                          col == "iy" || col == "iz";
          if (col_int == is_int) it->column_formats[k] = fmt;
        }
      } else {
        long long n;
        if (!io::parse_integer(what, n) || n < 1 || n > static_cast<long long>(it->columns.size())) {
          a.fail("dump_modify format expected line, int, float or a column number, got '" + what + "'");
        }
        if (!io::valid_float_format(fmt) && !io::valid_int_format(fmt))
          a.fail("'" + fmt + "' is not a printf format of one number (%d, %f, %e or %g)");
        it->column_formats[n - 1] = fmt;
      }
    }
  }
}

void cmd_undump(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  const std::string id = a.word("a dump ID");
  a.finish();
  auto h = std::find_if(sim.h5md.begin(), sim.h5md.end(),
                        [&](const H5mdDump& x) { return x.id == id && !id.empty(); });
  if (h != sim.h5md.end()) {
    sim.h5md.erase(h);
    return;
  }
  auto it = std::find_if(sim.dumps.begin(), sim.dumps.end(), [&](const Dump& x) { return x.id == id; });
  if (it == sim.dumps.end()) a.fail("unknown dump ID '" + id + "'");
  sim.dumps.erase(it);
}

// `write_dump group style file columns... [modify dump_modify-keywords...]`: one frame of the current
// state, through a dump that lives for this command only (LAMMPS's WRITE_DUMP).
void cmd_write_dump(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  const std::string id = "WRITE_DUMP";
  std::vector<std::string> dump_args{id}, modify_args{id};
  size_t k = 0;
  for (; k < c.args.size() && c.args[k] != "modify"; ++k) {
    dump_args.push_back(c.args[k]);
    if (k == 1) dump_args.push_back("1");  // after the style: the interval
  }
  if (k < c.args.size())
    for (++k; k < c.args.size(); ++k) modify_args.push_back(c.args[k]);
  if (dump_args.size() < 5) io::ArgCursor(c).fail("write_dump needs a group, a style and a file name");
  // dump_args: ID, group, style, interval, file, columns...
  if (dump_args[2] == "h5md")
    io::ArgCursor(c).fail("write_dump h5md is not supported (dump h5md with run 0)");
  if (dump_args[2] == "local")
    io::ArgCursor(c).fail("write_dump local is not supported (dump local with run 0)");
  for (const Dump& d : sim.dumps)
    if (d.id == id) io::ArgCursor(c).fail("write_dump: a dump named WRITE_DUMP exists");
  make_dump(sim, io::Command{"dump", dump_args, c.pos, c.text}, true);
  if (sim.dumps.empty() || sim.dumps.back().id != id) throw std::logic_error("write_dump made no dump");
  Dump& d = sim.dumps.back();
  if (modify_args.size() > 1) {
    try {
      cmd_dump_modify(sim, io::Command{"dump_modify", modify_args, c.pos, c.text});
    } catch (...) {
      sim.dumps.pop_back();
      throw;
    }
  }
  // A '*' in the name is the current step, as for any dump.
  struct Drop {
    Simulation& sim;
    ~Drop() { sim.dumps.pop_back(); }
  } drop{sim};
  sim.write_dump_now(d);
}

}  // namespace

WMD_COMMAND("write_dump", cmd_write_dump, kNoPhysics)
WMD_COMMAND("dump", cmd_dump, kNoPhysics)
WMD_COMMAND("dump_modify", cmd_dump_modify, kNoPhysics)
WMD_COMMAND("undump", cmd_undump, kNoPhysics)

}  // namespace wmd::md
