// The control flow of LAMMPS input scripts, which LAMMPS's input class executes itself rather than as
// commands: `label ID`, `jump FILE|SELF [label]`, `next VAR...`, `if BOOL then ... elif BOOL ... else ...`
// and `quit`; and `next`'s advance of index, loop, file and atomfile variables. LAMMPS's semantics (docs:
// jump, next, if): a jump to a label skips every line (unsubstituted) until `label ID`; a `next` that
// exhausts a variable deletes it and makes the next `jump` a no-op, which is how loops end; an `if` executes
// its quoted commands as if they were lines of the script at the `if`'s place.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "io/lammps_script.hpp"

namespace wmd::io {

bool Variables::next(const Command& cmd) {
  if (cmd.args.empty()) fail_input(cmd.pos, "next needs at least one variable name");
  Style style = Style::index;
  for (size_t k = 0; k < cmd.args.size(); ++k) {
    const auto it = vars_.find(cmd.args[k]);
    if (it == vars_.end()) fail_input(cmd.pos, "next: undefined variable '" + cmd.args[k] + "'");
    const Style s = it->second.style;
    if (s != Style::index && s != Style::loop && s != Style::file && s != Style::atomfile)
      fail_input(cmd.pos, "next: variable '" + cmd.args[k] + "' is a " + style_name(s) +
                              " variable; only index, loop, file and atomfile variables have a next value "
                              "(LAMMPS: \"Invalid variable style with next command\")");
    if (k > 0 && it->second.style != style)
      fail_input(cmd.pos, "next: all variables must have the same style (LAMMPS's rule)");
    style = it->second.style;
  }
  bool exhausted = false;
  for (const auto& name : cmd.args) {
    auto it = vars_.find(name);
    if (it == vars_.end()) continue;  // named twice and already exhausted
    Var& v = it->second;
    if (v.style == Style::file || v.style == Style::atomfile) {
      // The file's next value (or set); at its end the variable is used up.
      const bool more = v.style == Style::file ? read_scalar(v, cmd.pos) : read_peratom(v, cmd.pos);
      if (!more) exhausted = true, erase(it);
      continue;
    }
    ++v.which;
    const size_t count =
        v.style == Style::index ? v.values.size() : static_cast<size_t>(v.last - v.first + 1);
    if (v.which >= count) {
      exhausted = true;
      erase(it);  // LAMMPS removes it, so the loop's `variable` line may define it afresh
    } else {
      bytes_ -= bytes_of(name, v);
      set_current(v);
      bytes_ += bytes_of(name, v);
    }
  }
  return exhausted;
}

LammpsScript::File& LammpsScript::current_file(const SourcePos& pos) {
  for (auto it = stack_.rbegin(); it != stack_.rend(); ++it)
    if (!it->commands) return *it;
  fail_input(pos, "jump outside any input file");
}

void LammpsScript::jump(const Command& c) {
  ArgCursor a(c);
  const std::string file = a.word("a file name or SELF");
  const std::string label = a.done() ? std::string() : a.word("a label");
  a.finish();
  if (skip_next_jump_) {
    skip_next_jump_ = false;  // a `next` exhausted its variable: the loop ends here
    return;
  }
  if (jump_limit_ > 0 && ++jumps_ > jump_limit_) {
    stack_.clear();  // the dry run stops checking here (its state does not evolve)
    return;
  }
  File& f = current_file(c.pos);
  if (file == "SELF") {
    f.next = 0;
  } else {
    // Another file replaces the current one (not an include: reading does not come back).
    File g;
    g.path = file;
    g.lines = read_script_lines(file, c.pos);
    f = std::move(g);
  }
  // An `if`'s remaining commands still run (LAMMPS executes them from memory); reading then resumes in the
  // jumped-to file.
  label_ = label;
  label_from_ = c.pos;
}

void LammpsScript::run_if(const Command& c) {
  ArgCursor a(c);
  const std::string cond = a.word("a Boolean expression");
  a.choice("'then'", {"then"});
  // Branches: (condition, commands) in order, the else branch with an empty condition.
  struct Branch {
    std::string cond;
    bool is_else = false;
    std::vector<std::string> commands;
  };
  std::vector<Branch> branches{{cond, false, {}}};
  for (size_t k = 2; k < c.args.size(); ++k) {
    const std::string& w = c.args[k];
    if (!branches.back().is_else && w == "elif") {
      if (k + 1 >= c.args.size()) fail_input(c.pos, "if: elif needs a Boolean expression");
      branches.push_back({c.args[++k], false, {}});
    } else if (!branches.back().is_else && w == "else") {
      branches.push_back({"", true, {}});
    } else {
      branches.back().commands.push_back(w);
    }
  }
  if (branches.front().commands.empty()) fail_input(c.pos, "if: 'then' needs at least one command");
  if (branches.back().is_else && branches.back().commands.empty())
    fail_input(c.pos, "if: 'else' needs at least one command");
  for (const Branch& b : branches) {
    if (!b.is_else && !evaluate_boolean(vars_.substitute(b.cond, c.pos), c.pos)) continue;
    if (b.commands.empty()) return;  // an elif with no commands
    File f;
    f.path = c.pos.file;
    f.lines = b.commands;
    f.commands = true;
    f.origin = c.pos;
    if (stack_.size() > 64) fail_input(c.pos, "if commands nested too deeply");
    stack_.push_back(std::move(f));
    return;
  }
}

// `run N [upto] [start S] [stop E] [pre yes|no] [post yes|no] every M c1 c2 ...`: LAMMPS's run in
// segments of M steps with the commands executed (and substituted) after each; it becomes those runs and
// commands here, read like an `if`'s. Each segment's ramps span the segment unless start/stop say otherwise,
// and only the first segment (or every one, with `pre yes`) does the full set-up, as LAMMPS's run.
bool LammpsScript::run_every(const Command& c) {
  size_t at = 0;
  while (at < c.args.size() && c.args[at] != "every") ++at;
  if (at == c.args.size()) return false;
  ArgCursor a(c);
  long long n = a.integer("the number of steps", 0, 4000000000000000000LL);
  bool upto = false, pre = true, post = true;
  std::string start, stop;
  while (a.peek() != "every") {
    const std::string key = a.choice("a run keyword", {"upto", "start", "stop", "pre", "post", "every"});
    if (key == "upto") {
      upto = true;
    } else if (key == "start" || key == "stop") {
      (key == "start" ? start : stop) = std::to_string(a.integer(key, 0, 4000000000000000000LL));
    } else {
      (key == "pre" ? pre : post) = a.yes_no(key);
    }
  }
  a.word("every");
  const long long every = a.integer("the segment length M of 'every M'", 1, 4000000000000000000LL);
  std::vector<std::string> commands;
  while (!a.done()) commands.push_back(a.word("a command"));
  if (commands.size() == 1 && commands.front() == "NULL") commands.clear();  // LAMMPS: a lone NULL, none
  if (upto) {
    const long long now = static_cast<long long>(vars_.evaluate("step", c.pos));
    if (n < now)
      a.fail("run upto " + std::to_string(n) + " is before the current step " + std::to_string(now));
    n -= now;
  }
  if (n > kMaxRunSteps)
    a.fail("Invalid run command " + std::string(upto ? "upto" : "N") + " value: " + std::to_string(n) +
           " steps, more than a run takes (" + std::to_string(kMaxRunSteps) +
           "); run in shorter pieces (LAMMPS's limit)");
  const long long segments = n == 0 ? 1 : (n + every - 1) / every;
  if (segments * static_cast<long long>(1 + commands.size()) > 10000000)
    a.fail("run every: " + std::to_string(segments) + " segments are too many (at most 10 million lines)");
  File f;
  f.path = c.pos.file;
  f.commands = true;
  f.run_every = true;
  f.origin = c.pos;
  long long left = n;
  for (long long k = 0; k < segments; ++k) {
    const long long steps = std::min(left, every);
    std::string run = "run " + std::to_string(steps);
    if (!start.empty()) run += " start " + start;
    if (!stop.empty()) run += " stop " + stop;
    run += std::string(" pre ") + (pre || k == 0 ? "yes" : "no");
    run += std::string(" post ") + (post || left <= steps ? "yes" : "no");
    f.lines.push_back(run);
    for (const std::string& cmd : commands) f.lines.push_back(cmd);
    left -= steps;
  }
  if (stack_.size() > 64) fail_input(c.pos, "run every nested too deeply");
  stack_.push_back(std::move(f));
  return true;
}

bool LammpsScript::control(const Command& c) {
  if (c.name == "run") return run_every(c);
  if (c.name == "label") {
    ArgCursor a(c);
    a.word("a label name");
    a.finish();
  } else if (c.name == "jump") {
    jump(c);
  } else if (c.name == "next") {
    if (vars_.next(c)) skip_next_jump_ = true;
  } else if (c.name == "if") {
    run_if(c);
  } else if (c.name == "quit") {
    ArgCursor a(c);
    if (!a.done() && a.integer("an exit status", 0, 255) != 0)
      a.fail("quit with a non-zero exit status is not supported (wafermd's statuses 2 and 3 mean errors)");
    a.finish();
    stack_.clear();
  } else {
    return false;
  }
  return true;
}

namespace {

// LAMMPS's evaluate_boolean: operands are numbers or words; operators by precedence, low to high:
// || and |^, &&, == and !=, < <= > >=, unary !. A comparison of two numbers is numeric; of two words, a
// string comparison (== and != only).
class BooleanParser {
 public:
  BooleanParser(const std::string& text, const SourcePos& pos) : s_(text), pos_(pos) {}

