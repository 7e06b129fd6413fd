// LAMMPS data files: write/read round trip keeps every bit; malformed files name the line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "io/lammps_data.hpp"

namespace {

using namespace wmd::io;

std::string dir() {
  const std::string d = std::string(WAFERMD_BINARY_DIR) + "/test_scratch/io";
  std::filesystem::create_directories(d);
  return d;
}

TEST(LammpsData, RoundTripIsBitExact) {
  DataFile d;
  d.ntypes = 2;
  d.mass = {0.0, 63.55, 58.6934};
  for (int k = 0; k < 3; ++k) d.lo[k] = -0.1 * k, d.hi[k] = 10.0 / 3.0 + k;
  d.has_velocities = true;
  for (int i = 0; i < 5; ++i) {
    d.id.push_back(i + 1), d.type.push_back(1 + i % 2);
    d.x.push_back(0.1 * i + 1.0 / 3.0), d.y.push_back(1.0 / 7.0 * i), d.z.push_back(2.0 / 9.0);
    d.ix.push_back(i - 2), d.iy.push_back(0), d.iz.push_back(1);
    d.vx.push_back(-1.0 / 11.0 * i), d.vy.push_back(1e-17), d.vz.push_back(3.0);
  }
  const std::string path = dir() + "/rt.data";
  ASSERT_TRUE(write_lammps_data(path, d));
  const DataFile r = read_lammps_data(path, wmd::SourcePos{});
  EXPECT_EQ(r.id, d.id);
  EXPECT_EQ(r.type, d.type);
  EXPECT_EQ(r.x, d.x);
  EXPECT_EQ(r.y, d.y);
  EXPECT_EQ(r.vx, d.vx);
  EXPECT_EQ(r.ix, d.ix);
  EXPECT_EQ(r.mass, d.mass);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(r.hi[k], d.hi[k]);
}

TEST(LammpsData, MalformedAtomLineNamesItsLine) {
  const std::string path = dir() + "/bad.data";
  std::ofstream(path) << "title\n\n2 atoms\n1 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n0 1 zlo zhi\n\nAtoms\n\n"
                         "1 1 0.1 0.2 0.3\n2 1 0.5 zz 0.5\n";
  try {
    read_lammps_data(path, wmd::SourcePos{});
    FAIL();
  } catch (const wmd::InputError& e) {
    EXPECT_EQ(e.line(), 12);
    EXPECT_NE(std::string(e.what()).find("'zz'"), std::string::npos);
  }
}

TEST(LammpsData, TiltFactorsRoundTripBitExact) {
  DataFile d;
  d.ntypes = 1;
  d.mass = {0.0, 63.55};
  for (int k = 0; k < 3; ++k) d.lo[k] = -0.1 * k, d.hi[k] = 10.0 / 3.0 + k;
  d.triclinic = true;
  d.xy = 1.0 / 3.0, d.xz = -2.0 / 7.0, d.yz = 0.0;
  d.id = {1}, d.type = {1}, d.x = {0.5}, d.y = {0.25}, d.z = {1.0 / 9.0}, d.ix = {1}, d.iy = {-2}, d.iz = {0};
  const std::string path = dir() + "/tri_rt.data";
  ASSERT_TRUE(write_lammps_data(path, d));
  const DataFile r = read_lammps_data(path, wmd::SourcePos{});
  EXPECT_TRUE(r.triclinic);
  EXPECT_EQ(r.xy, d.xy);
  EXPECT_EQ(r.xz, d.xz);
  EXPECT_EQ(r.yz, d.yz);
  EXPECT_EQ(r.x, d.x);
  EXPECT_EQ(r.iy, d.iy);
  // An orthogonal box's file has no tilt line, as LAMMPS writes it.
  d.triclinic = false, d.xy = d.xz = 0.0;
  ASSERT_TRUE(write_lammps_data(path, d));
  EXPECT_FALSE(read_lammps_data(path, wmd::SourcePos{}).triclinic);
}

TEST(LammpsData, BadTiltLinesNameTheirLine) {
  const std::string head = "title\n\n1 atoms\n1 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n0 1 zlo zhi\n";
  const std::string tail = "\nAtoms\n\n1 1 0.1 0.2 0.3\n";
  for (const char* line : {"0.1 0 xy xz yz", "0.1 0 0 xy xz", "0.1 zz 0 xy xz yz", "nan 0 0 xy xz yz",
                           "0 0 0 xy yz xz"}) {
    const std::string path = dir() + "/tri_bad.data";
    std::ofstream(path) << head << line << "\n" << tail;
    try {
      read_lammps_data(path, wmd::SourcePos{});
      ADD_FAILURE() << line;
    } catch (const wmd::InputError& e) {
      EXPECT_EQ(e.line(), 8) << line << ": " << e.what();
    }
  }
}

}  // namespace
