// `wafermd model INPUT [--wafer wse2|wse3|FILE.yaml] [--json]`: predicts the wafer's time per step for an
// input from its mapping and neighbour counts, without running dynamics.
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace wmd::md {

struct ModelOptions {
  std::string input;
  std::string wafer;  // empty: the input's mesh.wafer (default wse2)
  bool json = false;
  std::vector<std::pair<std::string, std::string>> sets;
  std::vector<std::pair<std::string, std::string>> vars;
};

/// The prediction for the system as it stands at the input's first `run` (InputError if it has none).
nlohmann::json model_input(const ModelOptions& opt);
/// Runs the command: prints text or JSON to `out`; returns the exit status (errors are thrown).
int run_model_command(const ModelOptions& opt, std::ostream& out);

}  // namespace wmd::md
