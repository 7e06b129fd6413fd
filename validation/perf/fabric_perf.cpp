// Times the cycle simulator on a 64x64, b = 4 window multicast and the cost model on a full wafer; with
// --dump-schedule FILE it also writes the 10x10 b = 2 multicast's phases and routes as JSON for the docs
// figure.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "fabric/cost_model.hpp"
#include "fabric/cycle_simulator.hpp"
#include "fabric/schedules/schedules.hpp"

using namespace wmd::fabric;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Follows a stream's color from its PE to where the routes deliver it: the list of physical PEs it crosses.
std::vector<int> trace(const RouteTable& r, int pe, int color) {
  std::vector<int> path{pe};
  for (int guard = 0; guard < 16; ++guard) {  // schedule paths are at most 2 hops long
    const unsigned tx = r.tx_mask(pe, color);
    int next = -1;
    for (int t = 0; t < link_port_count; ++t)
      if (tx & (1u << t)) next = r.grid.neighbour(pe, static_cast<Port>(t));
    if (next < 0) break;
    pe = next;
    path.push_back(pe);
  }
  return path;
}

void dump_schedule(const std::string& file, bool wrap) {
  ScheduleSpec s;
  s.kind = ScheduleKind::WindowMulticast;
  s.grid = Grid{10, 10};
  s.b = 2;
  s.words = 4;
  s.wrap = wrap;
  const Schedule sch = build_schedule(s);
  const HardwareSpec hw = preset("wse2");
  const SimulationResult r = simulate(sch, hw, std::vector<std::uint32_t>(10 * 10 * 4, 1u));
  nlohmann::json j;
  j["grid"] = {10, 10};
  j["b"] = 2;
  j["words"] = 4;
  j["wrap"] = wrap;
  j["colors_used"] = sch.routes.colors_used();
  j["phase_cycles"] = r.phase_cycles;
  j["simulated_cycles"] = r.cycles;
  j["modeled_cycles"] = model_schedule(s, hw).cycles;
  for (const Phase& ph : sch.phases) {
    nlohmann::json streams = nlohmann::json::array();
    for (const Stream& st : ph.streams) {
      nlohmann::json path = nlohmann::json::array();
      for (int pe : trace(sch.routes, st.pe, st.color))
        path.push_back({sch.routes.grid.x_of(pe), sch.routes.grid.y_of(pe)});
      streams.push_back({{"color", st.color}, {"words", st.item_end - st.item_begin}, {"path", path}});
    }
    j["phases"].push_back(streams);
  }
  std::ofstream(file) << j.dump() << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--dump-schedule") {
      dump_schedule(argv[i + 1], false);
      dump_schedule(std::string(argv[i + 1]) + ".wrap.json", true);
      std::printf("wrote %s and %s.wrap.json\n", argv[i + 1], argv[i + 1]);
      return 0;
    }
  const HardwareSpec hw = preset("wse2");
  ScheduleSpec s;
  s.kind = ScheduleKind::WindowMulticast;
  s.grid = Grid{64, 64};
  s.b = 4;
  s.words = 4;
  for (bool wrap : {false, true}) {
    s.wrap = wrap;
    auto t0 = std::chrono::steady_clock::now();
    const Schedule sch = build_schedule(s);
    const double build = seconds_since(t0);
    const std::vector<std::uint32_t> payload(64 * 64 * 4, 1u);
    t0 = std::chrono::steady_clock::now();
    const SimulationResult r = simulate(sch, hw, payload);
    const double sim = seconds_since(t0);
    std::printf("simulator 64x64 b=4 4-word window multicast%s: build %.3f s, simulate %.3f s, %lld cycles\n",
                wrap ? " (wrap)" : "", build, sim, r.cycles);
  }
  ScheduleSpec w;
  w.grid = wafer_grid(hw);
  w.b = 4;
  w.words = 4;
  const int reps = 20;
  ScheduleCost c;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) {
    w.kind = ScheduleKind::WindowMulticast;
    w.wrap = i % 2;
    c = model_schedule(w, hw);
  }
  const double model = seconds_since(t0) / reps;
  w.wrap = false;
  const long long pos = model_schedule(w, hw).cycles;
  w.words = 1;
  const long long fp = model_schedule(w, hw).cycles;
  w.kind = ScheduleKind::NeighbourSwap;
  w.words = 8;
  const long long swap = model_schedule(w, hw).cycles;
  w.kind = ScheduleKind::Reduction;
  w.words = 1;
  const long long red = model_schedule(w, hw).cycles;
  std::printf("model full wse2 wafer %dx%d b=4 window multicast: %.6f s per call (mean of %d)\n",
              hw.grid_width, hw.grid_height, model, reps);
  std::printf(
      "model cycles on the full wafer: window 4-word %lld, window 1-word %lld, swap 8-word %lld, "
      "reduction 1-word %lld\n",
      pos, fp, swap, red);
  return 0;
}
