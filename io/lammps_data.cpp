#include "io/lammps_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "io/command.hpp"
#include "io/text_file.hpp"

namespace wmd::io {
namespace {

std::vector<std::string> words_of(const std::string& line) {
  std::string body = line.substr(0, line.find('#'));
  std::istringstream in(body);
  std::vector<std::string> w;
  std::string t;
  while (in >> t) w.push_back(t);
  return w;
}

}  // namespace

DataFile read_lammps_data(const std::string& path, const SourcePos& from) {
  // A name ending in .gz is read through zlib, as LAMMPS's read_data does.
  std::istringstream in(read_text_file(path, "data file", from));
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  DataFile d;
  auto fail = [&](size_t ln, const std::string& msg) {
    throw InputError(path, static_cast<int>(std::min<size_t>(ln + 1, INT_MAX)), msg);
  };
  auto num = [&](size_t ln, const std::string& tok, const char* what) {
    double v;
    if (!parse_double(tok, v)) fail(ln, std::string("expected ") + what + " (a number), got '" + tok + "'");
    return v;
  };
  auto integer = [&](size_t ln, const std::string& tok, const char* what) {
    long long v;
    if (!parse_integer(tok, v))
      fail(ln, std::string("expected ") + what + " (an integer), got '" + tok + "'");
    return v;
  };
  // Image flags are ints in LAMMPS (and here): a larger one would be silently truncated.
  auto image = [&](size_t ln, const std::string& tok, const char* what) {
    const long long v = integer(ln, tok, what);
    if (v < INT_MIN || v > INT_MAX)
      fail(ln, std::string("image flag ") + what + " = " + tok + " is outside the range of an int");
    return static_cast<int>(v);
  };
  size_t ln = 1;  // line 1 is a title
  bool box[3] = {false, false, false};
  // Header: counts and box until the first section keyword.
  for (; ln < lines.size(); ++ln) {
    const auto w = words_of(lines[ln]);
    if (w.empty()) continue;
    if (w.size() == 2 && w[1] == "atoms") {
      d.natoms = integer(ln, w[0], "the number of atoms");
      if (d.natoms < 0) fail(ln, "the number of atoms must be >= 0");
    } else if (w.size() == 3 && w[1] == "atom" && w[2] == "types") {
      d.ntypes = static_cast<int>(integer(ln, w[0], "the number of atom types"));
      if (d.ntypes < 1 || d.ntypes > 1000) fail(ln, "the number of atom types must be in [1, 1000]");
    } else if (w.size() == 4 && (w[2] == "xlo" || w[2] == "ylo" || w[2] == "zlo")) {
      const int dim = w[2][0] - 'x';
      d.lo[dim] = num(ln, w[0], "the lower box bound");
      d.hi[dim] = num(ln, w[1], "the upper box bound");
      if (!(d.hi[dim] > d.lo[dim])) fail(ln, "the box must have hi > lo in " + w[2].substr(0, 1));
      box[dim] = true;
    } else if (w.size() >= 4 && w[3] == "xy") {
      if (w.size() != 6 || w[4] != "xz" || w[5] != "yz")
        fail(ln, "expected 'xy xz yz' after the tilt factors");
      d.xy = num(ln, w[0], "the xy tilt factor");
      d.xz = num(ln, w[1], "the xz tilt factor");
      d.yz = num(ln, w[2], "the yz tilt factor");
      d.triclinic = true;
    } else if (w.size() >= 3 &&
               (w[2] == "bonds" || w[2] == "angles" || w[1] == "bonds" || w[1] == "angles")) {
      if (integer(ln, w[0], "a count") != 0)
        fail(ln, "molecular topology is not supported (atom_style atomic)");
    } else if (std::isalpha(static_cast<unsigned char>(w[0][0]))) {
      break;
    } else {
      fail(ln, "unknown header line '" + lines[ln] + "'");
    }
  }
  if (d.ntypes < 1) fail(ln > 0 ? ln - 1 : 0, "the header lacks 'N atom types'");
  for (int dim = 0; dim < 3; ++dim) {
    if (!box[dim])
      fail(ln > 0 ? ln - 1 : 0, std::string("the header lacks '") + "xyz"[dim] + "lo " + "xyz"[dim] + "hi'");
  }
  d.mass.assign(d.ntypes + 1, 0.0);
  std::map<int64_t, size_t> index;
  bool have_atoms = false;
  std::set<std::string> seen;  // each section once: a second Atoms would outgrow the header's count
  while (ln < lines.size()) {
    const auto w = words_of(lines[ln]);
    if (w.empty()) {
      ++ln;
      continue;
    }
    const std::string section = w[0];
    const size_t head = ln++;
    if (!seen.insert(section).second) fail(head, "the " + section + " section appears twice");
    while (ln < lines.size() && words_of(lines[ln]).empty()) ++ln;
    if (section == "Masses") {
      std::vector<bool> given(d.ntypes + 1, false);
      for (int k = 0; k < d.ntypes; ++k, ++ln) {
        if (ln >= lines.size()) fail(ln, "the Masses section ends early");
        const auto m = words_of(lines[ln]);
        if (m.size() < 2) fail(ln, "expected 'type mass'");
        const long long t = integer(ln, m[0], "an atom type");
        if (t < 1 || t > d.ntypes)
          fail(ln, "atom type " + m[0] + " is outside 1.." + std::to_string(d.ntypes));
        if (given[t]) fail(ln, "the mass of type " + m[0] + " is given twice");
        given[t] = true;
        d.mass[t] = num(ln, m[1], "a mass");
        if (!(d.mass[t] > 0)) fail(ln, "mass must be positive");
      }
    } else if (section == "Atoms") {
      if (w.size() >= 3 && w[1] == "#" && w[2] != "atomic") {
        fail(head, "atom style '" + w[2] + "' is not supported (atomic only)");
      }
      for (int64_t k = 0; k < d.natoms; ++k, ++ln) {
        if (ln >= lines.size())
          fail(ln, "the Atoms section ends early: expected " + std::to_string(d.natoms));
        const auto a = words_of(lines[ln]);
        if (a.size() != 5 && a.size() != 8) fail(ln, "expected 'id type x y z [ix iy iz]'");
        const long long id = integer(ln, a[0], "an atom id");
        if (id < 1) fail(ln, "atom ids must be positive");
        if (index.count(id)) fail(ln, "atom id " + a[0] + " appears twice");
        const long long t = integer(ln, a[1], "an atom type");
        if (t < 1 || t > d.ntypes)
          fail(ln, "atom type " + a[1] + " is outside 1.." + std::to_string(d.ntypes));
        index[id] = d.id.size();
        d.id.push_back(id);
        d.type.push_back(static_cast<int>(t));
        d.x.push_back(num(ln, a[2], "x")), d.y.push_back(num(ln, a[3], "y")),
            d.z.push_back(num(ln, a[4], "z"));
        const bool img = a.size() == 8;
        d.ix.push_back(img ? image(ln, a[5], "ix") : 0);
        d.iy.push_back(img ? image(ln, a[6], "iy") : 0);
        d.iz.push_back(img ? image(ln, a[7], "iz") : 0);
      }
      have_atoms = true;
    } else if (section == "Velocities") {
      if (!have_atoms) fail(head, "the Velocities section must follow the Atoms section");
      d.has_velocities = true;
      // Sized by the atoms read (not the header's count), and each atom given one velocity.
      const size_t n = d.id.size();
      d.vx.assign(n, 0.0), d.vy.assign(n, 0.0), d.vz.assign(n, 0.0);
      std::vector<bool> given(n, false);
      for (size_t k = 0; k < n; ++k, ++ln) {
        if (ln >= lines.size()) fail(ln, "the Velocities section ends early");
        const auto v = words_of(lines[ln]);
        if (v.size() != 4) fail(ln, "expected 'id vx vy vz'");
        const long long id = integer(ln, v[0], "an atom id");
        auto it = index.find(id);
        if (it == index.end()) fail(ln, "velocity for unknown atom id " + v[0]);
        if (given[it->second]) fail(ln, "the velocity of atom " + v[0] + " is given twice");
        given[it->second] = true;
        d.vx[it->second] = num(ln, v[1], "vx"), d.vy[it->second] = num(ln, v[2], "vy");
        d.vz[it->second] = num(ln, v[3], "vz");
      }
    } else if (std::isdigit(static_cast<unsigned char>(section[0])) || section[0] == '-') {
      fail(head, "a data line outside any section (more lines than the header's counts give)");
    } else {
      fail(head, "unknown or unsupported section '" + section + "' (Masses, Atoms, Velocities)");
    }
  }
  if (!have_atoms && d.natoms > 0) fail(lines.size(), "the file has no Atoms section");
  return d;
}

bool write_lammps_data(const std::string& path, const DataFile& d) {
  std::ofstream out(path);
  if (!out) return false;
  out << fmt::format("LAMMPS data file via write_data, wafermd, timestep = {}\n\n", d.timestep);
  out << fmt::format("{} atoms\n{} atom types\n\n", d.id.size(), d.ntypes);
  const char* axis[3] = {"x", "y", "z"};
  for (int k = 0; k < 3; ++k) out << fmt::format("{} {} {}lo {}hi\n", d.lo[k], d.hi[k], axis[k], axis[k]);
  if (d.triclinic) out << fmt::format("{} {} {} xy xz yz\n", d.xy, d.xz, d.yz);
  out << "\nMasses\n\n";
  for (int t = 1; t <= d.ntypes; ++t) out << fmt::format("{} {}\n", t, d.mass[t]);
  out << "\nAtoms # atomic\n\n";
  for (size_t i = 0; i < d.id.size(); ++i) {
    out << fmt::format("{} {} {} {} {} {} {} {}\n", d.id[i], d.type[i], d.x[i], d.y[i], d.z[i], d.ix[i],
                       d.iy[i], d.iz[i]);
  }
  if (d.has_velocities) {
    out << "\nVelocities\n\n";
    for (size_t i = 0; i < d.id.size(); ++i)
      out << fmt::format("{} {} {} {}\n", d.id[i], d.vx[i], d.vy[i], d.vz[i]);
  }
  out.flush();
  return static_cast<bool>(out);
}

}  // namespace wmd::io
