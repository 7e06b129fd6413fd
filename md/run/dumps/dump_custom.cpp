// `dump ID group custom N file columns…`: the per-atom columns named (attributes and per-atom c_/f_/v_
// references) in LAMMPS's ITEM: layout, which OVITO, ASE and MDAnalysis read; dump_modify thresh filters the
// atoms.
#include "md/run/dump_style.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

class DumpCustom : public ThresholdDumpStyle {
 public:
  void read_columns(Simulation& sim, io::ArgCursor& a, Dump& d, const DumpHead& /*head*/) const override {
    read_peratom_columns(sim, a, d);
  }
  std::string frame_text(const io::DumpFrame& f, const Dump& d) const override {
    return io::item_frame_text(f, dump_formats(d), "ATOMS", false);
  }
};

}  // namespace

WMD_DUMP_STYLE("custom", DumpCustom)

}  // namespace wmd::md
