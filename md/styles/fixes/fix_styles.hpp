// Constructors of the individual fix styles (used by make_fix); each parses the arguments after the style.
#pragma once
#include "md/styles/fix.hpp"

namespace wmd::md {

std::unique_ptr<Fix> make_fix_nve(const std::string& id, uint32_t group, io::ArgCursor& a);
std::unique_ptr<Fix> make_fix_langevin(const std::string& id, uint32_t group, io::ArgCursor& a);
std::unique_ptr<Fix> make_fix_nh(const std::string& id, uint32_t group, const std::string& style,
                                 io::ArgCursor& a);
std::unique_ptr<Fix> make_fix_temp_berendsen(const std::string& id, uint32_t group, io::ArgCursor& a);
std::unique_ptr<Fix> make_fix_press_berendsen(const std::string& id, uint32_t group, io::ArgCursor& a);
std::unique_ptr<Fix> make_fix_dt_reset(const std::string& id, uint32_t group, io::ArgCursor& a,
                                       const FixBuildContext& ctx);
std::unique_ptr<Fix> make_fix_balance(const std::string& id, uint32_t group, io::ArgCursor& a,
                                      const FixBuildContext& ctx);
std::unique_ptr<Fix> make_fix_electron_stopping(const std::string& id, uint32_t group, io::ArgCursor& a,
                                                const FixBuildContext& ctx);

/// Uniform deviate in [0, 1) from a counter-based hash of (seed, atom id, step, stream): the same numbers
/// whatever rank owns the atom (LAMMPS draws from one RanMars stream per rank instead).
double hashed_uniform(uint64_t seed, int64_t id, int64_t step, int stream);

}  // namespace wmd::md
