#include "io/text_file.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "base/memory_budget.hpp"
#include "base/root_read.hpp"

namespace wmd::io {

bool is_gz_name(const std::string& path) {
  return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
}

namespace {

// Refuses what is not a regular file before it is read: a directory reads as empty, /dev/zero never ends.
void check_regular(const std::string& path, const std::string& what, const SourcePos& from) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail_input(from, "cannot open " + what + " '" + path + "'");
  if (S_ISDIR(st.st_mode)) fail_input(from, what + " '" + path + "' is a directory");
  if (!S_ISREG(st.st_mode)) fail_input(from, what + " '" + path + "' is not a regular file");
}

[[noreturn]] void too_large(const std::string& path, const std::string& what, const SourcePos& from,
                            size_t max_bytes) {
  fail_input(from, what + " '" + path + "' is larger than " + std::to_string(max_bytes >> 20) + " MiB");
}

// The local reads; the public functions run them on rank 0 (base/root_read.hpp).
std::string read_plain_here(const std::string& path, const std::string& what, const SourcePos& from,
                            size_t max_bytes) {
  check_regular(path, what, from);
  std::string text;
  char buf[1 << 16];
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail_input(from, "cannot open " + what + " '" + path + "'");
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) {
    if (text.size() + n > max_bytes) {
      std::fclose(f);
      too_large(path, what, from, max_bytes);
    }
    text.append(buf, n);
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) fail_input(from, "cannot read " + what + " '" + path + "'");
  return text;
}

std::string read_text_here(const std::string& path, const std::string& what, const SourcePos& from,
                           size_t max_bytes) {
  // gzopen reads plain files too, but only a .gz name may be compressed (LAMMPS decides by the name).
  if (!is_gz_name(path)) return read_plain_here(path, what, from, max_bytes);
  check_regular(path, what, from);
  std::string text;
  char buf[1 << 16];
  gzFile g = gzopen(path.c_str(), "rb");
  if (!g) fail_input(from, "cannot open " + what + " '" + path + "'");
  // The bound applies to the decompressed text: a small .gz may expand a thousandfold. Besides max_bytes it
  // is a third of the memory budget: the text, its parsing stream and what is built from it are alive at
  // once.
  const double budget = memory::limit_bytes() / 3.0;
  const size_t cap =
      budget < static_cast<double>(max_bytes) ? static_cast<size_t>(std::max(budget, 0.0)) : max_bytes;
  int n;
  while ((n = gzread(g, buf, sizeof buf)) > 0) {
    if (text.size() + static_cast<size_t>(n) > cap) {
      gzclose(g);
      if (cap < max_bytes)
        fail_input(from, what + " '" + path + "' inflates to more than " + std::to_string(cap >> 20) +
                             " MiB, a third of the memory budget of " +
                             memory::gb_text(memory::limit_bytes()) + " (limits.memory_gb)");
      too_large(path, what, from, max_bytes);
    }
    text.append(buf, static_cast<size_t>(n));
  }
  int err = Z_OK;
  const char* msg = n < 0 ? gzerror(g, &err) : nullptr;
  const std::string why = msg ? msg : "";
  gzclose(g);
  if (n < 0) fail_input(from, "cannot read " + what + " '" + path + "' (gzip: " + why + ")");
  return text;
}

}  // namespace

std::string read_plain_file(const std::string& path, const std::string& what, const SourcePos& from,
                            size_t max_bytes) {
  return read_on_root(what + " '" + path + "'", [&] { return read_plain_here(path, what, from, max_bytes); });
}

std::string read_text_file(const std::string& path, const std::string& what, const SourcePos& from,
                           size_t max_bytes) {
  return read_on_root(what + " '" + path + "'", [&] { return read_text_here(path, what, from, max_bytes); });
}

void fail_write(const std::string& path, const std::string& what) {
  const int err = errno;
  throw RunError("cannot write " + what + " '" + path + "'" +
                 (err != 0 ? ": " + std::string(std::strerror(err)) : ""));
}

void check_written(std::ostream& out, const std::string& path, const std::string& what) {
  errno = 0;
  out.flush();
  if (!out) fail_write(path, what);
}

ReplaceTarget atomic_replace_target(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  fs::path target = path;
  // Follow the links one by one (a dangling link names the file to create); 40 as the kernel's ELOOP.
  for (int hops = 0;; ++hops) {
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(target, ec);
    if (st.type() == fs::file_type::not_found) break;
    if (ec) throw RunError("cannot write " + what + " '" + path + "': " + ec.message());
    if (st.type() == fs::file_type::regular) break;
    if (st.type() == fs::file_type::character || st.type() == fs::file_type::block)
      return ReplaceTarget{target.string(), true};
    if (st.type() != fs::file_type::symlink)
      throw RunError(what + " '" + path +
                     "' is not a regular file or a device (a FIFO, socket or directory): wafermd writes a " +
                     what + " through a temporary file and a rename, which would replace it");
    if (hops >= 40)
      throw RunError("cannot write " + what + " '" + path + "': too many levels of symbolic links");
    const fs::path link = fs::read_symlink(target, ec);
    if (ec) throw RunError("cannot write " + what + " '" + path + "': " + ec.message());
    target = link.is_absolute() ? link : target.parent_path() / link;
  }
  return ReplaceTarget{target.string(), false};
}

std::string ReplaceTarget::temporary() const {
  if (!device) return path + ".tmp";
  // Not beside a device: /dev is no place for a file. One name per process.
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  return ((ec ? std::filesystem::path("/tmp") : dir) /
          ("wafermd-" + std::to_string(::getpid()) + "-" + std::filesystem::path(path).filename().string() +
           ".tmp"))
      .string();
}

void finish_replace(const std::string& tmp, const ReplaceTarget& target, const std::string& what) {
  if (!target.device) {
    std::error_code ec;
    std::filesystem::rename(tmp, target.path, ec);
    if (ec) {
      errno = ec.value();
      fail_write(target.path, what);
    }
    return;
  }
  // A device takes the bytes (a full one refuses them: ENOSPC); the temporary goes either way.
  struct Remove {
    const std::string& p;
    ~Remove() {
      std::error_code ignored;
      std::filesystem::remove(p, ignored);
    }
  } remove{tmp};
  std::FILE* in = std::fopen(tmp.c_str(), "rb");
  if (!in) fail_write(target.path, what);
  std::FILE* out = std::fopen(target.path.c_str(), "wb");
  if (!out) {
    std::fclose(in);
    fail_write(target.path, what);
  }
  char buf[1 << 16];
  bool ok = true;
  for (size_t n; ok && (n = std::fread(buf, 1, sizeof buf, in)) > 0;) ok = std::fwrite(buf, 1, n, out) == n;
  errno = 0;
  ok = ok && std::fflush(out) == 0;
  const int err = errno;
  std::fclose(in);
  const bool closed = std::fclose(out) == 0;
  if (!ok || !closed) {
    errno = err != 0 ? err : errno;
    fail_write(target.path, what);
  }
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

bool TextSink::close() {
  bool ok = true;
  if (plain_) ok = std::fclose(plain_) == 0;
  if (gz_) ok = gzclose(static_cast<gzFile>(gz_)) == Z_OK;
  plain_ = nullptr, gz_ = nullptr;
  return ok;
}

}  // namespace wmd::io
