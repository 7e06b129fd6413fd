// `wafermd fabric simulate`: JSON keys of the design brief, and bad values refused as input errors.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/error.hpp"
#include "fabric/simulate_command.hpp"

namespace wmd::fabric {
namespace {

TEST(SimulateCommand, JsonHasTheContractKeys) {
  for (const std::string& name : schedule_names()) {
    SimulateOptions o;
    o.schedule = name;
    o.b = 2;
    o.width = 12;
    o.height = 10;
    o.wrap = true;
    o.json = true;
    std::ostringstream out;
    ASSERT_EQ(run_simulate_command(o, out), 0) << name;
    const auto j = nlohmann::json::parse(out.str());
    for (const char* key :
         {"simulated_cycles", "modeled_cycles", "link_utilisation", "stall_cycles", "deadlock"})
      EXPECT_TRUE(j.contains(key)) << name << " lacks " << key;
    EXPECT_FALSE(j["deadlock"].get<bool>());
    EXPECT_GT(j["simulated_cycles"].get<long long>(), 0);
    if (name == "md_step") {  // the model prices compute and overlap: within 5%, not exact
      EXPECT_LE(std::abs(j["model_relative_error"].get<double>()), 0.05);
      continue;
    }
    EXPECT_EQ(j["simulated_cycles"], j["modeled_cycles"]) << name;
  }
}

TEST(SimulateCommand, TextOutputNeverStartsWithANumber) {
  SimulateOptions o;
  o.schedule = "window_multicast";
  o.b = 1;
  o.width = o.height = 8;
  o.wafer = "wse3";
  std::ostringstream out;
  EXPECT_EQ(run_simulate_command(o, out), 0);
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);)
    EXPECT_FALSE(std::isdigit(static_cast<unsigned char>(line[0])));
  EXPECT_NE(out.str().find("wse3"), std::string::npos);
}

TEST(SimulateCommand, MdStepReportsOverlapAndTheCriticalPath) {
  SimulateOptions o;
  o.schedule = "md_step";
  o.b = 3;
  o.width = o.height = 16;
  o.wrap = true;
  o.json = true;
  o.neighbours = "20,12";
  std::ostringstream streaming, serial;
  ASSERT_EQ(run_simulate_command(o, streaming), 0);
  o.serial = true;
  ASSERT_EQ(run_simulate_command(o, serial), 0);
  const auto a = nlohmann::json::parse(streaming.str()), b = nlohmann::json::parse(serial.str());
  EXPECT_EQ(a["neighbours_max"], 20);
  EXPECT_EQ(a["in_cut_max"], 12);
  // The serial program is the additive account; streaming is faster by what it overlaps.
  EXPECT_EQ(b["simulated_cycles"], b["additive_cycles"]);
  EXPECT_LT(a["simulated_cycles"].get<long long>(), b["simulated_cycles"].get<long long>());
  long long path = 0;
  for (const auto& kv : a["critical_path_simulated"].items()) path += kv.value().get<long long>();
  EXPECT_EQ(path, a["simulated_cycles"].get<long long>());
  EXPECT_GT(a["wafer_modeled_cycles"].get<long long>(), 0);
  o.json = false;
  o.rebuild = true;
  std::ostringstream text;
  ASSERT_EQ(run_simulate_command(o, text), 0);
  std::istringstream in(text.str());
  for (std::string line; std::getline(in, line);)
    EXPECT_FALSE(std::isdigit(static_cast<unsigned char>(line[0])));
  EXPECT_NE(text.str().find("rebuild step"), std::string::npos);
}

TEST(SimulateCommand, BadValuesAreInputErrors) {
  SimulateOptions o;
  o.schedule = "window_multicast";
  o.width = o.height = 8;
  std::ostringstream out;
  o.b = 4;  // needs 9x9
  EXPECT_THROW(run_simulate_command(o, out), InputError);
  o.b = 1;
  o.schedule = "nope";
  EXPECT_THROW(run_simulate_command(o, out), InputError);
  o.schedule = "md_step";
  for (const char* bad : {"x", "3,4,5", "-1", "5,6", "9"}) {  // 9 > the 8 slots of a b = 1 window
    o.neighbours = bad;
    EXPECT_THROW(run_simulate_command(o, out), InputError) << bad;
  }
  o.neighbours = "4";  // fits the window; without wrap, PEs at the edge hold what their window has
  EXPECT_EQ(run_simulate_command(o, out), 0);
  o.neighbours.clear();
  o.schedule = "window_multicast";
  o.serial = true;  // md_step options on another schedule
  EXPECT_THROW(run_simulate_command(o, out), InputError);
  o.serial = false;
  o.schedule = "reduce_sum";
  o.wafer = "wse7";
  EXPECT_THROW(run_simulate_command(o, out), InputError);
  int w = 0, h = 0;
  parse_mesh_dims("64x48", w, h);
  EXPECT_EQ(w, 64);
  EXPECT_EQ(h, 48);
  for (const char* bad : {"64", "x4", "4x", "0x4", "ax4", "4x-1", "4x4x4"})
    EXPECT_THROW(parse_mesh_dims(bad, w, h), InputError) << bad;
}

}  // namespace
}  // namespace wmd::fabric
