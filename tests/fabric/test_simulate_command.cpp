// `wafermd fabric simulate`: JSON keys of the design brief, and bad values refused as input errors.
#include <gtest/gtest.h>

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
