// Reads hardware descriptions from YAML (built-in presets or a user file).
#include "fabric/hardware.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "base/error.hpp"
#include "base/root_read.hpp"
#include "fabric/presets_text.hpp"

namespace wmd::fabric {
namespace {

const char* const kPresetNames[] = {"wse2", "wse3", "cs2_sc24"};
constexpr int kPresets = 3;
const char* const kPresetTexts[] = {generated::wse2_yaml, generated::wse3_yaml, generated::cs2_sc24_yaml};

bool is_preset(const std::string& name) {
  return std::find(kPresetNames, kPresetNames + kPresets, name) != kPresetNames + kPresets;
}

[[noreturn]] void fail_at(const std::string& file, const YAML::Node& node, const std::string& msg) {
  throw InputError(file, node.Mark().line + 1, msg);
}

template <typename T>
T read_scalar(const std::string& file, const YAML::Node& node, const std::string& key) {
  if (!node.IsScalar()) fail_at(file, node, "'" + key + "' must be a number");
  try {
    // yaml-cpp reads "0.85e9" as a double but not as an integer: go through double for integral fields.
    double v = node.as<double>();
    if constexpr (std::is_integral_v<T>) {
      if (v != static_cast<double>(static_cast<long long>(v)))
        fail_at(file, node, "'" + key + "' must be a whole number, got " + node.Scalar());
      return static_cast<T>(v);
    } else {
      return static_cast<T>(v);
    }
  } catch (const YAML::Exception&) {
    fail_at(file, node, "'" + key + "' must be a number, got '" + node.Scalar() + "'");
  }
}

template <typename T>
void read_positive(const std::string& file, const YAML::Node& node, const std::string& key, T& out,
                   bool allow_zero = false) {
  T v = read_scalar<T>(file, node, key);
  // YAML reads .nan and .inf as numbers: a NaN clock or size passes every comparison, so ask for finite.
  if (!std::isfinite(static_cast<double>(v))) fail_at(file, node, "'" + key + "' must be a finite number");
  if (v < 0 || (!allow_zero && v == 0))
    fail_at(file, node, "'" + key + "' must be " + (allow_zero ? "non-negative" : "positive"));
  out = v;
}

void apply_compute(const std::string& file, const YAML::Node& node, ComputeCycles& c) {
  if (!node.IsMap()) fail_at(file, node, "'compute_cycles' must be a map of operation class to cycles");
  const std::map<std::string, double*> fields = {{"fadd", &c.fadd},
                                                 {"fmul", &c.fmul},
                                                 {"fma", &c.fma},
                                                 {"fminmax", &c.fminmax},
                                                 {"fdiv", &c.fdiv},
                                                 {"fsqrt", &c.fsqrt},
                                                 {"mem_word", &c.mem_word},
                                                 {"fp_to_int", &c.fp_to_int},
                                                 {"int_op", &c.int_op},
                                                 {"loop_iteration", &c.loop_iteration},
                                                 {"task_activation", &c.task_activation},
                                                 {"land_word", &c.land_word},
                                                 {"send_word", &c.send_word},
                                                 {"vector_issue", &c.vector_issue},
                                                 {"vector_elements_per_cycle", &c.vector_elements_per_cycle}};
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    auto it = fields.find(key);
    if (it == fields.end())
      fail_at(file, kv.first,
              "unknown operation class 'compute_cycles." + key +
                  "' (known: fadd, fmul, fma, fminmax, fdiv, fsqrt, mem_word, fp_to_int, int_op, "
                  "loop_iteration, task_activation, land_word, send_word, vector_issue, "
                  "vector_elements_per_cycle)");
    // Work the core may hand to its data movers can cost nothing; an arithmetic operation cannot.
    const bool may_be_free = key == "land_word" || key == "send_word" || key == "loop_iteration";
    read_positive(file, kv.second, "compute_cycles." + key, *it->second, may_be_free);
  }
}

void apply(const std::string& file, const YAML::Node& root, HardwareSpec& h);

// A parameter key of `ranges` as a one-entry YAML map ("compute_cycles.fdiv" -> {compute_cycles: {fdiv: v}}).
YAML::Node parameter_node(const std::string& key, double value) {
  YAML::Node n;
  const auto dot = key.find('.');
  if (dot == std::string::npos)
    n[key] = value;
  else
    n[key.substr(0, dot)][key.substr(dot + 1)] = value;
  return n;
}

// `ranges: {key: [low, high], ...}`: every key must name a numeric parameter, and both ends must be values it
// can take (checked by applying them to a copy).
void apply_ranges(const std::string& file, const YAML::Node& node, HardwareSpec& h) {
  if (!node.IsMap()) fail_at(file, node, "'ranges' must be a map of parameter to [low, high]");
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    if (key == "ranges" || key == "name" || key == "description" || key == "base" || key == "grid")
      fail_at(file, kv.first, "'ranges." + key + "' is not a numeric parameter");
    if (!kv.second.IsSequence() || kv.second.size() != 2)
      fail_at(file, kv.second, "'ranges." + key + "' must be [low, high]");
    ParameterRange r;
    r.key = key;
    r.low = read_scalar<double>(file, kv.second[0], "ranges." + key);
    r.high = read_scalar<double>(file, kv.second[1], "ranges." + key);
    if (r.low > r.high) fail_at(file, kv.second, "'ranges." + key + "' must have low <= high");
    for (double v : {r.low, r.high}) {
      HardwareSpec copy = h;
      try {
        apply(file, parameter_node(key, v), copy);
      } catch (const InputError&) {
        fail_at(file, kv.first,
                "'ranges." + key +
                    "' does not name a numeric hardware parameter or its ends "
                    "are not values it can take");
      }
    }
    h.ranges.erase(std::remove_if(h.ranges.begin(), h.ranges.end(),
                                  [&](const ParameterRange& x) { return x.key == key; }),
                   h.ranges.end());
    h.ranges.push_back(r);
  }
}

