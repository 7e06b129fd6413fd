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

std::string DumpTextWriter::cfg_text(const DumpFrame& f) const {
  // Debian lmp's (2021) layout byte for byte: zero box entries end with a space, the mass and the element
  // stand on lines of their own (each followed by a space), the element defaults to "C", and unwrapped
  // coordinates (xsu) are shrunk tenfold about the box centre with A = 10 so AtomEye keeps molecules whole.
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
        std::snprintf(buf, sizeof buf, " = %g A\n", f.hi[r] - f.lo[r]);
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
  std::vector<std::string> fmt(f.columns.size());
  for (size_t c = 0; c < fmt.size(); ++c) {
    if (c < formats_.size() && !formats_[c].empty()) fmt[c] = formats_[c];
    if (fmt[c].empty()) fmt[c] = f.is_integer[c] ? "%d" : "%g";
  }
  for (size_t i = 0; i < natoms; ++i) {
    std::snprintf(buf, sizeof buf, "%f \n", f.values[0][i]);
    s += buf;
    const int type = static_cast<int>(f.values[1][i]);
    s += (type >= 1 && type < static_cast<int>(elements_.size()) && !elements_[type].empty()
              ? elements_[type]
              : std::string("C"));
    s += " \n";
    for (size_t c = 2; c < f.columns.size(); ++c) {
      double v = f.values[c][i];
      if (unwrapped && c <= 4) v = (v - 0.5) / 10.0 + 0.5;
      if (c > 2) s += ' ';
      s += format_value(fmt[c], v, f.is_integer[c]);
    }
    s += '\n';
  }
  return s;
}

bool DumpTextWriter::write(const DumpFrame& f) {
  if (layout_ == DumpLayout::xyz) return out_.write(xyz_text(f)) && out_.flush();
  if (layout_ == DumpLayout::cfg) return out_.write(cfg_text(f)) && out_.flush();
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
      if (!local && f.columns[c] == "element") {
        // The type's name from dump_modify element, "C" for every type without one (LAMMPS's default).
        const int type = static_cast<int>(f.values[c][i]);
        line += type >= 1 && type < static_cast<int>(elements_.size()) && !elements_[type].empty()
                    ? elements_[type]
                    : std::string("C");
        continue;
      }
      line += format_value(fmt[c], f.values[c][i], f.is_integer[c]);
    }
    line += sep;
    line += '\n';
    out << line;
  }
  return out_.write(out.str()) && out_.flush();
}

}  // namespace wmd::io
