#include "io/text_file.hpp"

#include <zlib.h>

namespace wmd::io {

bool is_gz_name(const std::string& path) {
  return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
}

std::string read_text_file(const std::string& path, const std::string& what, const SourcePos& from) {
  // gzopen reads plain files too, but only a .gz name may be compressed (LAMMPS decides by the name).
  std::string text;
  char buf[1 << 16];
  if (!is_gz_name(path)) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) fail_input(from, "cannot open " + what + " '" + path + "'");
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
    std::fclose(f);
    return text;
  }
  gzFile g = gzopen(path.c_str(), "rb");
  if (!g) fail_input(from, "cannot open " + what + " '" + path + "'");
  int n;
  while ((n = gzread(g, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  int err = Z_OK;
  const char* msg = n < 0 ? gzerror(g, &err) : nullptr;
  const std::string why = msg ? msg : "";
  gzclose(g);
  if (n < 0) fail_input(from, "cannot read " + what + " '" + path + "' (gzip: " + why + ")");
  return text;
}

bool TextSink::open(const std::string& path, bool gz) {
  close();
  if (gz)
    gz_ = gzopen(path.c_str(), "wb");
  else
    plain_ = std::fopen(path.c_str(), "w");
  return is_open();
}

bool TextSink::write(const std::string& text) {
  if (text.empty()) return is_open();
  if (plain_) return std::fwrite(text.data(), 1, text.size(), plain_) == text.size();
  if (gz_)
    return gzwrite(static_cast<gzFile>(gz_), text.data(), static_cast<unsigned>(text.size())) ==
           static_cast<int>(text.size());
  return false;
}

bool TextSink::flush() {
  if (plain_) return std::fflush(plain_) == 0;
  if (gz_) return gzflush(static_cast<gzFile>(gz_), Z_SYNC_FLUSH) == Z_OK;
  return false;
}

void TextSink::close() {
  if (plain_) std::fclose(plain_);
  if (gz_) gzclose(static_cast<gzFile>(gz_));
  plain_ = nullptr, gz_ = nullptr;
}

}  // namespace wmd::io
