// The transport between row bands. On several MPI ranks the PE grid is tiled in bands of whole PE rows, one
// band per rank; everything that crosses between PEs goes through the fabric transports kept here (the
// positions and F' window multicasts, the rebuild scan, the vote, the 7-word sum, the neighbour swap), and
// what crosses between bands goes through Comm: the halo rows of each multicast payload, the row folds of
// each fabric reduction, the gathered copy of the atoms the mapping's upkeep reads, and the atoms moved to
// the band that holds their PE. One rank is one band and none of the MPI traffic.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "fabric/fast_transport.hpp"
#include "fabric/hardware.hpp"
#include "md/core/atoms.hpp"
#include "md/core/comm.hpp"

namespace wmd::md::mesh {

constexpr int kSwapWords = 11;  // a swap's atom record: handle, x, y, z, vx, vy, vz, type, id, 2 spare
constexpr size_t kWordBudget = 1u << 22;  // words per streamed receive buffer (16 MB)

/// A float's bits as a fabric word, and back.
inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Every rank's atoms at a rebuild, gathered in rank order (rank r's atoms from first[r]): the mapping's
/// upkeep reads them on every rank alike.
struct AllAtoms {
  std::vector<double> x, y, z;
  std::vector<int64_t> id;
  std::vector<int> type;
  std::vector<int64_t> first;  // per rank, and the total at the end
  int size() const { return static_cast<int>(x.size()); }
};

class BandTransport {
 public:
  explicit BandTransport(const Comm& comm) : comm_(&comm) {}

  /// Tiles a width × height grid in bands of whole rows, as equal as the row count allows, in rank order.
  /// Throws InputError when there are fewer rows than ranks.
  void tile(int width, int height);
  /// The fabric transports for window radius b (positions and F' in fp32 or fp64 words) and the halo plan:
  /// the rows within b of each band (wrapped on the torus) that other bands own. Throws RunError when the
  /// grid is narrower than a window.
  void connect(bool wrap, int b, bool fp64, const fabric::HardwareSpec& hw);

  const Comm& comm() const { return *comm_; }
  int row0() const { return row0_; }  // this rank's band of rows [row0, row1), PEs [pe0, pe1)
  int row1() const { return row1_; }
  int pe0() const { return pe0_; }
  int pe1() const { return pe1_; }
  int band_pes() const { return pe1_ - pe0_; }
  int width() const { return width_; }
  int height() const { return height_; }
  /// PEs of the whole grid.
  int grid_pes() const { return width_ * height_; }
  /// The rank whose band holds row y.
  int rank_of_row(int y) const { return rank_of_row_[y]; }

  fabric::FastTransport& positions() { return *pos_; }
  fabric::FastTransport& fp() { return *fp_; }
  fabric::FastTransport& scan() { return *scan_; }
  fabric::FastTransport& vote() { return *check_; }
  fabric::FastTransport& sum() { return *sum_; }
  fabric::FastTransport& swap() { return *swap_; }
  /// The two streamed receive buffers the window deliveries land in (kept between steps: no allocation).
  std::vector<uint32_t>& receive_buffer(int k) { return k == 0 ? buf_ : buf2_; }

  /// The halo rows of a multicast payload (PE × words over the whole grid) from the ranks that own them.
  void halo_exchange(std::vector<uint32_t>& payload, int words);
  /// A fabric reduction of the band's per-PE words: reduce()'s bits at any rank count.
  void reduce(fabric::FastTransport& t, const uint32_t* band_values, uint32_t* out) const;
  /// Gathers the atoms' positions (as they are now), ids and types from every rank.
  void gather(const Atoms& a, AllAtoms& g) const;
  /// Moves every atom to the rank whose band holds its PE (pe_of: PE of each gathered atom).
  void distribute(Atoms& a, const AllAtoms& g, const std::vector<int32_t>& pe_of) const;

 private:
  // Runs of whole PE rows received from / sent to other ranks each multicast.
  struct Run {
    int rank, row0, rows;
  };
  const Comm* comm_;
  int width_ = 0, height_ = 0;
  int row0_ = 0, row1_ = 0, pe0_ = 0, pe1_ = 0;
  std::vector<int> rank_of_row_;
  std::unique_ptr<fabric::FastTransport> pos_, fp_, scan_, check_, sum_, swap_;
  std::vector<uint32_t> buf_, buf2_;
  std::vector<Run> recv_, send_;
  Comm::Requests halo_;  // the halo messages in flight (none between exchanges; kept for its storage)
};

}  // namespace wmd::md::mesh
