// The native outputs of a run: log.txt (a copy of the screen), thermo.csv and report.json.
#pragma once
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace wmd::io {

/// Prints lines to stdout and, once opened, to log.txt. A lost write to either file is a RunError naming
/// it (the file is closed: the error line itself is not written there again).
class Log {
 public:
  /// Opens the log file; false if it cannot be written.
  bool open(const std::string& path);
  /// Writes one line (a newline is added).
  void line(const std::string& text);
  /// Writes to the log file only.
  void file_only(const std::string& text);
  /// Flushes log.txt; a RunError naming it if anything written was lost.
  void flush();
  /// Drops every line from now on (the MPI ranks other than 0, which print nothing).
  void mute() { muted_ = true; }
  /// LAMMPS's `log FILE [append]`: from now on every line also goes to FILE (replacing any earlier copy);
  /// false if it cannot be written. An empty path stops the copy (`log none`).
  bool copy_to(const std::string& path, bool append);

 private:
  std::ofstream file_;
  std::ofstream copy_;
  std::string file_path_, copy_path_;
  bool muted_ = false;
};

/// thermo.csv: one header row, one row per thermo output (each flushed; a lost write is a RunError).
class ThermoCsv {
 public:
  bool open(const std::string& path);
  /// Starts a new block of columns (a header row is written when the columns change).
  void columns(const std::vector<std::string>& names);
  void row(const std::vector<double>& values);
  bool is_open() const { return out_.is_open(); }
  /// Closes the file; a RunError naming it if what was buffered could not be written.
  void close();

 private:
  std::ofstream out_;
  std::string path_;
  std::vector<std::string> names_;
};

/// Writes JSON to `path` through a temporary file and a rename, so readers never see half a file.
bool write_json_atomically(const std::string& path, const nlohmann::json& j);

}  // namespace wmd::io
