// The `fabric simulate` command: builds the named schedule, simulates it, models it, and reports both.
#include "fabric/simulate_command.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "fabric/cost_model.hpp"
#include "fabric/cycle_simulator.hpp"
#include "fabric/hardware.hpp"
#include "fabric/schedules/schedules.hpp"

namespace wmd::fabric {
namespace {

constexpr int kMaxSimulatedSide = 256;  // the simulator holds every receive slot; beyond this use the model

struct NamedSchedule {
  const char* name;
  ScheduleKind kind;
  int words;
  ReduceOp op;
  const char* what;
};

// Payload sizes are what a one-atom-per-PE EAM step moves; the library itself knows nothing of atoms.
const NamedSchedule kSchedules[] = {
    {"window_multicast", ScheduleKind::WindowMulticast, 4, ReduceOp::Sum,
     "window multicast of a 4-word payload"},
    {"window_multicast_word", ScheduleKind::WindowMulticast, 1, ReduceOp::Sum,
     "window multicast of a 1-word payload"},
    {"neighbour_swap", ScheduleKind::NeighbourSwap, 8, ReduceOp::Sum, "neighbour swap of an 8-word payload"},
    {"reduce_sum", ScheduleKind::Reduction, 1, ReduceOp::Sum, "global sum with broadcast"},
    {"reduce_min", ScheduleKind::Reduction, 1, ReduceOp::Min, "global minimum with broadcast"},
    {"reduce_max", ScheduleKind::Reduction, 1, ReduceOp::Max, "global maximum with broadcast"},
};

[[noreturn]] void bad(const std::string& msg) {
  throw InputError("<command line>", 0, msg);
}

}  // namespace

std::vector<std::string> schedule_names() {
  std::vector<std::string> v;
  for (const auto& s : kSchedules) v.push_back(s.name);
  v.push_back("md_step");
  return v;
}

void parse_mesh_dims(const std::string& text, int& w, int& h) {
  const auto x = text.find_first_of("xX");
  auto number = [&](const std::string& part) {
    if (part.empty() || part.size() > 6)
      bad("--mesh expects WxH with positive whole numbers, got '" + text + "'");
    for (char c : part)
      if (!std::isdigit(static_cast<unsigned char>(c)))
        bad("--mesh expects WxH with positive whole numbers, got '" + text + "'");
    const int v = std::stoi(part);
    if (v < 1) bad("--mesh sides must be at least 1, got '" + text + "'");
    return v;
  };
  if (x == std::string::npos) bad("--mesh expects WxH (for example 64x64), got '" + text + "'");
  w = number(text.substr(0, x));
  h = number(text.substr(x + 1));
}

int run_simulate_command(const SimulateOptions& opts, std::ostream& out) {
  const NamedSchedule* named = nullptr;
  const bool md_step = opts.schedule == "md_step";
  if (!md_step && (!opts.neighbours.empty() || opts.rebuild || opts.serial))
    bad("--neighbours, --rebuild and --serial apply to --schedule md_step only");
  for (const auto& s : kSchedules)
    if (opts.schedule == s.name) named = &s;
  if (!named && !md_step) {
    std::string known;
    for (const auto& n : schedule_names()) known += (known.empty() ? "" : ", ") + n;
    bad("unknown --schedule '" + opts.schedule + "' (known: " + known + ")");
  }
  if (opts.width < 1 || opts.height < 1) bad("--mesh WxH is required (for example --mesh 64x64)");
  if (opts.width > kMaxSimulatedSide || opts.height > kMaxSimulatedSide)
    bad(
        fmt::format("--mesh {}x{} is too large to simulate (at most {} per side); the cost model prices full "
                    "wafers (`wafermd model`)",
                    opts.width, opts.height, kMaxSimulatedSide));
  if (opts.b < 1) bad(fmt::format("--b must be at least 1, got {}", opts.b));
  if (md_step) return run_md_step_command(opts, out);
  const HardwareSpec hw = load_hardware(opts.wafer);

  ScheduleSpec spec;
  spec.kind = named->kind;
  spec.grid = Grid{opts.width, opts.height};
  spec.b = opts.b;
  spec.words = named->words;
  spec.wrap = opts.wrap;
  spec.op = named->op;
  try {
    validate_spec(spec);
  } catch (const InputError& e) {
    bad(e.message());
  }
  const Schedule sch = build_schedule(spec);
  std::vector<std::uint32_t> payload(static_cast<std::size_t>(spec.grid.size()) * spec.words);
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = 0x3f800000u;  // 1.0f: sums stay finite
  const SimulationResult r = simulate(sch, hw, payload);
  const ScheduleCost model = model_schedule(spec, hw);
  ScheduleSpec wafer_spec = spec;
  wafer_spec.grid = wafer_grid(hw);
  const ScheduleCost wafer = model_schedule(wafer_spec, hw);
  const double error =
      r.cycles > 0 ? static_cast<double>(model.cycles - r.cycles) / static_cast<double>(r.cycles) : 0.0;

  if (opts.json) {
    nlohmann::json j;
    j["schedule"] = named->name;
    j["description"] = named->what;
    j["b"] = spec.b;
    j["words"] = spec.words;
    j["mesh"] = {spec.grid.width, spec.grid.height};
    j["wrap"] = spec.wrap;
    j["wafer"] = hw.name;
    j["colors_used"] = sch.routes.colors_used();
    j["phases"] = sch.phases.size();
    j["simulated_cycles"] = r.cycles;
    j["modeled_cycles"] = model.cycles;
    j["model_relative_error"] = error;
    j["phase_cycles_simulated"] = r.phase_cycles;
    j["phase_cycles_modeled"] = model.phase_cycles;
    j["link_utilisation"] = r.link_utilisation;
    j["stall_cycles"] = r.stall_cycles;
    j["deadlock"] = r.deadlock;
    j["delivered_words"] = r.delivered;
    j["wafer_grid"] = {wafer_spec.grid.width, wafer_spec.grid.height};
    j["wafer_modeled_cycles"] = wafer.cycles;
    j["wafer_modeled_microseconds"] = wafer.seconds * 1e6;
    out << j.dump(2) << "\n";
  } else {
    out << fmt::format("schedule: {} ({}), b = {}, mesh {}x{}{}, wafer {}\n", named->name, named->what,
                       spec.b, spec.grid.width, spec.grid.height, spec.wrap ? " periodic (folded torus)" : "",
                       hw.name);
    out << fmt::format("routes: {} colors of {}; {} phases\n", sch.routes.colors_used(), hw.colors,
                       sch.phases.size());
    out << fmt::format("simulated cycles: {}{}\n", r.cycles,
                       r.deadlock ? " (DEADLOCK: " + r.deadlock_detail + ")" : "");
    out << fmt::format("modeled cycles: {} (model error {:+.2f}%)\n", model.cycles, 100.0 * error);
    out << fmt::format("stall cycles: {}; link utilisation: {:.1f}%; words delivered: {}\n", r.stall_cycles,
                       100.0 * r.link_utilisation, r.delivered);
    out << fmt::format("full wafer ({}x{}): {} cycles = {:.3f} us at {:.2f} GHz\n", wafer_spec.grid.width,
                       wafer_spec.grid.height, wafer.cycles, wafer.seconds * 1e6, hw.clock_hz * 1e-9);
  }
  return r.deadlock ? exit_run_failed : exit_ok;
}

}  // namespace wmd::fabric
