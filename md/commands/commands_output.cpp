// Fixes, computes, thermo and dump commands.
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

const std::vector<std::string>& dump_columns() {
  static const std::vector<std::string> cols = {"id", "type", "mass", "x",  "y",  "z",  "xs",
                                                "ys", "zs",   "xu",   "yu", "zu", "ix", "iy",
                                                "iz", "vx",   "vy",   "vz", "fx", "fy", "fz"};
  return cols;
}

}  // namespace

void Simulation::cmd_fix(const io::Command& c) {
  require_box(c);
  io::ArgCursor a(c);
  const std::string id = a.word("a fix ID");
  const uint32_t group = group_of(a, a.word("a group ID"));
  const std::string style = a.word("a fix style");
  FixBuildContext ctx{s_, regions_, lattice_.defined() ? lattice_.spacing[0] : 0.0,
                      settings_.backend == "cluster" ? &decomp_ : nullptr};
  std::unique_ptr<Fix> f = make_fix(id, group, style, a, ctx);
  if (f->load_balance()) {
    for (const auto& x : fixes_)
      if (x->load_balance() && x->id() != id) a.fail("fix " + x->id() + " already balances the sub-domains");
    if (settings_.backend != "cluster")
      log_.line("fix balance: the " + settings_.backend + " backend has no sub-domains to balance; ignored");
  }
  // As LAMMPS: redefining an ID replaces the fix in place (same position in the hook order).
  auto it = std::find_if(fixes_.begin(), fixes_.end(), [&](const auto& x) { return x->id() == id; });
  if (it != fixes_.end())
    *it = std::move(f);
  else
    fixes_.push_back(std::move(f));
}

void Simulation::cmd_unfix(const io::Command& c) {
  io::ArgCursor a(c);
  const std::string id = a.word("a fix ID");
  a.finish();
  auto it = std::find_if(fixes_.begin(), fixes_.end(), [&](const auto& x) { return x->id() == id; });
  if (it == fixes_.end()) a.fail("unknown fix ID '" + id + "'");
  fixes_.erase(it);
}

void Simulation::cmd_compute(const io::Command& c) {
  require_box(c);
  io::ArgCursor a(c);
  Compute cp;
  cp.id = a.word("a compute ID");
  cp.group = group_of(a, a.word("a group ID"));
  cp.style = a.choice("a compute style", {"pe/atom", "ke/atom"});
  while (!a.done()) a.choice("a pe/atom term", {"pair"});
  for (const auto& x : computes_) {
    if (x.id == cp.id) a.fail("compute ID '" + cp.id + "' is already defined");
  }
  computes_.push_back(cp);
}

void Simulation::cmd_thermo(const io::Command& c) {
  io::ArgCursor a(c);
  thermo_every_ = static_cast<int>(a.integer("the thermo interval (steps)", 0, 2000000000));
  a.finish();
}

void Simulation::cmd_thermo_style(const io::Command& c) {
  io::ArgCursor a(c);
  const std::string style = a.choice("a thermo style", {"one", "custom"});
  if (style == "one") {
    a.finish();
    thermo_custom_ = false;
  } else {
    std::vector<std::string> keys;
    while (!a.done()) {
      const std::string k = a.word("thermo keywords");
      if (k.rfind("v_", 0) == 0) {
        keys.push_back(k);
        continue;
      }
      if (k.rfind("f_", 0) == 0) {
        const std::string fid = k.substr(2);
        if (std::none_of(fixes_.begin(), fixes_.end(), [&](const auto& x) { return x->id() == fid; }))
          a.fail("thermo keyword '" + k + "' names an unknown fix");
        keys.push_back(k);
        continue;
      }
      double unused;
      if (thermo_header(k).empty() && !cascade_thermo(k, unused))
        a.fail("unknown thermo keyword '" + k + "'");
      keys.push_back(k);
    }
    if (keys.empty()) a.fail("thermo_style custom needs at least one keyword");
    thermo_custom_ = true;
    thermo_custom_keys_ = keys;
  }
  thermo_format_.reset_user_formats();
}

void Simulation::cmd_thermo_modify(const io::Command& c) {
  io::ArgCursor a(c);
  if (a.done()) a.fail("thermo_modify needs keywords (format, norm, flush, lost)");
  while (!a.done()) {
    const std::string key = a.choice("a thermo_modify keyword", {"format", "norm", "flush", "lost"});
    if (key == "norm") {
      thermo_norm_ = a.yes_no("norm");
    } else if (key == "flush") {
      a.yes_no("flush");
    } else if (key == "lost") {
      a.choice("lost", {"error"});
    } else {
      const std::string what = a.word("line, int, float, none or a column number");
      if (what == "none") {
        thermo_format_.reset_user_formats();
        continue;
      }
      const std::string fmt = a.word("a format string");
      if (what == "line") {
        thermo_format_.set_line(fmt);
      } else if (what == "int") {
        if (!io::valid_int_format(fmt)) a.fail("'" + fmt + "' is not an integer format like %8d");
        thermo_format_.set_int(fmt);
      } else if (what == "float") {
        if (!io::valid_float_format(fmt)) a.fail("'" + fmt + "' is not a float format like %12.8g");
        thermo_format_.set_float(fmt);
      } else {
        long long n;
        if (!io::parse_integer(what, n) || n < 1 || n > 1000)
          a.fail("thermo_modify format expected line, int, float or a column number, got '" + what + "'");
        if (!io::valid_float_format(fmt) && !io::valid_int_format(fmt))
          a.fail("'" + fmt + "' is not a printf format");
        thermo_format_.set_column(static_cast<int>(n), fmt);
      }
    }
  }
}

