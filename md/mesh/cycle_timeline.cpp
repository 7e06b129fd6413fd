#include "md/mesh/cycle_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <string>
#include <type_traits>

#include "fabric/schedules/md_step.hpp"

namespace wmd::md::mesh {

fabric::TableShape table_shape(const potentials::EamTables& t) {
  fabric::TableShape shape;
  shape.r_points = t.nr;
  shape.rho_points = t.nrho;
  shape.r_tables = t.nrhor + t.nz2r;
  std::vector<int> used;
  for (size_t ty = 1; ty < t.type2frho.size(); ++ty)
    if (std::find(used.begin(), used.end(), t.type2frho[ty]) == used.end()) used.push_back(t.type2frho[ty]);
  shape.rho_tables = std::max<int>(1, static_cast<int>(used.size()));
  return shape;
}

void CycleTimeline::sample(int64_t step, double time_ps, int b, const MeshCounters& c, bool baseline) {
  if (every_ <= 0) return;
  last_step_ = step, last_time_ = time_ps, last_b_ = b;
  const bool counted = samples_.empty() || c.steps != samples_.back().c.steps;
  if (!counted || (!baseline && step % every_ != 0)) return;
  samples_.push_back({step, time_ps, b, c});
  if (samples_.size() > kMaxSamples) {  // keep the whole span at half the resolution
    size_t k = 0;
    for (size_t i = 0; i < samples_.size(); i += 2) samples_[k++] = samples_[i];
    samples_.resize(k);
    if (every_ < (1 << 29)) every_ *= 2;
  }
}

namespace {

size_t counter_count() {
  MeshCounters c;
  size_t n = 0;
  for_each_counter(c, [&](const char*, auto&) { ++n; });
  return n;
}

}  // namespace

std::vector<double> CycleTimeline::state() const {
  std::vector<double> v = {static_cast<double>(every_), static_cast<double>(last_step_), last_time_,
                           static_cast<double>(last_b_), static_cast<double>(samples_.size())};
  for (const Sample& s : samples_) {
    v.push_back(static_cast<double>(s.step)), v.push_back(s.time_ps), v.push_back(s.b);
    MeshCounters c = s.c;
    for_each_counter(c, [&](const char*, auto& x) { v.push_back(static_cast<double>(x)); });
  }
  return v;
}

bool CycleTimeline::set_state(const std::vector<double>& v) {
  const size_t per = 3 + counter_count();
  if (v.size() < 5 || v[4] < 0 || v[4] > static_cast<double>(kMaxSamples) ||
      v.size() != 5 + static_cast<size_t>(v[4]) * per || !(v[0] >= 1 && v[0] <= 2e9))
    return false;
  // Finite, non-negative counters that never decrease: a crafted file cannot price NaN or negative work.
  for (double x : v)
    if (!std::isfinite(x) || std::fabs(x) > 9e15) return false;
  if (v[3] < 1 || v[3] > 1e6) return false;
  for (size_t i = 0; i < static_cast<size_t>(v[4]); ++i) {
    const double b = v[5 + i * per + 2];
    if (b < 1 || b > 1e6) return false;
    const double* c = &v[5 + i * per + 3];
    for (size_t k = 0; k + 3 < per; ++k)
      if (c[k] < 0) return false;
    if (i > 0 && c[0] < c[-static_cast<std::ptrdiff_t>(per)]) return false;  // account.steps
  }
  every_ = static_cast<int>(v[0]);
  last_step_ = static_cast<int64_t>(v[1]), last_time_ = v[2], last_b_ = static_cast<int>(v[3]);
  samples_.assign(static_cast<size_t>(v[4]), Sample{});
  size_t k = 5;
  for (Sample& s : samples_) {
    s.step = static_cast<int64_t>(v[k]), s.time_ps = v[k + 1], s.b = static_cast<int>(v[k + 2]);
    k += 3;
    for_each_counter(s.c, [&](const char*, auto& x) { x = static_cast<std::decay_t<decltype(x)>>(v[k++]); });
  }
  return true;
}

namespace {

struct Program {
  bool keep_distances;
  fabric::TableLayout layout;
};
constexpr Program kPrograms[] = {
    {false, fabric::TableLayout::Spline7},  {false, fabric::TableLayout::Spline4},
    {false, fabric::TableLayout::Hermite2}, {true, fabric::TableLayout::Spline7},
    {true, fabric::TableLayout::Spline4},   {true, fabric::TableLayout::Hermite2}};

}  // namespace

nlohmann::json CycleTimeline::report(const StepWork& shape, const fabric::HardwareSpec& hw,
                                     const MeshCounters& now) const {
  nlohmann::json j = {{"every", every_}, {"clock_hz", hw.clock_hz}};
  // The intervals: consecutive samples with steps between them, the last one ending at the present.
  struct Interval {
    const Sample* from;
    Sample to;
  };
  std::vector<Interval> iv;
  std::vector<Sample> points(samples_);
  if (!points.empty() && now.steps != points.back().c.steps)
    points.push_back({last_step_, last_time_, last_b_, now});
  for (size_t i = 1; i < points.size(); ++i)
    if (points[i].c.steps > points[i - 1].c.steps) iv.push_back({&points[i - 1], points[i]});
  // One program for the whole run: the fastest that fits in every interval, else LAMMPS's layout (marked).
  const size_t np = std::size(kPrograms);
  std::vector<double> seconds(np, 0.0);
  std::vector<char> fits(np, 1);
  std::vector<double> bytes(np, 0.0);
  auto work_of = [&](const Interval& x, const Program& p) {
    StepWork w = average_work(shape, x.from->c, x.to.c);
    w.b = std::max(x.from->b, x.to.b);
    w.keep_distances = p.keep_distances;
    w.table_layout = p.layout;
    return w;
  };
  for (size_t k = 0; k < np; ++k)
    for (const Interval& x : iv) {
      const StepCycles c = account_step(work_of(x, kPrograms[k]), hw);
      seconds[k] += static_cast<double>(x.to.c.steps - x.from->c.steps) * c.total / hw.clock_hz;
      fits[k] = fits[k] && c.fits;
      bytes[k] = std::max(bytes[k], static_cast<double>(c.memory.total()));
    }
  size_t pick = 0;
  bool feasible = false;
  for (size_t k = 0; k < np; ++k)
    if (fits[k] && (!feasible || seconds[k] < seconds[pick])) pick = k, feasible = true;
  if (!feasible)  // none fits throughout: the one closest to fitting (the least memory at its worst interval)
    for (size_t k = 1; k < np; ++k)
      if (bytes[k] < bytes[pick]) pick = k;
  const Program& p = kPrograms[pick];
  j["program"] = {{"variant", p.keep_distances ? "full_window_kept_distances" : "full_window"},
                  {"table_layout", fabric::table_layout_name(p.layout)},
                  {"fits", feasible},
                  {"bytes_per_pe_max", bytes[pick]},
                  {"sram_bytes_per_pe", hw.sram_bytes_per_pe}};
  nlohmann::json rows = nlohmann::json::array();
  double total = 0;
  int64_t steps_total = 0;
  for (const Interval& x : iv) {
    const StepWork w = work_of(x, p);
    const StepCycles c = account_step(w, hw);
    const int64_t steps = x.to.c.steps - x.from->c.steps;
    const double secs = static_cast<double>(steps) * c.total / hw.clock_hz;
    total += secs, steps_total += steps;
    rows.push_back({{"step_start", x.from->step},
                    {"step_end", x.to.step},
                    {"time_ps_start", x.from->time_ps},
                    {"time_ps_end", x.to.time_ps},
                    {"steps", steps},
                    {"b", w.b},
                    {"candidates", w.candidates},
                    {"in_cut", w.in_cut},
                    {"zbl_pairs", w.zbl_pairs},
                    {"rebuilds", x.to.c.step_rebuilds - x.from->c.step_rebuilds},
                    {"remaps", x.to.c.remaps - x.from->c.remaps},
                    {"swaps", x.to.c.swaps - x.from->c.swaps},
                    {"cycles_per_step", c.total},
                    {"compute", c.compute},
                    {"multicast", c.multicast_positions + c.multicast_fp},
                    {"swap", c.swap},
                    {"reductions", c.reductions},
                    {"seconds", secs},
                    {"steps_per_second", c.steps_per_second},
                    {"bytes_per_pe", c.memory.total()},
                    {"fits", c.fits}});
  }
  j["intervals"] = rows;
  j["steps"] = steps_total;
  j["predicted_seconds"] = total;
  return j;
}

}  // namespace wmd::md::mesh
