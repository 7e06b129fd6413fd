// `dump ID group xyz N file`: the atom count, "Atoms. Timestep: N", then `type x y z` rows ("%s %g %g %g"),
// the type written as its element name where dump_modify element gives one; sorted by id, as LAMMPS's.
#include <cstdio>

#include "md/run/dump_style.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

class DumpXyz : public TextDumpStyle {
 public:
  void read_columns(Simulation& /*sim*/, io::ArgCursor& a, Dump& d, const DumpHead& head) const override {
    if (!a.done()) a.fail("dump " + head.written + " takes no columns (found '" + a.peek() + "')");
    d.columns = {"type", "x", "y", "z"};
    d.sort_id = true;  // LAMMPS sorts xyz dumps by id unless dump_modify sort off
  }
  bool modify(Simulation& /*sim*/, io::ArgCursor& a, const std::string& key, Dump& /*d*/) const override {
    if (key == "format") a.fail("dump_modify format is not supported for dump xyz");
    return false;
  }
  std::string frame_text(const io::DumpFrame& f, const Dump& d) const override {
    const size_t natoms = f.values.empty() ? 0 : f.values[0].size();
    std::string s = std::to_string(natoms) + "\nAtoms. Timestep: " + std::to_string(f.step) + "\n";
    char buf[160];
    for (size_t i = 0; i < natoms; ++i) {
      const int type = static_cast<int>(f.values[0][i]);
      const std::string name = io::element_name(type, d.elements, std::to_string(type));
      std::snprintf(buf, sizeof buf, "%s %g %g %g\n", name.c_str(), f.values[1][i], f.values[2][i],
                    f.values[3][i]);
      s += buf;
    }
    return s;
  }
};

}  // namespace

WMD_DUMP_STYLE("xyz", DumpXyz)

}  // namespace wmd::md