void Simulation::cmd_dump(const io::Command& c) {
  require_box(c);
  io::ArgCursor a(c);
  Dump d;
  d.id = a.word("a dump ID");
  for (const auto& x : dumps_) {
    if (x.id == d.id) a.fail("dump ID '" + d.id + "' is already defined");
  }
  for (const auto& x : h5md_) {
    if (!x.id.empty() && x.id == d.id) a.fail("dump ID '" + d.id + "' is already defined");
  }
  const std::string group = a.word("a group ID");
  d.group = group_of(a, group);
  const std::string style = a.word("a dump style");
  if (style == "h5md") {
    if (d.group != 1u) a.fail("dump h5md writes group all only (H5MD frames have a fixed atom count)");
    dump_h5md(a, d.id);
    return;
  }
  if (style != "custom") a.fail("dump style '" + style + "' is not supported (custom, h5md)");
  d.every = static_cast<int>(a.integer("the dump interval (steps)", 1, 2000000000));
  d.file = a.word("a file name");
  while (!a.done()) {
    const std::string col = a.word("columns");
    if (col.rfind("c_", 0) == 0) {
      const std::string id = col.substr(2);
      if (std::none_of(computes_.begin(), computes_.end(), [&](const Compute& x) { return x.id == id; })) {
        a.fail("dump column '" + col + "' names an unknown compute");
      }
    } else if (std::find(dump_columns().begin(), dump_columns().end(), col) == dump_columns().end()) {
      a.fail("unknown dump custom column '" + col + "'");
    }
    d.columns.push_back(col);
  }
  if (d.columns.empty()) a.fail("dump custom needs at least one column");
  d.column_formats.assign(d.columns.size(), "");
  if (!dry_run_) {
    // Rank 0 writes the file; every rank learns whether it could be opened, so all stop alike.
    int ok = 1;
    if (comm_.root()) {
      d.writer = std::make_unique<io::DumpTextWriter>();
      ok = d.writer->open(d.file) ? 1 : 0;
    }
    comm_.broadcast(&ok, 1);
    if (!ok) fail_input(c.pos, "cannot write dump file '" + d.file + "'");
  }
  dumps_.push_back(std::move(d));
}

// `dump ID all h5md N file.h5 position velocity force image species [author NAME] [box yes]`.
void Simulation::dump_h5md(io::ArgCursor& a, const std::string& id) {
  H5md h;
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
  h5md_.push_back(std::move(h));
}

void Simulation::cmd_dump_modify(const io::Command& c) {
  io::ArgCursor a(c);
  const std::string id = a.word("a dump ID");
  auto it = std::find_if(dumps_.begin(), dumps_.end(), [&](const Dump& x) { return x.id == id; });
  if (it == dumps_.end() &&
      std::any_of(h5md_.begin(), h5md_.end(), [&](const H5md& h) { return !id.empty() && h.id == id; }))
    a.fail("dump_modify does not apply to h5md dump '" + id + "' (its frames are always in id order)");
  if (it == dumps_.end()) a.fail("unknown dump ID '" + id + "'");
  if (a.done()) a.fail("dump_modify needs keywords (sort, format)");
  while (!a.done()) {
    const std::string key = a.choice("a dump_modify keyword", {"sort", "format"});
    if (key == "sort") {
      const std::string v = a.word("off, id or a column number");
      if (v == "off")
        it->sort_id = false;
      else if (v == "id")
        it->sort_id = true, it->sort_desc = false;
      else
        a.fail("dump_modify sort supports off and id, got '" + v + "'");
    } else {
      const std::string what = a.word("line, int, float, none or a column number");
      if (what == "none") {
        it->line_format.clear();
        std::fill(it->column_formats.begin(), it->column_formats.end(), "");
        continue;
      }
      const std::string fmt = a.word("a format string");
      if (what == "line") {
        it->line_format = fmt;
      } else if (what == "int" || what == "float") {
        const bool is_int = what == "int";
        if (is_int ? !io::valid_int_format(fmt) : !io::valid_float_format(fmt)) {
          a.fail("'" + fmt + "' is not a valid " + what + " format");
        }
        for (size_t k = 0; k < it->columns.size(); ++k) {
          const std::string& col = it->columns[k];
          const bool col_int = col == "id" || col == "type" || col == "ix" || col == "iy" || col == "iz";
          if (col_int == is_int) it->column_formats[k] = fmt;
        }
      } else {
        long long n;
        if (!io::parse_integer(what, n) || n < 1 || n > static_cast<long long>(it->columns.size())) {
          a.fail("dump_modify format expected line, int, float or a column number, got '" + what + "'");
        }
        it->column_formats[n - 1] = fmt;
      }
    }
  }
}

void Simulation::cmd_undump(const io::Command& c) {
  io::ArgCursor a(c);
  const std::string id = a.word("a dump ID");
  a.finish();
  auto h = std::find_if(h5md_.begin(), h5md_.end(), [&](const H5md& x) { return x.id == id && !id.empty(); });
  if (h != h5md_.end()) {
    h5md_.erase(h);
    return;
  }
  auto it = std::find_if(dumps_.begin(), dumps_.end(), [&](const Dump& x) { return x.id == id; });
  if (it == dumps_.end()) a.fail("unknown dump ID '" + id + "'");
  dumps_.erase(it);
}

}  // namespace wmd::md
