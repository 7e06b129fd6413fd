// Hardware descriptions: presets load, user files override, bad files fail with file and line.
#include <gtest/gtest.h>

#include "base/error.hpp"
#include "fabric/hardware.hpp"

namespace wmd::fabric {
namespace {

TEST(Hardware, PresetsLoad) {
  const HardwareSpec a = preset("wse2");
  EXPECT_EQ(a.name, "wse2");
  EXPECT_EQ(a.colors, 24);
  EXPECT_EQ(a.pe_count, 850000);
  EXPECT_EQ(a.sram_bytes_per_pe, 49152);
  EXPECT_GT(a.clock_hz, 0.8e9);
  EXPECT_NEAR(static_cast<double>(a.grid_width) * a.grid_height, 850000.0, 1000.0);
  const HardwareSpec b = load_hardware("wse3");
  EXPECT_EQ(b.pe_count, 900000);
  EXPECT_NEAR(static_cast<double>(b.grid_width) * b.grid_height, 900000.0, 1000.0);
}

TEST(Hardware, BaseAndOverride) {
  const HardwareSpec h = parse_hardware_yaml(
      "base: wse2\nname: mine\nrouter_buffer_wavelets: 8\n"
      "compute_cycles: {fdiv: 12}\n",
      "mine.yaml");
  EXPECT_EQ(h.name, "mine");
  EXPECT_EQ(h.router_buffer_wavelets, 8);
  EXPECT_EQ(h.compute.fdiv, 12);
  EXPECT_EQ(h.colors, 24);
}

TEST(Hardware, ErrorsCarryFileAndLine) {
  try {
    parse_hardware_yaml("base: wse2\nname: x\ncolours: 24\n", "bad.yaml");
    FAIL() << "unknown key accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "bad.yaml");
    EXPECT_EQ(e.line(), 3);
    EXPECT_NE(e.message().find("colours"), std::string::npos);
  }
  try {
    parse_hardware_yaml("base: wse2\nclock_hz: fast\n", "bad.yaml");
    FAIL() << "non-number accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
  }
  try {
    parse_hardware_yaml("base: wse2\ncolors: -3\n", "bad.yaml");
    FAIL() << "negative accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
  }
  EXPECT_THROW(parse_hardware_yaml("name: [unclosed\n", "bad.yaml"), InputError);
  EXPECT_THROW(parse_hardware_yaml("name: only\n", "bad.yaml"), InputError);  // incomplete without base
  EXPECT_THROW(load_hardware("/nonexistent/file.yaml"), InputError);
  EXPECT_THROW(preset("wse9"), InputError);
}

}  // namespace
}  // namespace wmd::fabric
