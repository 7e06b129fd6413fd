#include "io/checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "io/hdf5_util.hpp"

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

struct Visit {
  CheckpointData* out;
};

herr_t visit_object(hid_t root, const char* name, const H5O_info_t* info, void* op) {
  if (info->type != H5O_TYPE_DATASET) return 0;
  auto* v = static_cast<Visit*>(op);
  Handle d(H5Dopen2(root, name, H5P_DEFAULT));
  if (!d.valid()) return -1;
  Handle t(H5Dget_type(d));
  const H5T_class_t cls = H5Tget_class(t);
  if (cls == H5T_STRING) {
    v->out->texts[name] = h5::read_string_dataset(root, name);
    return 0;
  }
  Handle sp(H5Dget_space(d));
  const hssize_t n = H5Sget_simple_extent_npoints(sp);
  if (cls == H5T_FLOAT) {
    std::vector<double> a(n);
    if (n > 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.data()) < 0) return -1;
    v->out->reals[name] = std::move(a);
  } else if (cls == H5T_INTEGER) {
    std::vector<int64_t> a(n);
    if (n > 0 && H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.data()) < 0) return -1;
    v->out->ints[name] = std::move(a);
  }
  return 0;
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

void write_checkpoint(const std::string& path, const CheckpointData& data) {
  h5::quiet_errors();
  const std::string tmp = path + ".tmp";
  const bool kill_halfway = fault_due();
  const size_t total = data.reals.size() + data.ints.size() + data.texts.size();
  size_t written = 0;
  {
    Handle f(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    if (!f.valid()) throw RunError("cannot create checkpoint file '" + tmp + "'");
    auto maybe_die = [&]() {
      if (kill_halfway && ++written >= total / 2) {
        H5Fflush(f, H5F_SCOPE_GLOBAL);
        std::raise(SIGKILL);  // fault injection: die with the temporary file half written
      }
    };
    h5::set_int_attr(f, "wafermd_checkpoint_format", {1});
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
  fsync_path(tmp, false);
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw RunError("cannot rename '" + tmp + "' to '" + path + "': " + ec.message());
  const auto dir = std::filesystem::path(path).parent_path();
  fsync_path(dir.empty() ? "." : dir.string(), true);
}

CheckpointData read_checkpoint(const std::string& path, const SourcePos& from) {
  h5::quiet_errors();
  if (!std::filesystem::exists(path)) fail_input(from, "checkpoint file '" + path + "' does not exist");
  Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!f.valid()) fail_input(from, "'" + path + "' is not a readable HDF5 checkpoint");
  if (H5Aexists(f, "wafermd_checkpoint_format") <= 0)
    fail_input(from, "'" + path + "' is not a wafermd checkpoint (no format attribute)");
  CheckpointData d;
  Visit v{&d};
  if (H5Ovisit2(f, H5_INDEX_NAME, H5_ITER_INC, visit_object, &v, H5O_INFO_BASIC) < 0)
    fail_input(from, "checkpoint '" + path + "' is damaged (a dataset cannot be read)");
  return d;
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
