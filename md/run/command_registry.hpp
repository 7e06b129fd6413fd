// LAMMPS commands by name: each command is a function in md/commands/, registered with WMD_COMMAND next to
// its code, that acts on the Simulation's public parts. Simulation::execute looks commands up here.
#pragma once
#include "io/command.hpp"
#include "md/core/registry.hpp"

namespace wmd::md {

class Simulation;

/// What a command declares about itself.
enum CommandFlags : unsigned {
  kNoFlags = 0u,
  /// Changes no physics (output, run lengths, velocities): left out of the fingerprint a restart checks.
  kNoPhysics = 1u,
  /// A restart's checkpoint supersedes it (velocities): skipped until the checkpoint is loaded.
  kSkippedOnRestart = 2u,
};

struct CommandStyle {
  void (*run)(Simulation& sim, const io::Command& c);
  unsigned flags = kNoFlags;
};
using CommandRegistry = Registry<CommandStyle>;

}  // namespace wmd::md

/// Registers command NAME (a string literal): `void FN(Simulation&, const io::Command&)`, with CommandFlags.
#define WMD_COMMAND(NAME, FN, FLAGS) \
  WMD_REGISTER(::wmd::md::CommandRegistry, NAME, ::wmd::md::CommandStyle{FN, FLAGS})
