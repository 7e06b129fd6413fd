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

// Recursive-descent parser of LAMMPS's formulas.
class Parser {
 public:
  Parser(const std::string& text, const NameResolver& resolve, const SourcePos& pos,
         const CallResolver* calls, const ClockResolver* clock)
      : s_(text), resolve_(resolve), pos_(pos), calls_(calls), clock_(clock) {}

  bool stand_ins() const { return clock_ && *clock_ && (*clock_)().stand_in_values; }
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
  // LAMMPS's precedence, low to high: || |^, &&, == !=, < <= > >=, + -, * / %, ^, unary - and !.
  double logic_or() {
    double v = logic_and();
    for (;;) {
      if (eat("||")) {
        const double r = logic_and();
        v = (v != 0.0 || r != 0.0) ? 1.0 : 0.0;
      } else if (eat("|^")) {
        const double r = logic_and();
        v = ((v != 0.0) != (r != 0.0)) ? 1.0 : 0.0;
      } else {
        return v;
      }
    }
  }
  double logic_and() {
    double v = equality();
    while (eat("&&")) {
      const double r = equality();
      v = (v != 0.0 && r != 0.0) ? 1.0 : 0.0;
    }
    return v;
  }
  double equality() {
    double v = relation();
    for (;;) {
      if (eat("=="))
        v = (v == relation()) ? 1.0 : 0.0;
      else if (eat("!="))
        v = (v != relation()) ? 1.0 : 0.0;
      else
        return v;
    }
  }
  double relation() {
    double v = sum();
    for (;;) {
      if (eat("<="))
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
        if (d == 0.0 && stand_ins()) return std::nan("");
        if (d == 0.0) fail("division by zero");
        v /= d;
      } else if (eat("%")) {
        const double d = power();
        if (d == 0.0 && stand_ins()) return std::nan("");
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
      if (is_word_function(word)) return word_call(word);
      std::vector<double> args;
      if (!eat(")")) {
        do args.push_back(logic_or());
        while (eat(","));
        if (!eat(")")) fail("missing ')' after the arguments of " + word);
      }
      return call(word, args);
    }
    // LAMMPS's constants.
    if (word == "PI") return M_PI;
    if (word == "version") return 20210929.0;  // the LAMMPS version wafermd follows (Debian's lmp)
    if (word == "on" || word == "true" || word == "yes") return 1.0;
    if (word == "off" || word == "false" || word == "no") return 0.0;
    double v;
    if (resolve_ && resolve_(word, v)) return v;
    fail("unknown name '" + word + "'");
  }
  // Functions with word arguments (group and special functions): a value from the caller.
  double word_call(const std::string& f) {
    std::vector<std::string> words;
    if (!call_words(s_, i_, words)) fail("missing ')' after the arguments of " + f);
    double v = 0.0;
    if (!calls_ || !*calls_ || !(*calls_)(f, words, pos_, v))
      fail("function " + f + "() cannot be evaluated here");
    return v;
  }
  RunClock clock(const std::string& f) const {
    if (!clock_ || !*clock_) fail(f + "() needs the run's clock, which is not available here");
    return (*clock_)();
  }
  // LAMMPS's Variable::math_function, with its checks.
  double call(const std::string& f, const std::vector<double>& a) {
    static const std::pair<const char*, size_t> kArity[] = {
        {"sqrt", 1},   {"exp", 1},     {"ln", 1},        {"log", 1},      {"abs", 1},
        {"sin", 1},    {"cos", 1},     {"tan", 1},       {"asin", 1},     {"acos", 1},
        {"atan", 1},   {"atan2", 2},   {"ceil", 1},      {"floor", 1},    {"round", 1},
        {"ramp", 2},   {"stagger", 2}, {"logfreq", 3},   {"logfreq2", 3}, {"logfreq3", 3},
        {"stride", 3}, {"stride2", 6}, {"vdisplace", 2}, {"swiggle", 3},  {"cwiggle", 3}};
    size_t arity = 0;
    for (const auto& [name, n] : kArity)
      if (f == name) arity = n;
    if (arity == 0)
      fail("'" + f + "()' is not a LAMMPS math, group or special function (LAMMPS: \"Invalid " +
           "math/group/special function\")");
    if (a.size() != arity)
      fail(f + "() takes " + std::to_string(arity) +
           " argument(s) (LAMMPS: \"Invalid math function in variable formula\")");
    const double x = a[0];
    if (f == "sqrt") {
      if (x < 0) fail("sqrt of a negative value (LAMMPS: \"Sqrt of negative value in variable formula\")");
      return std::sqrt(x);
    }
    if (f == "exp") return std::exp(x);
    if (f == "ln" || f == "log") {
      if (x <= 0)
        fail(f + " of a zero or negative value (LAMMPS: \"Log of zero/negative value in variable formula\")");
      return f == "ln" ? std::log(x) : std::log10(x);
    }
    if (f == "abs") return std::fabs(x);
    if (f == "sin") return std::sin(x);
    if (f == "cos") return std::cos(x);
    if (f == "tan") return std::tan(x);
    if (f == "asin" || f == "acos") {
      if (x < -1.0 || x > 1.0) fail(f + " of a value outside [-1, 1]");
      return f == "asin" ? std::asin(x) : std::acos(x);
    }
    if (f == "atan") return std::atan(x);
    if (f == "atan2") return std::atan2(x, a[1]);
    if (f == "floor") return std::floor(x);
    if (f == "ceil") return std::ceil(x);
    // LAMMPS's MYROUND: halves go up (round(-2.5) is -2, where C's round gives -3).
    if (f == "round") return x - std::floor(x) >= 0.5 ? std::ceil(x) : std::floor(x);
    return step_function(f, a);
  }
  [[noreturn]] void invalid(const std::string& f) const {
    fail("invalid arguments of " + f + "() (LAMMPS: \"Invalid math function in variable formula\")");
  }
  // The math functions of the step, as LAMMPS 2021 computes them (ramp, vdisplace, swiggle and cwiggle only
  // inside a run).
  double step_function(const std::string& f, const std::vector<double>& a) {
    const RunClock c = clock(f);
    const bool wiggle = f == "vdisplace" || f == "swiggle" || f == "cwiggle";
    if ((f == "ramp" || wiggle) && !c.running)
      fail("cannot use " + f + "() between runs (LAMMPS: \"Cannot use " + f +
           " in variable formula between runs\")");
    if (wiggle && c.dt_reset) fail(f + "() cannot be used with fix dt/reset, as in LAMMPS");
    const int64_t n = c.step;
    const auto big = [](double v) { return static_cast<int64_t>(v); };
    const auto real = [](int64_t v) { return static_cast<double>(v); };
    constexpr double kNever = 9.2233720368547758e18;  // LAMMPS's MAXBIGINT_DOUBLE: no further step
    if (f == "ramp") {
      double delta = real(n - c.begin);
      if (delta != 0.0 && c.begin != c.end) delta /= real(c.end - c.begin);
      return a[0] + delta * (a[1] - a[0]);
    }
    if (wiggle) {
      const double t = real(n - c.begin) * c.dt;
      if (f == "vdisplace") return a[0] + a[1] * t;
      if (a[2] == 0.0) fail(f + "(x,y,z): z must be > 0");
      const double omega = 2.0 * M_PI / a[2];
      return f == "swiggle" ? a[0] + a[1] * std::sin(omega * t) : a[0] + a[1] * (1.0 - std::cos(omega * t));
    }
    const int64_t i1 = big(a[0]), i2 = big(a[1]);
    if (f == "stagger") {
      if (i1 <= 0 || i2 <= 0 || i1 <= i2) invalid(f);
      const int64_t lower = n / i1 * i1;
      return real(n - lower < i2 ? lower + i2 : lower + i1);
    }
    const int64_t i3 = big(a[2]);
    if (f == "logfreq") {
      if (i1 <= 0 || i2 <= 0 || i3 <= 0 || i2 >= i3) invalid(f);
      if (n < i1) return real(i1);
      int64_t lower = i1;
      while (n >= i3 * lower) lower *= i3;
      const int64_t multiple = n / lower;
      return real(multiple < i2 ? (multiple + 1) * lower : lower * i3);
    }
    if (f == "logfreq2") {
      if (i1 <= 0 || i2 <= 0 || i3 <= 0) invalid(f);
      if (n < i1) return real(i1);
      double value = real(i1);
      double delta = real(i1) * (real(i3) - 1.0) / real(i2);
      for (int64_t count = 0; real(n) >= value;) {
        value += delta;
        if (++count % i2 == 0) delta *= real(i3);
      }
      return std::ceil(value);
    }
    if (f == "logfreq3") {
      if (i1 <= 0 || i2 <= 1 || i3 <= 0 || i3 - i1 + 1 < i2) invalid(f);
      double value = real(i1);
      if (n >= i1) {
        double logsp = real(i1);
        const double factor = std::pow(real(i3) / real(i1), 1.0 / real(i2 - 1));
        int64_t linsp = i1;
        while (real(n) >= value) {
          logsp *= factor;
          ++linsp;
          value = real(linsp) > logsp
                      ? real(linsp)
                      : std::ceil(logsp) - real((static_cast<int64_t>(std::ceil(logsp)) - 1) / i3);
        }
      }
      if (n > i3)
        fail("logfreq3(): the step is past its last value (LAMMPS: \"Calls to variable exceeded limit\")");
      return value;
    }
    if (f == "stride") {
      if (i1 < 0 || i2 < 0 || i3 <= 0 || i1 > i2) invalid(f);
      if (n < i1) return real(i1);
      if (n >= i2) return kNever;
      const double v = real(i1 + (n - i1) / i3 * i3 + i3);
      return v > real(i2) ? kNever : v;
    }
    // stride2(x,y,z,a,b,c): stride z from x to y, stride c from a to b inside it.
    const int64_t i4 = big(a[3]), i5 = big(a[4]), i6 = big(a[5]);
    if (i1 < 0 || i2 < 0 || i3 <= 0 || i1 > i2 || i4 < 0 || i5 < 0 || i6 <= 0 || i4 > i5 || i4 < i1 ||
        i5 > i2)
      invalid(f);
    if (n < i1) return real(i1);
    if (n >= i2) return kNever;
    int64_t istep;
    if (n < i4 || n > i5) {
      istep = i1 + (n - i1) / i3 * i3 + i3;
      if (n < i4 && istep > i4) istep = i4;
      return real(istep);
    }
    istep = i4 + (n - i4) / i6 * i6 + i6;
    if (istep > i5) {
      istep = i1 + (i5 - i1) / i3 * i3 + i3;
      if (istep > i2) return kNever;
    }
    return real(istep);
  }

