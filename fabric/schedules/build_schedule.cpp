// Dispatch from a schedule spec to its builder.
#include "fabric/schedules/schedules.hpp"

namespace wmd::fabric {

Schedule build_schedule(const ScheduleSpec& spec) {
  validate_spec(spec);
  switch (spec.kind) {
    case ScheduleKind::WindowMulticast:
      return build_window_multicast(spec);
    case ScheduleKind::NeighbourSwap:
      return build_neighbour_swap(spec);
    case ScheduleKind::Reduction:
      return build_reduction(spec);
  }
  return {};
}

}  // namespace wmd::fabric
