#include "potentials/text_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/memory_budget.hpp"
#include "base/root_read.hpp"
#include "potentials/potential_path.hpp"

namespace wmd::potentials {

TextReader::TextReader(const std::string& name, const SourcePos& from) {
  // Rank 0 finds the file (LAMMPS_POTENTIALS and the working directory are rank 0's), checks and reads it;
  // every rank gets its path and text (base/root_read.hpp).
  const std::string found = read_on_root("potential file '" + name + "'", [&] {
    const std::string path = find_potential_file(name, from);
    std::error_code ec;
    // A device or a pipe (/dev/zero) could be endless: only regular files, of a size the budget allows.
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
      fail_input(from, "potential file '" + path + "' is not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
      fail_input(from, "cannot open potential file '" + name + "' (looked for " +
                           potential_search_places(name, from) +
                           "; set LAMMPS_POTENTIALS to the directory that holds it)");
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec)
      memory::check_allocation("reading potential file '" + path + "'", 2.0 * static_cast<double>(size),
                               from);
    std::ostringstream text;
    text << path << '\0' << in.rdbuf();
    return text.str();
  });
  const size_t cut = found.find('\0');
  path_ = found.substr(0, cut);
  // The lines as std::getline splits them: a last line without a newline counts, an empty tail does not.
  for (size_t at = cut + 1; at < found.size();) {
    size_t end = found.find('\n', at);
    if (end == std::string::npos) end = found.size();
    lines_.push_back(found.substr(at, end - at));
    at = end + 1;
  }
  // Characters left from each line on (a value takes at least one and a separator): bounds counts read from
  // the file before anything is sized by them.
  chars_left_.assign(lines_.size() + 1, 0);
  for (size_t k = lines_.size(); k-- > 0;) chars_left_[k] = chars_left_[k + 1] + lines_[k].size() + 1;
}

std::vector<std::string> TextReader::next_line_tokens(const std::string& what) {
  if (line_ >= static_cast<int>(lines_.size())) {
    throw InputError(path_, line_ + 1, "file ends early: expected " + what);
  }
  std::istringstream words(lines_[line_++]);
  std::vector<std::string> tokens;
  std::string token;
  while (words >> token) tokens.push_back(token);
  return tokens;
}

std::vector<double> TextReader::next_values(int n, const std::string& what) {
  // Never more than the rest of the file can hold (a value takes a character and a separator): a count like
  // Nr = 2e9 then ends at the end of the file ("file ends early"), with nothing reserved for it.
  std::vector<double> values;
  values.reserve(std::min<size_t>(n > 0 ? n : 0, (chars_left_[line_] + 1) / 2));
  while (static_cast<int>(values.size()) < n) {
    const auto tokens = next_line_tokens(std::to_string(n) + " values of " + what + " (got " +
                                         std::to_string(values.size()) + ")");
    for (const auto& t : tokens) {
      if (static_cast<int>(values.size()) == n) break;
      values.push_back(to_double(t, "a number in " + what));
    }
  }
  return values;
}

double TextReader::to_double(const std::string& token, const std::string& what) const {
  const char* begin = token.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (end == begin || *end != '\0' || errno == ERANGE || !std::isfinite(v)) {
    fail("expected " + what + ", got '" + token + "'");
  }
  return v;
}

int TextReader::to_int(const std::string& token, const std::string& what) const {
  const char* begin = token.c_str();
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(begin, &end, 10);
  if (end == begin || *end != '\0' || errno == ERANGE || v < -2147483647L || v > 2147483647L) {
    fail("expected " + what + " (an integer), got '" + token + "'");
  }
  return static_cast<int>(v);
}

void TextReader::fail(const std::string& message) const {
  throw InputError(path_, line_, message);
}

}  // namespace wmd::potentials
