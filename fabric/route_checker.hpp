// Rejects route tables the hardware cannot hold or that can deadlock.
#pragma once
#include <string>
#include <vector>

#include "fabric/hardware.hpp"
#include "fabric/routes.hpp"

namespace wmd::fabric {

/// Every problem found in `routes` for wafer `hw`, one clear sentence each; empty when the table is valid.
/// Classes: too many colors, several inputs for one color at a PE, outputs without input (or the reverse),
/// routes off the mesh edge, a neighbour that does not take the wavelet in, U-turns, and cycles in the
/// channel-dependency graph (which can deadlock with finite buffers).
std::vector<std::string> find_route_problems(const RouteTable& routes, const HardwareSpec& hw);

/// Throws wmd::RunError listing the problems when `routes` is invalid; `what` names the schedule.
void check_routes(const RouteTable& routes, const HardwareSpec& hw, const std::string& what);

}  // namespace wmd::fabric
