// `dump ID group cfg N file.* mass type xs ys zs [more columns]`: AtomEye's extended CFG, one snapshot per
// file, laid out byte for byte as Debian's lmp (2021) writes it; dump_modify thresh filters the atoms.
#include <cstdio>

#include "io/thermo_format.hpp"
#include "md/run/dump_style.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

class DumpCfg : public ThresholdDumpStyle {
 public:
  void read_columns(Simulation& sim, io::ArgCursor& a, Dump& d, const DumpHead& head) const override {
    if (!d.multifile && !head.one_shot)  // write_dump's one frame needs no '*' (LAMMPS's multifile_override)
      a.fail(
          "dump cfg writes one snapshot per file: put a '*' in the file name (LAMMPS: \"Dump cfg requires "
          "one snapshot per file\")");
    read_peratom_columns(sim, a, d);
    // Mass and type (its element), then scaled coordinates, wrapped or not.
    const auto& k = d.columns;
    const bool wrapped = k.size() >= 5 && k[2] == "xs" && k[3] == "ys" && k[4] == "zs";
    const bool unwrapped = k.size() >= 5 && k[2] == "xsu" && k[3] == "ysu" && k[4] == "zsu";
    if (k.size() < 5 || k[0] != "mass" || k[1] != "type" || !(wrapped || unwrapped))
      a.fail("dump cfg columns must start with 'mass type xs ys zs' or 'mass type xsu ysu zsu'");
  }
  // Zero box entries end with a space, the mass and the element stand on lines of their own (each followed
  // by a space), the element defaults to "C", and unwrapped coordinates (xsu) are shrunk tenfold about the
  // box centre with A = 10 so AtomEye keeps molecules whole.
  std::string frame_text(const io::DumpFrame& f, const Dump& d) const override {
    const size_t natoms = f.values.empty() ? 0 : f.values[0].size();
    const bool unwrapped = f.columns.size() > 2 && f.columns[2] == "xsu";
    char buf[256];
    std::string s = "Number of particles = " + std::to_string(natoms) + "\n";
    s += unwrapped ? "A = 10 Angstrom (basic length-scale)\n" : "A = 1 Angstrom (basic length-scale)\n";
    const char* zero = " = 0 A \n";
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        std::snprintf(buf, sizeof buf, "H0(%d,%d)", r + 1, c + 1);
        s += buf;
        if (r == c) {
          std::snprintf(buf, sizeof buf, " = %g A\n", f.prd[r]);
          s += buf;
        } else if (r > c) {  // LAMMPS's rows b = (xy, ly, 0) and c = (xz, yz, lz)
          std::snprintf(buf, sizeof buf, " = %g A \n", f.tilt[r == 1 ? 0 : c == 0 ? 1 : 2]);
          s += buf;
        } else {
          s += zero;
        }
      }
    s += ".NO_VELOCITY.\n";
    s += "entry_count = " + std::to_string(f.columns.size() - 2) + "\n";
    for (size_t c = 5; c < f.columns.size(); ++c) {
      // c_ID[m] is named c_ID_m
      std::string name = f.columns[c];
      const size_t open = name.find('[');
      if (open != std::string::npos && name.back() == ']')
        name = name.substr(0, open) + "_" + name.substr(open + 1, name.size() - open - 2);
      s += "auxiliary[" + std::to_string(c - 5) + "] = " + name + "\n";
    }
    const std::vector<std::string> fmt = io::column_formats(f, dump_formats(d), false);  // no format line
    for (size_t i = 0; i < natoms; ++i) {
      std::snprintf(buf, sizeof buf, "%f \n", f.values[0][i]);
      s += buf;
      s += io::element_name(static_cast<int>(f.values[1][i]), d.elements, "C");
      s += " \n";
      for (size_t c = 2; c < f.columns.size(); ++c) {
        double v = f.values[c][i];
        if (unwrapped && c <= 4) v = (v - 0.5) / 10.0 + 0.5;
        if (c > 2) s += ' ';
        s += io::format_value(fmt[c], v, f.is_integer[c]);
      }
      s += '\n';
    }
    return s;
  }
};

}  // namespace

WMD_DUMP_STYLE("cfg", DumpCfg)

}  // namespace wmd::md
