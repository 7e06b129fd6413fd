#include "io/checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/memory_budget.hpp"
#include "io/hdf5_util.hpp"
#include "io/text_file.hpp"

namespace wmd::io {
namespace {

using h5::check;
using h5::Handle;

// The fault-injection switch: returns true when this write must be killed halfway.
bool fault_due() {
  static int writes = 0;
  ++writes;
  const char* env = std::getenv("WAFERMD_FAULT_CHECKPOINT");
  if (!env || std::strncmp(env, "kill", 4) != 0) return false;
  int nth = 1;
  if (env[4] == ':') nth = std::atoi(env + 5);
  return writes == nth;
}

template <class T>
void write_array(hid_t file, const std::string& name, hid_t ftype, hid_t mtype, const std::vector<T>& v) {
  Handle lcpl(check(H5Pcreate(H5P_LINK_CREATE), "property list"));
  H5Pset_create_intermediate_group(lcpl, 1);
  const hsize_t n = v.size();
  Handle sp(check(H5Screate_simple(1, &n, nullptr), "dataspace"));
  Handle d(
      check(H5Dcreate2(file, name.c_str(), ftype, sp, lcpl, H5P_DEFAULT, H5P_DEFAULT), "dataset " + name));
  if (n > 0) check(H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), "writing " + name);
}

void fsync_path(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) {
    if (directory) return;  // best effort for the directory entry
    throw RunError("cannot reopen '" + path + "' to sync it");
  }
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0 && !directory) throw RunError("cannot sync '" + path + "' to disk");
}

// What the reader found, and the first failure: a callback from HDF5's C code must not throw through it, so
// the failure is kept here and rethrown once H5Ovisit has returned.
struct Visit {
  CheckpointData* out;
  uintmax_t file_size;
  std::string problem;
};

// One dataset, checked (1-D numbers of 8 bytes or a scalar string, no larger than the file could hold) before
// anything is allocated for it.
void read_dataset(hid_t root, const char* name, Visit& v) {
  Handle d(H5Dopen2(root, name, H5P_DEFAULT));
  if (!d.valid()) throw RunError("dataset " + std::string(name) + " cannot be opened");
  Handle t(H5Dget_type(d));
  Handle sp(H5Dget_space(d));
  if (!t.valid() || !sp.valid()) throw RunError("dataset " + std::string(name) + " has no type or shape");
  const H5T_class_t cls = H5Tget_class(t);
  const int rank = H5Sget_simple_extent_ndims(sp);
  if (cls == H5T_STRING) {
    if (rank != 0) throw RunError("text dataset " + std::string(name) + " is not a scalar");
    if (H5Tis_variable_str(t) <= 0)
      throw RunError("text dataset " + std::string(name) + " has a fixed length");
    v.out->texts[name] = h5::read_string_dataset(root, name);
    return;
  }
  if (cls != H5T_FLOAT && cls != H5T_INTEGER)
    throw RunError("dataset " + std::string(name) + " is neither numbers nor text");
  if (rank != 1) throw RunError("dataset " + std::string(name) + " is not one-dimensional");
  if (H5Tget_size(t) != 8) throw RunError("dataset " + std::string(name) + " does not hold 8-byte numbers");
  hsize_t n = 0;
  H5Sget_simple_extent_dims(sp, &n, nullptr);
  // Our datasets are stored whole and uncompressed: one declaring more than the file holds is damaged.
  if (n > v.file_size / 8)
    throw RunError("dataset " + std::string(name) + " declares " + std::to_string(n) +
                   " values, more than the file's " + std::to_string(v.file_size) + " bytes can hold");
  if (cls == H5T_FLOAT) {
    std::vector<double> a(n);
    if (n > 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.data()) < 0)
      throw RunError("dataset " + std::string(name) + " cannot be read");
    v.out->reals[name] = std::move(a);
  } else {
    std::vector<int64_t> a(n);
    if (n > 0 && H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.data()) < 0)
      throw RunError("dataset " + std::string(name) + " cannot be read");
    v.out->ints[name] = std::move(a);
  }
}

