// `wafermd fabric simulate --schedule md_step`: one MD step's PE program on the cycle simulator and the
// model.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "fabric/cost_model.hpp"
#include "fabric/program_run.hpp"
#include "fabric/schedules/md_step.hpp"
#include "fabric/simulate_command.hpp"

namespace wmd::fabric {
namespace {

[[noreturn]] void bad(const std::string& msg) {
  throw InputError("<command line>", 0, msg);
}

// "C" or "C,I": every PE holds C entries, I of them (default 54%, as the Cu slab) within the cutoff.
void parse_counts(const std::string& text, int window, int& c, int& in) {
  const auto comma = text.find(',');
  try {
    std::size_t used = 0;
    c = std::stoi(text.substr(0, comma), &used);
    if (used != (comma == std::string::npos ? text.size() : comma)) throw std::invalid_argument(text);
    in = comma == std::string::npos ? static_cast<int>(0.54 * c + 0.5)
                                    : std::stoi(text.substr(comma + 1), &used);
  } catch (const std::exception&) {
    bad("--neighbours expects C or C,I (entries per PE, of them within the cutoff), got '" + text + "'");
  }
  if (c < 0 || in < 0 || in > c) bad("--neighbours needs 0 <= I <= C, got '" + text + "'");
  if (c > window) bad(fmt::format("--neighbours {} exceeds the {} slots of the window", c, window));
}

nlohmann::json path_json(const PeProgram& p, const ProgramTimes& t) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t a = 0; a < p.activities.size(); ++a)
    if (t.path_cycles[a] > 0) j[p.activities[a]] = t.path_cycles[a];
  return j;
}

nlohmann::json activity_json(const PeProgram& p, const ProgramTimes& t) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t a = 0; a < p.activities.size(); ++a) j[p.activities[a]] = t.activity[a];
  return j;
}

}  // namespace

int run_md_step_command(const SimulateOptions& opts, std::ostream& out) {
  const HardwareSpec hw = load_hardware(opts.wafer);
  MdStepSpec s;
  s.grid = Grid{opts.width, opts.height};
  s.b = opts.b;
  s.wrap = opts.wrap;
  s.rebuild = opts.rebuild;
  s.streaming = !opts.serial;
  ScheduleSpec check{ScheduleKind::WindowMulticast, s.grid, s.b, 1, s.wrap};
  try {
    validate_spec(check);
  } catch (const InputError& e) {
    bad(e.message());
  }
  const int window = (2 * s.b + 1) * (2 * s.b + 1) - 1;
  if (opts.neighbours.empty()) {
    synthetic_neighbours(s);
  } else {
    int c = 0, in = 0;
    parse_counts(opts.neighbours, window, c, in);
    uniform_neighbours(s, c, in);
  }
  const PeProgram p = build_md_step(s, hw);
  const ProgramSimulation r = simulate_program(p, hw);
  const ProgramTimes m = model_program(p, hw);
  const long long additive = additive_cycles(p, hw);
  const double error =
      r.cycles > 0 ? static_cast<double>(m.cycles - r.cycles) / static_cast<double>(r.cycles) : 0.0;
  MdStepSpec w = s;  // the same neighbourhood drawn on the full wafer, priced by the model
  w.grid = wafer_grid(hw);
  if (opts.neighbours.empty())
    synthetic_neighbours(w);
  else
    uniform_neighbours(w, s.candidates[0], s.in_cut[0]);
  const long long wafer = model_program(build_md_step(w, hw), hw).cycles;
  const int max_c = *std::max_element(s.candidates.begin(), s.candidates.end());
  const int max_in = *std::max_element(s.in_cut.begin(), s.in_cut.end());

  if (opts.json) {
    nlohmann::json j;
    j["schedule"] = "md_step";
    j["description"] = s.rebuild ? "one MD step with a neighbour rebuild" : "one MD step";
    j["b"] = s.b;
    j["mesh"] = {s.grid.width, s.grid.height};
    j["wrap"] = s.wrap;
    j["wafer"] = hw.name;
    j["streaming"] = s.streaming;
    j["rebuild"] = s.rebuild;
    j["neighbours_max"] = max_c;
    j["in_cut_max"] = max_in;
    j["simulated_cycles"] = r.cycles;
    j["modeled_cycles"] = m.cycles;
    j["model_relative_error"] = error;
    j["additive_cycles"] = additive;
    j["link_utilisation"] = r.fabric.link_utilisation;
    j["stall_cycles"] = r.fabric.stall_cycles;
    j["deadlock"] = r.fabric.deadlock;
    j["busy_cycles_max"] = r.max_busy;
    j["busy_cycles_min"] = r.min_busy;
    j["idle_cycles_busiest_pe"] = r.cycles - r.max_busy;
    j["critical_path_simulated"] = path_json(p, r);
    j["critical_path_modeled"] = path_json(p, m);
    j["busiest_pe_cycles"] = activity_json(p, r);
    nlohmann::json tl = nlohmann::json::array();
    for (const PathSegment& seg : r.path)
      tl.push_back({{"activity", p.activities[seg.activity]}, {"start", seg.start}, {"end", seg.end}});
    j["timeline_simulated"] = tl;
    j["wafer_grid"] = {w.grid.width, w.grid.height};
    j["wafer_modeled_cycles"] = wafer;
    j["wafer_modeled_microseconds"] = static_cast<double>(wafer) / hw.clock_hz * 1e6;
    out << j.dump(2) << "\n";
  } else {
    out << fmt::format("schedule: md_step ({}{}), b = {}, mesh {}x{}{}, wafer {}\n",
                       s.streaming ? "streaming" : "serial", s.rebuild ? ", rebuild step" : "", s.b,
                       s.grid.width, s.grid.height, s.wrap ? " periodic (folded torus)" : "", hw.name);
    out << fmt::format("neighbour entries per PE: at most {} ({} within the cutoff)\n", max_c, max_in);
    out << fmt::format("simulated cycles: {}\n", r.cycles);
    out << fmt::format("modeled cycles: {} (model error {:+.2f}%)\n", m.cycles, 100.0 * error);
    out << fmt::format("additive account (nothing overlapped): {} cycles\n", additive);
    out << fmt::format("busiest PE: {} busy, {} idle cycles\n", r.max_busy, r.cycles - r.max_busy);
    out << "critical path (simulated):";
    for (const PathSegment& seg : r.path)
      out << fmt::format(" {} {}-{};", p.activities[seg.activity], seg.start, seg.end);
    out << "\n";
    out << fmt::format("full wafer ({}x{}): {} cycles = {:.3f} us at {:.2f} GHz\n", w.grid.width,
                       w.grid.height, wafer, static_cast<double>(wafer) / hw.clock_hz * 1e6,
                       hw.clock_hz * 1e-9);
  }
  return exit_ok;
}

}  // namespace wmd::fabric
