// `group ID STYLE args`: LAMMPS's static styles (type, id, region, variable, subtract, union, intersect,
// empty), the logical forms (`type <= 2`, `id <> 10 20`), `clear`, `delete`, and `dynamic` (updated by a fix
// GROUP at each run's set-up and every N steps) with `static` to freeze one again. Static styles add atoms to the
// group, as in LAMMPS.
#include <algorithm>

#include "md/run/command_registry.hpp"
#include "md/run/simulation.hpp"

namespace wmd::md {
namespace {

std::string dynamic_fix_id(const std::string& group) {
  return "GROUP_" + group;
}

bool is_dynamic(const Simulation& sim, const std::string& group) {
  for (const auto& f : sim.fixes)
    if (f->style() == "GROUP" && f->id() == dynamic_fix_id(group)) return true;
  return false;
}

void drop_dynamic(Simulation& sim, const std::string& group) {
  auto& fx = sim.fixes;
  fx.erase(std::remove_if(
               fx.begin(), fx.end(),
               [&](const auto& f) { return f->style() == "GROUP" && f->id() == dynamic_fix_id(group); }),
           fx.end());
}

/// The bit of group `id`, created (LAMMPS allows 32 groups, `all` included) when it does not exist.
uint32_t find_or_create(Simulation& sim, io::ArgCursor& a, const std::string& id) {
  if (const uint32_t bit = sim.state.group_bit(id)) return bit;
  auto& names = sim.state.group_names;
  size_t k = 0;
  while (k < names.size() && !names[k].empty()) ++k;
  if (k >= 32) a.fail("too many groups (LAMMPS allows 32, all included)");
  if (k == names.size())
    names.push_back(id);
  else
    names[k] = id;
  return 1u << k;
}

/// `a`, `a:b` or `a:b:stride` (LAMMPS's group ranges).
struct Range {
  long long lo, hi, stride;
};
Range parse_range(io::ArgCursor& a, const std::string& style, const std::string& w) {
  std::vector<std::string> parts;
  size_t from = 0;
  for (size_t colon; (colon = w.find(':', from)) != std::string::npos; from = colon + 1)
    parts.push_back(w.substr(from, colon - from));
  parts.push_back(w.substr(from));
  Range r{0, 0, 1};
  const bool ok = parts.size() <= 3 && io::parse_integer(parts[0], r.lo) &&
                  (parts.size() < 2 || io::parse_integer(parts[1], r.hi)) &&
                  (parts.size() < 3 || io::parse_integer(parts[2], r.stride));
  if (parts.size() == 1) r.hi = r.lo;
  if (!ok || r.hi < r.lo || r.stride < 1)
    a.fail("group " + style + " expected an integer or a range a:b[:stride], got '" + w + "'");
  return r;
}

void cmd_group(Simulation& sim, const io::Command& c) {
  sim.require_box(c);
  io::ArgCursor a(c);
  const std::string id = a.word("a group ID");
  Atoms& at = sim.state.atoms;
  const std::string style =
      a.choice("a group style", {"delete", "clear", "empty", "region", "type", "id", "subtract", "union",
                                 "intersect", "dynamic", "static", "variable", "molecule", "include"});
  if (style == "delete" || style == "clear") {
    a.finish();
    const uint32_t bit = sim.group_of(a, id);
    if (id == "all") a.fail("cannot " + style + " group all");
    if (style == "delete") {
      for (const auto& f : sim.fixes)
        if ((f->group() & bit) && f->id() != dynamic_fix_id(id))
          a.fail("cannot delete group " + id + ": fix " + f->id() + " uses it");
      for (const auto& cp : sim.computes)
        if (cp->group() & bit) a.fail("cannot delete group " + id + ": compute " + cp->id() + " uses it");
      drop_dynamic(sim, id);
      sim.state.group_names[__builtin_ctz(bit)] = "";
    }
    for (auto& m : at.mask) m &= ~bit;
    return;
  }
  if (style == "molecule" || style == "include")
    a.fail("group " + style + " needs molecules; wafermd's atom_style is atomic");
  if (id == "all" && (style == "dynamic" || style == "static")) a.fail("group all cannot be made " + style);
  if (style == "static") {
    a.finish();
    sim.group_of(a, id);
    drop_dynamic(sim, id);  // the atoms stay as the last update left them
    return;
  }
  if (style == "dynamic") {
    const std::string parent = a.word("the parent group");
    if (parent == id) a.fail("dynamic group " + id + " cannot be its own parent");
    const uint32_t parent_bit = sim.group_of(a, parent);
    if (is_dynamic(sim, parent)) a.fail("the parent of a dynamic group cannot be dynamic (" + parent + ")");
    io::Command fc{"fix", {dynamic_fix_id(id), parent, "GROUP", id}, c.pos, c.text};
    while (!a.done()) {
      const std::string k = a.choice("a dynamic group keyword", {"region", "every", "var", "property"});
      if (k == "property")
        a.fail("group dynamic property needs custom per-atom properties, which wafermd lacks");
      fc.args.push_back(k);
      fc.args.push_back(a.word(k == "region" ? "a region ID"
                               : k == "var"  ? "an atom-style variable"
                                             : "the update interval"));
    }
    find_or_create(sim, a, id);
    io::ArgCursor fa(fc, 3);
    const FixBuildContext ctx = sim.fix_build_context();
    std::unique_ptr<Fix> f = make_fix(FixArgs{fc.args[0], parent_bit, "GROUP", fa, ctx});
    auto it = std::find_if(sim.fixes.begin(), sim.fixes.end(),
                           [&](const auto& x) { return x->id() == fc.args[0]; });
    if (it != sim.fixes.end())
      *it = std::move(f);
    else
      sim.fixes.push_back(std::move(f));
    return;
  }
  if (is_dynamic(sim, id))
    a.fail("cannot add atoms to dynamic group " + id + " (group " + id + " static first)");

  std::vector<char> hit(at.size(), 0);
  if (style == "empty") {
    a.finish();
  } else if (style == "region") {
    const std::string rid = a.word("a region ID");
    a.finish();
    auto it = sim.regions.find(rid);
    if (it == sim.regions.end()) a.fail("unknown region '" + rid + "'");
    it->second.prematch();
    for (size_t i = 0; i < at.size(); ++i) hit[i] = it->second.match(at.x[i], at.y[i], at.z[i]);
  } else if (style == "variable") {
    // The atoms (of all) whose atom-style variable is non-zero now, as LAMMPS's compute_atom over group all.
    const std::string v = a.word("an atom-style variable");
    a.finish();
    if (!sim.has_atom_variable(v))
      a.fail("group variable: variable " + v + " does not exist or is not atom-style");
    sim.clearstep_computes();
    std::vector<double> values;
    sim.atom_variable(v, c.pos, values);
    for (size_t i = 0; i < at.size(); ++i) hit[i] = values[i] != 0.0;
  } else if (style == "subtract" || style == "union" || style == "intersect") {
    std::vector<uint32_t> bits;
    while (!a.done()) bits.push_back(sim.group_of(a, a.word("a group ID")));
    const size_t need = style == "union" ? 1 : 2;
    if (bits.size() < need)
      a.fail("group " + style + " needs at least " + std::to_string(need) + " group" + (need > 1 ? "s" : ""));
    for (size_t i = 0; i < at.size(); ++i) {
      const uint32_t m = at.mask[i];
      if (style == "union") {
        for (uint32_t b : bits) hit[i] |= (m & b) != 0;
      } else if (style == "intersect") {
        hit[i] = std::all_of(bits.begin(), bits.end(), [m](uint32_t b) { return (m & b) != 0; });
      } else {
        hit[i] = (m & bits[0]) &&
                 std::none_of(bits.begin() + 1, bits.end(), [m](uint32_t b) { return (m & b) != 0; });
      }
    }
  } else {
    // type or id: a list of values and ranges, or one logical condition.
    if (a.done()) a.fail("group " + style + " needs at least one value");
    static const std::vector<std::string> ops = {"<", "<=", ">", ">=", "==", "!=", "<>"};
    const std::string first = a.peek();
    auto value_of = [&](size_t i) -> long long { return style == "type" ? at.type[i] : at.id[i]; };
    if (std::find(ops.begin(), ops.end(), first) != ops.end()) {
      const std::string op = a.word("a comparison");
      const long long b1 = a.integer("a bound", -(1LL << 62), 1LL << 62);
      const long long b2 = op == "<>" ? a.integer("the upper bound", -(1LL << 62), 1LL << 62) : 0;
      a.finish();
      for (size_t i = 0; i < at.size(); ++i) {
        const long long v = value_of(i);
        hit[i] = op == "<"    ? v < b1
                 : op == "<=" ? v <= b1
                 : op == ">"  ? v > b1
                 : op == ">=" ? v >= b1
                 : op == "==" ? v == b1
                 : op == "!=" ? v != b1
                              : (v >= b1 && v <= b2);
      }
    } else {
      std::vector<Range> ranges;
      while (!a.done()) ranges.push_back(parse_range(a, style, a.word("a value")));
      for (size_t i = 0; i < at.size(); ++i) {
        const long long v = value_of(i);
        for (const Range& r : ranges) hit[i] |= v >= r.lo && v <= r.hi && (v - r.lo) % r.stride == 0;
      }
    }
  }
  const uint32_t bit = find_or_create(sim, a, id);
  for (size_t i = 0; i < at.size(); ++i)
    if (hit[i]) at.mask[i] |= bit;
}

}  // namespace

WMD_COMMAND("group", cmd_group, kNoFlags)

}  // namespace wmd::md
