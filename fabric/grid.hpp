// A W×H rectangle of processing elements (PEs) and the five router ports of each PE.
#pragma once
#include <cstdint>

namespace wmd::fabric {

/// Router ports. N/S/E/W are links to the four neighbours; Ramp connects the router to its own core.
enum Port : std::uint8_t { North = 0, East = 1, South = 2, West = 3, Ramp = 4 };
inline constexpr int port_count = 5;
inline constexpr int link_port_count = 4;

/// Bit for `p` in a port mask (a route's set of output ports).
inline constexpr std::uint8_t port_bit(Port p) {
  return static_cast<std::uint8_t>(1u << p);
}

/// The port on the neighbour that faces `p` (a wavelet leaving East arrives on the neighbour's West).
inline constexpr Port opposite(Port p) {
  switch (p) {
    case North:
      return South;
    case South:
      return North;
    case East:
      return West;
    case West:
      return East;
    default:
      return Ramp;
  }
}

/// Short name of a port, for messages.
inline const char* port_name(Port p) {
  static const char* names[] = {"N", "E", "S", "W", "ramp"};
  return names[p];
}

/// A rectangle of PEs. x = column (grows East), y = row (grows South); PE id = y * width + x.
struct Grid {
  int width = 0;
  int height = 0;

  /// Number of PEs.
  int size() const { return width * height; }
  /// PE id of column x, row y.
  int id(int x, int y) const { return y * width + x; }
  /// Column of PE `pe`.
  int x_of(int pe) const { return pe % width; }
  /// Row of PE `pe`.
  int y_of(int pe) const { return pe / width; }
  /// True when (x, y) lies on the grid.
  bool contains(int x, int y) const { return x >= 0 && y >= 0 && x < width && y < height; }
  /// Neighbour of `pe` through link port `p`, or -1 off the edge.
  int neighbour(int pe, Port p) const {
    int x = x_of(pe), y = y_of(pe);
    switch (p) {
      case North:
        --y;
        break;
      case South:
        ++y;
        break;
      case East:
        ++x;
        break;
      case West:
        --x;
        break;
      default:
        return -1;
    }
    return contains(x, y) ? id(x, y) : -1;
  }
  /// Number of directed links (each physical link counts once per direction).
  long long directed_links() const { return 2LL * (width - 1) * height + 2LL * width * (height - 1); }
};

}  // namespace wmd::fabric