void apply(const std::string& file, const YAML::Node& root, HardwareSpec& h) {
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    if (key == "base") {
      continue;  // handled by the caller
    } else if (key == "name") {
      h.name = v.as<std::string>();
    } else if (key == "description") {
      h.description = v.as<std::string>();
    } else if (key == "clock_hz") {
      read_positive(file, v, key, h.clock_hz);
    } else if (key == "pe_count") {
      read_positive(file, v, key, h.pe_count);
    } else if (key == "grid") {
      if (!v.IsMap() || !v["width"] || !v["height"])
        fail_at(file, v, "'grid' must be a map with 'width' and 'height'");
      read_positive(file, v["width"], "grid.width", h.grid_width);
      read_positive(file, v["height"], "grid.height", h.grid_height);
    } else if (key == "sram_bytes_per_pe") {
      read_positive(file, v, key, h.sram_bytes_per_pe);
    } else if (key == "colors") {
      read_positive(file, v, key, h.colors);
      if (h.colors > 255) fail_at(file, v, "'colors' must be at most 255");
    } else if (key == "link_wavelets_per_cycle") {
      read_positive(file, v, key, h.link_wavelets_per_cycle);
    } else if (key == "hop_latency_cycles") {
      read_positive(file, v, key, h.hop_latency_cycles);
    } else if (key == "ramp_wavelets_per_cycle") {
      read_positive(file, v, key, h.ramp_wavelets_per_cycle);
    } else if (key == "ramp_latency_cycles") {
      read_positive(file, v, key, h.ramp_latency_cycles);
    } else if (key == "router_buffer_wavelets") {
      read_positive(file, v, key, h.router_buffer_wavelets);
    } else if (key == "phase_sync_cycles") {
      read_positive(file, v, key, h.phase_sync_cycles, /*allow_zero=*/true);
    } else if (key == "power_per_pe_watts") {
      read_positive(file, v, key, h.power_per_pe_watts, /*allow_zero=*/true);
    } else if (key == "runtime_bytes_per_pe") {
      read_positive(file, v, key, h.runtime_bytes_per_pe, /*allow_zero=*/true);
    } else if (key == "code_bytes_per_instruction") {
      read_positive(file, v, key, h.code_bytes_per_instruction);
    } else if (key == "compute_cycles") {
      apply_compute(file, v, h.compute);
    } else if (key == "ranges") {
      apply_ranges(file, v, h);
    } else {
      fail_at(file, kv.first, "unknown hardware key '" + key + "'");
    }
  }
}

