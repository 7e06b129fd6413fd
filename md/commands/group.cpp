// `group ID type|id|region values...` and `group ID delete`.
#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

void cmd_group(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const std::string id = a.word("a group ID");
  uint32_t bit = sim.state.group_bit(id);
  if (a.peek() == "delete") {
    a.word("delete");
    a.finish();
    if (!bit || id == "all") a.fail("cannot delete group '" + id + "'");
    for (auto& m : sim.state.atoms.mask) m &= ~bit;
    sim.state.group_names[__builtin_ctz(bit)] = "";
    return;
  }
  const std::string style = a.choice("a group style", {"type", "id", "region"});
  if (!bit) {
    size_t k = 0;
    while (k < sim.state.group_names.size() && !sim.state.group_names[k].empty()) ++k;
    if (k >= 32) a.fail("too many groups (at most 32)");
    if (k == sim.state.group_names.size())
      sim.state.group_names.push_back(id);
    else
      sim.state.group_names[k] = id;
    bit = 1u << k;
  }
  Atoms& at = sim.state.atoms;
  if (style == "region") {
    const std::string rid = a.word("a region ID");
    a.finish();
    auto it = sim.regions.find(rid);
    if (it == sim.regions.end()) a.fail("unknown region '" + rid + "'");
    for (size_t i = 0; i < at.size(); ++i) {
      if (it->second.match(at.x[i], at.y[i], at.z[i])) at.mask[i] |= bit;
    }
    return;
  }
  if (a.done()) a.fail("group " + style + " needs at least one value");
  struct Range {
    long long lo, hi, stride;
  };
  std::vector<Range> ranges;
  while (!a.done()) {
    const std::string w = a.word("a value");
    std::vector<std::string> parts;
    size_t from = 0;
    for (size_t colon; (colon = w.find(':', from)) != std::string::npos; from = colon + 1) {
      parts.push_back(w.substr(from, colon - from));
    }
    parts.push_back(w.substr(from));
    Range r{0, 0, 1};
    const bool ok = parts.size() <= 3 && io::parse_integer(parts[0], r.lo) &&
                    (parts.size() < 2 || io::parse_integer(parts[1], r.hi)) &&
                    (parts.size() < 3 || io::parse_integer(parts[2], r.stride));
    if (parts.size() == 1) r.hi = r.lo;
    if (!ok || r.hi < r.lo || r.stride < 1) {
      a.fail("group " + style + " expected an integer or a range a:b[:stride], got '" + w + "'");
    }
    if (style == "type" && (r.lo < 1 || r.hi > sim.state.ntypes)) {
      a.fail("atom type '" + w + "' is outside 1.." + std::to_string(sim.state.ntypes));
    }
    ranges.push_back(r);
  }
  for (size_t i = 0; i < at.size(); ++i) {
    const int64_t v = style == "type" ? at.type[i] : at.id[i];
    for (const Range& r : ranges) {
      if (v >= r.lo && v <= r.hi && (v - r.lo) % r.stride == 0) at.mask[i] |= bit;
    }
  }
}

}  // namespace

WMD_COMMAND("group", cmd_group, kNoFlags)

}  // namespace wmd::md
