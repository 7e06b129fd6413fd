#include "io/expression.hpp"

#include <cctype>
#include <cmath>
#include <vector>

#include "io/command.hpp"

namespace wmd::io {
namespace {

// Nesting levels of all expressions being evaluated on this thread: a variable's formula is parsed inside
// the formula that names it, so the stack grows with both.
thread_local int g_levels = 0;

std::string trimmed(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// The comma-separated words of a call whose '(' is just before `i`; `i` ends after the matching ')'.
// False when the parenthesis is not closed.
bool call_words(const std::string& s, size_t& i, std::vector<std::string>& words) {
  int depth = 0;
  std::string cur;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(') ++depth;
    if (c == ')' && depth-- == 0) {
      words.push_back(trimmed(cur));
      ++i;
      return true;
    }
    if (c == ',' && depth == 0) {
      words.push_back(trimmed(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  return false;
}

// Counts one level of recursion for its lifetime.
class Level {
 public:
  explicit Level(int& local) : local_(local) {
    ++local_;
    ++g_levels;
  }
  ~Level() {
    --local_;
    --g_levels;
  }
  Level(const Level&) = delete;
  Level& operator=(const Level&) = delete;

 private:
  int& local_;
};

// Recursive-descent parser; precedence from low to high: || && (== != < <= > >=) (+ -) (* / %) ^ unary.
class Parser {
 public:
  Parser(const std::string& text, const NameResolver& resolve, const SourcePos& pos,
         const CallResolver* calls)
      : s_(text), resolve_(resolve), pos_(pos), calls_(calls) {}

  double parse() {
    const double v = logic_or();
    skip();
    if (i_ != s_.size()) fail("unexpected '" + printable_line(s_.substr(i_), 80) + "'");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    // The expression may be megabytes long: its start names it, and the reason stays in the message.
    fail_input(pos_, "cannot evaluate expression '" + printable_line(s_, 160) + "': " + why);
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(const char* op) {
    skip();
    const size_t n = std::char_traits<char>::length(op);
    if (s_.compare(i_, n, op) == 0) {
      i_ += n;
      return true;
    }
    return false;
  }
  double logic_or() {
    double v = logic_and();
    while (eat("||")) {
      const double r = logic_and();
      v = (v != 0.0 || r != 0.0) ? 1.0 : 0.0;
    }
    return v;
  }
  double logic_and() {
    double v = compare();
    while (eat("&&")) {
      const double r = compare();
      v = (v != 0.0 && r != 0.0) ? 1.0 : 0.0;
    }
    return v;
  }
  double compare() {
    double v = sum();
    for (;;) {
      if (eat("=="))
        v = (v == sum()) ? 1.0 : 0.0;
      else if (eat("!="))
        v = (v != sum()) ? 1.0 : 0.0;
      else if (eat("<="))
        v = (v <= sum()) ? 1.0 : 0.0;
      else if (eat(">="))
        v = (v >= sum()) ? 1.0 : 0.0;
      else if (eat("<"))
        v = (v < sum()) ? 1.0 : 0.0;
      else if (eat(">"))
        v = (v > sum()) ? 1.0 : 0.0;
      else
        return v;
    }
  }
  double sum() {
    double v = product();
    for (;;) {
      if (eat("+"))
        v += product();
      else if (eat("-"))
        v -= product();
      else
        return v;
    }
  }
  double product() {
    double v = power();
    for (;;) {
      if (eat("*"))
        v *= power();
      else if (eat("/")) {
        const double d = power();
        if (d == 0.0) fail("division by zero");
        v /= d;
      } else if (eat("%")) {
        const double d = power();
        if (d == 0.0) fail("modulo by zero");
        v = std::fmod(v, d);
      } else
        return v;
    }
  }
  // LAMMPS's precedence: unary minus and ! bind tighter than ^, and ^ groups from the left, so -2^2 = 4
  // and 2^3^2 = 64.
  double power() {
    double v = unary();
    while (eat("^")) v = std::pow(v, unary());
    return v;
  }
  // Every recursion passes here (parentheses, function arguments, unary operators): the depth is bounded
  // before the stack is.
  double unary() {
    const Level level(depth_);
    if (depth_ > kMaxExpressionDepth)
      fail("nested more than " + std::to_string(kMaxExpressionDepth) + " levels deep");
    if (g_levels > kMaxExpressionLevels)
      fail("nested more than " + std::to_string(kMaxExpressionLevels) +
           " levels deep with the variables it uses");
    if (eat("-")) return -unary();
    if (eat("!")) return unary() == 0.0 ? 1.0 : 0.0;
    if (eat("+")) return unary();
    return primary();
  }
  double primary() {
    skip();
    if (i_ >= s_.size()) fail("it ends early");
    if (eat("(")) {
      const double v = logic_or();
      if (!eat(")")) fail("missing ')'");
      return v;
    }
    const char c = s_[i_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name();
    fail(std::string("unexpected '") + c + "'");
  }
  double number() {
    const size_t start = i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.')) ++i_;
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      size_t j = i_ + 1;
      if (j < s_.size() && (s_[j] == '+' || s_[j] == '-')) ++j;
      if (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j]))) {
        i_ = j;
        while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      }
    }
    double v;
    if (!parse_double(s_.substr(start, i_ - start), v))
      fail("bad number '" + s_.substr(start, i_ - start) + "'");
    return v;
  }
  double name() {
    const size_t start = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' ||
                              s_[i_] == '[' || s_[i_] == ']')) {
      ++i_;
    }
    const std::string word = s_.substr(start, i_ - start);
    skip();
    if (i_ < s_.size() && s_[i_] == '(') {
      ++i_;
      if (is_group_function(word)) return group_call(word);
      std::vector<double> args;
      if (!eat(")")) {
        do args.push_back(logic_or());
        while (eat(","));
        if (!eat(")")) fail("missing ')' after the arguments of " + word);
      }
      return call(word, args);
    }
    if (word == "PI") return M_PI;
    double v;
    if (resolve_ && resolve_(word, v)) return v;
    fail("unknown name '" + word + "'");
  }
  // LAMMPS's group functions: word arguments, a global value from the caller.
  double group_call(const std::string& f) {
    std::vector<std::string> words;
    if (!call_words(s_, i_, words)) fail("missing ')' after the arguments of " + f);
    double v = 0.0;
    if (!calls_ || !*calls_ || !(*calls_)(f, words, pos_, v))
      fail("group function " + f + "() cannot be evaluated here");
    return v;
  }
  double call(const std::string& f, const std::vector<double>& a) {
    auto need = [&](size_t n) {
      if (a.size() != n) fail(f + "() takes " + std::to_string(n) + " argument(s)");
    };
    if (f == "min" || f == "max" || f == "atan2")
      need(2);
    else
      need(1);
    const double x = a[0];
    if (f == "sqrt") {
      if (x < 0) fail("sqrt of a negative number");
      return std::sqrt(x);
    }
    if (f == "exp") return std::exp(x);
    if (f == "ln" || f == "log") {
      if (x <= 0) fail(f + " of a non-positive number");
      return f == "ln" ? std::log(x) : std::log10(x);
    }
    if (f == "abs") return std::fabs(x);
    if (f == "sin") return std::sin(x);
    if (f == "cos") return std::cos(x);
    if (f == "tan") return std::tan(x);
    if (f == "asin") return std::asin(x);
    if (f == "acos") return std::acos(x);
    if (f == "atan") return std::atan(x);
    if (f == "atan2") return std::atan2(x, a[1]);
    if (f == "floor") return std::floor(x);
    if (f == "ceil") return std::ceil(x);
    if (f == "round") return std::round(x);
    if (f == "min") return std::min(x, a[1]);
    if (f == "max") return std::max(x, a[1]);
    fail("unknown function '" + f + "'");
  }

  const std::string& s_;
  const NameResolver& resolve_;
  const SourcePos& pos_;
  const CallResolver* calls_;
  size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace

bool is_group_function(const std::string& name) {
  static const char* const kNames[] = {"count",    "mass", "charge", "xcm",    "vcm",     "fcm",  "bound",
                                       "gyration", "ke",   "angmom", "torque", "inertia", "omega"};
  for (const char* n : kNames)
    if (name == n) return true;
  return false;
}

std::string GroupCall::key() const {
  std::string k = name + "(";
  for (size_t j = 0; j < args.size(); ++j) k += (j ? "," : "") + args[j];
  return k + ")";
}

std::vector<GroupCall> group_calls(const std::string& text) {
  std::vector<GroupCall> out;
  const auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t i = 0; i < text.size();) {
    if (!word_char(text[i])) {
      ++i;
      continue;
    }
    const size_t b = i;
    while (i < text.size() && (word_char(text[i]) || text[i] == '[' || text[i] == ']')) ++i;
    const std::string word = text.substr(b, i - b);
    size_t k = i;
    while (k < text.size() && std::isspace(static_cast<unsigned char>(text[k]))) ++k;
    if (k >= text.size() || text[k] != '(' || !is_group_function(word)) continue;
    ++k;
    GroupCall c{word, {}};
    if (!call_words(text, k, c.args)) break;
    out.push_back(std::move(c));
    i = k;
  }
  return out;
}

double evaluate_expression(const std::string& text, const NameResolver& resolve, const SourcePos& pos,
                           const CallResolver* calls) {
  int entry = 0;
  const Level level(entry);  // a variable's formula costs a level even when flat
  Parser p(text, resolve, pos, calls);
  const double v = p.parse();
  if (!std::isfinite(v)) fail_input(pos, "expression '" + text + "' is not finite");
  return v;
}

}  // namespace wmd::io
