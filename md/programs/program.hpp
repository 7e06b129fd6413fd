// `wafermd run`: validates the whole input in a dry run, then runs it and writes the output directory.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace wmd::md {

struct RunOptions {
  std::string input;
  std::string backend;  // empty: from the input / default
  std::vector<std::pair<std::string, std::string>> sets;
  std::vector<std::pair<std::string, std::string>> vars;
  std::string output_dir;  // empty: output.dir or out/<input name>/
  std::string restart;     // checkpoint to continue from (empty: a fresh run)
};

/// Runs one input; returns the process exit status (0, 2 bad input, 3 run failed) after printing any error.
int run_program(const RunOptions& opt);

/// The name an input's default output directory takes: a YAML file's name without .yaml/.yml, any other
/// file's whole name, since LAMMPS scripts are called in.NAME (in.eam → out/in.eam/, not out/in/).
std::string input_output_name(const std::string& path);

}  // namespace wmd::md