herr_t visit_object(hid_t root, const char* name, const H5O_info_t* info, void* op) noexcept {
  auto* v = static_cast<Visit*>(op);
  try {
    if (info->type == H5O_TYPE_DATASET) read_dataset(root, name, *v);
    return 0;
  } catch (const std::bad_alloc&) {
    v->problem = std::string("dataset ") + name + " does not fit in memory";
  } catch (const std::exception& e) {
    v->problem = e.what();
  }
  return -1;  // stops the visit; read_checkpoint reports v->problem
}

// Mixes 64-bit words; every step is a bijection of the running value, so changing any one word (or byte)
// of the data always changes the result.
struct Mixer {
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  void word(uint64_t w) {
    h = (h ^ w) * 0x100000001b3ULL;
    h = (h << 29) | (h >> 35);
  }
  void text(const std::string& s) {
    word(s.size());
    for (unsigned char c : s) word(c);
  }
  template <class T>
  void array(const std::vector<T>& v) {
    word(v.size());
    for (const T& x : v) {
      uint64_t w;
      std::memcpy(&w, &x, 8);
      word(w);
    }
  }
};

// The file's first kUserBlock bytes are an HDF5 user block (HDF5 ignores them): a line naming the format and
// a checksum of every byte after the block. A reader checks it before libhdf5 parses anything, so a damaged
// file never reaches the library's own parser (which can fault on some damaged headers).
constexpr hsize_t kUserBlock = 512;
constexpr char kStampMagic[] = "wafermd checkpoint file-sum ";

// Checksum of the bytes of `path` from kUserBlock on; false if the file cannot be read.
bool file_sum(const std::string& path, uint64_t& sum) {
  std::ifstream in(path, std::ios::binary);
  if (!in.seekg(static_cast<std::streamoff>(kUserBlock))) return false;
  Mixer m;
  std::vector<char> buf(1 << 20);
  uint64_t total = 0;
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const size_t got = static_cast<size_t>(in.gcount());
    if (got == 0) break;
    total += got;
    for (size_t k = 0; k < got; k += 8) {
      uint64_t w = 0;
      std::memcpy(&w, buf.data() + k, std::min<size_t>(8, got - k));
      m.word(w);
    }
  }
  m.word(total);
  sum = m.h;
  return true;
}

void stamp_file(const std::string& path) {
  uint64_t sum = 0;
  if (!file_sum(path, sum)) throw RunError("cannot reread '" + path + "' to stamp its checksum");
  char head[64];
  std::snprintf(head, sizeof head, "%s%016llx\n", kStampMagic, static_cast<unsigned long long>(sum));
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.write(head, static_cast<std::streamsize>(std::strlen(head)));
  if (!f) throw RunError("cannot stamp the checksum of '" + path + "'");
}

// "" when the stamp is absent (older files) or matches; otherwise what is wrong.
std::string check_stamp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[64] = {};
  in.read(head, sizeof head - 1);
  const size_t n = std::strlen(kStampMagic);
  if (std::strncmp(head, kStampMagic, n) != 0) return "";
  unsigned long long want = 0;
  if (std::sscanf(head + n, "%16llx", &want) != 1) return "its file checksum is unreadable";
  uint64_t sum = 0;
  if (!file_sum(path, sum) || sum != want) return "the file checksum does not match its bytes";
  return "";
}

// The attribute holding checkpoint_checksum.
constexpr const char* kChecksumAttr = "wafermd_checksum";

uint64_t read_u64_attr(hid_t obj, const char* name) {
  Handle a(H5Aopen(obj, name, H5P_DEFAULT));
  if (!a.valid()) throw RunError(std::string("attribute ") + name + " cannot be opened");
  Handle sp(H5Aget_space(a));
  if (!sp.valid() || H5Sget_simple_extent_npoints(sp) != 1)
    throw RunError(std::string("attribute ") + name + " is not a single value");
  uint64_t x = 0;
  if (H5Aread(a, H5T_NATIVE_UINT64, &x) < 0)
    throw RunError(std::string("attribute ") + name + " is unreadable");
  return x;
}

int64_t read_format(hid_t f) {
  Handle a(H5Aopen(f, "wafermd_checkpoint_format", H5P_DEFAULT));
  if (!a.valid()) throw RunError("the format attribute cannot be opened");
  Handle sp(H5Aget_space(a));
  const hssize_t n = sp.valid() ? H5Sget_simple_extent_npoints(sp) : -1;
  if (n < 1 || n > 16) throw RunError("the format attribute is damaged");
  std::vector<int64_t> v(n);
  if (H5Aread(a, H5T_NATIVE_INT64, v.data()) < 0) throw RunError("the format attribute is unreadable");
  return v[0];
}