  bool parse() {
    const Value v = logic_or();
    skip();
    if (i_ != s_.size()) fail("unexpected '" + printable_line(s_.substr(i_), 80) + "'");
    return number(v) != 0.0;
  }

 private:
  struct Value {
    bool is_number;
    double x;
    std::string word;
  };

  [[noreturn]] void fail(const std::string& why) const {
    fail_input(pos_, "if: cannot evaluate Boolean '" + printable_line(s_, 160) + "': " + why +
                         (why.find("LAMMPS:") == std::string::npos
                              ? " (LAMMPS: \"Invalid Boolean syntax in if command\")"
                              : ""));
  }
  double number(const Value& v) const {
    if (!v.is_number)
      fail("'" + v.word + "' is a word where a number is needed (lmp 2021 reads an unset number there)");
    return v.x;
  }
  static Value of(bool b) { return Value{true, b ? 1.0 : 0.0, ""}; }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(const char* op) {
    skip();
    const size_t n = std::char_traits<char>::length(op);
    if (s_.compare(i_, n, op) != 0) return false;
    i_ += n;
    return true;
  }
  Value logic_or() {
    Value v = logic_and();
    for (;;) {
      if (eat("||")) {
        const Value r = logic_and();
        v = of(number(v) != 0.0 || number(r) != 0.0);
      } else if (eat("|^")) {
        const Value r = logic_and();
        v = of((number(v) != 0.0) != (number(r) != 0.0));
      } else {
        return v;
      }
    }
  }
  Value logic_and() {
    Value v = equality();
    while (eat("&&")) {
      const Value r = equality();
      v = of(number(v) != 0.0 && number(r) != 0.0);
    }
    return v;
  }
  Value equality() {
    Value v = relation();
    for (;;) {
      const bool eq = eat("==");
      if (!eq && !eat("!=")) return v;
      const Value r = relation();
      if (v.is_number != r.is_number) fail("a number compared with a word");
      const bool same = v.is_number ? v.x == r.x : v.word == r.word;
      v = of(eq ? same : !same);
    }
  }
  Value relation() {
    Value v = unary();
    for (;;) {
      int op;
      if (eat("<="))
        op = 0;
      else if (eat(">="))
        op = 1;
      else if (eat("<"))
        op = 2;
      else if (eat(">"))
        op = 3;
      else
        return v;
      const Value r = unary();
      if (!v.is_number || !r.is_number) fail("words compare with == and != only");
      const bool t[] = {v.x <= r.x, v.x >= r.x, v.x<r.x, v.x> r.x};
      v = of(t[op]);
    }
  }
  Value unary() {
    // Every recursion (parentheses, '!') passes here: bounded before the stack is.
    if (++depth_ > kMaxExpressionDepth)
      fail("nested more than " + std::to_string(kMaxExpressionDepth) + " levels deep");
    const Value v = unary_body();
    --depth_;
    return v;
  }
  Value unary_body() {
    skip();
    // '!' before '=' is the start of != (handled by the caller), not a negation.
    if (i_ + 1 < s_.size() && s_[i_] == '!' && s_[i_ + 1] != '=') {
      ++i_;
      return of(number(unary()) == 0.0);
    }
    if (eat("(")) {
      const Value v = logic_or();
      if (!eat(")")) fail("missing ')'");
      return v;
    }
    return operand();
  }
  // LAMMPS's operands: a number starts with a digit, '.' or '-' and runs over digits and '.' with an
  // optional exponent (its value as C's atof reads it); a word starts with a letter and runs over letters,
  // digits, '_' and '/'. Anything else is "Invalid Boolean syntax".
  Value operand() {
    skip();
    const size_t start = i_;
    auto digit = [&](size_t k) { return k < s_.size() && std::isdigit(static_cast<unsigned char>(s_[k])); };
    if (i_ < s_.size() && (digit(i_) || s_[i_] == '.' || s_[i_] == '-')) {
      ++i_;
      while (digit(i_) || (i_ < s_.size() && s_[i_] == '.')) ++i_;
      if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
        ++i_;
        if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
        while (digit(i_)) ++i_;
      }
      return Value{true, std::strtod(s_.substr(start, i_ - start).c_str(), nullptr), ""};
    }
    if (i_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[i_]))) {
      while (i_ < s_.size() &&
             (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == '/'))
        ++i_;
      return Value{false, 0.0, s_.substr(start, i_ - start)};
    }
    fail(i_ < s_.size() ? "unexpected '" + printable_line(s_.substr(i_), 80) + "'" : "it ends early");
  }

  const std::string& s_;
  const SourcePos& pos_;
  size_t i_ = 0;
  int depth_ = 0;  // not restored on a throw: the parser is not used after one
};

}  // namespace

bool evaluate_boolean(const std::string& text, const SourcePos& pos) {
  return BooleanParser(text, pos).parse();
}

}  // namespace wmd::io
