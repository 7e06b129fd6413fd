#include "io/dump_text.hpp"

#include <cstdio>
#include <sstream>

#include "io/thermo_format.hpp"

namespace wmd::io {

bool DumpTextWriter::open(const std::string& path, bool gz) {
  return out_.open(path, gz);
}

std::string DumpTextWriter::xyz_text(const DumpFrame& f) const {
  // LAMMPS's dump xyz: "%s %g %g %g" rows of type (or element), x, y, z.
  const size_t natoms = f.values.empty() ? 0 : f.values[0].size();
  std::string s = std::to_string(natoms) + "\nAtoms. Timestep: " + std::to_string(f.step) + "\n";
  char buf[160];
  for (size_t i = 0; i < natoms; ++i) {
    const int type = static_cast<int>(f.values[0][i]);
    const std::string name =
        type >= 1 && type < static_cast<int>(elements_.size()) && !elements_[type].empty()
            ? elements_[type]
            : std::to_string(type);
    std::snprintf(buf, sizeof buf, "%s %g %g %g\n", name.c_str(), f.values[1][i], f.values[2][i],
                  f.values[3][i]);
    s += buf;
  }
  return s;
}

bool DumpTextWriter::write(const DumpFrame& f) {
  if (layout_ == DumpLayout::xyz) return out_.write(xyz_text(f)) && out_.flush();
  const size_t natoms = f.values.empty() ? 0 : f.values[0].size();
  const bool local = layout_ == DumpLayout::local;
  const std::string sep = local ? " " : "";  // dump local ends each column name and value with a space
  std::ostringstream out;
  out << "ITEM: TIMESTEP\n"
      << f.step << "\nITEM: NUMBER OF " << (local ? label_ : std::string("ATOMS")) << "\n"
      << natoms << "\n";
  out << "ITEM: BOX BOUNDS " << f.boundary[0] << " " << f.boundary[1] << " " << f.boundary[2] << "\n";
  char buf[128];
  for (int d = 0; d < 3; ++d) {
    std::snprintf(buf, sizeof buf, "%-1.16e %-1.16e\n", f.lo[d], f.hi[d]);
    out << buf;
  }
  out << "ITEM: " << (local ? label_ : std::string("ATOMS"));
  for (const auto& c : f.columns) out << " " << c;
  out << sep << "\n";
  std::vector<std::string> fmt(f.columns.size());
  std::istringstream words(line_);
  for (size_t c = 0; c < fmt.size(); ++c) {
    std::string w;
    if (!line_.empty() && (words >> w)) fmt[c] = w;
    if (c < formats_.size() && !formats_[c].empty()) fmt[c] = formats_[c];
    if (fmt[c].empty()) fmt[c] = f.is_integer[c] ? "%d" : "%g";
  }
  std::string line;
  for (size_t i = 0; i < natoms; ++i) {
    line.clear();
    for (size_t c = 0; c < f.columns.size(); ++c) {
      if (c) line += ' ';
      line += format_value(fmt[c], f.values[c][i], f.is_integer[c]);
    }
    line += sep;
    line += '\n';
    out << line;
  }
  return out_.write(out.str()) && out_.flush();
}

}  // namespace wmd::io