  const std::string& s_;
  const NameResolver& resolve_;
  const SourcePos& pos_;
  const CallResolver* calls_;
  const ClockResolver* clock_;
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

bool is_word_function(const std::string& name) {
  static const char* const kNames[] = {
      "sum",    "min",  "max",     "ave",       "trap",         "slope",      "gmask",  "rmask",
      "grmask", "next", "is_file", "is_active", "is_available", "is_defined", "random", "normal"};
  for (const char* n : kNames)
    if (name == n) return true;
  return is_group_function(name);
}

bool is_mask_function(const std::string& name) {
  return name == "gmask" || name == "rmask" || name == "grmask";
}

std::string GroupCall::key() const {
  std::string k = name + "(";
  for (size_t j = 0; j < args.size(); ++j) k += (j ? "," : "") + args[j];
  return k + ")";
}

namespace {

std::vector<GroupCall> calls_of(const std::string& text, bool (*which)(const std::string&)) {
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
    if (k >= text.size() || text[k] != '(' || !which(word)) continue;
    ++k;
    GroupCall c{word, {}};
    if (!call_words(text, k, c.args)) break;
    out.push_back(std::move(c));
    i = k;
  }
  return out;
}

}  // namespace

std::vector<GroupCall> group_calls(const std::string& text) {
  return calls_of(text, is_group_function);
}

std::vector<GroupCall> word_calls(const std::string& text) {
  return calls_of(text, is_word_function);
}

double evaluate_expression(const std::string& text, const NameResolver& resolve, const SourcePos& pos,
                           const CallResolver* calls, const ClockResolver* clock) {
  int entry = 0;
  const Level level(entry);  // a variable's formula costs a level even when flat
  Parser p(text, resolve, pos, calls, clock);
  const double v = p.parse();
  if (!std::isfinite(v) && !p.stand_ins()) fail_input(pos, "expression '" + text + "' is not finite");
  return v;
}

}  // namespace wmd::io
