// Line-aware token reader for potential files: every error names the file and the line.
#pragma once
#include <string>
#include <vector>

#include "base/error.hpp"

namespace wmd::potentials {

/// Reads a whitespace-tokenised text file line by line, the way LAMMPS's potential readers do.
class TextReader {
 public:
  /// Opens the potential file `name` names (found by find_potential_file); a missing or unreadable file is an
  /// InputError at `from`.
  TextReader(const std::string& name, const SourcePos& from);

  /// Returns the tokens of the next line (skipping nothing); throws at end of file naming `what` was
  /// expected.
  std::vector<std::string> next_line_tokens(const std::string& what);
  /// Reads n numbers starting on a new line, spanning lines; extra tokens on the last line are ignored. A
  /// count the rest of the file cannot hold reserves no more than it can (and fails at the end of the file).
  std::vector<double> next_values(int n, const std::string& what);
  /// Converts one token to a double or fails naming `what`.
  double to_double(const std::string& token, const std::string& what) const;
  /// Converts one token to an int or fails naming `what`.
  int to_int(const std::string& token, const std::string& what) const;
  /// Throws InputError at the current line.
  [[noreturn]] void fail(const std::string& message) const;
  const std::string& path() const { return path_; }
  int line() const { return line_; }

 private:
  std::string path_;
  std::vector<std::string> lines_;
  std::vector<size_t> chars_left_;  // [k]: characters (newlines included) in lines k.. to the end
  int line_ = 0;                    // 1-based number of the last line handed out
};

}  // namespace wmd::potentials
