// io/ units of trajectories and checkpoints: checkpoint arrays survive the file and the byte form exactly;
// a reopened trajectory drops frames after the kept step; bad frames are refused.
#include <gtest/gtest.h>

#include <filesystem>

#include "io/checkpoint.hpp"
#include "io/h5md_writer.hpp"
#include "scratch_file.hpp"

namespace {

using namespace wmd::io;

std::string scratch_path(const std::string& name) {
  const std::string dir = std::string(WAFERMD_BINARY_DIR) + "/test_scratch/io";
  std::filesystem::create_directories(dir);
  return dir + "/" + name;
}

CheckpointData sample() {
  CheckpointData d;
  d.reals["atoms/x"] = {0.1, -2.5e-300, 1.0 / 3.0};
  d.reals["fixes/lang/rng"] = {};
  d.ints["meta/step"] = {1234567890123LL};
  d.ints["atoms/id"] = {3, 1, 2};
  d.texts["meta/physics_hash"] = "0123456789abcdef";
  d.texts["groups/names"] = "all\nhot";
  return d;
}

void expect_equal(const CheckpointData& a, const CheckpointData& b) {
  EXPECT_EQ(a.reals, b.reals);
  EXPECT_EQ(a.ints, b.ints);
  EXPECT_EQ(a.texts, b.texts);
}

TEST(Checkpoint, FileRoundTripIsExactAndLeavesNoTemporary) {
  const std::string path = scratch_path("ck.h5");
  write_checkpoint(path, sample());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  expect_equal(read_checkpoint(path, wmd::SourcePos{"t", 1}), sample());
}

TEST(Checkpoint, ByteFormRoundTripIsExact) {
  expect_equal(CheckpointData::from_bytes(sample().to_bytes()), sample());
}

TEST(Checkpoint, UnreadableFilesAreInputErrors) {
  EXPECT_THROW(read_checkpoint(scratch_path("none.h5"), wmd::SourcePos{"t", 1}), wmd::InputError);
  const std::string junk = wmd::test::write_scratch("junk.h5", "not an HDF5 file");
  EXPECT_THROW(read_checkpoint(junk, wmd::SourcePos{"t", 1}), wmd::InputError);
}

TEST(Checkpoint, HashIsFnv1a) {
  EXPECT_EQ(fnv1a_hex(""), "cbf29ce484222325");
  EXPECT_EQ(fnv1a_hex("a"), "af63dc4c8601ec8c");
}

H5mdFrame frame(int64_t step, int n) {
  H5mdFrame f;
  f.step = step;
  f.time = 0.001 * step;
  f.edges[0] = f.edges[1] = f.edges[2] = 10.0;
  f.position.assign(3 * n, 0.5 * step);
  f.id.resize(n);
  for (int i = 0; i < n; ++i) f.id[i] = i + 1;
  f.observables.push_back({"temperature", "K", 300.0 + step});
  return f;
}

TEST(H5md, ReopenDropsFramesAfterTheKeptStepAndAppends) {
  H5mdSetup s;
  s.path = scratch_path("traj.h5");
  s.fields = {"position", "id"};
  s.natoms = 4;
  {
    H5mdWriter w;
    w.create(s);
    for (int64_t step : {0, 10, 20, 30}) w.write_frame(frame(step, 4));
    EXPECT_EQ(w.frames(), 4);
  }
  H5mdWriter w;
  EXPECT_EQ(w.reopen(s, 15), 2);
  EXPECT_EQ(w.last_step(), 10);
  w.write_frame(frame(20, 4));
  EXPECT_EQ(w.frames(), 3);
  EXPECT_THROW(w.write_frame(frame(30, 3)), wmd::RunError);  // wrong atom count
  H5mdSetup other = s;
  other.natoms = 5;
  H5mdWriter w2;
  EXPECT_THROW(w2.reopen(other, 100), wmd::RunError);
}

}  // namespace
