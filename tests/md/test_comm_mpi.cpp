// Comm's operations across MPI ranks: element-wise maxima and bitwise or, all_to_all of variable-size buffers
// in rank order, tagged point-to-point messages, Requests that complete their sends when destroyed, votes,
// waited()'s count of blocking waits, and TermSum: exact (the same bits whatever the order and split of its
// terms) in deterministic mode, the local sums added in rank order otherwise. This executable initialises MPI
// itself: ctest runs each case on one rank, and ClusterMpi.comm runs the whole set on 2, 3 and 4 ranks under
// mpirun (tests/md/mpi_cases.py).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include "base/error.hpp"
#include "md/core/comm.hpp"

namespace {

using wmd::md::Comm;

class MpiEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    int on = 0;
    MPI_Initialized(&on);
    if (!on) MPI_Init(nullptr, nullptr);
  }
  void TearDown() override {
    int off = 0;
    MPI_Finalized(&off);
    if (!off) MPI_Finalize();
  }
};
const auto* const kMpi = ::testing::AddGlobalTestEnvironment(new MpiEnvironment);

TEST(CommMpi, WrapsTheGivenCommunicator) {
  const Comm world, same(MPI_COMM_WORLD), self(MPI_COMM_SELF);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(world.rank(), rank);
  EXPECT_EQ(world.size(), size);
  EXPECT_EQ(same.rank(), rank);
  EXPECT_EQ(same.size(), size);
  EXPECT_EQ(self.rank(), 0);
  EXPECT_EQ(self.size(), 1);
}

TEST(CommMpi, MaximaAndBitwiseOrCombineEveryRank) {
  const Comm comm;
  const int me = comm.rank(), R = comm.size();
  int i[3] = {me, -me, 7};
  comm.max(i, 3);
  EXPECT_EQ(i[0], R - 1);
  EXPECT_EQ(i[1], 0);
  EXPECT_EQ(i[2], 7);
  int64_t l[2] = {(int64_t{1} << 40) * me, -(int64_t{1} << 40) * me};
  comm.max(l, 2);
  EXPECT_EQ(l[0], (int64_t{1} << 40) * (R - 1));
  EXPECT_EQ(l[1], 0);
  double d[2] = {0.5 * me - 3.0, me == R - 1 ? 1e300 : -1.0};
  comm.max(d, 2);
  EXPECT_EQ(d[0], 0.5 * (R - 1) - 3.0);
  EXPECT_EQ(d[1], 1e300);
  // Word k has bit (r + k) mod 32 from each rank r; word 3 is zero everywhere.
  uint32_t w[4];
  for (int k = 0; k < 3; ++k) w[k] = 1u << ((me + k) % 32);
  w[3] = 0u;
  comm.bit_or(w, 4);
  for (int k = 0; k < 3; ++k) {
    uint32_t want = 0;
    for (int r = 0; r < R; ++r) want |= 1u << ((r + k) % 32);
    EXPECT_EQ(w[k], want) << "word " << k;
  }
  EXPECT_EQ(w[3], 0u);
}

TEST(CommMpi, AllToAllDeliversEveryRanksBufferInRankOrder) {
  const Comm comm;
  const int me = comm.rank(), R = comm.size();
  // Rank s sends (s + r) mod 3 elements (some none) to rank r, each naming s, r and its index; 6-byte
  // elements, so that counts are in elements, not bytes or doubles.
  using Elem = std::array<int16_t, 3>;
  auto count = [](int s, int r) { return (s + r) % 3; };
  std::vector<std::vector<Elem>> out(R);
  for (int r = 0; r < R; ++r)
    for (int k = 0; k < count(me, r); ++k)
      out[r].push_back({static_cast<int16_t>(me), static_cast<int16_t>(r), static_cast<int16_t>(k)});
  const std::vector<Elem> in = comm.all_to_all(out);
  std::vector<Elem> want;
  for (int s = 0; s < R; ++s)
    for (int k = 0; k < count(s, me); ++k)
      want.push_back({static_cast<int16_t>(s), static_cast<int16_t>(me), static_cast<int16_t>(k)});
  EXPECT_EQ(in, want);
}

TEST(CommMpi, TaggedMessagesMatchByTagNotByOrder) {
  const Comm comm;
  const int me = comm.rank(), R = comm.size();
  Comm::Requests r;
  int x = 0;
  if (R == 1) {
    EXPECT_THROW(comm.post_send(&x, 1, 0, 0, r), wmd::RunError);  // a message to oneself is a Transfer
    return;
  }
  const int next = (me + 1) % R, prev = (me + R - 1) % R;
  // A small message and one large enough for the rendezvous protocol, posted in opposite orders.
  const std::vector<int> small_out = {me, 10 * me, 100 * me};
  std::vector<uint32_t> big_out(100000);
  for (size_t k = 0; k < big_out.size(); ++k) big_out[k] = static_cast<uint32_t>(me * 1000003 + k);
  std::vector<int> small_in(3, -1);
  std::vector<uint32_t> big_in(big_out.size(), 0u);
  comm.post_receive(small_in.data(), small_in.size(), prev, 5, r);
  comm.post_receive(big_in.data(), big_in.size(), prev, 9, r);
  comm.post_send(big_out.data(), big_out.size(), next, 9, r);
  comm.post_send(small_out.data(), small_out.size(), next, 5, r);
  EXPECT_EQ(r.size(), 4u);
  comm.finish(r);
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(small_in, (std::vector<int>{prev, 10 * prev, 100 * prev}));
  for (size_t k = 0; k < big_in.size(); ++k)
    ASSERT_EQ(big_in[k], static_cast<uint32_t>(prev * 1000003 + k)) << "element " << k;
}

