// `compute ID group style args...` (styles from the compute registry, md/styles/computes/) and `uncompute
// ID`.
#include <algorithm>

#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_compute(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const std::string id = a.word("a compute ID");
  const uint32_t group = sim.group_of(a, a.word("a group ID"));
  const std::string style = a.word("a compute style");
  if (sim.find_compute(id)) a.fail("compute ID '" + id + "' is already defined");
  const ComputeBuildContext ctx = sim.compute_build_context();
  sim.computes.push_back(make_compute(ComputeArgs{id, group, style, a, ctx}));
}

void cmd_uncompute(Simulation& sim, const io::Command& c) {
  io::ArgCursor a(c);
  const std::string id = a.word("a compute ID");
  a.finish();
  auto it =
      std::find_if(sim.computes.begin(), sim.computes.end(), [&](const auto& x) { return x->id() == id; });
  if (it == sim.computes.end()) a.fail("unknown compute ID '" + id + "'");
  sim.computes.erase(it);
}

}  // namespace

WMD_COMMAND("compute", cmd_compute, kNoPhysics)
WMD_COMMAND("uncompute", cmd_uncompute, kNoPhysics)

}  // namespace wmd::md
