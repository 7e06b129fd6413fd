#include "md/mesh/band_transport.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "base/error.hpp"

namespace wmd::md::mesh {

using fabric::FastTransport;
using fabric::ReduceOp;
using fabric::ScheduleKind;
using fabric::ScheduleSpec;

void BandTransport::tile(int width, int height) {
  const int R = comm_->size(), H = height;
  if (H < R)
    fail_input(SourcePos{"<mesh>", 0},
               fmt::format("the mesh's {} PE rows cannot be tiled over {} MPI ranks (one band of rows per "
                           "rank): run on at most {} ranks",
                           H, R, H));
  width_ = width, height_ = height;
  rank_of_row_.assign(H, 0);
  for (int r = 0; r < R; ++r)
    for (int y = static_cast<int>(static_cast<int64_t>(r) * H / R);
         y < static_cast<int>(static_cast<int64_t>(r + 1) * H / R); ++y)
      rank_of_row_[y] = r;
  const int me = comm_->rank();
  row0_ = static_cast<int>(static_cast<int64_t>(me) * H / R);
  row1_ = static_cast<int>(static_cast<int64_t>(me + 1) * H / R);
  pe0_ = row0_ * width, pe1_ = row1_ * width;
}

void BandTransport::connect(bool wrap, int b, bool fp64, const fabric::HardwareSpec& hw) {
  const fabric::Grid g{width_, height_};
  const int pw = fp64 ? 6 : 3, fw = fp64 ? 2 : 1;
  if (2 * b + 1 > g.width || 2 * b + 1 > g.height) {
    throw RunError(
        fmt::format("mesh: the window radius b = {} needs a grid of at least {}x{} PEs, but the system "
                    "maps onto {}x{}; use the cluster backend for so few atoms",
                    b, 2 * b + 1, 2 * b + 1, g.width, g.height));
  }
  pos_ = std::make_unique<FastTransport>(ScheduleSpec{ScheduleKind::WindowMulticast, g, b, pw, wrap}, hw);
  fp_ = std::make_unique<FastTransport>(ScheduleSpec{ScheduleKind::WindowMulticast, g, b, fw, wrap}, hw);
  scan_ =
      std::make_unique<FastTransport>(ScheduleSpec{ScheduleKind::WindowMulticast, g, b, pw + 2, wrap}, hw);
  check_ = std::make_unique<FastTransport>(
      ScheduleSpec{ScheduleKind::Reduction, g, 1, 1, wrap, ReduceOp::Max}, hw);
  sum_ = std::make_unique<FastTransport>(ScheduleSpec{ScheduleKind::Reduction, g, 1, 7, wrap, ReduceOp::Sum},
                                         hw);
  swap_ =
      std::make_unique<FastTransport>(ScheduleSpec{ScheduleKind::NeighbourSwap, g, 1, kSwapWords, wrap}, hw);
  // Halo plan: the rows within b of each band (wrapped on the torus) that other bands own.
  recv_.clear(), send_.clear();
  const int R = comm_->size(), H = height_, me = comm_->rank();
  if (R == 1) return;
  auto needed = [&](int r) {
    std::vector<char> need(H, 0);
    const int r0 = static_cast<int>(static_cast<int64_t>(r) * H / R),
              r1 = static_cast<int>(static_cast<int64_t>(r + 1) * H / R);
    for (int y = r0 - b; y < r1 + b; ++y) {
      const int yy = wrap ? ((y % H) + H) % H : y;
      if (yy >= 0 && yy < H && rank_of_row_[yy] != r) need[yy] = 1;
    }
    return need;
  };
  // Maximal runs of rows owned by `owner` among `need`, ascending (both sides compute the same runs).
  auto runs = [&](const std::vector<char>& need, int owner, int peer, std::vector<Run>& out) {
    for (int y = 0; y < H;) {
      if (!need[y] || rank_of_row_[y] != owner) {
        ++y;
        continue;
      }
      int e = y;
      while (e < H && need[e] && rank_of_row_[e] == owner) ++e;
      out.push_back({peer, y, e - y});
      y = e;
    }
  };
  const std::vector<char> mine = needed(me);
  for (int q = 0; q < R; ++q) {
    if (q == me) continue;
    runs(mine, q, q, recv_);
    runs(needed(q), me, q, send_);
  }
}

// A rank's receives and sends are planned independently, so each run is tagged with its first row.
void BandTransport::halo_exchange(std::vector<uint32_t>& payload, int words) {
  if (recv_.empty() && send_.empty()) return;
  const size_t row_words = static_cast<size_t>(width_) * words;
  for (const Run& r : recv_)
    comm_->post_receive(payload.data() + r.row0 * row_words, r.rows * row_words, r.rank, r.row0, halo_);
  for (const Run& r : send_)
    comm_->post_send(payload.data() + r.row0 * row_words, r.rows * row_words, r.rank, r.row0, halo_);
  comm_->finish(halo_);
}

// This band's row folds, every band's rows shared (each physical row is folded by exactly one rank), then
// the column fold.
void BandTransport::reduce(FastTransport& t, const uint32_t* band_values, uint32_t* out) const {
  const int words = t.spec().words;
  std::vector<uint32_t> rows(static_cast<size_t>(height_) * words, 0u);
  t.reduce_rows(band_values, row0_, row1_, rows.data());
  comm_->bit_or(rows.data(), static_cast<int>(rows.size()));  // the other ranks' rows are zero here
  t.fold_rows(rows.data(), out);
}

void BandTransport::gather(const Atoms& a, AllAtoms& g) const {
  g.x = comm_->allgather(a.x);
  g.y = comm_->allgather(a.y);
  g.z = comm_->allgather(a.z);
  g.id = comm_->allgather(a.id);
  g.type = comm_->allgather(a.type);
  const std::vector<int64_t> counts = comm_->allgather(std::vector<int64_t>{static_cast<int64_t>(a.size())});
  g.first.assign(counts.size() + 1, 0);
  for (size_t r = 0; r < counts.size(); ++r) g.first[r + 1] = g.first[r] + counts[r];
}

// Atoms a swap or remap carried across a band edge change rank.
void BandTransport::distribute(Atoms& a, const AllAtoms& g, const std::vector<int32_t>& pe_of) const {
  const int R = comm_->size();
  if (R == 1) return;
  const int me = comm_->rank(), n = static_cast<int>(a.size());
  std::vector<std::vector<double>> out(R);
  std::vector<char> keep(n, 1);
  for (int i = 0; i < n; ++i) {
    const int p = pe_of[g.first[me] + i];
    const int r = rank_of_row_[p / width_];
    if (r == me) continue;
    keep[i] = 0;
    std::vector<double>& buf = out[r];
    buf.resize(buf.size() + Atoms::kPackSize);
    a.pack(i, buf.data() + buf.size() - Atoms::kPackSize);
  }
  const std::vector<double> rbuf = comm_->all_to_all(out);  // arrivals in rank order
  a.compact(keep);
  for (size_t k = 0; k + Atoms::kPackSize <= rbuf.size(); k += Atoms::kPackSize) a.unpack(rbuf.data() + k);
}

}  // namespace wmd::md::mesh
