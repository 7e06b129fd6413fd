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
  std::string
      neighbours;        // md_step: "C" or "C,I" entries per PE (default: a synthetic crystal neighbourhood)
  bool rebuild = false;  // md_step: a step with a neighbour rebuild
  bool serial = false;   // md_step: passes wait for their multicast's last word (no overlap)
};

/// Runs one schedule on the cycle simulator and the cost model, writes text or JSON to `out`; returns the
/// exit status.
int run_simulate_command(const SimulateOptions& opts, std::ostream& out);
/// One MD step's PE program (--schedule md_step), simulated and modeled (md_step_command.cpp).
int run_md_step_command(const SimulateOptions& opts, std::ostream& out);
std::vector<std::string> schedule_names();  // the names --schedule accepts
/// Parses "WxH" (e.g. "64x64") into w and h; throws wmd::InputError on bad text.
void parse_mesh_dims(const std::string& text, int& w, int& h);

}  // namespace wmd::fabric
