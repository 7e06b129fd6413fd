#include "io/lammps_script.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace wmd::io {
namespace {

// One C conversion of a double (flags, width, precision, then f, e, g, E or G), nothing else after '%'.
bool valid_real_format(const std::string& f) {
  const size_t p = f.find('%');
  if (p == std::string::npos) return false;
  size_t i = p + 1;
  while (i < f.size() && std::strchr("-+ #0", f[i])) ++i;
  while (i < f.size() && std::isdigit(static_cast<unsigned char>(f[i]))) ++i;
  if (i < f.size() && f[i] == '.') ++i;
  while (i < f.size() && std::isdigit(static_cast<unsigned char>(f[i]))) ++i;
  if (i >= f.size() || !std::strchr("feEgG", f[i])) return false;
  return f.find('%', i + 1) == std::string::npos;
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
  vars_[name] = Var{Style::index, value, {value}, 0};
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
    vars_.erase(name);
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
    if (it == vars_.end()) vars_[name] = v;
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
    if (!valid_real_format(format))
      a.fail("format '" + format + "' is not one C conversion of a real number (%f, %e, %g)");
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
  vars_[name] = Var{s, text, {}, 0};
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
    const size_t space = var.text.find(' ');
    char buf[128];
    std::snprintf(buf, sizeof buf, var.text.substr(space + 1).c_str(), value(var.text.substr(0, space), pos));
    return buf;
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
  if (depth_ > 32) fail_input(pos, "variable '" + name + "' refers to itself");
  ++depth_;
  try {
    const double v = evaluate(it->second.text, pos);
    --depth_;
    return v;
  } catch (...) {
    --depth_;
    throw;
  }
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
  return evaluate_expression(expr, resolve, pos);
}

std::string strip_comment(const std::string& line) {
  char quote = 0;
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
  for (const auto& l : stack_.back().lines) text_ += l + "\n";
}

void LammpsScript::open(const std::string& path, const SourcePos& from) {
  std::ifstream in(path);
  if (!in) fail_input(from, "cannot open input file '" + path + "'");
  File f;
  f.path = path;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    f.lines.push_back(line);
  }
  if (stack_.size() > 16) fail_input(from, "include files nested too deeply (more than 16)");
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
      char buf[128];
      std::snprintf(buf, sizeof buf, format.c_str(), vars_.evaluate(expr, pos));
      out += buf;
      i = end;
    } else {
      out += vars_.text(std::string(1, n), pos);
      ++i;
    }
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
    std::string line = f.lines[f.next++];
    // '&' at the end of a line continues the command on the next one (an `if` branch is one command).
    for (;;) {
      std::string body = strip_comment(line);
      while (!body.empty() && std::isspace(static_cast<unsigned char>(body.back()))) body.pop_back();
      if (f.commands || body.empty() || body.back() != '&' || f.next >= f.lines.size()) {
        line = body;
        break;
      }
      body.pop_back();
      line = body + " " + f.lines[f.next++];
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
