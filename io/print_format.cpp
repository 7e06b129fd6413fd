#include "io/print_format.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace wmd::io {
namespace {

// Literal text: a '%' only as "%%". Returns false at a lone '%'.
bool literal(const std::string& s, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i) {
    if (s[i] != '%') continue;
    if (i + 1 >= to || s[i + 1] != '%') return false;
    ++i;
  }
  return true;
}

// Reads digits at s[i..] as a number capped just above kMaxFormatWidth (a longer run is too wide anyway).
int digits(const std::string& s, size_t& i) {
  int v = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i)
    v = std::min(v * 10 + (s[i] - '0'), kMaxFormatWidth + 1);
  return v;
}

std::string snprintf_string(const std::string& fmt, double v, bool as_integer) {
  const int n = as_integer ? std::snprintf(nullptr, 0, fmt.c_str(), static_cast<long long>(v))
                           : std::snprintf(nullptr, 0, fmt.c_str(), v);
  if (n <= 0) return std::string();
  std::vector<char> buf(static_cast<size_t>(n) + 1);
  if (as_integer)
    std::snprintf(buf.data(), buf.size(), fmt.c_str(), static_cast<long long>(v));
  else
    std::snprintf(buf.data(), buf.size(), fmt.c_str(), v);
  return std::string(buf.data(), static_cast<size_t>(n));
}

}  // namespace

bool parse_print_format(const std::string& fmt, bool allow_integer, PrintFormat& out, std::string& why) {
  if (fmt.size() > kMaxFormatLength) {
    why = "is longer than " + std::to_string(kMaxFormatLength) + " characters";
    return false;
  }
  // The conversion starts at the first '%' that is not part of "%%".
  size_t p = 0;
  for (;; p += 2) {
    p = fmt.find('%', p);
    if (p == std::string::npos) {
      why = "has no % conversion";
      return false;
    }
    if (p + 1 >= fmt.size() || fmt[p + 1] != '%') break;
  }
  PrintFormat f;
  f.before = fmt.substr(0, p);
  size_t i = p + 1;
  while (i < fmt.size() && std::strchr("-+ #0", fmt[i]) && fmt[i] != '\0') f.flags += fmt[i++];
  if (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') f.width = digits(fmt, i);
  if (i < fmt.size() && fmt[i] == '.') {
    ++i;
    f.precision = digits(fmt, i);
  }
  if (f.width > kMaxFormatWidth || f.precision > kMaxFormatWidth) {
    why = "asks for a width or precision above " + std::to_string(kMaxFormatWidth);
    return false;
  }
  bool long_modifier = false;
  while (i < fmt.size() && fmt[i] == 'l' && !long_modifier) {
    long_modifier = true;
    ++i;
    if (i < fmt.size() && fmt[i] == 'l') ++i;
  }
  const char c = i < fmt.size() ? fmt[i] : '\0';
  const bool real = c != '\0' && std::strchr("feEgG", c);
  const bool integer = c != '\0' && std::strchr("di", c);
  if (!(real && !long_modifier) && !(integer && allow_integer)) {
    why = allow_integer ? "is not one C conversion %[flags][width][.precision] of f, e, g or d"
                        : "is not one C conversion %[flags][width][.precision] of a real number (f, e or g)";
    return false;
  }
  if (integer && f.flags.find('#') != std::string::npos) {
    why = "uses the # flag with an integer conversion";
    return false;
  }
  if (!literal(fmt, i + 1, fmt.size())) {
    why = "has more than one % conversion (write %% for a percent sign)";
    return false;
  }
  f.conversion = c;
  f.after = fmt.substr(i + 1);
  out = f;
  return true;
}

std::string PrintFormat::print(double v) const {
  std::string spec = "%" + flags;
  if (width >= 0) spec += std::to_string(width);
  if (precision >= 0) spec += "." + std::to_string(precision);
  bool as_integer = is_integer();
  // 2^63: the first double a long long cannot hold.
  if (as_integer && !(std::fabs(v) < 9223372036854775808.0)) {
    as_integer = false;
    spec = "%" + flags + (width >= 0 ? std::to_string(width) : std::string()) + "g";
  } else {
    spec += as_integer ? "lld" : std::string(1, conversion);
  }
  return snprintf_string(before + spec + after, v, as_integer);
}

}  // namespace wmd::io
