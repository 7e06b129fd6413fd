// Hardware descriptions: presets load, user files override, bad files fail with file and line.
#include <gtest/gtest.h>

#include <map>

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

// Every [E] parameter that prices a step has a range in the presets (the clock's reported spread among them);
// a range must name a numeric parameter with ends it can take.
TEST(Hardware, RangesNameParametersAndTheirEnds) {
  for (const char* name : {"wse2", "wse3"}) {
    const HardwareSpec h = preset(name);
    std::map<std::string, ParameterRange> r;
    for (const ParameterRange& x : h.ranges) r[x.key] = x;
    for (const char* key :
         {"clock_hz", "ramp_latency_cycles", "phase_sync_cycles", "compute_cycles.fadd",
          "compute_cycles.fmul", "compute_cycles.fma", "compute_cycles.fminmax", "compute_cycles.fdiv",
          "compute_cycles.fsqrt", "compute_cycles.mem_word", "compute_cycles.fp_to_int",
          "compute_cycles.int_op", "compute_cycles.loop_iteration", "compute_cycles.task_activation",
          "compute_cycles.land_word", "compute_cycles.send_word", "compute_cycles.vector_issue"})
      EXPECT_TRUE(r.count(key)) << name << " lacks a range for " << key;
    EXPECT_DOUBLE_EQ(r.at("clock_hz").low, 0.85e9);
    EXPECT_DOUBLE_EQ(r.at("clock_hz").high, 1.1e9);
    EXPECT_DOUBLE_EQ(with_parameter(h, "compute_cycles.fdiv", 16).compute.fdiv, 16);
    EXPECT_EQ(with_parameter(h, "ramp_latency_cycles", 3).ramp_latency_cycles, 3);
  }
  // The published runs' machine: its clock and fabric are facts, so the clock has no range.
  const HardwareSpec sc24 = preset("cs2_sc24");
  EXPECT_DOUBLE_EQ(sc24.clock_hz, 0.85e9);
  EXPECT_EQ(sc24.grid_width, 769);
  EXPECT_EQ(sc24.grid_height, 1044);
  EXPECT_EQ(sc24.pe_count, 769LL * 1044);
  for (const ParameterRange& x : sc24.ranges) EXPECT_NE(x.key, "clock_hz");
  EXPECT_FALSE(sc24.ranges.empty());
  auto line_of = [](const std::string& text) {
    try {
      parse_hardware_yaml(text, "bad.yaml");
    } catch (const InputError& e) {
      return e.line();
    }
    return -1;
  };
  EXPECT_EQ(line_of("base: wse2\nranges:\n  clock_speed: [1, 2]\n"), 3);  // no such parameter
  EXPECT_EQ(line_of("base: wse2\nranges:\n  compute_cycles.fdiv: [8]\n"), 3);
  EXPECT_EQ(line_of("base: wse2\nranges:\n  compute_cycles.fdiv: [9, 4]\n"), 3);    // low > high
  EXPECT_EQ(line_of("base: wse2\nranges:\n  ramp_latency_cycles: [1, 2.5]\n"), 3);  // not a whole number
  EXPECT_EQ(line_of("base: wse2\nranges:\n  grid: [1, 2]\n"), 3);
  EXPECT_THROW(with_parameter(preset("wse2"), "no_such_key", 1), InputError);
}

}  // namespace
}  // namespace wmd::fabric
