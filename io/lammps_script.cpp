#include "io/lammps_script.hpp"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace wmd::io {

void Variables::define_from_command_line(const std::string& name, const std::string& value) {
  vars_[name] = Var{Style::index, value};
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
  const std::string style = a.choice("a variable style", {"index", "string", "equal"});
  if (style == "index") {
    const std::string first = a.word("at least one value");
    // LAMMPS keeps an index variable that already exists (so -var on the command line wins).
    if (!vars_.count(name)) vars_[name] = Var{Style::index, first};
    return;
  }
  std::string text = a.word("a value");
  if (style == "string") {
    a.finish();
    vars_[name] = Var{Style::string, text};
    return;
  }
  while (!a.done()) text += " " + a.word("more formula");
  auto it = vars_.find(name);
  if (it != vars_.end() && it->second.style == Style::index) {
    a.fail("variable '" + name + "' is an index variable and cannot be redefined as equal");
  }
  vars_[name] = Var{Style::equal, text};
}

std::string Variables::text(const std::string& name, const SourcePos& pos) const {
  auto it = vars_.find(name);
  if (it == vars_.end()) fail_input(pos, "substitution of an undefined variable '" + name + "'");
  if (it->second.style != Style::equal) return it->second.text;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", value(name, pos));
  return buf;
}

double Variables::value(const std::string& name, const SourcePos& pos) const {
  auto it = vars_.find(name);
  if (it == vars_.end()) fail_input(pos, "undefined variable '" + name + "'");
  if (it->second.style != Style::equal) {
    double v;
    if (!parse_double(it->second.text, v)) {
      fail_input(pos, "variable '" + name + "' = '" + it->second.text + "' is not a number");
    }
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
      v = value(word.substr(2), pos);
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
      stack_.pop_back();
      continue;
    }
    SourcePos pos{f.path, static_cast<int>(f.next) + 1};
    std::string line = f.lines[f.next++];
    // '&' at the end of a line continues the command on the next one.
    for (;;) {
      std::string body = strip_comment(line);
      while (!body.empty() && std::isspace(static_cast<unsigned char>(body.back()))) body.pop_back();
      if (body.empty() || body.back() != '&' || f.next >= f.lines.size()) {
        line = body;
        break;
      }
      body.pop_back();
      line = body + " " + f.lines[f.next++];
    }
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
    cmd = std::move(c);
    return true;
  }
  return false;
}

}  // namespace wmd::io
