// Comm's operations on one rank without MPI (MPI is not initialised in this executable, so every Comm is the
// serial one-rank communicator that never calls MPI): element-wise reductions keep the values, all_to_all
// returns what the rank sends itself, messages to no rank post nothing, a transfer to the rank itself is a
// copy. The same operations across ranks: test_comm_mpi.cpp (ctest CommMpi.*).
#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "base/error.hpp"
#include "md/core/comm.hpp"

namespace {

using wmd::md::Comm;

TEST(Comm, SerialElementwiseReductionsKeepTheValues) {
  const Comm comm;
  ASSERT_EQ(comm.size(), 1);
  int i[3] = {4, -2, 0};
  comm.max(i, 3);
  EXPECT_EQ(i[0], 4);
  EXPECT_EQ(i[1], -2);
  EXPECT_EQ(i[2], 0);
  int64_t l[2] = {int64_t{1} << 40, -7};
  comm.max(l, 2);
  EXPECT_EQ(l[0], int64_t{1} << 40);
  EXPECT_EQ(l[1], -7);
  double d[2] = {-0.5, 3.25};
  comm.max(d, 2);
  EXPECT_EQ(d[0], -0.5);
  EXPECT_EQ(d[1], 3.25);
  uint32_t w[2] = {0x80000001u, 0u};
  comm.bit_or(w, 2);
  EXPECT_EQ(w[0], 0x80000001u);
  EXPECT_EQ(w[1], 0u);
}

TEST(Comm, SerialAllToAllReturnsWhatTheRankSendsItself) {
  const Comm& comm = Comm::local();
  const std::vector<std::vector<double>> out = {{1.5, -2.0, 3.0}};
  EXPECT_EQ(comm.all_to_all(out), out[0]);
  EXPECT_TRUE(comm.all_to_all(std::vector<std::vector<int>>(1)).empty());
  // One buffer per rank, or it is a caller's error.
  EXPECT_THROW(comm.all_to_all(std::vector<std::vector<int>>(2)), wmd::RunError);
}

TEST(Comm, SerialMessagesToNoRankPostNothing) {
  const Comm comm;
  Comm::Requests r;
  int x = 3;
  comm.post_send(&x, 1, -1, 0, r);
  comm.post_receive(&x, 1, -1, 0, r);
  EXPECT_TRUE(r.empty());
  comm.finish(r);
  EXPECT_EQ(comm.waited(), 0.0);
  // Without MPI there is no rank to talk to; a message to oneself is a Transfer (a copy), not a post.
  EXPECT_THROW(comm.post_send(&x, 1, 0, 0, r), wmd::RunError);
  EXPECT_THROW(comm.post_receive(&x, 1, 0, 0, r), wmd::RunError);
}

TEST(Comm, SerialTransferToItselfIsACopy) {
  const Comm comm;
  const std::vector<int> out = {7, 8, 9};
  std::vector<int> in(3, 0);
  const std::vector<Comm::Transfer> t = {
      {out.data(), out.size() * sizeof(int), 0, in.data(), in.size() * sizeof(int), 0}};
  Comm::Requests req = comm.start(t);
  EXPECT_TRUE(req.empty());
  EXPECT_EQ(in, out);  // copied at start
  comm.finish(req);
  Comm::Requests recv, send;
  in.assign(3, 0);
  comm.start(t, recv, send);
  EXPECT_EQ(in, out);
  EXPECT_EQ(recv.size() + send.size(), 0u);
}

TEST(Comm, RequestsAreMoveOnly) {
  static_assert(!std::is_copy_constructible_v<Comm::Requests>);
  static_assert(std::is_nothrow_move_constructible_v<Comm::Requests>);
  Comm::Requests a;
  Comm::Requests b = std::move(a);
  a = std::move(b);
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a.size(), 0u);
}

TEST(Comm, SerialVoteIsTheRanksOwnFlag) {
  const Comm comm;
  Comm::PendingAny vote;
  EXPECT_FALSE(comm.any_finish(vote));  // none started
  comm.any_start(true, vote);
  EXPECT_TRUE(vote.req.empty());
  EXPECT_TRUE(comm.any_finish(vote));
  comm.any_start(false, vote);
  EXPECT_FALSE(comm.any_finish(vote));
}

}  // namespace
