// Hardware description of a wafer: clock, PE grid, SRAM, colors, link/ramp bandwidth and latency, compute
// costs.
#pragma once
#include <string>
#include <vector>

namespace wmd::fabric {

/// Core cycles per operation class (fp32 unless named otherwise). All estimates: see docs/fabric.md.
struct ComputeCycles {
  double fadd = 1;             // add/subtract
  double fmul = 1;             // multiply
  double fma = 1;              // fused multiply-add
  double fminmax = 1;          // compare/select (min, max)
  double fdiv = 8;             // divide
  double fsqrt = 8;            // square root
  double mem_word = 1;         // one SRAM load or store of a 32-bit word
  double fp_to_int = 1;        // a float-to-integer or integer-to-float conversion (a table index)
  double int_op = 1;           // an integer add or shift (address arithmetic)
  double loop_iteration = 1;   // counter and branch of one loop iteration (a scalar entry, or a vector group)
  double task_activation = 4;  // activating a task (a data task: once per word or group it wakes for)
  double land_word = 0.5;      // core cycles to land one received fabric word in memory
  double send_word = 0.5;      // core cycles to inject, or re-inject when forwarding, one fabric word
  // Vector (DSD-style) instructions: a fixed issue overhead, then the class cost per group of elements.
  double vector_issue = 2;               // cycles to issue one vector instruction
  double vector_elements_per_cycle = 1;  // fp32 elements a vector instruction retires per class cost
};

/// The plausible range of a parameter that is an estimate or a reported spread ([E], or [S] with a range):
/// `key` as the YAML names it ("clock_hz", "compute_cycles.fdiv", ...), its two ends and why.
struct ParameterRange {
  std::string key;
  double low = 0, high = 0;
};

/// One wafer's fabric and PE resources. Presets `wse2` and `wse3`; any field can be overridden from YAML.
struct HardwareSpec {
  std::string name;
  std::string description;
  double clock_hz = 0;                    // core and fabric clock
  long long pe_count = 0;                 // nominal PEs on the wafer
  int grid_width = 0;                     // PE columns used to cost a full wafer
  int grid_height = 0;                    // PE rows used to cost a full wafer
  long long sram_bytes_per_pe = 0;        // local memory of one PE
  int colors = 0;                         // routable colors (virtual channels) per router
  int link_wavelets_per_cycle = 1;        // 32-bit wavelets per cycle per link direction
  int hop_latency_cycles = 1;             // cycles from leaving one router to being forwardable at the next
  int ramp_wavelets_per_cycle = 1;        // wavelets per cycle core→router and router→core, each
  int ramp_latency_cycles = 1;            // cycles to cross the ramp in either direction
  int router_buffer_wavelets = 4;         // input-queue depth per router port
  int phase_sync_cycles = 0;              // gap between two phases of a schedule (statically timed phases: 0)
  double power_per_pe_watts = 0;          // average power of one PE
  long long runtime_bytes_per_pe = 0;     // PE memory the runtime holds (task table, descriptors, stack)
  double code_bytes_per_instruction = 4;  // average encoded size of one instruction of a PE program
  ComputeCycles compute;
  std::vector<ParameterRange> ranges;  // YAML `ranges:`, each key checked against the fields above

  /// Seconds per cycle.
  double seconds_per_cycle() const { return 1.0 / clock_hz; }
};

/// `h` with the parameter `key` (a `ranges` key) set to `value`; throws wmd::InputError for an unknown key or
/// a value the field cannot take.
HardwareSpec with_parameter(const HardwareSpec& h, const std::string& key, double value);

/// Names of the built-in presets ("wse2", "wse3", "cs2_sc24").
const char* const* preset_names(int* count);
/// The built-in preset `name`; throws wmd::InputError for an unknown name.
HardwareSpec preset(const std::string& name);
/// Parses a hardware description from YAML `text`; `file` names it in error messages (InputError with line).
HardwareSpec parse_hardware_yaml(const std::string& text, const std::string& file);
/// A preset name ("wse2", "wse3", "cs2_sc24") or the path of a YAML file; throws wmd::InputError on any
/// problem.
HardwareSpec load_hardware(const std::string& name_or_file);
/// The YAML text of the built-in preset `name` (embedded in the library at build time).
const std::string& preset_yaml(const std::string& name);

}  // namespace wmd::fabric
