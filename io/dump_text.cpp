#include "io/dump_text.hpp"

#include <cstdio>
#include <sstream>

#include "io/thermo_format.hpp"

namespace wmd::io {

std::vector<std::string> column_formats(const DumpFrame& f, const DumpFormats& fm, bool with_line) {
  std::vector<std::string> fmt(f.columns.size());
  std::istringstream words(with_line ? fm.line : std::string());
  for (size_t c = 0; c < fmt.size(); ++c) {
    std::string w;
    if (words >> w) fmt[c] = w;
    if (c < fm.columns.size() && !fm.columns[c].empty()) fmt[c] = fm.columns[c];
    if (fmt[c].empty()) fmt[c] = f.is_integer[c] ? "%d" : "%g";
  }
  return fmt;
}

std::string element_name(int type, const std::vector<std::string>& elements, const std::string& fallback) {
  return type >= 1 && type < static_cast<int>(elements.size()) && !elements[type].empty() ? elements[type]
                                                                                          : fallback;
}

std::string item_frame_text(const DumpFrame& f, const DumpFormats& fm, const std::string& entries,
                            bool local) {
  const size_t natoms = f.values.empty() ? 0 : f.values[0].size();
  const std::string sep = local ? " " : "";  // dump local ends each column name and value with a space
  std::ostringstream out;
  out << "ITEM: TIMESTEP\n" << f.step << "\nITEM: NUMBER OF " << entries << "\n" << natoms << "\n";
  out << "ITEM: BOX BOUNDS " << (f.triclinic ? "xy xz yz " : "") << f.boundary[0] << " " << f.boundary[1]
      << " " << f.boundary[2] << "\n";
  char buf[128];
  for (int d = 0; d < 3; ++d) {
    if (f.triclinic)
      std::snprintf(buf, sizeof buf, "%-1.16e %-1.16e %-1.16e\n", f.lo[d], f.hi[d], f.tilt[d]);
    else
      std::snprintf(buf, sizeof buf, "%-1.16e %-1.16e\n", f.lo[d], f.hi[d]);
    out << buf;
  }
  out << "ITEM: " << entries;
  for (const auto& c : f.columns) out << " " << c;
  out << sep << "\n";
  const std::vector<std::string> fmt = column_formats(f, fm, true);
  std::string line;
  for (size_t i = 0; i < natoms; ++i) {
    line.clear();
    for (size_t c = 0; c < f.columns.size(); ++c) {
      if (c) line += ' ';
      if (!local && f.columns[c] == "element") {
        // The type's name from dump_modify element, "C" for every type without one (LAMMPS's default).
        line += element_name(static_cast<int>(f.values[c][i]), fm.elements, "C");
        continue;
      }
      line += format_value(fmt[c], f.values[c][i], f.is_integer[c]);
    }
    line += sep;
    line += '\n';
    out << line;
  }
  return out.str();
}

}  // namespace wmd::io
