#include "io/lammps_script.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "io/print_format.hpp"
#include "io/text_file.hpp"

namespace wmd::io {

bool lammps_real_format(const std::string& f) {
  // LAMMPS's utils::strmatch(fmt, "%[0-9 ]*\\.[0-9]+[efgEFG]"): a search, so text may surround it.
  for (size_t p = f.find('%'); p != std::string::npos; p = f.find('%', p + 1)) {
    size_t i = p + 1;
    while (i < f.size() && (std::isdigit(static_cast<unsigned char>(f[i])) || f[i] == ' ')) ++i;
    if (i >= f.size() || f[i] != '.') continue;
    const size_t digits = ++i;
    while (i < f.size() && std::isdigit(static_cast<unsigned char>(f[i]))) ++i;
    if (i > digits && i < f.size() && std::strchr("efgEFG", f[i])) return true;
  }
  return false;
}

namespace {

// The format of `variable NAME format` and $(expr:FORMAT): LAMMPS's check ("Incorrect conversion in format
// string"), then one bounded conversion of a real before it reaches snprintf.
PrintFormat real_format(const std::string& fmt, const SourcePos& pos) {
  if (!lammps_real_format(fmt))
    fail_input(pos, "format '" + fmt +
                        "' has no conversion %[width].precision of f, e or g (LAMMPS: \"Incorrect conversion "
                        "in format string\")");
  std::string checked = fmt;
  // %F prints finite values as %f does.
  for (size_t p = checked.find('%'); p != std::string::npos; p = checked.find('%', p + 1)) {
    const size_t c = checked.find_first_not_of("0123456789 .-+#", p + 1);
    if (c != std::string::npos && checked[c] == 'F') checked[c] = 'f';
  }
  PrintFormat f;
  std::string why;
  if (!parse_print_format(checked, false, f, why)) fail_input(pos, "format '" + fmt + "' " + why);
  return f;
}

// C's atof: the longest number at the start of `t` (after white space), 0 when there is none.
double atof_like(const std::string& t) {
  return std::strtod(t.c_str(), nullptr);
}

bool is_id(const std::string& name) {
  if (name.empty()) return false;
  for (const char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// LAMMPS's "Illegal variable command" for a wrong number of arguments.
[[noreturn]] void illegal(const Command& c, const std::string& why) {
  fail_input(c.pos, "Illegal variable command: " + why);
}

bool starts_triple(const std::string& s, size_t i) {
  return s.compare(i, 3, "\"\"\"") == 0;
}

// LAMMPS's quote state while scanning a line (Input::parse and Input::substitute of 2021): 1 inside single
// quotes, 2 double, 3 triple; advances `i` past the quote characters it consumed.
void track_quote(const std::string& s, size_t& i, int& quote) {
  if (quote == 0) {
    if (starts_triple(s, i))
      quote = 3, i += 2;
    else if (s[i] == '"')
      quote = 2;
    else if (s[i] == '\'')
      quote = 1;
  } else if (quote == 3 && starts_triple(s, i)) {
    quote = 0, i += 2;
  } else if ((quote == 2 && s[i] == '"') || (quote == 1 && s[i] == '\'')) {
    quote = 0;
  }
}

}  // namespace

// ---- The file of a file-style or atomfile-style variable ------------------------------------------------

struct Variables::Reader {
  std::string path;
  std::vector<std::string> lines;
  size_t next = 0;
  // LAMMPS's VarReader::read_scalar on a line: the comment cut at '#', then the first word; empty: blank.
  static std::string first_word(const std::string& line) {
    std::string s = line.substr(0, line.find('#'));
    const size_t b = s.find_first_not_of(" \t\n\r\f");
    if (b == std::string::npos) return "";
    const size_t e = s.find_first_of(" \t\n\r\f", b);
    return s.substr(b, e == std::string::npos ? std::string::npos : e - b);
  }
  // The next non-blank value, or false at the end.
  bool next_word(std::string& out) {
    while (next < lines.size()) {
      out = first_word(lines[next++]);
      if (!out.empty()) return true;
    }
    return false;
  }
};

Variables::Var Variables::var_of(Style s, std::string text, std::vector<std::string> values) {
  Var v;
  v.style = s;
  v.text = std::move(text);
  v.values = std::move(values);
  return v;
}

Variables::Variables() = default;
Variables::~Variables() = default;

const char* Variables::style_name(Style s) {
  switch (s) {
    case Style::index:
      return "index";
    case Style::loop:
      return "loop";
    case Style::string:
      return "string";
    case Style::getenv:
      return "getenv";
    case Style::format:
      return "format";
    case Style::internal:
      return "internal";
    case Style::equal:
      return "equal";
    case Style::atom:
      return "atom";
    case Style::file:
      return "file";
    case Style::atomfile:
      return "atomfile";
  }
  return "?";
}

void Variables::define_from_command_line(const std::string& name, const std::vector<std::string>& values) {
  Var v = var_of(Style::index, values.empty() ? std::string() : values.front(), values);
  put(name, std::move(v), SourcePos{"<command line>", 0});
}

size_t Variables::bytes_of(const std::string& name, const Var& v) {
  size_t n = name.size() + v.text.size();
  for (const auto& w : v.values) n += w.size();
  return n;
}

void Variables::put(const std::string& name, Var v, const SourcePos& pos) {
  auto it = vars_.find(name);
  const size_t old = it == vars_.end() ? 0 : bytes_of(name, it->second), add = bytes_of(name, v);
  if (bytes_ - old + add > kMaxVariableBytes)
    fail_input(pos, "variables would hold more than " + std::to_string(kMaxVariableBytes >> 20) +
                        " MiB of text (defining '" + name + "')");
  bytes_ = bytes_ - old + add;
  v.pos = pos;
  vars_[name] = std::move(v);
}

void Variables::erase(std::map<std::string, Var>::iterator it) {
  bytes_ -= bytes_of(it->first, it->second);
  vars_.erase(it);
}

template <class F>
auto Variables::evaluating(const std::string& name, const SourcePos& pos, F f) const {
  if (std::find(chain_.begin(), chain_.end(), name) != chain_.end()) {
    std::string cycle;
    for (auto it = std::find(chain_.begin(), chain_.end(), name); it != chain_.end(); ++it)
      cycle += *it + " -> ";
    fail_input(pos, "variable '" + name + "' refers to itself (" + cycle + name + ")");
  }
  if (chain_.size() >= kMaxVariableDepth)
    fail_input(pos, "variables refer to each other more than " + std::to_string(kMaxVariableDepth) +
                        " deep (at '" + name + "')");
  chain_.push_back(name);
  try {
    auto v = f();
    chain_.pop_back();
    if (chain_.empty()) memo_.clear();
    return v;
  } catch (...) {
    chain_.pop_back();
    if (chain_.empty()) memo_.clear();
    throw;
  }
}

void Variables::set_current(Var& v) {
  if (v.style == Style::index) {
    v.text = v.values[v.which];
    return;
  }
  const long long k = v.first + static_cast<long long>(v.which);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*lld", v.pad, k);
  v.text = buf;
}

bool Variables::read_scalar(Var& v, const SourcePos& pos) {
  std::string w;
  if (!v.reader->next_word(w)) return false;
  if (w.size() > 255)
    fail_input(pos, "file variable: a value in " + v.reader->path + " is longer than 255 characters");
  bytes_ -= v.text.size();
  v.text = w;
  bytes_ += v.text.size();
  return true;
}

bool Variables::read_peratom(Var& v, const SourcePos& pos) {
  // LAMMPS's VarReader::read_peratom: a count (the first word of the next non-blank line, comments cut),
  // then exactly that many lines "ID value"; atoms not listed have 0.
  Reader& r = *v.reader;
  std::string count;
  if (!r.next_word(count)) return false;
  long long n = 0;
  {
    char* end = nullptr;
    errno = 0;
    n = std::strtoll(count.c_str(), &end, 10);
    if (end == count.c_str() || *end != '\0' || errno == ERANGE || n < 0 || n > kMaxAtomfileLines)
      fail_input(pos, "atomfile variable: '" + count + "' in " + r.path +
                          " is not a count of atoms (LAMMPS: \"Expected integer parameter\")");
  }
  const int64_t max_id = atom_ids_ ? atom_ids_(pos) : 0;
  auto values = std::make_shared<AtomFileValues>();
  for (long long k = 0; k < n; ++k) {
    if (r.next >= r.lines.size()) return false;  // LAMMPS: the set ends early, the variable is used up
    const std::string& line = r.lines[r.next++];
    std::istringstream in(line);
    std::string a, b;
    in >> a >> b;
    long long id = 0;
    double value = 0.0;
    char *ea = nullptr, *eb = nullptr;
    if (!a.empty()) id = std::strtoll(a.c_str(), &ea, 10);
    if (!b.empty()) value = std::strtod(b.c_str(), &eb);
    if (a.empty() || b.empty() || *ea != '\0' || *eb != '\0')
      fail_input(pos, "atomfile variable: invalid line '" + line + "' in " + r.path +
                          " (LAMMPS: \"Invalid atomfile line\"; each line is an atom ID and a value)");
    if (id <= 0 || id > max_id)
      fail_input(pos, "atomfile variable: invalid atom ID " + std::to_string(id) + " in " + r.path +
                          " (LAMMPS: \"Invalid atom ID in variable file\")");
    (*values)[id] = value;
  }
  v.atoms = std::move(values);
  return true;
}

void Variables::define(const Command& cmd) {
  const std::vector<std::string>& a = cmd.args;
  const size_t narg = a.size();  // LAMMPS's narg: the name, the style and its arguments
  if (narg < 2) illegal(cmd, "it needs a name and a style");
  const std::string& name = a[0];
  const std::string& style = a[1];
  auto it = vars_.find(name);
  const bool exists = it != vars_.end();
  auto keep_or_fail_style = [&](Style s) {
    // LAMMPS: "Cannot redefine variable as a different style".
    if (exists && it->second.style != s)
      fail_input(cmd.pos, "variable '" + name + "' is a " + style_name(it->second.style) +
                              " variable and cannot be redefined as " + style +
                              " (LAMMPS: \"Cannot redefine variable as a different style\")");
  };
  auto check_name = [&]() {
    if (!is_id(name))
      fail_input(cmd.pos, "variable name '" + name +
                              "' must have only alphanumeric characters or underscores, as in LAMMPS");
  };
  if (style == "delete") {
    if (narg != 2) illegal(cmd, "'variable NAME delete' takes no more arguments");
    if (exists) erase(it);
    return;
  }
  static const char* const kRefused[] = {"world", "universe", "uloop", "vector", "python"};
  for (const char* r : kRefused)
    if (style == r)
      fail_input(cmd.pos, "variable style '" + style +
                              "' is not supported (supported: index, loop, string, getenv, format, internal, "
                              "equal, atom, file, atomfile)");
  if (style == "index") {
    if (narg < 3) illegal(cmd, "an index variable needs at least one value");
    // LAMMPS keeps any variable that already exists (so -var on the command line wins).
    if (exists) return;
    check_name();
    Var v = var_of(Style::index, "", std::vector<std::string>(a.begin() + 2, a.end()));
    set_current(v);
    put(name, std::move(v), cmd.pos);
    return;
  }
  if (style == "loop") {
    // LAMMPS keeps a loop variable that already exists (its definition inside its own body does not restart
    // it), before looking at the arguments.
    if (exists) return;
    auto integer = [&](const std::string& t) {
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(t.c_str(), &end, 10);
      if (end == t.c_str() || *end != '\0' || errno == ERANGE || v > 2000000000 || v < -2000000000)
        fail_input(cmd.pos, "variable loop: expected an integer instead of '" + t + "'");
      return v;
    };
    Var v = var_of(Style::loop, "", {});
    const bool pad = (narg == 4 && a[3] == "pad") || (narg == 5 && a[4] == "pad");
    if (narg == 3 || (narg == 4 && pad)) {
      v.first = 1, v.last = integer(a[2]);
      if (v.last <= 0) illegal(cmd, "a loop variable needs at least one value (loop N with N >= 1)");
    } else if (narg == 4 || (narg == 5 && pad)) {
      v.first = integer(a[2]), v.last = integer(a[3]);
      if (v.first > v.last || v.last < 0) illegal(cmd, "loop N1 N2 needs N1 <= N2 and N2 >= 0");
    } else {
      illegal(cmd, "loop takes N [pad] or N1 N2 [pad]");
    }
    if (pad) v.pad = static_cast<int>(std::to_string(v.last).size());
    check_name();
    set_current(v);
    put(name, std::move(v), cmd.pos);
    return;
  }
  if (style == "string") {
    if (narg != 3) illegal(cmd, "a string variable takes one value (quote text with spaces)");
    // LAMMPS substitutes variables in the value when the variable is defined.
    const std::string value = substitute(a[2], cmd.pos);
    keep_or_fail_style(Style::string);
    check_name();
    put(name, var_of(Style::string, value, {}), cmd.pos);
    return;
  }
  if (style == "getenv") {
    if (narg != 3) illegal(cmd, "a getenv variable takes one environment variable name");
    keep_or_fail_style(Style::getenv);
    check_name();
    put(name, var_of(Style::getenv, a[2], {}), cmd.pos);
    return;
  }
  if (style == "format") {
    // variable NAME format EQUALVAR FORMAT: the equal-style variable's value printed with FORMAT. LAMMPS
    // keeps a variable that already exists.
    if (narg != 4) illegal(cmd, "a format variable takes an equal-style variable and a format");
    if (exists) return;
    real_format(a[3], cmd.pos);
    check_name();
    Var v = var_of(Style::format, a[2], {a[3]});
    put(name, std::move(v), cmd.pos);
    return;
  }
  if (style == "internal") {
    if (narg != 3) illegal(cmd, "an internal variable takes one number");
    double x = 0.0;
    if (!parse_double(a[2], x))
      fail_input(cmd.pos, "variable internal: expected a number instead of '" + a[2] + "'");
    keep_or_fail_style(Style::internal);
    if (exists) return;  // LAMMPS 2021 keeps the value an internal variable already has
    check_name();
    Var v = var_of(Style::internal, "", {});
    v.number = x;
    put(name, std::move(v), cmd.pos);
    return;
  }
  if (style == "equal" || style == "atom") {
    // One formula: with spaces it must be quoted (LAMMPS: "Illegal variable command").
    if (narg != 3)
      illegal(cmd, "an " + style + "-style variable takes one formula; quote a formula that has spaces");
    const Style s = style == "equal" ? Style::equal : Style::atom;
    keep_or_fail_style(s);
    check_name();
    put(name, var_of(s, a[2], {}), cmd.pos);
    return;
  }
  if (style == "file" || style == "atomfile") {
    if (narg != 3) illegal(cmd, "a " + style + " variable takes one file name");
    if (exists) return;  // LAMMPS keeps a variable that already exists
    check_name();
    Var v = var_of(style == "file" ? Style::file : Style::atomfile, "", {});
    v.reader = std::make_shared<Reader>();
    v.reader->path = a[2];
    const std::string text = read_plain_file(a[2], style + " variable file", cmd.pos, kMaxScriptBytes);
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) v.reader->lines.push_back(l);
    if (v.style == Style::file) {
      if (!read_scalar(v, cmd.pos))
        fail_input(cmd.pos, "file variable: " + a[2] +
                                " holds no value (LAMMPS: \"File variable could not read value\")");
    } else {
      if (!atom_ids_) fail_input(cmd.pos, "atomfile variable: there are no atoms here to give values to");
      if (!read_peratom(v, cmd.pos))
        fail_input(cmd.pos,
                   "atomfile variable: " + a[2] +
                       " holds no set of values (LAMMPS: \"Atomfile variable could not read values\")");
    }
    put(name, std::move(v), cmd.pos);
    return;
  }
  fail_input(cmd.pos, "unknown variable style '" + style +
                          "' (supported: index, loop, string, getenv, format, internal, equal, atom, file, "
                          "atomfile; LAMMPS: \"Illegal variable command\")");
}

const std::string* Variables::atom_formula(const std::string& name) const {
  const auto it = vars_.find(name);
  return it != vars_.end() && it->second.style == Style::atom ? &it->second.text : nullptr;
}

const AtomFileValues* Variables::atomfile(const std::string& name) const {
  const auto it = vars_.find(name);
  return it != vars_.end() && it->second.style == Style::atomfile ? it->second.atoms.get() : nullptr;
}

bool Variables::equal_style(const std::string& name) const {
  const auto it = vars_.find(name);
  return it != vars_.end() && (it->second.style == Style::equal || it->second.style == Style::internal);
}

SourcePos Variables::position(const std::string& name) const {
  const auto it = vars_.find(name);
  return it == vars_.end() ? SourcePos{"v_" + name, 0} : it->second.pos;
}

std::string Variables::style_of(const std::string& name) const {
  const auto it = vars_.find(name);
  return it == vars_.end() ? std::string() : style_name(it->second.style);
}

std::string Variables::text(const std::string& name, const SourcePos& pos) const {
  auto it = vars_.find(name);
  if (it == vars_.end())
    fail_input(pos, "substitution of an undefined variable '" + name +
                        "' (LAMMPS: \"Substitution for illegal variable\")");
  const Var& var = it->second;
  char buf[64];
  switch (var.style) {
    case Style::getenv: {
      const char* env = std::getenv(var.text.c_str());
      return env ? env : "";
    }
    case Style::format: {
      // NAME format EQUALVAR FORMAT: the variable must be equal-style (LAMMPS's retrieve gives nothing
      // otherwise); a format variable naming itself (or a chain back to it) is a cycle.
      if (!equal_style(var.text))
        fail_input(pos, "format variable '" + name + "' formats '" + var.text +
                            "', which is not an equal-style variable (LAMMPS: \"Substitution for illegal "
                            "variable\")");
      const double v = evaluating(name, pos, [&] { return value(var.text, pos); });
      return real_format(var.values.front(), pos).print(v);
    }
    case Style::internal:
      std::snprintf(buf, sizeof buf, "%.15g", var.number);
      return buf;
    case Style::equal:
      std::snprintf(buf, sizeof buf, "%.15g", value(name, pos));
      return buf;
    case Style::atom:
    case Style::atomfile:
      fail_input(pos,
                 std::string(style_name(var.style)) + "-style variable '" + name +
                     "' has a value per atom, not one value (read it in dump custom, compute reduce or fix "
                     "store/state; LAMMPS: \"Substitution for illegal variable\")");
    default:
      return var.text;
  }
}

double Variables::value(const std::string& name, const SourcePos& pos) const {
  auto it = vars_.find(name);
  if (it == vars_.end()) fail_input(pos, "undefined variable '" + name + "'");
  if (it->second.style == Style::internal) return it->second.number;
  if (it->second.style != Style::equal) return atof_like(text(name, pos));
  // memo_ holds values only while an outermost evaluation is under way.
  if (const auto m = memo_.find(name); m != memo_.end()) return m->second;
  const std::string& formula = it->second.text;
  const double v = evaluating(name, pos, [&] { return evaluate(formula, pos); });
  if (!chain_.empty()) memo_[name] = v;
  return v;
}

double Variables::evaluate(const std::string& expr, const SourcePos& pos) const {
  NameResolver resolve = [this, &pos](const std::string& word, double& v) {
    if (word.rfind("v_", 0) == 0 && word.find('[') == std::string::npos) {
      const std::string name = word.substr(2);
      const auto it = vars_.find(name);
      if (it == vars_.end())
        fail_input(pos, "variable '" + name +
                            "' in a formula does not exist (LAMMPS: \"Invalid variable name in "
                            "variable formula\")");
      if (it->second.style == Style::atom || it->second.style == Style::atomfile)
        fail_input(pos,
                   "atom-style variable '" + name +
                       "' in an equal-style formula: it has a value per atom (LAMMPS: \"Atom-style variable "
                       "in equal-style variable formula\")");
      // LAMMPS reads a variable inside a formula through its text, so an equal-style one enters with the 15
      // significant digits ${name} would print, and any other as C's atof reads its text.
      v = it->second.style == Style::internal ? it->second.number : atof_like(text(name, pos));
      return true;
    }
    return thermo_ && thermo_(word, pos, v);
  };
  return evaluate_expression(expr, resolve, pos, &calls_, &clock_);
}

double Variables::next_file_value(const std::string& name, const SourcePos& pos) {
  auto it = vars_.find(name);
  if (it == vars_.end()) fail_input(pos, "next(" + name + "): variable '" + name + "' does not exist");
  if (it->second.style != Style::file) {
    if (it->second.style == Style::atomfile)
      fail_input(pos, "next(" + name +
                          ") of an atomfile variable in an equal-style formula (LAMMPS: \"Atomfile "
                          "variable in equal-style variable formula\")");
    fail_input(pos, "next(" + name + "): variable '" + name +
                        "' is not file- or atomfile-style (LAMMPS: "
                        "\"Invalid variable style in special function next\")");
  }
  const double v = atof_like(it->second.text);
  if (!read_scalar(it->second, pos)) erase(it);
  return v;
}

AtomFileValues Variables::next_atomfile_values(const std::string& name, const SourcePos& pos) {
  auto it = vars_.find(name);
  if (it == vars_.end() || it->second.style != Style::atomfile)
    fail_input(pos, "next(" + name + "): variable '" + name + "' is not an atomfile variable");
  AtomFileValues v = *it->second.atoms;
  if (!read_peratom(it->second, pos)) erase(it);
  return v;
}

std::string Variables::substitute(const std::string& line, const SourcePos& pos) const {
  std::string out;
  int quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '$' || quote) {
      const size_t from = i;
      track_quote(line, i, quote);
      out.append(line, from, i - from + 1);
      continue;
    }
    // A variable: ${name}, $(formula[:format]) or $x (one character, which may be a space or nothing).
    const char n = i + 1 < line.size() ? line[i + 1] : '\0';
    if (n == '{') {
      const size_t end = line.find('}', i + 2);
      if (end == std::string::npos)
        fail_input(pos, "missing '}' in variable reference (LAMMPS: \"Invalid variable name\"): " + line);
      out += text(line.substr(i + 2, end - i - 2), pos);
      i = end;
    } else if (n == '(') {
      size_t end = i + 2;
      for (int depth = 0; end < line.size() && (line[end] != ')' || depth != 0); ++end) {
        if (line[end] == '(') ++depth;
        if (line[end] == ')') --depth;
      }
      if (end >= line.size())
        fail_input(pos,
                   "missing ')' in immediate expression (LAMMPS: \"Invalid immediate variable\"): " + line);
      std::string expr = line.substr(i + 2, end - i - 2);
      std::string format = "%.20g";
      const auto colon = expr.rfind(':');
      if (colon != std::string::npos && colon + 1 < expr.size() && expr[colon + 1] == '%') {
        format = expr.substr(colon + 1, 63);  // LAMMPS's buffer holds 63 characters of it
        expr.resize(colon);
      }
      const PrintFormat f = real_format(format, pos);
      std::string printed = f.print(evaluate(expr, pos));
      if (printed.size() > 255) printed.resize(255);  // LAMMPS prints into 256 bytes
      out += printed;
      i = end;
    } else {
      if (n == '\0')
        fail_input(pos, "a '$' ends the line (LAMMPS: \"Substitution for illegal variable\"): " + line);
      out += text(std::string(1, n), pos);
      ++i;
    }
    // Variables may hold up to a command's length each, so a line of them could grow without bound.
    if (out.size() > kMaxCommandBytes)
      fail_input(pos, "the command is longer than " + std::to_string(kMaxCommandBytes >> 20) +
                          " MiB after variable substitution");
  }
  return out;
}

