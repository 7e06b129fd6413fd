#include "io/lammps_script.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "io/print_format.hpp"
#include "io/text_file.hpp"

namespace wmd::io {
namespace {

// The format of `variable NAME format` and $(expr:FORMAT): one conversion of a real (LAMMPS's docs: "a
// C-style format for a floating-point number"), checked before it reaches snprintf.
PrintFormat real_format(const std::string& fmt, const SourcePos& pos) {
  PrintFormat f;
  std::string why;
  if (!parse_print_format(fmt, false, f, why)) fail_input(pos, "format '" + fmt + "' " + why);
  return f;
}

}  // namespace

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
    case Style::equal:
      return "equal";
    case Style::atom:
      return "atom";
  }
  return "?";
}

void Variables::define_from_command_line(const std::string& name, const std::string& value) {
  put(name, Var{Style::index, value, {value}, 0}, SourcePos{"<command line>", 0});
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
  std::snprintf(buf, sizeof buf, "%0*lld", v.pad ? static_cast<int>(std::to_string(v.last).size()) : 0, k);
  v.text = buf;
}

void Variables::define(const Command& cmd) {
  ArgCursor a(cmd);
  const std::string name = a.word("a variable name");
  if (a.peek() == "delete") {
    a.word("delete");
    a.finish();
    if (auto it = vars_.find(name); it != vars_.end()) erase(it);
    return;
  }
  static const std::vector<std::string> refused = {"world", "universe", "uloop",    "vector", "python",
                                                   "file",  "atomfile", "internal", "timer"};
  const std::string style_word = a.peek();
  if (std::find(refused.begin(), refused.end(), style_word) != refused.end())
    a.fail("variable style '" + style_word +
           "' is not supported (supported: index, loop, string, getenv, format, equal, atom)");
  const std::string style =
      a.choice("a variable style", {"index", "loop", "string", "getenv", "format", "equal", "atom"});
  auto it = vars_.find(name);
  if (style == "index" || style == "loop") {
    Var v{style == "index" ? Style::index : Style::loop, "", {}, 0};
    if (style == "index") {
      v.values.push_back(a.word("at least one value"));
      while (!a.done()) v.values.push_back(a.word("a value"));
    } else {
      // loop N [pad] (1..N) or loop N1 N2 [pad] (N1..N2); pad: zero-padded to the width of the last value.
      const long long n = a.integer("the loop count", 0, 2000000000);
      v.first = 1, v.last = n;
      if (!a.done() && a.peek() != "pad")
        v.first = n, v.last = a.integer("the last loop value", n, 2000000000);
      if (v.last < 1) a.fail("a loop variable needs at least one value (loop N with N >= 1)");
      v.pad = !a.done() && a.choice("pad", {"pad"}) == "pad";
      a.finish();
    }
    set_current(v);
    // LAMMPS keeps an index or loop variable that already exists (so -var on the command line wins, and a
    // loop's definition inside its own body does not restart it).
    if (it == vars_.end()) put(name, std::move(v), cmd.pos);
    return;
  }
  std::string text = a.word("a value");
  Style s = Style::equal;
  if (style == "string" || style == "getenv") {
    a.finish();
    s = style == "string" ? Style::string : Style::getenv;
  } else if (style == "format") {
    // variable NAME format EQUALVAR FORMAT: the equal-style variable's value printed with FORMAT.
    const std::string format = a.word("a C format such as %.4f");
    a.finish();
    real_format(format, cmd.pos);
    text += " " + format;
    s = Style::format;
  } else {
    while (!a.done()) text += " " + a.word("more formula");
    if (style == "atom") s = Style::atom;  // a formula per atom, evaluated by md/ where it is read
  }
  // LAMMPS: "Cannot redefine variable as a different style".
  if (it != vars_.end() && it->second.style != s)
    a.fail("variable '" + name + "' is a " + style_name(it->second.style) +
           " variable and cannot be redefined as " + style);
  put(name, Var{s, std::move(text), {}, 0}, cmd.pos);
}

std::string Variables::text(const std::string& name, const SourcePos& pos) const {
  auto it = vars_.find(name);
  if (it == vars_.end()) fail_input(pos, "substitution of an undefined variable '" + name + "'");
  const Var& var = it->second;
  if (var.style == Style::getenv) {
    const char* env = std::getenv(var.text.c_str());
    return env ? env : "";
  }
  if (var.style == Style::format) {
    // NAME format EQUALVAR FORMAT: a format variable naming itself (or a chain back to it) is a cycle.
    const size_t space = var.text.find(' ');
    const double v = evaluating(name, pos, [&] { return value(var.text.substr(0, space), pos); });
    return real_format(var.text.substr(space + 1), pos).print(v);
  }
  if (var.style == Style::atom)
    fail_input(pos,
               "atom-style variable '" + name +
                   "' has a value per atom, not one value (read it in dump custom, compute reduce or fix "
                   "store/state)");
  if (var.style != Style::equal) return var.text;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", value(name, pos));
  return buf;
}

double Variables::value(const std::string& name, const SourcePos& pos) const {
  auto it = vars_.find(name);
  if (it == vars_.end()) fail_input(pos, "undefined variable '" + name + "'");
  if (it->second.style != Style::equal) {
    const std::string t = text(name, pos);
    double v;
    if (!parse_double(t, v)) fail_input(pos, "variable '" + name + "' = '" + t + "' is not a number");
    return v;
  }
  // memo_ holds values only while an outermost evaluation is under way.
  if (const auto m = memo_.find(name); m != memo_.end()) return m->second;
  const std::string& formula = it->second.text;
  const double v = evaluating(name, pos, [&] { return evaluate(formula, pos); });
  if (!chain_.empty()) memo_[name] = v;
  return v;
}

