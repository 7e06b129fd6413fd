// `dump ID group local N file columns…`: the local rows of the computes its columns name (c_ID, c_ID[i]) and
// `index` (the row's place, 1…N), in LAMMPS's ITEM: layout under its label (dump_modify label, ENTRIES by
// default), each column name and value followed by a space.
#include "md/run/dump_style.hpp"
#include "md/run/simulation.hpp"
#include "md/styles/reference.hpp"

namespace wmd::md {
namespace {

class DumpLocal : public TextDumpStyle {
 public:
  bool one_frame() const override { return false; }
  bool local_rows() const override { return true; }
  bool integer_column(const std::string& col) const override { return col == "index"; }
  // f_ID: no fix here has local values; at least one compute, as LAMMPS requires.
  void read_columns(Simulation& sim, io::ArgCursor& a, Dump& d, const DumpHead& /*head*/) const override {
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
      a.fail(
          "dump local needs a compute column (LAMMPS: \"Dump local attributes contain no compute or fix\")");
  }
  bool takes(const std::string& key) const override { return key == "label"; }
  bool modify(Simulation& /*sim*/, io::ArgCursor& a, const std::string& key, Dump& d) const override {
    if (key == "label") {
      d.label = a.word("a label");
      return true;
    }
    if (key == "element") a.fail("dump_modify element does not apply to dump local");
    if (key == "sort" && a.peek() == "id") a.fail("dump local cannot sort by atom ID (it writes no atoms)");
    return false;
  }
  std::string frame_text(const io::DumpFrame& f, const Dump& d) const override {
    return io::item_frame_text(f, dump_formats(d), d.label, true);
  }
};

}  // namespace

WMD_DUMP_STYLE("local", DumpLocal)

}  // namespace wmd::md