// ---- Lines, comments, characters and words ----------------------------------------------------------------

std::string strip_comment(const std::string& line) {
  int quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && !quote) return line.substr(0, i);
    track_quote(line, i, quote);
  }
  return line;
}

bool has_non_ascii(const std::string& text) {
  for (const char c : text)
    if (static_cast<unsigned char>(c) & 0x80u) return true;
  return false;
}

std::string utf8_to_ascii(const std::string& line) {
  // LAMMPS 2021's table (utils::utf8_subst), applied as it applies it: a known character becomes its ASCII
  // look-alike; of an unknown one, the lead byte is dropped and its continuation bytes are copied.
  struct Map {
    unsigned char b[3];
    char to;
  };
  static const Map kTwo[] = {{{0xc2, 0xa0, 0}, ' '}, {{0xcb, 0x96, 0}, '+'}, {{0xcb, 0x97, 0}, '-'}};
  static const Map kThree[] = {
      {{0xe2, 0x80, 0x80}, ' '},  {{0xe2, 0x80, 0x81}, ' '},  {{0xe2, 0x80, 0x82}, ' '},
      {{0xe2, 0x80, 0x83}, ' '},  {{0xe2, 0x80, 0x84}, ' '},  {{0xe2, 0x80, 0x85}, ' '},
      {{0xe2, 0x80, 0x86}, ' '},  {{0xe2, 0x80, 0x87}, ' '},  {{0xe2, 0x80, 0x88}, ' '},
      {{0xe2, 0x80, 0x89}, ' '},  {{0xe2, 0x80, 0x8a}, ' '},  {{0xe2, 0x80, 0x8b}, ' '},
      {{0xe2, 0x80, 0x98}, '\''}, {{0xe2, 0x80, 0x99}, '\''}, {{0xe2, 0x80, 0x9c}, '"'},
      {{0xe2, 0x80, 0x9d}, '"'},  {{0xe2, 0x80, 0xaf}, ' '},  {{0xe2, 0x81, 0xa0}, ' '},
      {{0xe2, 0x81, 0xa3}, ' '},  {{0xe2, 0x81, 0xa4}, '+'},  {{0xe2, 0x88, 0x92}, '-'},
      {{0xef, 0xbb, 0xbf}, ' '}};
  const auto* in = reinterpret_cast<const unsigned char*>(line.data());
  const size_t len = line.size();
  std::string out;
  out.reserve(len);
  for (size_t i = 0; i < len; ++i) {
    if ((in[i] & 0xe0u) == 0xc0u) {
      // LAMMPS tests each entry in turn against the position as it moves (a match advances it).
      if (i + 1 < len)
        for (const Map& m : kTwo)
          if (in[i] == m.b[0] && in[i + 1] == m.b[1]) out += m.to, ++i;
    } else if ((in[i] & 0xf0u) == 0xe0u) {
      if (i + 2 < len)
        for (const Map& m : kThree)
          if (i + 2 < len && in[i] == m.b[0] && in[i + 1] == m.b[1] && in[i + 2] == m.b[2])
            out += m.to, i += 2;
    } else if ((in[i] & 0xf8u) == 0xf0u) {
      // a 4-byte character: its lead byte is dropped
    } else {
      out += static_cast<char>(in[i]);
    }
  }
  return out;
}

