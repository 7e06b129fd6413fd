// `dump ID group STYLE N file ...` (STYLE a registered dump style, md/run/dumps/), `dump_modify ID keyword
// value ...`, `undump ID` and `write_dump`.
#include <algorithm>
#include <stdexcept>

#include "md/run/command_registry.hpp"
#include "md/run/dump_style.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

// `dump`, and write_dump's one-frame dump (`one_shot`): the ID, the group and the style, whose registered
// code (md/run/dumps/) reads the rest.
void make_dump(Simulation& sim, const io::Command& c, bool one_shot) {
  sim.require_box(c);
  io::ArgCursor a(c);
  DumpHead head;
  head.id = a.word("a dump ID");
  for (const auto& x : sim.dumps) {
    if (x.id == head.id) a.fail("dump ID '" + head.id + "' is already defined");
  }
  for (const auto& x : sim.h5md) {
    if (!x.id.empty() && x.id == head.id) a.fail("dump ID '" + head.id + "' is already defined");
  }
  head.group = sim.group_of(a, a.word("a group ID"));
  head.written = a.word("a dump style");
  head.one_shot = one_shot;
  const DumpStyle* style = find_dump_style(head.written, &head.gz);
  if (!style) a.fail("dump style '" + head.written + "' is not supported (" + dump_style_list() + ")");
  head.base = head.gz ? head.written.substr(0, head.written.size() - 3) : head.written;
  style->define(sim, a, head);
}

// The registered styles that take dump_modify `key` (a keyword some styles take), for the refusal.
std::string styles_taking(const std::string& key) {
  std::string out;
  for (const std::string& n : DumpRegistry::get().names()) {
    const auto* text = dynamic_cast<const TextDumpStyle*>(DumpRegistry::get().find(n)->get());
    if (text && text->takes(key)) out += (out.empty() ? "" : " and ") + n;
  }
  return out;
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
        a.choice("a dump_modify keyword", {"sort", "format", "every", "first", "delay", "pad", "element",
                                           "scale", "image", "label", "thresh", "flush", "every/time"});
    // The style reads its own keywords, and refuses or reads differently a common one where LAMMPS does.
    if (it->kind->modify(sim, a, key, *it)) continue;
    if (const std::string owners = styles_taking(key); !owners.empty()) {
      a.fail("dump_modify " + key + " applies to dump " + owners +
             " only (LAMMPS: \"Illegal dump_modify command\" for dump " + it->style + ")");
    } else if (key == "every/time") {
      // Writing by simulated time came to LAMMPS after its 29 Sep 2021 release, which stops here.
      a.fail(
          "dump_modify every/time is not in LAMMPS 29 Sep 2021 (lmp: \"Illegal dump_modify command\"); "
          "write by simulated time with dump_modify every v_name, an equal-style variable that returns the "
          "next step");
    } else if (key == "every") {
      // LAMMPS's dump_modify every v_name: an equal-style variable gives each next frame's step.
      if (a.peek().rfind("v_", 0) == 0 && a.peek().size() > 2) {
        it->every_var = a.word("N or v_name").substr(2);
        it->every_pos = c.pos;
        it->every = 0;
      } else {
        it->every = static_cast<int>(a.integer("the dump interval (steps)", 1, 2000000000));
        it->every_var.clear();
      }
    } else if (key == "delay") {
      it->delay = a.integer("the first step a frame may be written at", -4000000000000000000LL,
                            4000000000000000000LL);
    } else if (key == "flush") {
      // When the file is flushed changes no byte of it: every frame is flushed as it is written.
      a.yes_no("flush");
    } else if (key == "first") {
      it->first = a.yes_no("first");
    } else if (key == "pad") {
      it->pad = static_cast<int>(a.integer("the digits of the step in file names", 0, 30));
    } else if (key == "element") {
      // The names xyz and cfg write per type, and custom's element column.
      it->elements.assign(1, "");
      for (int t = 1; t <= sim.state.ntypes; ++t)
        it->elements.push_back(a.word("an element name per atom type"));
    } else if (key == "sort") {
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
        if (!io::valid_line_format(fmt))
          a.fail("'" + fmt + "' is not a line of formats (one %d, %f, %e or %g each)");
        it->line_format = fmt;
      } else if (what == "int" || what == "float") {
        const bool is_int = what == "int";
        if (is_int ? !io::valid_int_format(fmt) : !io::valid_float_format(fmt)) {
          a.fail("'" + fmt + "' is not a valid " + what + " format");
        }
        for (size_t k = 0; k < it->columns.size(); ++k)
          if (it->kind->integer_column(it->columns[k]) == is_int) it->column_formats[k] = fmt;
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
  const DumpStyle* style = find_dump_style(dump_args[2]);
  if (style && !style->one_frame())
    io::ArgCursor(c).fail("write_dump " + dump_args[2] + " is not supported (dump " + dump_args[2] +
                          " with run 0)");
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
