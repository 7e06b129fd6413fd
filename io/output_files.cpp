#include "io/output_files.hpp"

#include <cerrno>
#include <cstdio>
#include <iostream>

#include "io/text_file.hpp"

namespace wmd::io {

namespace {

// Writes one line to an open output; a lost write closes it (nothing more is tried) and is a run failure.
void put_line(std::ofstream& out, const std::string& path, const std::string& what, const std::string& text,
              bool flush) {
  if (!out.is_open()) return;
  errno = 0;
  out << text << '\n';
  if (flush) out.flush();
  if (out) return;
  const int err = errno;
  out.close();
  errno = err;
  fail_write(path, what);
}

// Closes an output; what was still buffered and could not be written is a run failure.
void close_checked(std::ofstream& out, const std::string& path, const std::string& what) {
  if (!out.is_open()) return;
  errno = 0;
  out.close();
  if (!out) fail_write(path, what);
}

}  // namespace

bool Log::open(const std::string& path) {
  file_.open(path, std::ios::out | std::ios::trunc);
  file_path_ = path;
  return static_cast<bool>(file_);
}

void Log::line(const std::string& text) {
  if (muted_) return;
  std::cout << text << '\n';
  put_line(file_, file_path_, "log file", text, false);
  put_line(copy_, copy_path_, "log file", text, true);
}

void Log::file_only(const std::string& text) {
  if (muted_) return;
  put_line(file_, file_path_, "log file", text, false);
  put_line(copy_, copy_path_, "log file", text, true);
}

void Log::flush() {
  if (!file_.is_open()) return;
  try {
    check_written(file_, file_path_, "log file");
  } catch (...) {
    file_.close();
    throw;
  }
}

bool Log::copy_to(const std::string& path, bool append) {
  close_checked(copy_, copy_path_, "log file");
  if (muted_ || path.empty()) return true;
  copy_.open(path, append ? std::ios::app : std::ios::trunc);
  copy_path_ = path;
  return static_cast<bool>(copy_);
}

bool ThermoCsv::open(const std::string& path) {
  out_.open(path, std::ios::out | std::ios::trunc);
  path_ = path;
  return static_cast<bool>(out_);
}

void ThermoCsv::columns(const std::vector<std::string>& names) {
  if (names == names_) return;
  names_ = names;
  std::string line;
  for (size_t i = 0; i < names.size(); ++i) line += (i ? "," : "") + names[i];
  put_line(out_, path_, "thermo file", line, false);
}

void ThermoCsv::row(const std::vector<double>& values) {
  char buf[64];
  std::string line;
  for (size_t i = 0; i < values.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%.17g", values[i]);
    line += (i ? "," : "");
    line += buf;
  }
  put_line(out_, path_, "thermo file", line, true);
}

void ThermoCsv::close() {
  close_checked(out_, path_, "thermo file");
}

bool write_json_atomically(const std::string& named, const nlohmann::json& j) {
  const ReplaceTarget target = atomic_replace_target(named, "report");
  const std::string tmp = target.temporary();
  {
    std::ofstream out(tmp, std::ios::out | std::ios::trunc);
    if (!out) return false;
    out << j.dump(2) << '\n';
    out.close();
    if (!out) return false;
  }
  try {
    finish_replace(tmp, target, "report");
  } catch (const RunError&) {
    return false;
  }
  return true;
}

}  // namespace wmd::io