void require_complete(const std::string& file, const HardwareSpec& h) {
  auto missing = [&](const char* key) {
    throw InputError(file, 1, std::string("hardware description lacks '") + key + "' (or give 'base: wse2')");
  };
  if (h.name.empty()) missing("name");
  if (h.clock_hz <= 0) missing("clock_hz");
  if (h.pe_count <= 0) missing("pe_count");
  if (h.grid_width <= 0) missing("grid");
  if (h.sram_bytes_per_pe <= 0) missing("sram_bytes_per_pe");
  if (h.colors <= 0) missing("colors");
  if (h.router_buffer_wavelets < 2)
    throw InputError(file, 1, "'router_buffer_wavelets' must be at least 2 (one in flight, one arriving)");
  // A PE is addressed by an int: a grid or PE count beyond that is no wafer, and its costs (cycles per PE
  // times PEs) would overflow or come out absurd rather than fail.
  if (static_cast<double>(h.grid_width) * h.grid_height > 2147483647.0)
    throw InputError(file, 1,
                     "'grid' " + std::to_string(h.grid_width) + "x" + std::to_string(h.grid_height) +
                         " has more than 2147483647 PEs");
  if (h.pe_count > 2147483647LL)
    throw InputError(file, 1, "'pe_count' " + std::to_string(h.pe_count) + " is more than 2147483647");
}

}  // namespace

const char* const* preset_names(int* count) {
  *count = kPresets;
  return kPresetNames;
}

const std::string& preset_yaml(const std::string& name) {
  static const std::vector<std::string> texts(kPresetTexts, kPresetTexts + kPresets);
  for (int i = 0; i < kPresets; ++i)
    if (name == kPresetNames[i]) return texts[i];
  throw InputError("<command line>", 0, "unknown wafer preset '" + name + "' (known: wse2, wse3, cs2_sc24)");
}

HardwareSpec parse_hardware_yaml(const std::string& text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError(file, e.mark.line + 1, "YAML syntax error: " + e.msg);
  }
  if (!root.IsMap()) throw InputError(file, 1, "a hardware description must be a YAML map");
  HardwareSpec h;
  try {
    if (const YAML::Node base = root["base"]) {
      const std::string b = base.as<std::string>();
      if (!is_preset(b)) fail_at(file, base, "unknown base preset '" + b + "' (known: wse2, wse3, cs2_sc24)");
      h = parse_hardware_yaml(preset_yaml(b), "<preset " + b + ">");
    }
    apply(file, root, h);
  } catch (const YAML::Exception& e) {
    throw InputError(file, e.mark.line + 1, "bad hardware description: " + e.msg);
  }
  require_complete(file, h);
  return h;
}

HardwareSpec with_parameter(const HardwareSpec& h, const std::string& key, double value) {
  HardwareSpec copy = h;
  apply("<parameter " + key + ">", parameter_node(key, value), copy);
  return copy;
}

HardwareSpec preset(const std::string& name) {
  return parse_hardware_yaml(preset_yaml(name), "<preset " + name + ">");
}

HardwareSpec load_hardware(const std::string& name_or_file) {
  if (is_preset(name_or_file)) return preset(name_or_file);
  // A hardware description is a page of YAML: /dev/zero would be read forever, a FIFO would block the open,
  // a huge file be read whole. Asked before opening.
  constexpr std::uintmax_t kMaxBytes = 1 << 20;
  // Rank 0 reads it, every rank parses its text (base/root_read.hpp).
  const std::string text = read_on_root("--wafer '" + name_or_file + "'", [&] {
    std::error_code ec;
    const bool exists = std::filesystem::exists(name_or_file, ec);
    if (exists && !std::filesystem::is_regular_file(name_or_file, ec))
      throw InputError("<command line>", 0, "--wafer '" + name_or_file + "' is not a regular file");
    if (exists && std::filesystem::file_size(name_or_file, ec) > kMaxBytes)
      throw InputError("<command line>", 0,
                       "--wafer '" + name_or_file + "' is larger than a hardware description may be (1 MiB)");
    std::ifstream in(name_or_file);
    if (!in)
      throw InputError(
          "<command line>", 0,
          "--wafer '" + name_or_file + "' is neither a preset (wse2, wse3, cs2_sc24) nor a readable file");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  });
  return parse_hardware_yaml(text, name_or_file);
}

}  // namespace wmd::fabric
