// Fuzz harness for checkpoints: the input is a small program of edits applied to a valid checkpoint made in
// memory — values set (raw bits, so NaN, infinities and extreme integers come up), arrays resized, emptied,
// removed or copied under another name, texts replaced — after which the checkpoint is written as an HDF5
// file, bytes of that file are flipped, and the reader (io/checkpoint) and the whole-checkpoint check
// (md/run/checkpoint_check) run. InputError is the expected answer
// to anything wrong. Crashes inside libhdf5 itself are listed in docs/reliability-checkpoints.md.
#include <hdf5.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "base/memory_budget.hpp"
#include "harness.hpp"
#include "io/checkpoint.hpp"
#include "md/run/checkpoint_check.hpp"
#include "scratch_file.hpp"

namespace {

using wmd::io::CheckpointData;

// A valid one-rank checkpoint of 8 atoms of 2 types, with backend and fix state (it passes the check).
CheckpointData seed() {
  CheckpointData d;
  const int n = 8;
  d.texts["meta/physics_hash"] = "0123456789abcdef";
  d.texts["meta/backend"] = "cluster";
  d.texts["meta/wafermd_version"] = "fuzz";
  d.texts["meta/input_file"] = "in.fuzz";
  d.texts["meta/input"] = "run 10\n";
  d.texts["groups/names"] = "all";
  d.texts["fixes/ids"] = "1";
  d.texts["fixes/1/style"] = "nve";
  d.ints["meta/step"] = {10};
  d.ints["meta/run_index"] = {1};
  d.ints["meta/ranks"] = {1};
  d.ints["meta/ntypes"] = {2};
  d.ints["meta/natoms"] = {n};
  d.reals["meta/time"] = {0.02};
  d.reals["meta/dt"] = {0.002};
  d.reals["types/mass"] = {0.0, 63.55, 58.69};
  d.reals["box/lo"] = {0, 0, 0};
  d.reals["box/hi"] = {7.23, 7.23, 7.23};
  d.reals["box/min_lo"] = {0, 0, 0};
  d.reals["box/min_hi"] = {7.23, 7.23, 7.23};
  for (int k = 0; k < 3; ++k) d.reals[std::string("decomposition/cuts_") + "xyz"[k]] = {0.0, 1.0};
  d.ints["atoms/rank_counts"] = {n};
  for (const char* k : {"x", "y", "z", "vx", "vy", "vz", "fx", "fy", "fz"}) {
    auto& v = d.reals[std::string("atoms/") + k];
    for (int i = 0; i < n; ++i) v.push_back(0.5 + 0.9 * i);
  }
  for (int i = 0; i < n; ++i) {
    d.ints["atoms/id"].push_back(i + 1);
    d.ints["atoms/type"].push_back(1 + i % 2);
    d.ints["atoms/order"].push_back(i);
    for (const char* k : {"atoms/ix", "atoms/iy", "atoms/iz"}) d.ints[k].push_back(0);
    d.ints["atoms/mask"].push_back(1);
  }
  d.reals["backend/xhold"] = std::vector<double>(3 * n, 1.0);
  d.ints["backend/xhold.counts"] = {3 * n};
  d.reals["backend/ago"] = {3};
  d.ints["backend/ago.counts"] = {1};
  d.reals["fixes/1/state"] = {1.0, 2.0};
  d.ints["fixes/1/state.counts"] = {2};
  d.reals["cascade/stop_time"] = {0.0};
  d.texts["cascade/report"] = "{}";
  return d;
}

// Reads the edit program.
struct Program {
  const uint8_t* p;
  size_t n;
  size_t at = 0;
  bool more() const { return at < n; }
  uint8_t byte() { return at < n ? p[at++] : 0; }
  uint64_t u64() {
    uint64_t x = 0;
    for (int k = 0; k < 8; ++k) x = (x << 8) | byte();
    return x;
  }
};

template <class M>
typename M::iterator pick(M& m, uint8_t k) {
  if (m.empty()) return m.end();
  auto it = m.begin();
  std::advance(it, k % m.size());
  return it;
}

// Interesting values: edge cases first, else raw bits.
int64_t int_value(Program& in) {
  static const int64_t edge[] = {0, -1, 1, 2, 3, 8, 9, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, 1LL << 40};
  const uint8_t k = in.byte();
  return k < 2 * std::size(edge) ? edge[k % std::size(edge)] : static_cast<int64_t>(in.u64());
}
double real_value(Program& in) {
  static const double edge[] = {0.0,    -0.0, 1.0,      -1.0,      1e308, -1e308,
                                1e-300, NAN,  INFINITY, -INFINITY, 7.23,  0.5};
  const uint8_t k = in.byte();
  if (k < 2 * std::size(edge)) return edge[k % std::size(edge)];
  const uint64_t b = in.u64();
  double v;
  std::memcpy(&v, &b, 8);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const CheckpointData good = seed();
  static const std::string path = wmd::fuzz::scratch_file("checkpoint.h5");
  wmd::memory::set_limit_gb(1.0);
  CheckpointData d = good;
  Program in{data, size};
  std::vector<std::pair<uint32_t, uint8_t>> flips;  // (offset, xor) on the written file
  for (int steps = 0; in.more() && steps < 64; ++steps) {
    const uint8_t op = in.byte() % 9;
    if (op == 0) {  // set a real
      auto it = pick(d.reals, in.byte());
      const uint8_t i = in.byte();
      if (it != d.reals.end() && !it->second.empty()) it->second[i % it->second.size()] = real_value(in);
    } else if (op == 1) {  // set an integer
      auto it = pick(d.ints, in.byte());
      const uint8_t i = in.byte();
      if (it != d.ints.end() && !it->second.empty()) it->second[i % it->second.size()] = int_value(in);
    } else if (op == 2) {  // resize a real array (shape)
      auto it = pick(d.reals, in.byte());
      const uint8_t len = in.byte();
      if (it != d.reals.end()) it->second.resize(len % 40, 1.5);
    } else if (op == 3) {  // resize an integer array (shape)
      auto it = pick(d.ints, in.byte());
      const uint8_t len = in.byte();
      if (it != d.ints.end()) it->second.resize(len % 40, 1);
    } else if (op == 4) {  // remove a dataset
      const uint8_t which = in.byte(), k = in.byte();
      if (which % 3 == 0) {
        auto it = pick(d.reals, k);
        if (it != d.reals.end()) d.reals.erase(it);
      } else if (which % 3 == 1) {
        auto it = pick(d.ints, k);
        if (it != d.ints.end()) d.ints.erase(it);
      } else {
        auto it = pick(d.texts, k);
        if (it != d.texts.end()) d.texts.erase(it);
      }
    } else if (op == 5) {  // copy an array under another array's name (another shape and content)
      auto a = pick(d.reals, in.byte());
      auto b = pick(d.reals, in.byte());
      if (a != d.reals.end() && b != d.reals.end()) b->second = a->second;
      auto c = pick(d.ints, in.byte());
      auto e = pick(d.ints, in.byte());
      if (c != d.ints.end() && e != d.ints.end()) e->second = c->second;
    } else if (op == 6) {  // replace a text
      auto it = pick(d.texts, in.byte());
      const uint8_t len = in.byte() % 32;
      std::string s;
      for (uint8_t k = 0; k < len; ++k) s += static_cast<char>(in.byte());
      if (it != d.texts.end()) it->second = s;
    } else if (op == 7) {  // a byte of the written file
      const uint32_t off = (static_cast<uint32_t>(in.byte()) << 8) | in.byte();
      flips.emplace_back(off, static_cast<uint8_t>(in.byte() | 1));
    } else {  // a new array under a name a reader may look for
      static const char* names[] = {"atoms/x",       "atoms/id",   "meta/natoms", "fixes/1/state.counts",
                                    "backend/xhold", "types/mass", "meta/step",   "atoms/rank_counts"};
      const std::string name = names[in.byte() % std::size(names)];
      const uint8_t len = in.byte() % 20;
      if (in.byte() % 2)
        d.reals[name] = std::vector<double>(len, real_value(in));
      else
        d.ints[name] = std::vector<int64_t>(len, int_value(in));
    }
  }
  try {
    wmd::io::write_checkpoint(path, d);
  } catch (const wmd::RunError&) {
    return 0;  // a name HDF5 will not take
  }
  if (!flips.empty()) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    for (const auto& [off, x] : flips) bytes[off % bytes.size()] ^= static_cast<char>(x);
    f.seekp(0);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  wmd::fuzz::guarded([&] {
    const CheckpointData r = wmd::io::read_checkpoint(path, wmd::SourcePos{"in.fuzz", 1});
    wmd::md::check_checkpoint(r, "checkpoint", wmd::SourcePos{"in.fuzz", 1});
  });
  // Every HDF5 identifier the reader opened is closed again, on every path (leaks inside libhdf5 itself are
  // suppressed for LeakSanitizer; this keeps ours visible).
  if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0) {
    std::fprintf(stderr, "HDF5 identifiers left open after reading\n");
    std::abort();
  }
  return 0;
}
