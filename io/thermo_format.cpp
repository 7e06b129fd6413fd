#include "io/thermo_format.hpp"

#include <cinttypes>
#include <cstdio>
#include <regex>
#include <sstream>

namespace wmd::io {

bool valid_float_format(const std::string& fmt) {
  static const std::regex re(R"(^[^%]*%[-+ #0]*[0-9]*(\.[0-9]+)?[gGfFeE][^%]*$)");
  return std::regex_match(fmt, re);
}

bool valid_int_format(const std::string& fmt) {
  static const std::regex re(R"(^[^%]*%[-+ 0]*[0-9]*(l|ll)?[di][^%]*$)");
  return std::regex_match(fmt, re);
}

std::string format_value(const std::string& fmt, double value, bool is_integer) {
  char buf[256];
  if (is_integer && valid_int_format(fmt)) {
    // Normalise any length modifier to a 64-bit conversion.
    std::string f = std::regex_replace(fmt, std::regex("(l|ll)?([di])"), "ll$2");
    std::snprintf(buf, sizeof buf, f.c_str(), static_cast<long long>(value));
  } else if (valid_float_format(fmt)) {
    std::snprintf(buf, sizeof buf, fmt.c_str(), value);
  } else {
    std::snprintf(buf, sizeof buf, "%g", value);
  }
  return buf;
}

void ThermoFormat::set_columns(const std::vector<std::string>& headers, const std::vector<bool>& is_integer) {
  headers_ = headers;
  is_int_ = is_integer;
  column_.assign(headers.size(), "");
}

void ThermoFormat::set_column(int n, const std::string& f) {
  if (n >= 1 && static_cast<size_t>(n) <= column_.size()) column_[n - 1] = f;
}

void ThermoFormat::reset_user_formats() {
  line_.clear(), int_.clear(), float_.clear();
  column_.assign(headers_.size(), "");
}

std::string ThermoFormat::format_of(size_t i) const {
  if (!column_[i].empty()) return column_[i];
  if (!line_.empty()) {
    std::istringstream words(line_);
    std::string w;
    for (size_t k = 0; words >> w; ++k) {
      if (k == i) return w;
    }
  }
  if (is_int_[i]) return int_.empty() ? "%8d" : int_;
  return float_.empty() ? "%12.8g" : float_;
}

std::string ThermoFormat::header() const {
  std::string out;
  for (const auto& h : headers_) out += h + " ";
  return out;
}

std::string ThermoFormat::row(const std::vector<double>& values) const {
  std::string out;
  for (size_t i = 0; i < values.size() && i < headers_.size(); ++i) {
    out += format_value(format_of(i), values[i], is_int_[i]) + " ";
  }
  return out;
}

}  // namespace wmd::io