std::vector<std::string> read_script_lines(const std::string& path, const SourcePos& from) {
  const std::string text = read_plain_file(path, "input file", from, kMaxScriptBytes);
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    at = end + 1;
  }
  return lines;
}

std::vector<std::string> split_words(const std::string& line, const SourcePos& pos) {
  static const char* const kSpace = " \t\n\v\f\r";
  std::vector<std::string> words;
  size_t i = 0;
  for (;;) {
    i = line.find_first_not_of(kSpace, i);
    if (i == std::string::npos) break;
    size_t open = 0;
    char q = 0;
    if (starts_triple(line, i))
      open = 3, q = '"';
    else if (line[i] == '"' || line[i] == '\'')
      open = 1, q = line[i];
    if (open == 0) {
      const size_t end = std::min(line.find_first_of(kSpace, i), line.size());
      words.push_back(line.substr(i, end - i));
      i = end;
      continue;
    }
    const size_t close = open == 3 ? line.find("\"\"\"", i + 3) : line.find(q, i + 1);
    if (close == std::string::npos)
      fail_input(pos, "unbalanced quote (LAMMPS: \"Unbalanced quotes in input line\") in: " + line);
    const size_t after = close + open;
    if (after < line.size() && !std::strchr(kSpace, line[after]))
      fail_input(pos,
                 "a closing quote must be followed by white space (LAMMPS: \"Input line quote not followed "
                 "by white-space\") in: " +
                     line);
    words.push_back(line.substr(i + open, close - i - open));
    i = after;
  }
  return words;
}

