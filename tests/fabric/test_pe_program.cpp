// PE programs on the cycle simulator and the model: instruction costs, task triggers and gates obeyed, the
// serial MD step reproducing the additive account exactly, the streaming one overlapping, and the model
// within 5% of the simulator on the whole MD step (one ctest test per mesh size).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <numeric>
#include <string>

#include "fabric/cost_model.hpp"
#include "fabric/cycle_simulator.hpp"
#include "fabric/program_run.hpp"
#include "fabric/schedules/md_step.hpp"
#include "fabric/schedules/schedules.hpp"
#include "sweep_sample.hpp"

namespace wmd::fabric {
namespace {

TEST(PeProgram, InstructionCostsFollowThePreset) {
  ComputeCycles c;
  c.fma = 2;
  c.fsqrt = 8;
  c.vector_issue = 3;
  c.vector_elements_per_cycle = 4;
  EXPECT_DOUBLE_EQ(instr_cycles({{OpClass::Fma, 5}}, c), 10);
  EXPECT_DOUBLE_EQ(instr_cycles({{OpClass::Fsqrt, 1}, {OpClass::Fma, 1}}, c), 10);
  // A vector fma over 10 elements: issue 3 + ceil(10 / 4) = 3 groups of 2 cycles.
  EXPECT_DOUBLE_EQ(instr_cycles({{OpClass::Fma, 1, 10}}, c), 9);
  EXPECT_DOUBLE_EQ(instr_cycles({{OpClass::Fma, 2, 10}}, c), 18);
}

// A two-task program on a 4x4 mesh: task 0 runs only after task 1 (listed later), and a window multicast is
// gated by task 0.
PeProgram tiny_program(int first_cycles, int second_cycles) {
  PeProgram p;
  p.name = "tiny";
  p.grid = Grid{5, 5};
  p.activities = {"a", "b", "wire"};
  p.tasks = {{"late", 0, 1, -1}, {"early", 1, -1, -1}};
  CommStep c;
  c.spec = ScheduleSpec{ScheduleKind::WindowMulticast, p.grid, 1, 2, false};
  c.activity = 2;
  c.gate = 0;
  p.comms.push_back(c);
  ProgramBuilder pb(p);
  pb.next_task();
  pb.add({-1, -1, first_cycles});
  pb.next_task();
  pb.add({-1, -1, second_cycles});
  pb.finish();
  return p;
}

TEST(PeProgram, TaskTriggersAndGatesAreObeyed) {
  const HardwareSpec hw = preset("wse2");
  const PeProgram p = tiny_program(40, 25);
  const ProgramSimulation r = simulate_program(p, hw);
  const long long wire = model_schedule(p.comms[0].spec, hw).cycles;
  for (int pe = 0; pe < p.grid.size(); ++pe) {
    const TaskTiming& late = r.timing[pe * 2 + 0];
    const TaskTiming& early = r.timing[pe * 2 + 1];
    EXPECT_EQ(early.start, 0);
    EXPECT_EQ(late.start, 25) << "task 0 must wait for the end of task 1";
    EXPECT_EQ(late.end, 65);
    EXPECT_EQ(r.busy[pe], 65);
  }
  // The multicast may not send before its gate: everything after cycle 65.
  EXPECT_EQ(r.comms[0].gate, 65);
  EXPECT_EQ(r.cycles, 65 + wire);
  const ProgramTimes m = model_program(p, hw);
  EXPECT_EQ(m.cycles, r.cycles);
  // The critical path: b, then a, then the wire.
  ASSERT_EQ(r.path.size(), 3u);
  EXPECT_EQ(r.path[0].activity, 1);
  EXPECT_EQ(r.path[1].activity, 0);
  EXPECT_EQ(r.path[2].activity, 2);
  EXPECT_EQ(r.path_cycles, (std::vector<long long>{40, 25, wire}));
}

// A data task that takes each window word as one 1-cycle item: it may not run ahead of the words.
TEST(PeProgram, DataTasksWaitForEveryWord) {
  const HardwareSpec hw = preset("wse2");
  PeProgram p;
  p.name = "consume";
  p.grid = Grid{7, 7};
  p.wrap = true;
  p.activities = {"consume", "wire"};
  p.tasks = {{"consume", 0, -1, -1}};
  CommStep c;
  c.spec = ScheduleSpec{ScheduleKind::WindowMulticast, p.grid, 2, 1, true};
  c.activity = 1;
  p.comms.push_back(c);
  ProgramBuilder pb(p);
  pb.next_task();
  pb.add({0, window_slot(2, 1, 1, 0, 0), 1});  // the first word to land, then the window row-major
  for (int dy = -2; dy <= 2; ++dy)
    for (int dx = -2; dx <= 2; ++dx)
      if ((dx || dy) && !(dx == 1 && dy == 0)) pb.add({0, window_slot(2, 1, dx, dy, 0), 1});
  pb.finish();
  const ProgramSimulation r = simulate_program(p, hw);
  ReceiveBuffers rb;
  simulate(build_schedule(c.spec), hw, std::vector<std::uint32_t>(49, 1u), &rb);
  for (int pe = 0; pe < 49; ++pe) {
    int last = 0;
    for (int s = 0; s < rb.slots_per_pe; ++s) last = std::max(last, rb.landed[pe * rb.slots_per_pe + s]);
    EXPECT_GE(r.timing[pe].end, last + 1) << "pe " << pe;
    EXPECT_EQ(r.timing[pe].busy, 24);
  }
}

MdStepSpec md_spec(int n, int b, bool wrap, bool streaming) {
  MdStepSpec s;
  s.grid = Grid{n, n};
  s.b = b;
  s.wrap = wrap;
  s.streaming = streaming;
  return s;
}

TEST(MdStep, SerialProgramReproducesTheAdditiveFigure) {
  const HardwareSpec hw = preset("wse2");
  for (int n : {9, 16})
    for (int b : {1, 2, 4})
      for (bool wrap : {false, true})
        for (bool rebuild : {false, true}) {
          MdStepSpec s = md_spec(n, b, wrap, false);
          s.rebuild = rebuild;
          const int window = (2 * b + 1) * (2 * b + 1) - 1;
          // Uniform counts that every PE (edges included) can hold: the busiest PE is every PE.
          uniform_neighbours(s, std::min(window / 2, 3 * b), std::min(window / 4, 2 * b));
          const PeProgram p = build_md_step(s, hw);
          const long long additive = additive_cycles(p, hw);
          const ProgramSimulation r = simulate_program(p, hw);
          EXPECT_EQ(r.cycles, additive)
              << "n=" << n << " b=" << b << " wrap=" << wrap << " rebuild=" << rebuild;
          EXPECT_EQ(model_program(p, hw).cycles, additive);
          // Nothing overlaps, so the critical path is every activity end to end.
          EXPECT_EQ(std::accumulate(r.path_cycles.begin(), r.path_cycles.end(), 0LL), r.cycles);
        }
}

TEST(MdStep, StreamingOverlapsCommunicationWithCompute) {
  // Without task activations (a streaming item wakes its data task, a serial one does not) both programs do
  // the same work.
  HardwareSpec hw = preset("wse2");
  hw.compute.task_activation = 0;
  for (bool wrap : {false, true}) {
    MdStepSpec serial = md_spec(24, 6, wrap, false);
    synthetic_neighbours(serial);
    MdStepSpec streaming = serial;
    streaming.streaming = true;
    const ProgramSimulation a = simulate_program(build_md_step(serial, hw), hw);
    const ProgramSimulation b = simulate_program(build_md_step(streaming, hw), hw);
    EXPECT_EQ(a.max_busy, b.max_busy) << "the same work";
    EXPECT_LT(b.cycles, a.cycles) << "streaming hides part of the multicasts behind the passes";
    // The passes hold the critical path for less than their busy time: they ran while words arrived.
    const long long passes = b.path_cycles[ActDensity] + b.path_cycles[ActForce];
    EXPECT_LT(passes + b.path_cycles[ActPositions] + b.path_cycles[ActFp],
              a.path_cycles[ActDensity] + a.path_cycles[ActForce] + a.path_cycles[ActPositions] +
                  a.path_cycles[ActFp]);
    EXPECT_EQ(std::accumulate(b.path_cycles.begin(), b.path_cycles.end(), 0LL), b.cycles);
    // A streaming pass consumes words as they land: every PE's density pass starts before the multicast ends.
    const int T = static_cast<int>(build_md_step(streaming, hw).tasks.size());
    int early = 0;
    for (int pe = 0; pe < streaming.grid.size(); ++pe) early += b.timing[pe * T + 2].start < b.comms[1].end;
    EXPECT_GT(early, streaming.grid.size() / 2);
  }
}

TEST(MdStep, EveryPeObeysItsTaskOrder) {
  const HardwareSpec hw = preset("wse2");
  MdStepSpec s = md_spec(16, 3, true, true);
  synthetic_neighbours(s);
  const PeProgram p = build_md_step(s, hw);
  const ProgramSimulation r = simulate_program(p, hw);
  const int T = static_cast<int>(p.tasks.size());
  for (int pe = 0; pe < p.grid.size(); ++pe)
    for (int t = 0; t < T; ++t) {
      const TaskTiming& x = r.timing[pe * T + t];
      ASSERT_GE(x.start, 0);
      EXPECT_GE(x.end - x.start, x.busy);
      if (p.tasks[t].after >= 0) {
        EXPECT_GE(x.start, r.timing[pe * T + p.tasks[t].after].end);
      }
      if (p.tasks[t].wait_comm >= 0) {
        EXPECT_GE(x.start, r.comms[p.tasks[t].wait_comm].end);
      }
    }
  // Each comm's own words leave only after its gate: the comm ends later than its gate plus one hop.
  for (std::size_t c = 0; c < p.comms.size(); ++c)
    if (p.comms[c].gate >= 0) {
      EXPECT_GT(r.comms[c].end, r.comms[c].gate);
    }
}

// The local trigger has no vote: no reduction step, every window slot's flag word checked as it lands (so
// the density pass does more work than the vote's), and a cheaper step than the vote's on a wide mesh.
TEST(MdStep, LocalTriggerReplacesTheVote) {
  // Loop, task-activation and fabric-word costs aside (every slot is an item of its own with the flag, and
  // the flag is a fourth word), in scalar forms the flag check is the only extra work.
  HardwareSpec hw = preset("wse2");
  hw.compute.task_activation = 0;
  hw.compute.loop_iteration = 0;
  hw.compute.land_word = hw.compute.send_word = 0;
  MdStepSpec vote = md_spec(32, 4, true, true);
  vote.vector_group = 0;
  uniform_neighbours(vote, 20, 11);
  MdStepSpec local = vote;
  local.local_trigger = true;
  const PeProgram pv = build_md_step(vote, hw), pl = build_md_step(local, hw);
  int reductions = 0;
  for (const CommStep& c : pl.comms) reductions += c.spec.kind == ScheduleKind::Reduction;
  EXPECT_EQ(reductions, 0);
  EXPECT_EQ(pl.comms[0].spec.words, vote.position_words + 1) << "positions carry the flag word";
  const ProgramSimulation rv = simulate_program(pv, hw), rl = simulate_program(pl, hw);
  EXPECT_EQ(rl.path_cycles[ActReductions], 0);
  // Density busy cycles grow by one flag check per window slot (2 cycles: a load and a max).
  const int window = (2 * 4 + 1) * (2 * 4 + 1) - 1;
  EXPECT_EQ(rl.activity[ActDensity] - rv.activity[ActDensity], 2 * window);
  EXPECT_LT(rl.cycles, rv.cycles);
  // The flag check waits for each slot's flag word: a program that ignored those words would finish the
  // density pass before the multicast's last word.
  const int T = static_cast<int>(pl.tasks.size());
  int density = -1;
  for (int t = 0; t < T; ++t)
    if (pl.tasks[t].name == "density") density = t;
  ASSERT_GE(density, 0);
  for (int pe = 0; pe < pl.grid.size(); ++pe) EXPECT_GE(rl.timing[pe * T + density].end, rl.comms[0].end);
}

// Vector forms over groups of entries: unused where they cost more than scalar forms (the preset), taken
// where the preset's vector width makes them cheaper; simulator and model still agree.
TEST(MdStep, VectorFormsFollowThePresetsVectorWidth) {
  const HardwareSpec hw = preset("wse2");
  MdStepSpec s = md_spec(24, 4, true, true);
  s.local_trigger = true;
  synthetic_neighbours(s);
  MdStepSpec scalar = s;
  scalar.vector_group = 0;
  // A slow vector issue (8 cycles) makes the candidate's DSD form dearer than 8 scalar entries.
  HardwareSpec slow_issue = hw;
  slow_issue.compute.vector_issue = 8;
  const PeProgram pv = build_md_step(s, slow_issue), ps = build_md_step(scalar, slow_issue);
  EXPECT_EQ(pv.items.size(), ps.items.size()) << "issue 8: scalar forms";
  EXPECT_EQ(model_program(pv, slow_issue).cycles, model_program(ps, slow_issue).cycles);
  // At the preset (issue 2, one element per cycle) the DSD forms pay: their memory operands are part of the
  // operation, where scalar forms load each word.
  const HardwareSpec& wide = hw;
  const PeProgram wv = build_md_step(s, wide), ws = build_md_step(scalar, wide);
  EXPECT_LT(wv.items.size(), ws.items.size()) << "groups of 8 entries per item";
  EXPECT_LT(model_program(wv, wide).cycles, model_program(ws, wide).cycles);
  const ProgramSimulation a = simulate_program(wv, wide), b = simulate_program(ws, wide);
  EXPECT_LT(a.max_busy, b.max_busy);
  EXPECT_LT(a.cycles, b.cycles);
  const long long m = model_program(wv, wide).cycles;
  EXPECT_LE(std::fabs(static_cast<double>(m - a.cycles)) / static_cast<double>(a.cycles), 0.05);
}

TEST(CostModel, SlotLandingFollowsTheSimulator) {
  const HardwareSpec hw = preset("wse2");
  for (bool wrap : {false, true})
    for (int words : {1, 3}) {
      const ScheduleSpec spec{ScheduleKind::WindowMulticast, Grid{15, 15}, 3, words, wrap};
      const Schedule sch = build_schedule(spec);
      ReceiveBuffers rb;
      simulate(sch, hw, std::vector<std::uint32_t>(static_cast<std::size_t>(225) * words, 1u), &rb);
      const std::vector<long long> model = model_slot_landing(spec, hw);
      const int pe = sch.map.physical_pe(7 * 15 + 7);  // the centre: its whole window exists
      long long worst = 0;
      for (int slot = 0; slot < rb.slots_per_pe; ++slot) {
        const int got = rb.landed[static_cast<std::size_t>(pe) * rb.slots_per_pe + slot];
        if (model[slot] < 0) {
          EXPECT_EQ(got, -1);
          continue;
        }
        worst = std::max(worst, std::abs(model[slot] - got));
      }
      EXPECT_LE(worst, 2) << "wrap=" << wrap << " words=" << words;
    }
}

class MdStepSweep : public ::testing::TestWithParam<int> {};

// Model against simulator for the MD step on an n x n mesh: b = 1..8 (2b+1 <= n), wrap on and off, and three
// programs: the streaming step with the local trigger, its rescan step (on the folded torus only, as the
// slabs are periodic), and the serial program with the vote; `tweak` sets the variant. Returns the worst
// relative error; each case must be within 5 %.
double sweep_md_step(int n, const HardwareSpec& hw, const std::string& what,
                     const std::function<void(MdStepSpec&)>& tweak, int* cases) {
  double worst = 0;
  for (int b = 1; b <= 8 && 2 * b + 1 <= n; ++b)
    for (bool wrap : {false, true})
      for (int variant = 0; variant < 3; ++variant) {
        if (variant == 1 && !wrap) continue;
        const bool streaming = variant < 2;
        MdStepSpec s = md_spec(n, b, wrap, streaming);
        s.local_trigger = streaming;
        s.rebuild = variant == 1;
        tweak(s);
        synthetic_neighbours(s);
        const PeProgram p = build_md_step(s, hw);
        const long long sim = simulate_program(p, hw).cycles;
        const long long mod = model_program(p, hw).cycles;
        const double err = std::fabs(static_cast<double>(mod - sim)) / static_cast<double>(sim);
        worst = std::max(worst, err);
        ++*cases;
        EXPECT_LE(err, 0.05) << what << " n=" << n << " b=" << b << " wrap=" << wrap << " variant=" << variant
                             << ": simulated " << sim << ", modeled " << mod;
      }
  return worst;
}

// The acceptance sweep: b = 1..8 (2b+1 <= n), wrap on and off, on every mesh size of the parameter, for the
// step `wafermd model` prices (the local trigger, streaming; its rescan step on the folded torus) and the
// serial program with the vote.
TEST_P(MdStepSweep, ModelWithinFivePercent) {
  const HardwareSpec hw = preset("wse2");
  const int n = GetParam();
  WMD_SWEEP_SAMPLE(n, 8, 9, 12, 16, 17, 24, 31, 32, 40);
  int cases = 0;
  const double worst = sweep_md_step(
      n, hw, "full window", [](MdStepSpec&) {}, &cases);
  RecordProperty("worst_relative_error", std::to_string(worst));
  std::printf("md_step n=%d: %d cases, worst model error %.4f\n", n, cases, worst);
}

INSTANTIATE_TEST_SUITE_P(ProgramModel, MdStepSweep,
                         ::testing::Values(8, 9, 12, 16, 17, 24, 31, 32, 40, 48, 63, 64),
                         [](const ::testing::TestParamInfo<int>& i) {
                           return "n" + std::to_string(i.param);
                         });

// Newton's third law: each PE computes about half its pairs (its half window) at the per-pair price plus the
// neighbour's share, and the shares come back in two reverse sums (1 word, then 3) that the embedding and the
// kick wait for.
TEST(MdStep, NewtonComputesHalfThePairsAndSumsTheSharesBack) {
  const HardwareSpec hw = preset("wse2");
  MdStepSpec full = md_spec(24, 4, true, true);
  full.local_trigger = true;
  uniform_neighbours(full, 40, 22);
  MdStepSpec half = full;
  half.newton = true;
  const PeProgram pf = build_md_step(full, hw), ph = build_md_step(half, hw);
  ASSERT_EQ(ph.comms.size(), pf.comms.size() + 2);
  int reverse = 0, reverse_words = 0;
  for (const CommStep& c : ph.comms)
    if (c.activity == ActReverse) ++reverse, reverse_words += c.spec.words;
  EXPECT_EQ(reverse, 2);
  EXPECT_EQ(reverse_words, 4) << "one density word, three force words";
  const ProgramSimulation rf = simulate_program(pf, hw), rh = simulate_program(ph, hw);
  EXPECT_EQ(rf.activity[ActReverse], 0);
  EXPECT_GT(rh.activity[ActReverse], 0);
  EXPECT_LT(rh.activity[ActForce], rf.activity[ActForce]);
  // Half the pairs, plus 3 words folded per slot of the other half (2 cycles each).
  EXPECT_LT(rh.activity[ActForce], 0.75 * static_cast<double>(rf.activity[ActForce]));
  // The embedding waits for the density shares, the kick for the force shares: both exchanges start only
  // after every PE's pass has ended, and the last PE's embedding (kick) starts after that.
  const int T = static_cast<int>(ph.tasks.size());
  int embed = -1, kick = T - 1;
  for (int t = 0; t < T; ++t)
    if (ph.tasks[t].name == "embedding") embed = t;
  ASSERT_GE(embed, 0);
  const int rho_back = static_cast<int>(pf.comms.size()) - 1, f_back = static_cast<int>(ph.comms.size()) - 1;
  ASSERT_EQ(ph.comms[rho_back].activity, ActReverse);
  long long last_embed = 0, last_kick = 0;
  for (int pe = 0; pe < ph.grid.size(); ++pe) {
    last_embed = std::max(last_embed, rh.timing[pe * T + embed].start);
    last_kick = std::max(last_kick, rh.timing[pe * T + kick].start);
  }
  EXPECT_GT(last_embed, rh.comms[rho_back].start);
  EXPECT_GT(last_kick, rh.comms[f_back].start);
  const long long m = model_program(ph, hw).cycles;
  EXPECT_LE(std::fabs(static_cast<double>(m - rh.cycles)) / static_cast<double>(rh.cycles), 0.05);
}

class MdStepNewtonSweep : public ::testing::TestWithParam<int> {};

// The Newton variant on the acceptance sweep's small meshes: b = 1..8 (2b+1 <= n), wrap on and off, the
// streaming step with the local trigger (its rescan step on the folded torus) and the serial program.
TEST_P(MdStepNewtonSweep, ModelWithinFivePercent) {
  const HardwareSpec hw = preset("wse2");
  const int n = GetParam();
  int cases = 0;
  const double worst = sweep_md_step(
      n, hw, "newton", [](MdStepSpec& s) { s.newton = true; }, &cases);
  RecordProperty("worst_relative_error", std::to_string(worst));
  std::printf("md_step newton n=%d: %d cases, worst model error %.4f\n", n, cases, worst);
}

INSTANTIATE_TEST_SUITE_P(ProgramModel, MdStepNewtonSweep, ::testing::Values(8, 9, 12, 16, 17, 24, 31, 32),
                         [](const ::testing::TestParamInfo<int>& i) {
                           return "n" + std::to_string(i.param);
                         });

TEST(ProgramModel, PricesAFullWaferInMilliseconds) {
  const HardwareSpec hw = preset("wse2");
  MdStepSpec s;
  s.grid = wafer_grid(hw);
  s.b = 10;
  synthetic_neighbours(s);
  const PeProgram p = build_md_step(s, hw);
  const auto t0 = std::chrono::steady_clock::now();
  const ProgramTimes m = model_program(p, hw);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GT(m.cycles, 0);
  EXPECT_LT(ms, 100.0);
  std::printf("full wafer md_step model: %lld cycles in %.2f ms (%d classes)\n", m.cycles, ms, p.classes());
}

// The program variants `wafermd model` prices beside the emulator's step: kept distances and the three table
// layouts, each with and without Newton's third law, model against simulator on small meshes (b = 1..8,
// 2b+1 <= n, wrap on and off; the streaming step with the local trigger, its rescan step on the torus, and
// the serial program).
class MdStepVariantSweep : public ::testing::TestWithParam<int> {};

TEST_P(MdStepVariantSweep, ModelWithinFivePercent) {
  const HardwareSpec hw = preset("cs2_sc24");
  const int n = GetParam();
  double worst = 0;
  int cases = 0;
  for (TableLayout layout : {TableLayout::Spline7, TableLayout::Spline4, TableLayout::Hermite2})
    for (bool keep : {false, true})
      for (bool newton : {false, true}) {
        const std::string what =
            std::string(table_layout_name(layout)) + (keep ? " kept" : "") + (newton ? " newton" : "");
        worst = std::max(worst, sweep_md_step(
                                    n, hw, what,
                                    [&](MdStepSpec& s) {
                                      s.table_layout = layout;
                                      s.keep_distances = keep;
                                      s.newton = newton;
                                    },
                                    &cases));
      }
  std::printf("md_step variants n=%d: %d cases, worst model error %.4f\n", n, cases, worst);
}

INSTANTIATE_TEST_SUITE_P(ProgramModel, MdStepVariantSweep, ::testing::Values(8, 9, 12, 16, 17, 24),
                         [](const ::testing::TestParamInfo<int>& i) {
                           return "n" + std::to_string(i.param);
                         });

// Kept distances take the distance, r and the lookup out of the force pass (and the entries outside the
// cutoff); the tables' layouts trade memory for operations; the memory account follows both.
TEST(MdStep, KeptDistancesAndTableLayoutsPriceTheirWork) {
  const HardwareSpec hw = preset("cs2_sc24");
  MdStepSpec s = md_spec(24, 4, true, true);
  s.local_trigger = true;
  uniform_neighbours(s, 26, 14);
  s.tables = TableShape{500, 500, 2, 1};
  MdStepSpec kept = s;
  kept.keep_distances = true;
  const ProgramTimes a = model_program(build_md_step(s, hw), hw),
                     b = model_program(build_md_step(kept, hw), hw);
  EXPECT_LT(b.activity[ActForce], a.activity[ActForce]);
  EXPECT_GT(b.activity[ActDensity], a.activity[ActDensity] - 1) << "the density pass stores what it keeps";
  EXPECT_EQ(md_step_memory(kept, hw).lists - md_step_memory(s, hw).lists, 4 * 6 * 14);
  long long bytes[3];
  double force[3];
  int i = 0;
  for (TableLayout t : {TableLayout::Spline7, TableLayout::Spline4, TableLayout::Hermite2}) {
    MdStepSpec v = s;
    v.table_layout = t;
    bytes[i] = md_step_memory(v, hw).tables;
    force[i] = static_cast<double>(model_program(build_md_step(v, hw), hw).activity[ActForce]);
    ++i;
  }
  EXPECT_EQ(bytes[0], 4LL * 7 * 1500);
  EXPECT_EQ(bytes[1], 4LL * 4 * 1500);
  EXPECT_EQ(bytes[2], 4LL * 2 * 1500);
  EXPECT_LE(force[0], force[1]);
  EXPECT_LT(force[1], force[2]) << "forming the cubic from knot values and slopes costs operations";
}

}  // namespace
}  // namespace wmd::fabric
