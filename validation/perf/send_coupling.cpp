// Why the cluster backend's exchanges wait for their receives alone (docs/performance.md, item 12), and
// why its votes are messages rather than a non-blocking allreduce (item 17).
//
// Two ranks post a receive and a send, compute for X, then wait; on alternate iterations one rank starts
// its part D late. The data it waits for was posted D − X after its own wait began (nothing, for D < X),
// yet waiting for the send too also waits for the partner to enter an MPI call (Open MPI's shared-memory
// transport completes a send only then), i.e. for the partner's whole compute: D/2 on average.
//
// Votes: both ranks start a vote, then compute, one of them D longer on alternate iterations, then finish
// it. Every flag was sent at the start, yet MPI_Iallreduce's second round waits for rank 0 to poll, so a
// fast rank 1 waits for rank 0's whole compute (D/2 on average); Comm::any_start's messages do not.
//
//   mpirun -np 2 build/validation/perf/send_coupling [bytes ...]
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "md/core/comm.hpp"

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Busy work for s seconds, with no MPI call (as a pair kernel).
void compute_for(double s) {
  const double t0 = now();
  while (now() - t0 < s) {
  }
}

// Mean seconds spent waiting per iteration: for the receive and the send together, or the receive alone.
double mean_wait(int bytes, bool with_send, int rank) {
  const double X = 1e-3, D = 0.5e-3;
  const int iterations = 400;
  std::vector<char> out(bytes), in(bytes);
  double waited = 0.0;
  for (int k = 0; k < iterations; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (k % 2 == rank) compute_for(D);
    MPI_Request req[2];
    MPI_Irecv(in.data(), bytes, MPI_BYTE, 1 - rank, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(out.data(), bytes, MPI_BYTE, 1 - rank, 0, MPI_COMM_WORLD, &req[1]);
    compute_for(X);
    const double t0 = now();
    MPI_Waitall(with_send ? 2 : 1, req, MPI_STATUSES_IGNORE);
    waited += now() - t0;
    if (!with_send) MPI_Wait(&req[1], MPI_STATUS_IGNORE);  // completed later, untimed
  }
  return waited / iterations;
}

// Mean seconds spent finishing a vote: MPI_Iallreduce, or Comm::any_start / any_finish.
double mean_vote_wait(bool collective, int rank, const wmd::md::Comm& comm) {
  const double X = 1e-3, D = 0.5e-3;
  const int iterations = 400;
  double waited = 0.0;
  for (int k = 0; k < iterations; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    int in = k & 1, out = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    wmd::md::Comm::PendingAny vote;
    if (collective)
      MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req);
    else
      comm.any_start(in != 0, vote);
    compute_for(k % 2 == rank ? X + D : X);
    const double t0 = now();
    if (collective)
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    else
      out = comm.any_finish(vote) ? 1 : 0;
    waited += now() - t0;
    if (out != (k & 1)) std::fprintf(stderr, "error: vote %d gave %d\n", k & 1, out);
  }
  return waited / iterations;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "error: run on exactly 2 ranks\n");
    MPI_Finalize();
    return 2;
  }
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {2048, 22000, 65000};
  if (rank == 0) std::printf("bytes   wait for receive+send (us)   wait for receive alone (us)\n");
  for (const int b : sizes) {
    const double both = mean_wait(b, true, rank), recv = mean_wait(b, false, rank);
    double w[2] = {both, recv};
    MPI_Allreduce(MPI_IN_PLACE, w, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) std::printf("%6d  %27.1f  %28.1f\n", b, w[0] * 1e6, w[1] * 1e6);
  }
  const wmd::md::Comm comm(MPI_COMM_WORLD);
  double v[2] = {mean_vote_wait(true, rank, comm), mean_vote_wait(false, rank, comm)};
  MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("vote    MPI_Iallreduce %.1f us   Comm::any_start %.1f us\n", v[0] * 1e6, v[1] * 1e6);
  MPI_Finalize();
  return 0;
}
