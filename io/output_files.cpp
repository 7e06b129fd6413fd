#include "io/output_files.hpp"

#include <cstdio>
#include <iostream>

namespace wmd::io {

bool Log::open(const std::string& path) {
  file_.open(path, std::ios::out | std::ios::trunc);
  return static_cast<bool>(file_);
}

void Log::line(const std::string& text) {
  if (muted_) return;
  std::cout << text << '\n';
  if (file_.is_open()) file_ << text << '\n';
  if (copy_.is_open()) copy_ << text << '\n' << std::flush;
}

void Log::file_only(const std::string& text) {
  if (muted_) return;
  if (file_.is_open()) file_ << text << '\n';
  if (copy_.is_open()) copy_ << text << '\n' << std::flush;
}

bool Log::copy_to(const std::string& path, bool append) {
  if (copy_.is_open()) copy_.close();
  if (muted_ || path.empty()) return true;
  copy_.open(path, append ? std::ios::app : std::ios::trunc);
  return static_cast<bool>(copy_);
}

bool ThermoCsv::open(const std::string& path) {
  out_.open(path, std::ios::out | std::ios::trunc);
  return static_cast<bool>(out_);
}

void ThermoCsv::columns(const std::vector<std::string>& names) {
  if (names == names_) return;
  names_ = names;
  for (size_t i = 0; i < names.size(); ++i) out_ << (i ? "," : "") << names[i];
  out_ << '\n';
}

void ThermoCsv::row(const std::vector<double>& values) {
  char buf[64];
  for (size_t i = 0; i < values.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%.17g", values[i]);
    out_ << (i ? "," : "") << buf;
  }
  out_ << '\n';
  out_.flush();
}

bool write_json_atomically(const std::string& path, const nlohmann::json& j) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::out | std::ios::trunc);
    if (!out) return false;
    out << j.dump(2) << '\n';
    out.flush();
    if (!out) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

}  // namespace wmd::io
