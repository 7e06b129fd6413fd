// `dump ID group atom N file`: id, type and the coordinates (scaled unless dump_modify scale no), then the
// image flags with dump_modify image yes, in LAMMPS's ITEM: layout.
#include "md/run/dump_style.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

class DumpAtom : public TextDumpStyle {
 public:
  void read_columns(Simulation& /*sim*/, io::ArgCursor& a, Dump& d, const DumpHead& head) const override {
    if (!a.done()) a.fail("dump " + head.written + " takes no columns (found '" + a.peek() + "')");
    set_columns(d);
  }
  bool takes(const std::string& key) const override { return key == "scale" || key == "image"; }
  bool modify(Simulation& /*sim*/, io::ArgCursor& a, const std::string& key, Dump& d) const override {
    if (key == "element")  // lmp 2021 refuses it for dump atom
      a.fail("dump_modify element is not for dump atom (LAMMPS: Illegal dump_modify command)");
    if (key != "scale" && key != "image") return false;
    (key == "scale" ? d.scale : d.image) = a.yes_no(key);
    set_columns(d);
    return true;
  }
  std::string frame_text(const io::DumpFrame& f, const Dump& d) const override {
    return io::item_frame_text(f, dump_formats(d), "ATOMS", false);
  }

 private:
  // id type, scaled or plain coordinates, then the image flags when asked.
  static void set_columns(Dump& d) {
    d.columns = {"id", "type"};
    for (const char* x : {"x", "y", "z"})
      d.columns.push_back(d.scale ? std::string(x) + "s" : std::string(x));
    if (d.image) d.columns.insert(d.columns.end(), {"ix", "iy", "iz"});
    d.column_formats.assign(d.columns.size(), "");
  }
};

}  // namespace

WMD_DUMP_STYLE("atom", DumpAtom)

}  // namespace wmd::md
