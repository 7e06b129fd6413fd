#include "io/command.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace wmd::io {

bool parse_double(const std::string& token, double& value) {
  if (token.empty()) return false;
  const char* begin = token.c_str();
  char* end = nullptr;
  errno = 0;
  value = std::strtod(begin, &end);
  return end != begin && *end == '\0' && errno != ERANGE && std::isfinite(value);
}

bool parse_integer(const std::string& token, long long& value) {
  if (token.empty()) return false;
  const char* begin = token.c_str();
  char* end = nullptr;
  errno = 0;
  value = std::strtoll(begin, &end, 10);
  return end != begin && *end == '\0' && errno != ERANGE;
}

bool parse_bounds(const std::string& token, int n, int& lo, int& hi) {
  const auto star = token.find('*');
  long long a = 1, b = n;
  if (star == std::string::npos) {
    if (!parse_integer(token, a)) return false;
    b = a;
  } else {
    const std::string left = token.substr(0, star), right = token.substr(star + 1);
    if (!left.empty() && !parse_integer(left, a)) return false;
    if (!right.empty() && !parse_integer(right, b)) return false;
  }
  if (a < 1 || b > n || a > b) return false;
  lo = static_cast<int>(a);
  hi = static_cast<int>(b);
  return true;
}

std::string ArgCursor::word(const std::string& what) {
  if (done()) fail("'" + cmd_.name + "' is missing " + what);
  return cmd_.args[next_++];
}

double ArgCursor::real(const std::string& what) {
  const std::string t = word(what);
  double v;
  if (!parse_double(t, v)) fail("'" + cmd_.name + "' expected " + what + " (a number), got '" + t + "'");
  return v;
}

double ArgCursor::positive(const std::string& what) {
  const double v = real(what);
  if (!(v > 0.0)) fail("'" + cmd_.name + "' expected " + what + " > 0, got " + cmd_.args[next_ - 1]);
  return v;
}

double ArgCursor::non_negative(const std::string& what) {
  const double v = real(what);
  if (v < 0.0) fail("'" + cmd_.name + "' expected " + what + " >= 0, got " + cmd_.args[next_ - 1]);
  return v;
}

long long ArgCursor::integer(const std::string& what, long long lo, long long hi) {
  const std::string t = word(what);
  long long v;
  if (!parse_integer(t, v)) fail("'" + cmd_.name + "' expected " + what + " (an integer), got '" + t + "'");
  if (v < lo || v > hi) {
    fail("'" + cmd_.name + "' expected " + what + " in [" + std::to_string(lo) + ", " + std::to_string(hi) +
         "], got " + t);
  }
  return v;
}

bool ArgCursor::yes_no(const std::string& what) {
  return choice(what, {"yes", "no"}) == "yes";
}

std::string ArgCursor::choice(const std::string& what, const std::vector<std::string>& choices) {
  const std::string t = word(what);
  std::string list;
  for (const auto& c : choices) {
    if (c == t) return t;
    list += (list.empty() ? "" : "|") + c;
  }
  fail("'" + cmd_.name + "' expected " + what + " (" + list + "), got '" + t + "'");
}

void ArgCursor::finish() const {
  if (!done()) fail("'" + cmd_.name + "' has an unexpected argument '" + cmd_.args[next_] + "'");
}

void ArgCursor::fail(const std::string& message) const {
  fail_input(cmd_.pos, message);
}

}  // namespace wmd::io