// ---- The script ------------------------------------------------------------------------------------------

LammpsScript::LammpsScript(const std::string& path, Variables& vars, const SourcePos& from) : vars_(vars) {
  open(path, from);
  bool any = false;
  for (const auto& l : stack_.back().lines) {
    text_ += l + "\n";
    const std::string body = strip_comment(l);
    any = any || body.find_first_not_of(" \t\r\f\v") != std::string::npos;
  }
  // LAMMPS runs an empty script and exits 0; here that would be a "successful" run of nothing, when the
  // likely cause is the wrong or a truncated file.
  if (!any) fail_input(SourcePos{path, 1}, "input has no commands");
}

void LammpsScript::open(const std::string& path, const SourcePos& from) {
  if (stack_.size() > 16) fail_input(from, "include files nested too deeply (more than 16)");
  File f;
  f.path = path;
  f.lines = read_script_lines(path, from);
  stack_.push_back(std::move(f));
}

bool LammpsScript::read_joined(File& f, std::string& line, SourcePos& pos) {
  // LAMMPS's Input::file: a line whose last printable character is '&' continues on the next (the '&' and
  // what follows it are replaced by the next line), and so does a line with an odd number of triple quotes
  // so far (the first white-space character after its last printable one is kept, the rest dropped). The
  // comment is cut later, so a '&' at the end of a comment continues the command too.
  line.clear();
  if (f.next >= f.lines.size()) return false;
  pos = SourcePos{f.path, static_cast<int>(f.next) + 1};
  std::string tail;  // what the next line replaces (LAMMPS's buffer still holds it at the end of the file)
  // Triple quotes counted as LAMMPS counts them over the whole text so far, but only over what is new: the
  // text a join drops is white space and '&', so counted ones stay.
  size_t triples = 0, scan = 0;
  while (f.next < f.lines.size()) {
    const std::string& piece = f.lines[f.next++];
    if (line.size() + piece.size() >= kMaxCommandBytes)
      fail_input(pos, "the command is longer than " + std::to_string(kMaxCommandBytes >> 20) + " MiB");
    line += piece;
    line += '\n';
    for (size_t p = line.find("\"\"\"", scan); p != std::string::npos; p = line.find("\"\"\"", p + 3))
      ++triples, scan = p + 3;
    scan = std::max(scan, line.size() >= 2 ? line.size() - 2 : size_t(0));
    const size_t m = line.find_last_not_of(" \t\n\v\f\r");
    size_t keep;
    if (m != std::string::npos && line[m] == '&')
      keep = m;
    else if (triples % 2 == 1)
      keep = m == std::string::npos ? 1 : m + 2;
    else {
      line.resize(m == std::string::npos ? 0 : m + 1);
      return true;
    }
    tail = line.substr(keep);
    line.resize(keep);
    scan = std::min(scan, keep);
  }
  // The end of the file inside a continuation: what was read is the command (LAMMPS keeps the '&').
  line += tail;
  return true;
}