void put_u64(std::vector<char>& b, uint64_t x) {
  b.insert(b.end(), reinterpret_cast<char*>(&x), reinterpret_cast<char*>(&x) + 8);
}
void put_str(std::vector<char>& b, const std::string& s) {
  put_u64(b, s.size());
  b.insert(b.end(), s.begin(), s.end());
}
uint64_t get_u64(const std::vector<char>& b, size_t& at) {
  uint64_t x;
  std::memcpy(&x, b.data() + at, 8);
  at += 8;
  return x;
}
std::string get_str(const std::vector<char>& b, size_t& at) {
  const uint64_t n = get_u64(b, at);
  std::string s(b.data() + at, n);
  at += n;
  return s;
}

}  // namespace

std::vector<char> CheckpointData::to_bytes() const {
  std::vector<char> b;
  put_u64(b, reals.size());
  for (const auto& [k, v] : reals) {
    put_str(b, k);
    put_str(b, std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double)));
  }
  put_u64(b, ints.size());
  for (const auto& [k, v] : ints) {
    put_str(b, k);
    put_str(b, std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(int64_t)));
  }
  put_u64(b, texts.size());
  for (const auto& [k, v] : texts) put_str(b, k), put_str(b, v);
  return b;
}

CheckpointData CheckpointData::from_bytes(const std::vector<char>& b) {
  CheckpointData d;
  size_t at = 0;
  for (uint64_t n = get_u64(b, at); n > 0; --n) {
    const std::string k = get_str(b, at), raw = get_str(b, at);
    std::vector<double> v(raw.size() / sizeof(double));
    if (!v.empty()) std::memcpy(v.data(), raw.data(), raw.size());
    d.reals[k] = std::move(v);
  }
  for (uint64_t n = get_u64(b, at); n > 0; --n) {
    const std::string k = get_str(b, at), raw = get_str(b, at);
    std::vector<int64_t> v(raw.size() / sizeof(int64_t));
    if (!v.empty()) std::memcpy(v.data(), raw.data(), raw.size());
    d.ints[k] = std::move(v);
  }
  for (uint64_t n = get_u64(b, at); n > 0; --n) {
    const std::string k = get_str(b, at);
    d.texts[k] = get_str(b, at);
  }
  return d;
}

namespace {

// Writes the whole checkpoint into `tmp` and syncs it to disk.
void write_checkpoint_file(const std::string& tmp, const CheckpointData& data) {
  const bool kill_halfway = fault_due();
  const size_t total = data.reals.size() + data.ints.size() + data.texts.size();
  size_t written = 0;
  {
    Handle fcpl(check(H5Pcreate(H5P_FILE_CREATE), "file creation property list"));
    check(H5Pset_userblock(fcpl, kUserBlock), "user block");
    Handle f(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, fcpl, H5P_DEFAULT));
    if (!f.valid()) throw RunError("cannot create checkpoint file '" + tmp + "'");
    auto maybe_die = [&]() {
      if (kill_halfway && ++written >= total / 2) {
        H5Fflush(f, H5F_SCOPE_GLOBAL);
        std::raise(SIGKILL);  // fault injection: die with the temporary file half written
      }
    };
    h5::set_int_attr(f, "wafermd_checkpoint_format", {kCheckpointFormat});
    {
      const uint64_t sum = checkpoint_checksum(data);
      Handle sp(check(H5Screate(H5S_SCALAR), "dataspace"));
      Handle a(check(H5Acreate2(f, kChecksumAttr, H5T_STD_U64LE, sp, H5P_DEFAULT, H5P_DEFAULT), "checksum"));
      check(H5Awrite(a, H5T_NATIVE_UINT64, &sum), "writing the checksum");
    }
    for (const auto& [k, v] : data.reals) {
      write_array(f, k, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v);
      maybe_die();
    }
    for (const auto& [k, v] : data.ints) {
      write_array(f, k, H5T_STD_I64LE, H5T_NATIVE_INT64, v);
      maybe_die();
    }
    for (const auto& [k, v] : data.texts) {
      const auto slash = k.rfind('/');
      if (slash != std::string::npos) {
        Handle g = h5::open_or_create_group(f, k.substr(0, slash));
        h5::write_string_dataset(g, k.substr(slash + 1), v);
      } else {
        h5::write_string_dataset(f, k, v);
      }
      maybe_die();
    }
    if (H5Fflush(f, H5F_SCOPE_GLOBAL) < 0) throw RunError("cannot flush checkpoint file '" + tmp + "'");
  }
  stamp_file(tmp);
  fsync_path(tmp, false);
}

}  // namespace

