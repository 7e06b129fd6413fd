#include "io/dump_text.hpp"

#include <cstdio>
#include <sstream>

#include "io/thermo_format.hpp"

namespace wmd::io {

bool DumpTextWriter::open(const std::string& path) {
  out_.open(path, std::ios::out | std::ios::trunc);
  return static_cast<bool>(out_);
}

bool DumpTextWriter::write(const DumpFrame& f) {
  const size_t natoms = f.values.empty() ? 0 : f.values[0].size();
  out_ << "ITEM: TIMESTEP\n" << f.step << "\nITEM: NUMBER OF ATOMS\n" << natoms << "\n";
  out_ << "ITEM: BOX BOUNDS " << f.boundary[0] << " " << f.boundary[1] << " " << f.boundary[2] << "\n";
  char buf[128];
  for (int d = 0; d < 3; ++d) {
    std::snprintf(buf, sizeof buf, "%-1.16e %-1.16e\n", f.lo[d], f.hi[d]);
    out_ << buf;
  }
  out_ << "ITEM: ATOMS";
  for (const auto& c : f.columns) out_ << " " << c;
  out_ << "\n";
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
    line += '\n';
    out_ << line;
  }
  out_.flush();
  return static_cast<bool>(out_);
}

}  // namespace wmd::io