std::vector<std::string> LammpsScript::parse(const std::string& line, const SourcePos& pos, bool substitute,
                                             std::string& text) {
  text = strip_comment(line);
  if (has_non_ascii(text)) {
    text = utf8_to_ascii(text);
    if (!utf8_warned_ && warn_)
      warn_(
          "WARNING: Detected non-ASCII characters in input. Will try to continue by replacing with ASCII "
          "equivalents where known. (src/input.cpp:431)");
    utf8_warned_ = true;
  }
  if (substitute) text = vars_.substitute(text, pos);
  return split_words(text, pos);
}

bool LammpsScript::next(Command& cmd) {
  while (!stack_.empty()) {
    if (interrupt_) interrupt_();
    File& f = stack_.back();
    if (f.next >= f.lines.size()) {
      if (!label_.empty() && !f.commands)
        fail_input(label_from_, "jump: label '" + label_ + "' not found in " + f.path +
                                    " (LAMMPS: \"Label wasn't found in input script\")");
      stack_.pop_back();
      continue;
    }
    std::string line;
    SourcePos pos;
    if (f.commands) {
      // An `if` branch's command is one line whatever it holds (LAMMPS's Input::one).
      line = f.lines[f.next++];
      pos = f.origin;
    } else {
      read_joined(f, line, pos);
    }
    // While a jump looks for its label, LAMMPS parses each line without substituting variables (they may not
    // be defined yet) and executes only `label` commands.
    const bool scanning = !label_.empty() && !f.commands;
    std::string text;
    auto words = parse(line, pos, !scanning, text);
    if (words.empty()) continue;
    Command c{words[0], std::vector<std::string>(words.begin() + 1, words.end()), pos, text};
    if (scanning) {
      if (c.name == "label") {
        ArgCursor a(c);
        if (a.word("a label name") == label_) label_.clear();
        a.finish();
      }
      continue;
    }
    if (c.name == "variable") {
      vars_.define(c);
      continue;
    }
    if (c.name == "include") {
      ArgCursor a(c);
      const std::string path = a.word("a file name");
      a.finish();
      open(path, pos);
      continue;
    }
    if (control(c)) continue;
    if (c.name == "print" && !c.args.empty()) {
      // LAMMPS substitutes variables in print's text (so quoted $ are substituted) when print runs.
      c.args[0] = vars_.substitute(c.args[0], pos);
    }
    cmd = std::move(c);
    return true;
  }
  return false;
}

}  // namespace wmd::io
