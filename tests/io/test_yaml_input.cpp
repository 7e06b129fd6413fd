// Native YAML: translation into commands, --set overrides, and errors that name the YAML line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "io/yaml_input.hpp"
#include "scratch_file.hpp"

namespace {

using namespace wmd::io;

std::string write(const std::string& name, const std::string& text) {
  return wmd::test::write_scratch(name, text);
}

const char* kGood =
    "system:\n"
    "  lattice: {style: fcc, constant: 3.615}\n"
    "  cells: [3, 3, 3]\n"
    "potential:\n"
    "  style: eam\n"
    "  files: [Cu_u3.eam]\n"
    "velocity: {temperature: 300, seed: 42, loop: geom}\n"
    "timestep: 0.002\n"
    "run: 10\n";

TEST(YamlInput, TranslatesToLammpsCommandsInOrder) {
  const auto in = read_yaml_input(write("good.yaml", kGood), {});
  std::vector<std::string> names;
  for (const auto& c : in.commands) names.push_back(c.name);
  const std::vector<std::string> want = {
      "units",      "atom_style", "boundary", "lattice",      "region",   "create_box", "create_atoms",
      "pair_style", "pair_coeff", "velocity", "neigh_modify", "timestep", "fix",        "run"};
  EXPECT_EQ(names, want);
  // Native inputs rebuild lists as soon as needed (delay 0), unlike a LAMMPS script's default (delay 10).
  for (const auto& c : in.commands)
    if (c.name == "neigh_modify") EXPECT_EQ(c.args, (std::vector<std::string>{"delay", "0"}));
  EXPECT_EQ(in.settings.backend, "cluster");
}

TEST(YamlInput, SetOverridesKeysAndSettings) {
  const auto in = read_yaml_input(write("set.yaml", kGood), {{"run", "25"}, {"mesh.precision", "fp64"}});
  EXPECT_EQ(in.commands.back().args[0], "25");
  EXPECT_EQ(in.settings.mesh_precision, "fp64");
}

// mesh.mapping: the lattice-plane mapping by default, the coordinate bisection on request, nothing else.
TEST(YamlInput, MeshMappingIsLatticeOrBisection) {
  EXPECT_EQ(read_yaml_input(write("map0.yaml", kGood), {}).settings.mesh_mapping, "lattice");
  const auto in =
      read_yaml_input(write("map1.yaml", std::string(kGood) + "mesh: {mapping: bisection}\n"), {});
  EXPECT_EQ(in.settings.mesh_mapping, "bisection");
  try {
    read_yaml_input(write("map2.yaml", kGood), {{"mesh.mapping", "hilbert"}});
    FAIL() << "mesh.mapping hilbert was taken";
  } catch (const wmd::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("mesh.mapping must be one of lattice|bisection"), std::string::npos)
        << e.what();
  }
}

void expect_error(const std::string& text, int line, const std::string& needle) {
  // One file per test: ctest runs tests in parallel processes.
  const std::string path =
      write(std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".yaml", text);
  try {
    read_yaml_input(path, {});
    FAIL() << "no error for:\n" << text;
  } catch (const wmd::InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(YamlInput, UnknownKeyNamesItsLine) {
  expect_error(std::string(kGood) + "barostat: 300\n", 10, "unknown key 'barostat'");
}

TEST(YamlInput, WrongTypeNamesItsLine) {
  std::string t = kGood;
  t.replace(t.find("run: 10"), 7, "run: ten");
  expect_error(t, 9, "run (steps) must be an integer");
}

TEST(YamlInput, OutOfRangeValue) {
  std::string t = kGood;
  t.replace(t.find("seed: 42"), 8, "seed: 0");
  expect_error(t, 7, "velocity.seed must be in");
}

TEST(YamlInput, BadSettingValue) {
  expect_error(std::string(kGood) + "backend: gpu\n", 10, "backend must be one of");
}

TEST(YamlInput, InvalidYamlSyntax) {
  expect_error("system: [1, 2\n", 2, "invalid YAML");
}

}  // namespace
