// Native YAML input, translated into the same ordered command list a LAMMPS script gives (docs/input.md).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "io/command.hpp"
#include "io/run_settings.hpp"

namespace wmd::io {

struct YamlInput {
  std::vector<Command> commands;
  RunSettings settings;
  std::string text;  // the file as read
};

/// Reads `path`, applies `--set` overrides (YAML paths) and translates; errors name the YAML line.
YamlInput read_yaml_input(const std::string& path,
                          const std::vector<std::pair<std::string, std::string>>& sets);

}  // namespace wmd::io
