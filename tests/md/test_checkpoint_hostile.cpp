// Hostile checkpoints (issue 29): a restart validates the whole file before using any of it. A missing
// dataset, inconsistent counts, duplicate or non-positive ids, types out of range, an empty mass table, a
// negative step, an inverted box, non-finite positions or timestep, a dataset declaring more values than the
// file holds, an exception inside HDF5's visit callback: each is one `error:` line and exit 2. A flipped byte
// anywhere in a real checkpoint is refused, or the checkpoint restarts exactly as the intact one.
// Each fix's own state (issue 46) is checked against the fix's definition: an array of the wrong length, a
// window index outside the window, an RNG state that is not one: exit 2, one `error:` line, never a signal.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>

#include "address_space_cap.hpp"
#include "io/checkpoint.hpp"
#include "md/run/checkpoint_check.hpp"
#include "program_harness.hpp"
#include "sim_harness.hpp"

namespace {

using wmd::io::CheckpointData;
using wmd::test::run_wafermd_in;

const char* kInput =
    "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 3 0 3 0 3\n"
    "create_box 1 box\ncreate_atoms 1 box\npair_style eam\n"
    "pair_coeff 1 1 Cu_u3.eam\nvelocity all create 600 87287 loop geom\n"
    "neighbor 0.3 bin\nneigh_modify every 1 delay 0 check yes\ntimestep 0.002\nfix 1 all nve\nthermo 10\n"
    "run ${n}\n";

// One directory with an input and its checkpoint at step 10 (written once per process).
struct Fixture {
  std::string dir;
  CheckpointData good;
  Fixture(const std::string& prefix, const char* input, const char* elstop = nullptr) {
    // One directory per test process: ctest runs the cases in parallel.
    dir = wmd::test::scratch_dir(prefix + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::ofstream(dir + "/in.md") << input;
    if (elstop) std::ofstream(dir + "/Cu.elstop") << elstop;  // fix electron/stopping's table
    const auto r =
        run_wafermd_in(dir, "run in.md --var n 10 --set output.checkpoint_every=10 --output first");
    EXPECT_EQ(r.status, 0) << r.err;
    good = wmd::io::read_checkpoint(dir + "/first/checkpoint.h5", wmd::SourcePos{"test", 0});
  }
};

const Fixture& fixture() {
  static const Fixture f("checkpoint_hostile_", kInput);
  return f;
}

// Restarts `fx`'s input from `d` (written as a checkpoint of its own); returns the result.
wmd::test::ProgramResult restart_with(const CheckpointData& d, const std::string& name,
                                      const Fixture& fx = fixture()) {
  const std::string& dir = fx.dir;
  wmd::io::write_checkpoint(dir + "/" + name + ".h5", d);
  return run_wafermd_in(dir, "run in.md --var n 10 --output out_" + name + " --restart " + name + ".h5");
}

// Expects the edited checkpoint to be refused: exit 2 and one `error:` line naming `needle`.
void expect_refused(const std::function<void(CheckpointData&)>& edit, const std::string& name,
                    const std::string& needle, const Fixture& fx = fixture()) {
  CheckpointData d = fx.good;
  edit(d);
  const auto r = restart_with(d, name, fx);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

TEST(Hostile, CheckpointMissingDatasetIsAnInputError) {
  expect_refused([](CheckpointData& d) { d.ints.erase("atoms/rank_counts"); }, "missing",
                 "lacks atoms/rank_counts");
  expect_refused([](CheckpointData& d) { d.ints.erase("atoms/type"); }, "missing_type", "lacks atoms/type");
}

TEST(Hostile, CheckpointCountsMustAgree) {
  expect_refused([](CheckpointData& d) { d.reals["atoms/vx"].pop_back(); }, "short_vx", "atoms/vx holds");
  expect_refused([](CheckpointData& d) { d.ints["atoms/rank_counts"][0] += 5; }, "counts", "rank_counts");
  expect_refused([](CheckpointData& d) { d.ints["meta/step"].clear(); }, "nostep", "meta/step holds 0");
  expect_refused([](CheckpointData& d) { d.ints["backend/xhold.counts"][0] = 1 << 30; }, "ranked",
                 "backend/xhold.counts");
}

TEST(Hostile, CheckpointIdsUniqueAndPositive) {
  expect_refused([](CheckpointData& d) { d.ints["atoms/id"][3] = d.ints["atoms/id"][4]; }, "dup",
                 "appears twice");
  expect_refused([](CheckpointData& d) { d.ints["atoms/id"][0] = -7; }, "negid", "atoms/id[0] = -7");
}

TEST(Hostile, CheckpointTypesAndMassesInRange) {
  expect_refused([](CheckpointData& d) { d.ints["atoms/type"][2] = 9; }, "type", "atoms/type[2] = 9");
  expect_refused([](CheckpointData& d) { d.reals["types/mass"].clear(); }, "nomass", "types/mass holds 0");
  expect_refused([](CheckpointData& d) { d.reals["types/mass"][1] = -1.0; }, "negmass",
                 "mass of atom type 1");
}

TEST(Hostile, CheckpointStepBoxTimestepAndPositionsSane) {
  expect_refused([](CheckpointData& d) { d.ints["meta/step"][0] = -5; }, "negstep", "meta/step = -5");
  expect_refused([](CheckpointData& d) { std::swap(d.reals["box/lo"][1], d.reals["box/hi"][1]); }, "inverted",
                 "box along y");
  expect_refused([](CheckpointData& d) { d.reals["meta/dt"][0] = NAN; }, "nandt", "timestep");
  expect_refused([](CheckpointData& d) { d.reals["atoms/x"][7] = INFINITY; }, "infx",
                 "atoms/x[7] is not finite");
  expect_refused([](CheckpointData& d) { d.reals["atoms/vz"][1] = NAN; }, "nanv",
                 "atoms/vz[1] is not finite");
}

TEST(Hostile, ReadRestartValidatesTheSameWay) {
  // LAMMPS-script read_restart reads the same files through the same check.
  CheckpointData d = fixture().good;
  d.ints["atoms/id"][1] = d.ints["atoms/id"][0];
  const std::string& dir = fixture().dir;
  wmd::io::write_checkpoint(dir + "/dup_rr.h5", d);
  std::ofstream(dir + "/in.rr") << "read_restart dup_rr.h5\npair_style eam\n"
                                   "pair_coeff 1 1 Cu_u3.eam\nrun 1\n";
  const auto r = run_wafermd_in(dir, "run in.rr --output out_rr");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("in.rr:1: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("appears twice"), std::string::npos) << r.err;
}

// Writes a file with the format attribute and one dataset made by `make` (no checksum: the reader's checks of
// each dataset come before the checksum's).
std::string handmade(const std::string& name, const std::function<void(hid_t)>& make,
                     int fmt = wmd::io::kCheckpointFormat) {
  const std::string path = fixture().dir + "/" + name + ".h5";
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t one = 1;
  const hid_t sp = H5Screate_simple(1, &one, nullptr);
  const hid_t a = H5Acreate2(f, "wafermd_checkpoint_format", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_INT, &fmt);
  H5Aclose(a), H5Sclose(sp);
  make(f);
  H5Fclose(f);
  return path;
}

using wmd::test::AddressSpaceCap;

TEST(Hostile, CheckpointDeclaringAHugeDatasetIsNotAllocated) {
  // 2^30 doubles (8 GB) declared, none stored: late allocation keeps the file a few kB.
  const std::string path = handmade("huge", [](hid_t f) {
    const hsize_t n = hsize_t(1) << 30;
    const hid_t sp = H5Screate_simple(1, &n, nullptr);
    const hid_t d = H5Dcreate2(f, "atoms_x", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(d), H5Sclose(sp);
  });
  ASSERT_LT(std::filesystem::file_size(path), 100000u);
  AddressSpaceCap cap(4.0);
  try {
    wmd::io::read_checkpoint(path, wmd::SourcePos{"in.x", 3});
    FAIL() << "accepted";
  } catch (const wmd::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("more than the file"), std::string::npos) << e.what();
  }
}

TEST(Hostile, CheckpointOfTheFormerFormatWithoutChecksumIsRefused) {
  // Format 1 had no checksum: a file claiming it must not skip the check.
  const std::string path = handmade(
      "format1",
      [](hid_t f) {
        const hsize_t one = 1;
        const hid_t sp = H5Screate_simple(1, &one, nullptr);
        const hid_t d = H5Dcreate2(f, "meta_step", H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        const int64_t v = 10;
        H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v);
        H5Dclose(d), H5Sclose(sp);
      },
      1);
  try {
    wmd::io::read_checkpoint(path, wmd::SourcePos{"in.x", 3});
    FAIL() << "accepted";
  } catch (const wmd::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has format 1"), std::string::npos) << e.what();
  }
}

TEST(Hostile, CheckpointErrorInsideTheHdf5CallbackIsReportedNotThrownThroughC) {
  // A fixed-length string cannot be read as the variable-length text we write: read_string_dataset throws
  // inside H5Ovisit's callback, which must catch it and report after the visit.
  const std::string path = handmade("fixedstr", [](hid_t f) {
    const hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, 8);
    const hid_t sp = H5Screate(H5S_SCALAR);
    const hid_t d = H5Dcreate2(f, "meta_backend", t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, "cluster\0");
    H5Dclose(d), H5Sclose(sp), H5Tclose(t);
  });
  EXPECT_THROW(wmd::io::read_checkpoint(path, wmd::SourcePos{"in.x", 3}), wmd::InputError);
  const auto r =
      run_wafermd_in(fixture().dir, "run in.md --var n 10 --output out_fixed --restart fixedstr.h5");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "HDF5's own error stack printed:\n" << r.err;
}

bool same(const CheckpointData& a, const CheckpointData& b) {
  // Bitwise: NaN payloads and signed zeros count.
  auto bits = [](const std::map<std::string, std::vector<double>>& m) {
    std::map<std::string, std::vector<uint64_t>> out;
    for (const auto& [k, v] : m) {
      auto& o = out[k];
      o.resize(v.size());
      if (!v.empty()) std::memcpy(o.data(), v.data(), v.size() * 8);
    }
    return out;
  };
  return bits(a.reals) == bits(b.reals) && a.ints == b.ints && a.texts == b.texts;
}

// Flips one byte at each of many offsets of a real checkpoint: every flipped file is refused (InputError) or
// reads back as exactly the intact data (a byte HDF5 does not use), which then restarts exactly as it.
TEST(Hostile, CheckpointBitFlipsAreRefusedOrHarmless) {
  const std::string src = fixture().dir + "/first/checkpoint.h5";
  std::ifstream in(src, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 1000u);
  int refused = 0, harmless = 0;
  const size_t stride = std::max<size_t>(1, bytes.size() / 400);
  for (size_t off = 0; off < bytes.size(); off += stride) {
    std::string flipped = bytes;
    flipped[off] = static_cast<char>(flipped[off] ^ (1 << (off % 8)));
    const std::string path = fixture().dir + "/flip.h5";
    std::ofstream(path, std::ios::binary) << flipped;
    try {
      const CheckpointData d = wmd::io::read_checkpoint(path, wmd::SourcePos{"test", 0});
      wmd::md::check_checkpoint(d, "flip", wmd::SourcePos{"test", 0});
      EXPECT_TRUE(same(d, fixture().good)) << "a flip at byte " << off << " was read as other data";
      ++harmless;
    } catch (const wmd::InputError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 0);
  std::printf("%d flips refused, %d harmless\n", refused, harmless);
}

// End to end on a few flips inside the atom data: exit 2, never a run from altered atoms.
TEST(Hostile, CheckpointBitFlipsInTheAtomDataEndWithExit2) {
  const std::string& dir = fixture().dir;
  std::ifstream in(dir + "/first/checkpoint.h5", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The x array's bytes: find the first atom's x value in the file.
  const double x0 = fixture().good.reals.at("atoms/x")[0];
  std::string pat(8, '\0');
  std::memcpy(pat.data(), &x0, 8);
  const size_t at = bytes.find(pat);
  ASSERT_NE(at, std::string::npos);
  for (size_t k : {size_t(0), size_t(3), size_t(7), size_t(64), size_t(801)}) {
    std::string flipped = bytes;
    flipped[at + k] = static_cast<char>(flipped[at + k] ^ 0x10);
    std::ofstream(dir + "/flip_e2e.h5", std::ios::binary) << flipped;
    const auto r = run_wafermd_in(dir, "run in.md --var n 10 --output out_flip --restart flip_e2e.h5");
    EXPECT_EQ(r.status, 2) << "byte " << at + k << ": " << r.err;
    EXPECT_NE(r.err.find("checksum"), std::string::npos) << r.err;
  }
}

// ---- Each fix's checkpointed state against its own definition (issue 46) ----

const char* kFixInput =
    "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 3 0 3 0 3\n"
    "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 Cu_u3.eam\n"
    "velocity all create 600 87287 loop geom\nneighbor 0.3 bin\nneigh_modify every 1 delay 0 check yes\n"
    "timestep 0.002\ncompute cc all chunk/atom bin/1d x lower 0.25 units reduced\n"
    "fix ac all ave/chunk 2 2 4 cc vx density/mass ave window 3\n"
    "fix at all ave/time 2 2 4 c_thermo_temp c_thermo_pe ave window 3\n"
    "fix lg all langevin 600 600 0.1 48279\nfix vc all vector 2 c_thermo_temp c_thermo_press\n"
    "fix ah all ave/histo 2 2 4 -0.1 0.1 10 vx mode vector ave window 3\nfix aa all ave/atom 2 2 4 vx\n"
    "fix co all ave/correlate 2 3 6 c_thermo_temp c_thermo_pe\nfix dr all dt/reset 5 NULL 0.002 0.1 units "
    "box\n"
    "fix 1 all nve\nthermo 10\nrun ${n}\n";

// A checkpoint at step 10 of kFixInput (fix ave/chunk, ave/time with windows, langevin, vector,
// ave/correlate, dt/reset), once per process.
const Fixture& fix_fixture() {
  static const Fixture f("checkpoint_fixstate_", kFixInput);
  return f;
}

// Replaces one rank-split fix-state dataset of a one-rank checkpoint, its counts following.
void set_state(CheckpointData& d, const std::string& key, std::vector<double> v) {
  d.ints[key + ".counts"] = {static_cast<int64_t>(v.size())};
  d.reals[key] = std::move(v);
}

TEST(Hostile, FixStateIntactRestarts) {
  const auto r = restart_with(fix_fixture().good, "intact", fix_fixture());
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(Hostile, FixAveChunkShortArrayIsRefused) {
  expect_refused(
      [](CheckpointData& d) {
        std::vector<double> v = d.reals.at("fixes/ac/total");
        v.resize(v.size() / 2);
        set_state(d, "fixes/ac/total", v);
      },
      "ac_short", "fix ac (ave/chunk): state 'total' has", fix_fixture());
  expect_refused(
      [](CheckpointData& d) {
        std::vector<double> v = d.reals.at("fixes/ac/counters");
        v[5] *= 4;  // more chunks than the arrays hold
        set_state(d, "fixes/ac/counters", v);
      },
      "ac_nchunk", "fix ac (ave/chunk): state 'many' has", fix_fixture());
  expect_refused(
      [](CheckpointData& d) {
        std::vector<double> v = d.reals.at("fixes/ac/counters");
        v[3] = 7;  // window index past a window of 3
        set_state(d, "fixes/ac/counters", v);
      },
      "ac_iwindow", "fix ac (ave/chunk): state 'counters' value 3 (7)", fix_fixture());
  expect_refused(
      [](CheckpointData& d) { d.reals.erase("fixes/ac/many"), d.ints.erase("fixes/ac/many.counts"); },
      "ac_missing", "fix ac (ave/chunk): state 'many' is missing", fix_fixture());
}

TEST(Hostile, FixAveTimeWindowIndexOutOfRangeIsRefused) {
  for (double bad : {3.0, -1.0, 1e300, std::nan("")}) {
    expect_refused(
        [bad](CheckpointData& d) {
          std::vector<double> v = d.reals.at("fixes/at/counters");
          v[3] = bad;
          set_state(d, "fixes/at/counters", v);
        },
        "at_iwindow", "fix at (ave/time): state 'counters' value 3", fix_fixture());
  }
}

TEST(Hostile, FixLangevinRngStateIsChecked) {
  expect_refused(
      [](CheckpointData& d) {
        std::vector<double> v = d.reals.at("fixes/lg/random");
        v[97] = std::nan("");
        set_state(d, "fixes/lg/random", v);
      },
      "lg_nan_index", "fix lg (langevin): state 'random' value 97", fix_fixture());
  expect_refused(
      [](CheckpointData& d) {
        std::vector<double> v = d.reals.at("fixes/lg/random");
        v[98] = 500;
        set_state(d, "fixes/lg/random", v);
      },
      "lg_index", "fix lg (langevin): state 'random' value 98", fix_fixture());
  expect_refused(
      [](CheckpointData& d) {
        std::vector<double> v = d.reals.at("fixes/lg/random");
        v[5] = std::numeric_limits<double>::infinity();
        set_state(d, "fixes/lg/random", v);
      },
      "lg_inf", "fix lg (langevin): state 'random' value 5 is not finite", fix_fixture());
  expect_refused(
      [](CheckpointData& d) {
        set_state(d, "fixes/lg/random", {0.5, 0.25});
      },
      "lg_short", "fix lg (langevin): state 'random' has 2 values, expected 100", fix_fixture());
}

// Every fix-state dataset of `fx`'s checkpoint, truncated, extended, NaN, huge or negative in turn: the
// restart ends with exit 0 or 2, never a signal.
void fuzz_fix_states(const Fixture& fx, size_t min_keys) {
  const CheckpointData& good = fx.good;
  std::vector<std::string> keys;
  for (const auto& [key, v] : good.reals)
    if (key.rfind("fixes/", 0) == 0 && good.ints.count(key + ".counts")) keys.push_back(key);
  ASSERT_GE(keys.size(), min_keys);
  const std::vector<std::function<void(std::vector<double>&)>> edits = {
      [](std::vector<double>& v) { v.resize(v.size() / 2); },
      [](std::vector<double>& v) { v.resize(v.size() * 2 + 3, 1.0); },
      [](std::vector<double>& v) { v.assign(v.size(), std::nan("")); },
      [](std::vector<double>& v) { v.assign(v.size(), 1e300); },
      [](std::vector<double>& v) { v.assign(v.size(), -7.0); },
  };
  int refused = 0;
  for (const std::string& key : keys)
    for (size_t e = 0; e < edits.size(); ++e) {
      CheckpointData d = good;
      std::vector<double> v = d.reals.at(key);
      edits[e](v);
      set_state(d, key, v);
      const auto r = restart_with(d, "fuzz", fx);
      EXPECT_TRUE(r.status == 0 || r.status == 2)
          << key << " edit " << e << ": status " << r.status << " " << r.err;
      if (r.status == 2) {
        ++refused;
        EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << key << " edit " << e << ": " << r.err;
      }
    }
  EXPECT_GT(refused, 0);
}

TEST(Hostile, FixStateFuzzEndsCleanly) {
  fuzz_fix_states(fix_fixture(), 8);
}

// fix deposit's Park-Miller seed and counters: a seed of 0 (a generator stuck at 0) or a fractional count is
// refused, not run on.
TEST(Hostile, FixDepositStateIsChecked) {
  const std::string dir = wmd::test::scratch_dir("checkpoint_fixstate_deposit");
  std::string input = kInput;
  input.replace(input.find("fix 1 all nve"), 13,
                "change_box all z final 0 21.69 units box\n"
                "region dep block 0 3 0 3 4 5\nfix dep all deposit 4 1 5 12345 region dep near 1.0\n"
                "fix 1 all nve");
  std::ofstream(dir + "/in.md") << input;
  const auto first =
      run_wafermd_in(dir, "run in.md --var n 10 --set output.checkpoint_every=10 --output first");
  ASSERT_EQ(first.status, 0) << first.err;
  const CheckpointData good =
      wmd::io::read_checkpoint(dir + "/first/checkpoint.h5", wmd::SourcePos{"test", 0});
  ASSERT_EQ(good.reals.count("fixes/dep/deposit"), 1u);
  for (const auto& [k, bad] :
       std::vector<std::pair<size_t, double>>{{0, 0.0}, {0, std::nan("")}, {1, 1.5}, {3, -4}}) {
    CheckpointData d = good;
    std::vector<double> v = d.reals.at("fixes/dep/deposit");
    v[k] = bad;
    set_state(d, "fixes/dep/deposit", v);
    wmd::io::write_checkpoint(dir + "/bad.h5", d);
    const auto r = run_wafermd_in(dir, "run in.md --var n 10 --output out_bad --restart bad.h5");
    EXPECT_EQ(r.status, 2) << k << " " << bad << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("fix dep (deposit): state 'deposit' value " + std::to_string(k)), std::string::npos)
        << r.err;
  }
}

// ---- The other styles with state (issue 46): thermostats, springs, stored values, move, deform, ttm ----

const char* kFixInput2 =
    "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 3 0 3 0 3\n"
    "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 Cu_u3.eam\n"
    "velocity all create 600 87287 loop geom\nneighbor 0.3 bin\nneigh_modify every 1 delay 0 check yes\n"
    "timestep 0.002\nregion top block INF INF INF INF 2 3\ngroup top region top\n"
    "group rest subtract all top\nfix nh rest nvt temp 600 600 0.1\n"
    "fix mv top move linear 0 0 0 units box\nfix ss all spring/self 0.05\n"
    "fix st all store/state 2 x vx\nfix sp all spring tether 0.1 4.0 NULL NULL 0.0\n"
    "fix tc all thermal/conductivity 5 z 4\n"
    "fix bl all balance 5 1.1 shift x 5 1.05\nfix tb rest temp/berendsen 600 600 0.1\n"
    "fix tr rest temp/rescale 5 600 600 10 0.5\nfix es all electron/stopping/fit 3.49 1.8e-3 9.0e-8\n"
    "thermo 10\nrun ${n}\n";

const char* kFixInput3 =
    "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 3 0 3 0 3\n"
    "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 Cu_u3.eam\n"
    "velocity all create 600 87287 loop geom\nneighbor 0.3 bin\nneigh_modify every 1 delay 0 check yes\n"
    "timestep 0.002\nfix nl all nve/limit 0.1\nfix df all deform 1 x scale 1.01 remap x\n"
    "fix tt all ttm 342785 1.2470e-5 0.087614 0.005365 29.5917 47.5679 58.4613 3 3 3\n"
    "fix el all electron/stopping 0.05 Cu.elstop\n"
    "thermo 10\nrun ${n}\n";

// Checkpoints at step 10 of kFixInput2 and kFixInput3, once per process.
const Fixture& fix_fixture2() {
  static const Fixture f("checkpoint_fixstate2_", kFixInput2);
  return f;
}
const Fixture& fix_fixture3() {
  static const Fixture f("checkpoint_fixstate3_", kFixInput3,
                         "# E (eV) S_e (eV/A)\n0 0.0\n10 0.5\n100000 5.0\n");
  return f;
}

// Sets value k of the fix-state dataset `key` (k = SIZE_MAX: drops the last value) and expects the restart
// refused naming `needle`.
void expect_state_refused(const Fixture& fx, const std::string& key, size_t k, double bad,
                          const std::string& needle) {
  expect_refused(
      [&](CheckpointData& d) {
        std::vector<double> v = d.reals.at(key);
        if (k == SIZE_MAX)
          v.pop_back();
        else
          v.at(k) = bad;
        set_state(d, key, v);
      },
      "state_bad", needle, fx);
}

// Gives the second record of `key` (records of `width`) the first record's atom id.
void expect_duplicate_id(const Fixture& fx, const std::string& key, size_t width, const std::string& needle) {
  expect_refused(
      [&](CheckpointData& d) {
        std::vector<double> v = d.reals.at(key);
        v.at(width) = v.at(0);
        set_state(d, key, v);
      },
      "state_dup", needle, fx);
}

// The intact checkpoints restart; kFixInput2's continues bit for bit as the same input with its two runs in
// one script (a second `run` sets the fixes up again, as the restart does: nvt's current temperature).
// kFixInput3's deform and ttm restart as interrupted runs (FixTtm.CheckpointContinuesBitIdentically).
// The last row of a thermo.csv.
std::string last_thermo_row(const std::string& csv) {
  const std::string body = csv.substr(0, csv.find_last_not_of('\n') + 1);
  return body.substr(body.rfind('\n') + 1);
}

// The intact checkpoint of fx's input (written at the end of its `run 10`) restarts with 10 more steps and
// ends at step 20 on the last thermo row of the same script run with `runs` ("run 20": the uninterrupted
// run; "run 10\nrun 10": where the fixes' set-up at a run's start changes the sums, as nvt's), bit for bit.
void expect_intact_restart_matches(const Fixture& fx, const std::string& runs) {
  const auto r = restart_with(fx.good, "intact", fx);
  ASSERT_EQ(r.status, 0) << r.err;
  std::string other = wmd::test::slurp(fx.dir + "/in.md");
  other.replace(other.find("run ${n}"), 8, runs);
  std::ofstream(fx.dir + "/in_other.md") << other;
  const auto t = run_wafermd_in(fx.dir, "run in_other.md --output out_other");
  ASSERT_EQ(t.status, 0) << t.err;
  const std::string a = last_thermo_row(wmd::test::slurp(fx.dir + "/out_intact/thermo.csv"));
  EXPECT_EQ(a.rfind("20,", 0), 0u) << a;
  EXPECT_EQ(a, last_thermo_row(wmd::test::slurp(fx.dir + "/out_other/thermo.csv")));
}

TEST(Hostile, FixStateIntactRestartsOtherStyles) {
  const auto r = restart_with(fix_fixture3().good, "intact", fix_fixture3());
  ASSERT_EQ(r.status, 0) << r.err;
  expect_intact_restart_matches(fix_fixture2(), "run 10\nrun 10");
}

TEST(Hostile, FixNhStateIsChecked) {
  const Fixture& fx = fix_fixture2();
  expect_state_refused(fx, "fixes/nh/eta", SIZE_MAX, 0,
                       "fix nh (nvt): state 'eta' has 16 values, expected 17");
  expect_state_refused(fx, "fixes/nh/eta_dot", 2, NAN, "fix nh (nvt): state 'eta_dot' value 2 is not finite");
  expect_state_refused(fx, "fixes/nh/vol0", 0, -3, "fix nh (nvt): state 'vol0' value 0 (-3) is below 0");
  expect_state_refused(fx, "fixes/nh/h0_inv", 4, INFINITY, "fix nh (nvt): state 'h0_inv' value 4");
  expect_state_refused(fx, "fixes/nh/eta_dot", 0, -1e300,
                       "fix nh (nvt): state 'eta_dot' value 0 is beyond 10^6 per damping period");
}

TEST(Hostile, FixReferencePositionStateIsChecked) {
  const Fixture& fx = fix_fixture2();
  expect_state_refused(fx, "fixes/ss/reference", SIZE_MAX, 0, "fix ss (spring/self): state 'reference' has");
  expect_state_refused(fx, "fixes/ss/reference", 5, NAN,
                       "fix ss (spring/self): state 'reference' value 5 is not finite");
  expect_duplicate_id(fx, "fixes/ss/reference", 4, "fix ss (spring/self): state 'reference' value 4 repeats");
  expect_state_refused(fx, "fixes/ss/reference", 0, -2,
                       "fix ss (spring/self): state 'reference' value 0 (-2)");
  expect_state_refused(fx, "fixes/mv/reference", 8, 0.5, "fix mv (move): state 'reference' value 8 (0.5)");
  expect_state_refused(fx, "fixes/mv/time_origin", 0, -1, "fix mv (move): state 'time_origin' value 0 (-1)");
}

TEST(Hostile, FixStoreStateIsChecked) {
  const Fixture& fx = fix_fixture2();
  expect_state_refused(fx, "fixes/st/values", SIZE_MAX, 0, "fix st (store/state): state 'values' has");
  expect_state_refused(fx, "fixes/st/values", 3, 1e300, "fix st (store/state): state 'values' value 3");
  expect_state_refused(fx, "fixes/st/first", 0, 0.5, "fix st (store/state): state 'first' value 0 (0.5)");
}

TEST(Hostile, FixScalarStatesAreChecked) {
  const Fixture& fx = fix_fixture2();
  expect_state_refused(fx, "fixes/tb/energy", 0, NAN, "fix tb (temp/berendsen): state 'energy' value 0");
  expect_state_refused(fx, "fixes/tr/energy", 0, INFINITY, "fix tr (temp/rescale): state 'energy' value 0");
  expect_state_refused(fx, "fixes/sp/spring", 3, NAN, "fix sp (spring): state 'spring' value 3");
  expect_state_refused(fx, "fixes/sp/spring", SIZE_MAX, 0, "fix sp (spring): state 'spring' has 4 values");
  expect_state_refused(fx, "fixes/tc/e_exchange", 0, NAN,
                       "fix tc (thermal/conductivity): state 'e_exchange' value 0");
  expect_state_refused(fx, "fixes/bl/imbalance", 0, -7, "fix bl (balance): state 'imbalance' value 0 (-7)");
  expect_state_refused(fx, "fixes/es/tally", 2, -4, "fix es (electron/stopping/fit): state 'tally' value 2");
  expect_state_refused(fx, "fixes/es/tally", 0, NAN, "fix es (electron/stopping/fit): state 'tally' value 0");
  const Fixture& f3 = fix_fixture3();
  expect_state_refused(f3, "fixes/nl/local_count", 0, 2.5, "fix nl (nve/limit): state 'local_count' value 0");
  expect_state_refused(f3, "fixes/el/energy_removed", 0, NAN,
                       "fix el (electron/stopping): state 'energy_removed' value 0 is not finite");
}

TEST(Hostile, FixDeformStateIsChecked) {
  const Fixture& fx = fix_fixture3();
  expect_state_refused(fx, "fixes/df/deform_flip", 1, 7, "fix df (deform): state 'deform_flip' value 1 (7)");
  expect_state_refused(fx, "fixes/df/deform_flip", 0, 1,
                       "fix df (deform): state 'deform_flip' has a flip flag");
  expect_state_refused(fx, "fixes/df/deform_flip", 5, NAN, "fix df (deform): state 'deform_flip' value 5");
  expect_state_refused(fx, "fixes/df/deform_initial", 1, NAN,
                       "fix df (deform): state 'deform_initial' value 1");
  expect_state_refused(fx, "fixes/df/deform_styles", SIZE_MAX, 0,
                       "fix df (deform): state 'deform_styles' has 11 values");
}

TEST(Hostile, FixTtmStateIsChecked) {
  const Fixture& fx = fix_fixture3();
  expect_state_refused(fx, "fixes/tt/grid", 0, 4, "must restart with the same grid size (saved 4 3 3)");
  expect_state_refused(fx, "fixes/tt/grid", 1, NAN, "fix tt (ttm): state 'grid' value 1");
  expect_state_refused(fx, "fixes/tt/temperature", 7, NAN,
                       "fix tt (ttm): state 'temperature' value 7 is not finite");
  expect_state_refused(fx, "fixes/tt/temperature", 3, -20, "fix tt (ttm): state 'temperature' value 3 (-20)");
  expect_state_refused(fx, "fixes/tt/temperature", SIZE_MAX, 0,
                       "fix tt (ttm): state 'temperature' has 26 values, expected 27");
  expect_state_refused(fx, "fixes/tt/transfer", 2, INFINITY, "fix tt (ttm): state 'transfer' value 2");
}

TEST(Hostile, FixVectorCountersMustAgree) {
  // data holds ncount rows; the counters must also say that many samples were taken every Nevery steps.
  const Fixture& fx = fix_fixture();
  expect_state_refused(fx, "fixes/vc/counters", 1, 1e12, "fix vc (vector): state 'counters' value 1");
  expect_state_refused(fx, "fixes/vc/counters", 2, 1, "fix vc (vector): state 'counters' value 2 (1)");
}

TEST(Hostile, FixAveAtomRecordsAreChecked) {
  const Fixture& fx = fix_fixture();
  expect_duplicate_id(fx, "fixes/aa/sum", 2, "fix aa (ave/atom): state 'sum' value 2 repeats atom id");
  expect_state_refused(fx, "fixes/aa/counters", 0, 2, "fix aa (ave/atom): state 'counters' value 0 (2)");
}

TEST(Hostile, FixStateFuzzEndsCleanlyOtherStyles) {
  fuzz_fix_states(fix_fixture2(), 12);
  fuzz_fix_states(fix_fixture3(), 6);
}

// On 3 ranks a refusal on one rank only (rank 1's part of store/state's values) ends every rank with exit 2,
// and the one `error:` line is that rank's own (style and key), not a bare "refused on rank 1".
TEST(Hostile, FixStateRefusedOnOneRankEndsEveryRank) {
  const std::string dir = wmd::test::scratch_dir("checkpoint_fixstate_3ranks");
  std::ofstream(dir + "/in.md") << kFixInput2;
  const std::string mpi =
      "mpirun --allow-run-as-root --oversubscribe -np 3 '" + std::string(WAFERMD_EXE) + "' ";
  const auto first =
      wmd::test::run_shell(dir, mpi + "run in.md --var n 10 --set output.checkpoint_every=10 --output first");
  ASSERT_EQ(first.status, 0) << first.err;
  CheckpointData d = wmd::io::read_checkpoint(dir + "/first/checkpoint.h5", wmd::SourcePos{"test", 0});
  const std::vector<int64_t>& counts = d.ints.at("fixes/st/values.counts");
  ASSERT_EQ(counts.size(), 3u);
  ASSERT_GT(counts[1], 0);
  d.reals.at("fixes/st/values").at(static_cast<size_t>(counts[0])) = 0.5;  // rank 1's first atom id
  wmd::io::write_checkpoint(dir + "/bad.h5", d);
  const auto r = wmd::test::run_shell(dir, mpi + "run in.md --var n 10 --output out_bad --restart bad.h5");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  // One `error:` line (from rank 0); mpirun adds its own banner about the exit status after it.
  EXPECT_EQ(r.err.find("error: ", 1), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fix st (store/state): state 'values' value 0 (0.5)"), std::string::npos) << r.err;
}

// The computes with a reference (msd, vacf, displace/atom, voronoi/atom) check a state handed to them the
// same way (no checkpoint carries compute state today, so this calls restore_state directly): the intact
// state comes back equal, a damaged one is an InputError naming the compute, its style and the key.
TEST(Hostile, ComputeStateIsChecked) {
  wmd::test::ScriptRun run(
      "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 2 0 2 0 2\n"
      "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 Cu_u3.eam\n"
      "velocity all create 300 5 loop geom\ntimestep 0.002\nfix 1 all nve\ncompute m all msd\n"
      "compute va all vacf\ncompute da all displace/atom\ncompute v all voronoi/atom occupation\n"
      "compute r all reduce max c_v[2] c_da[4]\nthermo_style custom step c_m[4] c_va[4] c_r[1] c_r[2]\n"
      "thermo 1\nrun 2\n",
      wmd::test::scratch_dir("checkpoint_compute_state"));
  struct Case {
    const char* id;
    const char* key;
    size_t at;
    double bad;
    const char* needle;
  };
  const Case cases[] = {
      {"m", "reference", 2, NAN, "compute m (msd): state 'reference' value 2 is not finite"},
      {"m", "cm0", 1, INFINITY, "compute m (msd): state 'cm0' value 1 is not finite"},
      {"va", "reference", 0, 0.0, "compute va (vacf): state 'reference' value 0 (0) is not an integer"},
      {"da", "reference", 4, -1.0, "compute da (displace/atom): state 'reference' value 4 (-1)"},
      {"v", "sites", 4, 0.5, "compute v (voronoi/atom): state 'sites' value 4 (0.5)"},
      {"v", "box", 0, 1e9, "compute v (voronoi/atom): state 'box' value 0 is not below its hi"},
  };
  for (const Case& c : cases) {
    wmd::md::Compute* comp = run.sim->compute(c.id);
    ASSERT_NE(comp, nullptr) << c.id;
    wmd::md::NamedArrays saved, again;
    comp->save_state(saved);
    ASSERT_TRUE(saved.count(c.key)) << c.id << " " << c.key;
    comp->restore_state(saved);
    comp->save_state(again);
    EXPECT_EQ(saved.size(), again.size()) << c.id;
    wmd::md::NamedArrays bad = saved;
    bad.at(c.key).at(c.at) = c.bad;
    try {
      comp->restore_state(bad);
      ADD_FAILURE() << c.needle << ": accepted";
    } catch (const wmd::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.needle), std::string::npos) << e.what();
    }
    bad = saved;
    bad.at(c.key).pop_back();
    EXPECT_THROW(comp->restore_state(bad), wmd::InputError) << c.id << " " << c.key << " short";
  }
}

}  // namespace

namespace {

// fix recenter refuses an empty group where it is defined, as LAMMPS; a --restart replay has no atoms yet
// there (they come with the checkpoint), so the intact checkpoint of an input with fix recenter must restart,
// and continue with the INIT centre of the run it interrupted, ending as the uninterrupted run does.
const char* kRecenterInput =
    "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 3 0 3 0 3\n"
    "create_box 1 box\ncreate_atoms 1 box\npair_style eam\n"
    "pair_coeff 1 1 Cu_u3.eam\nvelocity all create 600 87287 loop geom\n"
    "fix 1 all nve\nfix 2 all recenter INIT INIT INIT\nthermo 10\nrun ${n}\n";

}  // namespace

TEST(Hostile, FixRecenterInputRestarts) {
  expect_intact_restart_matches(Fixture("checkpoint_recenter_", kRecenterInput), "run 20");
}

// compute msd, vacf and displace/atom measure from the positions and velocities at their definition: a
// checkpoint keeps those (as LAMMPS's restart files keep their fix STORE), so a restart continues the same
// values instead of starting again from the restart's positions (msd 0 at the restart's first row before).
TEST(Hostile, ComputeReferencesContinueAcrossARestart) {
  static const char* kInput =
      "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 3 0 3 0 3\n"
      "create_box 1 box\ncreate_atoms 1 box\npair_style eam\n"
      "pair_coeff 1 1 Cu_u3.eam\nvelocity all create 600 87287 loop geom\nfix 1 all nve\n"
      "compute msd all msd com yes\ncompute vacf all vacf\ncompute d all displace/atom\n"
      "compute dsum all reduce sum c_d[4]\nthermo_style custom step temp c_msd[4] c_vacf[4] c_dsum\n"
      "thermo 10\nrun ${n}\n";
  expect_intact_restart_matches(Fixture("checkpoint_computes_", kInput), "run 20");
}
