#include "io/expression.hpp"

#include <cctype>
#include <cmath>
#include <tuple>
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

// The values a formula computes with: one number (Scalar: equal-style formulas and the like), or one
// number per atom of a window of atoms (PerAtom: atom-style formulas). A domain resolves names and calls
// and applies the parser's arithmetic, given per number as a function of doubles, to its values.
class Scalar {
 public:
  using Value = double;
  Scalar(const NameResolver& resolve, const CallResolver* calls) : resolve_(resolve), calls_(calls) {}
  static double constant(double v) { return v; }
  bool name(const std::string& w, double& v) const { return resolve_ && resolve_(w, v); }
  bool call(const std::string& f, const std::vector<std::string>& words, const SourcePos& pos,
            double& v) const {
    return calls_ && *calls_ && (*calls_)(f, words, pos, v);
  }
  template <class F>
  static double map(const F& f, double a) {
    return f(a);
  }
  template <class F>
  static double map(const F& f, double a, double b) {
    return f(a, b);
  }
  template <class F>
  static double map_args(const F& f, const std::vector<double>& a) {
    return f(a.data());
  }
  template <class F>
  static void each(double v, const F& f) {
    f(v);
  }

 private:
  const NameResolver& resolve_;
  const CallResolver* calls_;
};

// Values over a window of atoms: one number for all of them, or one per atom — a view of the caller's
// values or a result this column owns (an operator reuses its left operand's storage when it owns it).
class Column {
 public:
  Column() = default;
  explicit Column(double v) : all_(v) {}
  explicit Column(std::vector<double> own) : own_(std::move(own)), owned_(true) {}
  static Column view(const double* p) {
    Column c;
    c.view_ = p;
    return c;
  }
  bool per_atom() const { return owned_ || view_; }
  double all() const { return all_; }
  const double* data() const { return owned_ ? own_.data() : view_; }
  // Storage for a result of n values: this column's own (its buffer, data() stays valid), or new.
  std::vector<double> storage(size_t n) {
    if (!owned_) return std::vector<double>(n);
    owned_ = false;
    view_ = own_.data();
    return std::move(own_);
  }

 private:
  std::vector<double> own_;
  const double* view_ = nullptr;
  double all_ = 0.0;
  bool owned_ = false;
};

class PerAtom {
 public:
  using Value = Column;
  // Atoms first .. first+n-1 of the atoms the resolvers' per-atom values cover.
  PerAtom(const AtomNameResolver& resolve, const AtomCallResolver* calls, size_t first, size_t n)
      : resolve_(resolve), calls_(calls), first_(first), n_(n) {}
  static Column constant(double v) { return Column(v); }
  bool name(const std::string& w, Column& v) const {
    AtomValues a;
    if (!resolve_ || !resolve_(w, a)) return false;
    v = window(a);
    return true;
  }
  bool call(const std::string& f, const std::vector<std::string>& words, const SourcePos& pos,
            Column& v) const {
    AtomValues a;
    if (!calls_ || !*calls_ || !(*calls_)(f, words, pos, a)) return false;
    v = window(a);
    return true;
  }
  template <class F>
  Column map(const F& f, Column a) const {
    if (!a.per_atom()) return Column(f(a.all()));
    const double* x = a.data();
    std::vector<double> r = a.storage(n_);
    for (size_t i = 0; i < n_; ++i) r[i] = f(x[i]);
    return Column(std::move(r));
  }
  template <class F>
  Column map(const F& f, Column a, const Column& b) const {
    if (!a.per_atom() && !b.per_atom()) return Column(f(a.all(), b.all()));
    const double *x = a.data(), *y = b.data();
    const double xa = a.all(), ya = b.all();
    std::vector<double> r = a.storage(n_);
    if (x && y) {
      for (size_t i = 0; i < n_; ++i) r[i] = f(x[i], y[i]);
    } else if (x) {
      for (size_t i = 0; i < n_; ++i) r[i] = f(x[i], ya);
    } else {
      for (size_t i = 0; i < n_; ++i) r[i] = f(xa, y[i]);
    }
    return Column(std::move(r));
  }
  template <class F>
  Column map_args(const F& f, const std::vector<Column>& a) const {
    std::vector<double> x(a.size());
    bool per_atom = false;
    for (size_t k = 0; k < a.size(); ++k) {
      x[k] = a[k].all();
      per_atom = per_atom || a[k].per_atom();
    }
    if (!per_atom) return Column(f(x.data()));
    std::vector<double> r(n_);
    for (size_t i = 0; i < n_; ++i) {
      for (size_t k = 0; k < a.size(); ++k)
        if (a[k].per_atom()) x[k] = a[k].data()[i];
      r[i] = f(x.data());
    }
    return Column(std::move(r));
  }
  template <class F>
  void each(const Column& v, const F& f) const {
    if (!v.per_atom()) return f(v.all());
    for (size_t i = 0; i < n_; ++i) f(v.data()[i]);
  }