void write_checkpoint(const std::string& named, const CheckpointData& data) {
  h5::quiet_errors();
  // Through a symlink, the file it points to is replaced (the link survives); a device is written through
  // (never replaced); a FIFO or a directory is refused.
  const ReplaceTarget target = atomic_replace_target(named, "checkpoint file");
  const std::string& path = target.path;
  const std::string tmp = target.temporary();
  try {
    write_checkpoint_file(tmp, data);
  } catch (const RunError& e) {
    // A full disk or an I/O error: the half-written temporary goes, the last good checkpoint stays.
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw RunError("cannot write checkpoint file '" + path + "': " + e.what());
  }
  finish_replace(tmp, target, "checkpoint file");
  if (target.device) return;
  const auto dir = std::filesystem::path(path).parent_path();
  fsync_path(dir.empty() ? "." : dir.string(), true);
}

CheckpointData read_checkpoint(const std::string& path, const SourcePos& from) {
  h5::quiet_errors();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) fail_input(from, "checkpoint file '" + path + "' does not exist");
  if (!std::filesystem::is_regular_file(path, ec))
    fail_input(from, "checkpoint '" + path + "' is not a regular file");
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) fail_input(from, "checkpoint '" + path + "' cannot be read: " + ec.message());
  // Nothing is read beyond the file's own size per dataset; the budget bounds the whole.
  memory::check_allocation("reading checkpoint '" + path + "'", 2.0 * static_cast<double>(size), from);
  const std::string stamp = check_stamp(path);
  if (!stamp.empty()) fail_input(from, "checkpoint '" + path + "' is damaged: " + stamp);
  Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!f.valid()) fail_input(from, "'" + path + "' is not a readable HDF5 checkpoint");
  if (H5Aexists(f, "wafermd_checkpoint_format") <= 0)
    fail_input(from, "'" + path + "' is not a wafermd checkpoint (no format attribute)");
  const std::string damaged = "checkpoint '" + path + "' is damaged: ";
  CheckpointData d;
  Visit v{&d, size, {}};
  try {
    const int64_t format = read_format(f);
    // Format 1 had no checksum: a file that says it is one would skip the check below.
    if (format != kCheckpointFormat)
      fail_input(from, "checkpoint '" + path + "' has format " + std::to_string(format) +
                           "; this wafermd reads format " + std::to_string(kCheckpointFormat) +
                           " (with its checksum) only: write the checkpoint again with this version");
    if (H5Ovisit2(f, H5_INDEX_NAME, H5_ITER_INC, visit_object, &v, H5O_INFO_BASIC) < 0)
      fail_input(from, damaged + (v.problem.empty() ? "its index cannot be walked" : v.problem));
    // A checksum over every dataset: a flipped bit anywhere in the data is found here.
    if (H5Aexists(f, kChecksumAttr) <= 0) fail_input(from, damaged + "its checksum is missing");
    if (read_u64_attr(f, kChecksumAttr) != checkpoint_checksum(d))
      fail_input(from, damaged + "the checksum does not match its contents");
  } catch (const RunError& e) {
    fail_input(from, damaged + e.what());
  } catch (const std::bad_alloc&) {
    fail_input(from, damaged + "its contents do not fit in memory");
  }
  return d;
}

uint64_t checkpoint_checksum(const CheckpointData& d) {
  Mixer m;
  m.word(d.reals.size());
  for (const auto& [k, v] : d.reals) m.text(k), m.array(v);
  m.word(d.ints.size());
  for (const auto& [k, v] : d.ints) m.text(k), m.array(v);
  m.word(d.texts.size());
  for (const auto& [k, v] : d.texts) m.text(k), m.text(v);
  return m.h;
}

std::string fnv1a_hex(const std::string& text) {
  uint64_t h = 14695981039346656037ULL;  // FNV-1a 64-bit offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace wmd::io
