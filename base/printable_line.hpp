// Error messages as one printable line: what the program prints on stderr and in logs for any failure.
#pragma once
#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>

namespace wmd {

/// A message made safe for one line of a terminal or log: control bytes (a newline, a tab, an escape
/// sequence from a binary input file) and bytes that are not valid UTF-8 become \xNN; valid UTF-8 text
/// (Å, ², …) is kept as it is; C1 controls (U+0080–U+009F) are escaped too. Past `max` output bytes the
/// rest is cut and counted, so a whole binary file quoted in a message stays a readable line.
inline std::string printable_line(std::string_view text, size_t max = std::string::npos) {
  std::string out;
  out.reserve(std::min(text.size(), max));
  auto hex = [&out](unsigned char c) {
    char buf[5];
    std::snprintf(buf, sizeof buf, "\\x%02x", c);
    out += buf;
  };
  for (size_t i = 0; i < text.size();) {
    if (out.size() >= max) return out + "... (" + std::to_string(text.size() - i) + " more bytes)";
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    // The length of a well-formed UTF-8 sequence starting here (0: not one).
    size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (len > text.size() - i) len = 0;
    for (size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) len = 0;
    if (len == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0) len = 0;  // C1 controls
    if (len == 0) {
      hex(c);
      ++i;
    } else {
      out.append(text.substr(i, len));
      i += len;
    }
  }
  return out;
}

}  // namespace wmd