 private:
  Column window(const AtomValues& a) const {
    return a.per_atom ? Column::view(a.per_atom + first_) : Column(a.all);
  }
  const AtomNameResolver& resolve_;
  const AtomCallResolver* calls_;
  size_t first_, n_;
};

// LAMMPS's math functions, found by name once per call of the formula.
enum class Math { sqrt, exp, ln, log, abs, sin, cos, tan, asin, acos, atan, atan2, ceil, floor, round, step };

// Recursive-descent parser of LAMMPS's formulas, computing in the values of its domain D while it parses.
template <class D>
class Parser {
 public:
  using V = typename D::Value;
  Parser(const std::string& text, const D& domain, const SourcePos& pos, const ClockResolver* clock)
      : s_(text), d_(domain), pos_(pos), clock_(clock) {}

  bool stand_ins() const { return clock_ && *clock_ && (*clock_)().stand_in_values; }
  V parse() {
    V v = logic_or();
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
  static double truth(bool b) { return b ? 1.0 : 0.0; }
  // LAMMPS's precedence, low to high: || |^, &&, == !=, < <= > >=, + -, * / %, ^, unary - and !.
  V logic_or() {
    V v = logic_and();
    for (;;) {
      if (eat("||")) {
        const V r = logic_and();
        v = d_.map([](double a, double b) { return truth(a != 0.0 || b != 0.0); }, std::move(v), r);
      } else if (eat("|^")) {
        const V r = logic_and();
        v = d_.map([](double a, double b) { return truth((a != 0.0) != (b != 0.0)); }, std::move(v), r);
      } else {
        return v;
      }
    }
  }
  V logic_and() {
    V v = equality();
    while (eat("&&")) {
      const V r = equality();
      v = d_.map([](double a, double b) { return truth(a != 0.0 && b != 0.0); }, std::move(v), r);
    }
    return v;
  }
  V equality() {
    V v = relation();
    for (;;) {
      if (eat("=="))
        v = d_.map([](double a, double b) { return truth(a == b); }, std::move(v), relation());
      else if (eat("!="))
        v = d_.map([](double a, double b) { return truth(a != b); }, std::move(v), relation());
      else
        return v;
    }
  }
  V relation() {
    V v = sum();
    for (;;) {
      if (eat("<="))
        v = d_.map([](double a, double b) { return truth(a <= b); }, std::move(v), sum());
      else if (eat(">="))
        v = d_.map([](double a, double b) { return truth(a >= b); }, std::move(v), sum());
      else if (eat("<"))
        v = d_.map([](double a, double b) { return truth(a < b); }, std::move(v), sum());
      else if (eat(">"))
        v = d_.map([](double a, double b) { return truth(a > b); }, std::move(v), sum());
      else
        return v;
    }
  }
  V sum() {
    V v = product();
    for (;;) {
      if (eat("+"))
        v = d_.map([](double a, double b) { return a + b; }, std::move(v), product());
      else if (eat("-"))
        v = d_.map([](double a, double b) { return a - b; }, std::move(v), product());
      else
        return v;
    }
  }
  // A division or modulo by zero is NaN under the dry run's stand-in values (the rest of the formula is
  // still read), an error otherwise.
  V product() {
    V v = power();
    for (;;) {
      if (eat("*")) {
        v = d_.map([](double a, double b) { return a * b; }, std::move(v), power());
      } else if (eat("/")) {
        v = d_.map(
            [this](double a, double b) {
              if (b == 0.0 && stand_ins()) return std::nan("");
              if (b == 0.0) fail("division by zero");
              return a / b;
            },
            std::move(v), power());
      } else if (eat("%")) {
        v = d_.map(
            [this](double a, double b) {
              if (b == 0.0 && stand_ins()) return std::nan("");
              if (b == 0.0) fail("modulo by zero");
              return std::fmod(a, b);
            },
            std::move(v), power());
      } else {
        return v;
      }
    }
  }
  // LAMMPS's precedence: unary minus and ! bind tighter than ^, and ^ groups from the left, so -2^2 = 4
  // and 2^3^2 = 64.
  V power() {
    V v = unary();
    while (eat("^")) v = d_.map([](double a, double b) { return std::pow(a, b); }, std::move(v), unary());
    return v;
  }
  // Every recursion passes here (parentheses, function arguments, unary operators): the depth is bounded
  // before the stack is.
  V unary() {
    const Level level(depth_);
    if (depth_ > kMaxExpressionDepth)
      fail("nested more than " + std::to_string(kMaxExpressionDepth) + " levels deep");
    if (g_levels > kMaxExpressionLevels)
      fail("nested more than " + std::to_string(kMaxExpressionLevels) +
           " levels deep with the variables it uses");
    if (eat("-")) return d_.map([](double a) { return -a; }, unary());
    if (eat("!")) return d_.map([](double a) { return truth(a == 0.0); }, unary());
    if (eat("+")) return unary();
    return primary();
  }
  V primary() {
    skip();
    if (i_ >= s_.size()) fail("it ends early");
    if (eat("(")) {
      V v = logic_or();
      if (!eat(")")) fail("missing ')'");
      return v;
    }
    const char c = s_[i_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return D::constant(number());
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
  V name() {
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
      std::vector<V> args;
      if (!eat(")")) {
        do args.push_back(logic_or());
        while (eat(","));
        if (!eat(")")) fail("missing ')' after the arguments of " + word);
      }
      return call(word, args);
    }
    // LAMMPS's constants.
    if (word == "PI") return D::constant(M_PI);
    if (word == "version")
      return D::constant(20210929.0);  // the LAMMPS version wafermd follows (Debian's lmp)
    if (word == "on" || word == "true" || word == "yes") return D::constant(1.0);
    if (word == "off" || word == "false" || word == "no") return D::constant(0.0);
    V v;
    if (d_.name(word, v)) return v;
    fail("unknown name '" + word + "'");
  }
  // Functions with word arguments (group and special functions): a value from the caller.
  V word_call(const std::string& f) {
    std::vector<std::string> words;
    if (!call_words(s_, i_, words)) fail("missing ')' after the arguments of " + f);
    V v = D::constant(0.0);
    if (!d_.call(f, words, pos_, v)) fail("function " + f + "() cannot be evaluated here");
    return v;
  }
  RunClock clock(const std::string& f) const {
    if (!clock_ || !*clock_) fail(f + "() needs the run's clock, which is not available here");
    return (*clock_)();
  }
  V call(const std::string& f, const std::vector<V>& a) {
    const Math m = math_function(f, a.size());
    return d_.map_args([&](const double* x) { return math(m, f, x); }, a);
  }
  // LAMMPS's Variable::math_function: the function of a name, with its arity checked.
  Math math_function(const std::string& f, size_t nargs) const {
    static const std::tuple<const char*, size_t, Math> kArity[] = {
        {"sqrt", 1, Math::sqrt},     {"exp", 1, Math::exp},        {"ln", 1, Math::ln},
        {"log", 1, Math::log},       {"abs", 1, Math::abs},        {"sin", 1, Math::sin},
        {"cos", 1, Math::cos},       {"tan", 1, Math::tan},        {"asin", 1, Math::asin},
        {"acos", 1, Math::acos},     {"atan", 1, Math::atan},      {"atan2", 2, Math::atan2},
        {"ceil", 1, Math::ceil},     {"floor", 1, Math::floor},    {"round", 1, Math::round},
        {"ramp", 2, Math::step},     {"stagger", 2, Math::step},   {"logfreq", 3, Math::step},
        {"logfreq2", 3, Math::step}, {"logfreq3", 3, Math::step},  {"stride", 3, Math::step},
        {"stride2", 6, Math::step},  {"vdisplace", 2, Math::step}, {"swiggle", 3, Math::step},
        {"cwiggle", 3, Math::step}};
    for (const auto& [name, arity, m] : kArity) {
      if (f != name) continue;
      if (nargs != arity)
        fail(f + "() takes " + std::to_string(arity) +
             " argument(s) (LAMMPS: \"Invalid math function in variable formula\")");
      return m;
    }
    fail("'" + f + "()' is not a LAMMPS math, group or special function (LAMMPS: \"Invalid " +
         "math/group/special function\")");
  }
  // The function's value at its arguments `a` (as many as its arity), with LAMMPS's checks.
  double math(Math m, const std::string& f, const double* a) const {
    const double x = a[0];
    switch (m) {
      case Math::sqrt:
        if (x < 0) fail("sqrt of a negative value (LAMMPS: \"Sqrt of negative value in variable formula\")");
        return std::sqrt(x);
      case Math::exp:
        return std::exp(x);
      case Math::ln:
      case Math::log:
        if (x <= 0)
          fail(f +
               " of a zero or negative value (LAMMPS: \"Log of zero/negative value in variable formula\")");
        return m == Math::ln ? std::log(x) : std::log10(x);
      case Math::abs:
        return std::fabs(x);
      case Math::sin:
        return std::sin(x);
      case Math::cos:
        return std::cos(x);
      case Math::tan:
        return std::tan(x);
      case Math::asin:
      case Math::acos:
        if (x < -1.0 || x > 1.0) fail(f + " of a value outside [-1, 1]");
        return m == Math::asin ? std::asin(x) : std::acos(x);
      case Math::atan:
        return std::atan(x);
      case Math::atan2:
        return std::atan2(x, a[1]);
      case Math::floor:
        return std::floor(x);
      case Math::ceil:
        return std::ceil(x);
      case Math::round:
        // LAMMPS's MYROUND: halves go up (round(-2.5) is -2, where C's round gives -3).
        return x - std::floor(x) >= 0.5 ? std::ceil(x) : std::floor(x);
      case Math::step:
        break;
    }
    return step_function(f, a);
  }
  [[noreturn]] void invalid(const std::string& f) const {
    fail("invalid arguments of " + f + "() (LAMMPS: \"Invalid math function in variable formula\")");
  }
  // The math functions of the step, as LAMMPS 2021 computes them (ramp, vdisplace, swiggle and cwiggle only
  // inside a run).
  double step_function(const std::string& f, const double* a) const {
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
  const D& d_;
  const SourcePos& pos_;
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

namespace {

// Parses and evaluates `text` in domain `d`: a non-finite value is refused (but for the dry run's stand-ins).
template <class D>
typename D::Value evaluate(const std::string& text, const D& d, const SourcePos& pos,
                           const ClockResolver* clock) {
  int entry = 0;
  const Level level(entry);  // a variable's formula costs a level even when flat
  Parser<D> p(text, d, pos, clock);
  typename D::Value v = p.parse();
  int stand_ins = -1;  // asked of the clock only for a value that is not finite
  d.each(v, [&](double x) {
    if (std::isfinite(x)) return;
    if (stand_ins < 0) stand_ins = p.stand_ins() ? 1 : 0;
    if (!stand_ins) fail_input(pos, "expression '" + text + "' is not finite");
  });
  return v;
}

}  // namespace

double evaluate_expression(const std::string& text, const NameResolver& resolve, const SourcePos& pos,
                           const CallResolver* calls, const ClockResolver* clock) {
  return evaluate(text, Scalar(resolve, calls), pos, clock);
}

void evaluate_atom_expression(const std::string& text, size_t n, const AtomNameResolver& resolve,
                              const SourcePos& pos, const AtomCallResolver* calls, const ClockResolver* clock,
                              std::vector<double>& out) {
  out.assign(n, 0.0);
  const auto atoms = [&](size_t first, size_t count) {
    const Column v = evaluate(text, PerAtom(resolve, calls, first, count), pos, clock);
    for (size_t i = 0; i < count; ++i) out[first + i] = v.per_atom() ? v.data()[i] : v.all();
  };
  if (n == 0) return;
  try {
    atoms(0, n);
  } catch (const InputError&) {
    // All atoms at once meet a refusal at its place in the formula; atom by atom (as LAMMPS evaluates
    // its tree) the first atom that is refused names the check. The resolvers only look values up, so
    // evaluating again is safe.
    for (size_t i = 0; i < n; ++i) atoms(i, 1);
    throw;
  }
}

}  // namespace wmd::io
