// The Compute family: LAMMPS computes, which derive global scalars or vectors, or per-atom values, from the
// state on demand. Each style is one class in md/styles/computes/, registered by its LAMMPS name with
// WMD_COMPUTE_STYLE next to its code.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/command.hpp"
#include "md/core/comm.hpp"
#include "md/core/region.hpp"
#include "md/core/state.hpp"
#include "md/force/backend.hpp"
#include "md/styles/registry.hpp"
#include "md/styles/style_traits.hpp"

namespace wmd::md {

/// What a compute sees when it is invoked: the state, the ranks, the last force computation.
struct ComputeContext {
  const State& s;
  const Comm& comm;
  const ForceResult* force =
      nullptr;  // energies, virial and (when asked) per-atom energies; null before a run
};

class Compute {
 public:
  Compute(std::string id, std::string style, uint32_t group)
      : id_(std::move(id)), style_(std::move(style)), group_(group) {}
  virtual ~Compute() = default;

  const std::string& id() const { return id_; }
  const std::string& style() const { return style_; }
  uint32_t group() const { return group_; }

  /// The compute's LAMMPS outputs (c_ID, c_ID[i], per-atom values).
  virtual OutputShape shape() const = 0;
  /// The backends that can run it (a backend outside the set refuses the compute at its command).
  virtual unsigned backends() const { return kOnAnyBackend; }
  /// True when its per-atom values need the backend's per-atom energies at that step (pe/atom).
  virtual bool needs_eatom() const { return false; }

  /// Global scalar (collective); sets invoked_scalar.
  virtual double compute_scalar(const ComputeContext&) { return 0.0; }
  /// Global vector into vector() (collective); sets invoked_vector.
  virtual void compute_vector(const ComputeContext&) {}
  /// This rank's per-atom values into peratom() (state order; `shape().peratom_cols` values per atom when it
  /// is an array, one otherwise; 0 for atoms outside the group); sets invoked_peratom.
  virtual void compute_peratom(const ComputeContext&) {}
  const std::vector<double>& vector() const { return vector_; }
  const std::vector<double>& peratom() const { return peratom_; }

  /// The step each output was last computed at (−1: never), LAMMPS's invoked_* flags: a reference between
  /// runs may use an output only when it is current (computed at the present step).
  int64_t invoked_scalar = -1, invoked_vector = -1, invoked_peratom = -1;

  /// Internal state later values depend on (e.g. reference positions), for checkpoints.
  virtual void save_state(NamedArrays& out) const { (void)out; }
  virtual void restore_state(const NamedArrays& in) { (void)in; }

 protected:
  std::string id_, style_;
  uint32_t group_;
  std::vector<double> vector_, peratom_;
};

/// Everything a compute constructor may need besides its arguments.
struct ComputeBuildContext {
  const State& s;
  const std::map<std::string, Region>& regions;
  std::string backend = "cluster";  // the backend that will run it
};

/// `compute ID GROUP STYLE args...` as a style's factory sees it: the cursor stands after the style.
struct ComputeArgs {
  const std::string& id;
  uint32_t group;
  const std::string& style;
  io::ArgCursor& a;
  const ComputeBuildContext& ctx;
};

/// A registered compute style: its factory (bad arguments throw InputError at the command's line).
struct ComputeStyle {
  std::unique_ptr<Compute> (*make)(const ComputeArgs&);
};
using ComputeRegistry = Registry<ComputeStyle>;

/// Builds a compute from its registered style; an unknown style, or one the backend cannot run, fails with
/// the command's line.
std::unique_ptr<Compute> make_compute(const ComputeArgs& args);

}  // namespace wmd::md

/// Registers compute style NAME (a string literal) with its factory
/// `std::unique_ptr<Compute> MAKE(const ComputeArgs&)`.
#define WMD_COMPUTE_STYLE(NAME, MAKE) \
  WMD_REGISTER(::wmd::md::ComputeRegistry, NAME, ::wmd::md::ComputeStyle{MAKE})
