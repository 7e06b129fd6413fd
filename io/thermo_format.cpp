#include "io/thermo_format.hpp"

#include <cstdio>
#include <sstream>

#include "io/print_format.hpp"

namespace wmd::io {

bool valid_float_format(const std::string& fmt) {
  PrintFormat f;
  std::string why;
  return parse_print_format(fmt, false, f, why);
}

bool valid_int_format(const std::string& fmt) {
  PrintFormat f;
  std::string why;
  return parse_print_format(fmt, true, f, why) && f.is_integer();
}

bool valid_line_format(const std::string& line) {
  std::istringstream words(line);
  size_t n = 0;
  for (std::string w; words >> w; ++n) {
    PrintFormat f;
    std::string why;
    if (!parse_print_format(w, true, f, why)) return false;
  }
  return n > 0;
}

std::string format_value(const std::string& fmt, double value, bool is_integer) {
  PrintFormat f;
  std::string why;
  // Formats are checked when the command sets them; one that is not a format still prints the value.
  if (!parse_print_format(fmt, true, f, why)) parse_print_format(is_integer ? "%d" : "%g", true, f, why);
  return f.print(value);
}

void ThermoFormat::set_line(const std::string& formats) {
  line_.clear();
  std::istringstream words(formats);
  for (std::string w; words >> w;) line_.push_back(w);
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
  if (i < line_.size()) return line_[i];
  if (is_int_[i]) return int_.empty() ? "%8d" : int_;
  return float_.empty() ? "%12.8g" : float_;
}

std::string ThermoFormat::header() const {
  if (multi_) return "";
  std::string out;
  for (const auto& h : headers_) out += h + " ";
  return out;
}

std::string ThermoFormat::row(const std::vector<double>& values) const {
  if (multi_ && values.size() >= 2 && headers_.size() >= 2) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "---------------- Step %8lld ----- CPU = %11.4f (sec) ----------------",
                  static_cast<long long>(values[0]), values[1]);
    std::string out = buf;
    for (size_t i = 2; i < values.size() && i < headers_.size(); ++i) {
      if ((i - 2) % 3 == 0) out += "\n";
      std::snprintf(buf, sizeof buf, "%-8s = ", headers_[i].c_str());
      out += buf +
             format_value(!column_[i].empty() ? column_[i]
                          : float_.empty()    ? "%14.4f"
                                              : float_,
                          values[i], false) +
             " ";
    }
    return out;
  }
  std::string out;
  for (size_t i = 0; i < values.size() && i < headers_.size(); ++i) {
    out += format_value(format_of(i), values[i], is_int_[i]) + " ";
  }
  return out;
}

}  // namespace wmd::io
