// `wafermd fabric simulate`: one schedule on the cycle simulator and the cost model, as text or JSON.
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace wmd::fabric {

struct SimulateOptions {
  std::string schedule;
  int b = 1;
  int width = 0, height = 0;
  bool wrap = false;
  std::string wafer = "wse2";
  bool json = false;
};

/// Runs one schedule on the cycle simulator and the cost model, writes text or JSON to `out`; returns the
/// exit status.
int run_simulate_command(const SimulateOptions& opts, std::ostream& out);
std::vector<std::string> schedule_names();  // the names --schedule accepts
/// Parses "WxH" (e.g. "64x64") into w and h; throws wmd::InputError on bad text.
void parse_mesh_dims(const std::string& text, int& w, int& h);

}  // namespace wmd::fabric