TEST(CommMpi, DestroyedRequestsCompleteTheirSends) {
  const Comm comm;
  const int me = comm.rank(), R = comm.size();
  if (R == 1) GTEST_SKIP() << "needs another rank";
  const int next = (me + 1) % R, prev = (me + R - 1) % R;
  std::vector<double> in(50000, 0.0);
  Comm::Requests recv;
  comm.post_receive(in.data(), in.size(), prev, 3, recv);
  {
    const std::vector<double> out(50000, 1.0 + me);
    Comm::Requests send;
    comm.post_send(out.data(), out.size(), next, 3, send);
    Comm::Requests moved = std::move(send);  // the requests travel with the object
    EXPECT_TRUE(send.empty());               // NOLINT(bugprone-use-after-move): stated on purpose
    EXPECT_EQ(moved.size(), 1u);
  }  // `moved` waits for its send here, before `out` goes
  comm.finish(recv);
  EXPECT_EQ(in.front(), 1.0 + prev);
  EXPECT_EQ(in.back(), 1.0 + prev);
  comm.barrier();
}

TEST(CommMpi, TransfersAndVotesUseTheirOwnRequests) {
  const Comm comm;
  const int me = comm.rank(), R = comm.size();
  const int next = (me + 1) % R, prev = (me + R - 1) % R;
  const std::vector<int64_t> out = {me, me + 1};
  std::vector<int64_t> in(2, -1);
  const std::vector<Comm::Transfer> t = {
      {out.data(), out.size() * sizeof(int64_t), next, in.data(), in.size() * sizeof(int64_t), prev}};
  Comm::Requests recv, send;
  comm.start(t, recv, send);
  comm.finish(recv);
  EXPECT_EQ(in, (std::vector<int64_t>{prev, prev + 1}));
  comm.finish(send);
  // Only the last rank votes yes, then nobody does.
  Comm::PendingAny vote;
  comm.any_start(me == R - 1, vote);
  EXPECT_TRUE(comm.any_finish(vote));
  comm.any_start(false, vote);
  EXPECT_FALSE(comm.any_finish(vote));
}

TEST(CommMpi, WaitedCountsTheWaitForAMessage) {
  const Comm comm;
  if (comm.size() == 1) GTEST_SKIP() << "needs another rank";
  const int me = comm.rank();
  comm.barrier();
  const double before = comm.waited();
  int x = 42, y = 0;
  Comm::Requests r;
  if (me == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // rank 1 waits for this message
    comm.post_send(&x, 1, 1, 11, r);
  } else if (me == 1) {
    comm.post_receive(&y, 1, 0, 11, r);
  }
  comm.finish(r);
  if (me == 1) {
    EXPECT_EQ(y, 42);
    EXPECT_GT(comm.waited() - before, 0.1);
  }
  comm.barrier();
}

// The same 1000 terms (a wide spread of magnitudes, both signs, a large pair that cancels, tiny squared
// forces) as one serial deterministic sum in one order, and split over the ranks in another order: the same
// bits. Without deterministic mode the ranks' local sums are added in rank order.
TEST(CommMpi, DeterministicTermSumIsTheSameBitsForAnySplitAndOrder) {
  Comm comm;
  const int me = comm.rank(), R = comm.size();
  std::vector<double> terms;
  for (int k = 0; k < 1000; ++k)
    terms.push_back(std::ldexp((k % 2 ? -1.0 : 1.0) * (1.0 + 0.37 * k), (k * 7) % 120 - 80));
  terms[10] = 3.0e12, terms[20] = -3.0e12;
  for (int k = 900; k < 1000; ++k) terms[k] = std::pow(1.1e-10 * (k - 899), 2);  // |F|² near a minimum
  Comm serial(MPI_COMM_SELF);
  serial.set_deterministic(true);
  comm.set_deterministic(true);
  wmd::md::TermSum one(serial, 2), split(comm, 2);
  for (int k = 0; k < 1000; ++k) one.add(0, terms[k]), one.add(1, k >= 900 ? terms[k] : 0.0);
  for (int k = 999; k >= 0; --k)  // reversed, term k on rank (k·31) mod R
    if ((k * 31) % R == me) split.add(0, terms[k]), split.add(1, k >= 900 ? terms[k] : 0.0);
  const std::vector<double> a = one.total(), b = split.total();
  EXPECT_EQ(a[0], b[0]);
  EXPECT_EQ(a[1], b[1]);
  // The small terms keep their digits (well below 2⁻⁶⁴ ≈ 5·10⁻²⁰ each) and cancellation loses nothing.
  double small = 0.0;
  for (int k = 900; k < 1000; ++k) small += terms[k];
  EXPECT_NEAR(a[1], small, 1e-14 * small);
  EXPECT_GT(a[1], 0.0);
  comm.set_deterministic(false);
  wmd::md::TermSum plain(comm, 1);
  double mine = 0.0;
  for (int k = 0; k < 1000; ++k)
    if (k % R == me) plain.add(0, terms[k]), mine += terms[k];
  const std::vector<double> parts = comm.allgather(std::vector<double>{mine});
  double want = 0.0;
  for (double p : parts) want += p;
  EXPECT_EQ(plain.total()[0], want);
}

}  // namespace