double Variables::evaluate(const std::string& expr, const SourcePos& pos) const {
  NameResolver resolve = [this, &pos](const std::string& word, double& v) {
    if (word.rfind("v_", 0) == 0) {
      // LAMMPS reads a variable inside a formula through its text, so an equal-style one enters with the 15
      // significant digits ${name} would print.
      const std::string name = word.substr(2), t = text(name, pos);
      if (!parse_double(t, v)) fail_input(pos, "variable '" + name + "' = '" + t + "' is not a number");
      return true;
    }
    return thermo_ && thermo_(word, v);
  };
  return evaluate_expression(expr, resolve, pos, &calls_);
}

namespace {

// The part of `line` before a '#' that is not inside quotes; `quote` carries an open quote from one
// continuation line to the next.
std::string strip_comment(const std::string& line, char& quote) {
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return line.substr(0, i);
    }
  }
  return line;
}

}  // namespace

std::string strip_comment(const std::string& line) {
  char quote = 0;
  return strip_comment(line, quote);
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
  std::vector<std::string> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i >= line.size()) break;
    std::string w;
    if (line[i] == '"' || line[i] == '\'') {
      const char q = line[i++];
      const size_t end = line.find(q, i);
      if (end == std::string::npos) fail_input(pos, "unbalanced quote in: " + line);
      w = line.substr(i, end - i);
      i = end + 1;
    } else {
      while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) w += line[i++];
    }
    words.push_back(w);
  }
  return words;
}

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

std::string LammpsScript::substitute(const std::string& line, const SourcePos& pos) const {
  std::string out;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
      out += c;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      out += c;
      continue;
    }
    if (c != '$' || i + 1 >= line.size()) {
      out += c;
      continue;
    }
    const char n = line[i + 1];
    if (n == '{') {
      const size_t end = line.find('}', i + 2);
      if (end == std::string::npos) fail_input(pos, "missing '}' in variable reference: " + line);
      out += vars_.text(line.substr(i + 2, end - i - 2), pos);
      i = end;
    } else if (n == '(') {
      int depth = 0;
      size_t end = i + 1;
      for (; end < line.size(); ++end) {
        if (line[end] == '(') ++depth;
        if (line[end] == ')' && --depth == 0) break;
      }
      if (end >= line.size()) fail_input(pos, "missing ')' in immediate expression: " + line);
      std::string expr = line.substr(i + 2, end - i - 2);
      std::string format = "%.20g";
      const auto colon = expr.rfind(":%");
      if (colon != std::string::npos) {
        format = expr.substr(colon + 1);
        expr = expr.substr(0, colon);
      }
      const PrintFormat f = real_format(format, pos);
      out += f.print(vars_.evaluate(expr, pos));
      i = end;
    } else {
      out += vars_.text(std::string(1, n), pos);
      ++i;
    }
    // Variables may hold up to a command's length each, so a line of them could grow without bound.
    if (out.size() > kMaxCommandBytes)
      fail_input(pos, "the command is longer than " + std::to_string(kMaxCommandBytes >> 20) +
                          " MiB after variable substitution");
  }
  return out;
}

bool LammpsScript::next(Command& cmd) {
  while (!stack_.empty()) {
    File& f = stack_.back();
    if (f.next >= f.lines.size()) {
      if (!label_.empty() && !f.commands)
        fail_input(label_from_, "jump: label '" + label_ + "' not found in " + f.path);
      stack_.pop_back();
      continue;
    }
    SourcePos pos = f.commands ? f.origin : SourcePos{f.path, static_cast<int>(f.next) + 1};
    // '&' at the end of a line continues the command on the next one (an `if` branch is one command). Each
    // piece is stripped of its comment once, so joining stays linear in the command's length.
    std::string line;
    char quote = 0;
    for (const std::string* piece = &f.lines[f.next++];; piece = &f.lines[f.next++]) {
      if (line.size() + piece->size() > kMaxCommandBytes)
        fail_input(pos, "the command is longer than " + std::to_string(kMaxCommandBytes >> 20) + " MiB");
      std::string body = strip_comment(*piece, quote);
      while (!body.empty() && std::isspace(static_cast<unsigned char>(body.back()))) body.pop_back();
      if (f.commands || body.empty() || body.back() != '&' || f.next >= f.lines.size()) {
        // A line that is only a comment or blank ends the command, as before it had any text.
        if (body.empty() && !line.empty()) line.pop_back();  // the joining space
        line += body;
        break;
      }
      body.pop_back();
      line += body;
      line += ' ';
    }
    if (!f.commands && scanning_for_label(line, pos)) continue;
    const std::string text = substitute(line, pos);
    auto words = split_words(text, pos);
    if (words.empty()) continue;
    Command c{words[0], std::vector<std::string>(words.begin() + 1, words.end()), pos, text};
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
      // LAMMPS substitutes variables in print's text (quoted, so left alone above) when print runs.
      c.args[0] = substitute(c.args[0], pos);
    }
    cmd = std::move(c);
    return true;
  }
  return false;
}

}  // namespace wmd::io
