#include "md/core/comm.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <iostream>

#include "base/error.hpp"

namespace wmd::md {
namespace {

// Up to this many ranks a vote is one message to every other rank (any_start); above, a collective.
constexpr int kPeerVoteRanks = 32;

// Runs a blocking MPI call and adds the seconds it took to `waited` (Comm::waited).
template <class Call>
void blocking(double& waited, Call&& call) {
  const double t0 = MPI_Wtime();
  call();
  waited += MPI_Wtime() - t0;
}

// Gathers per-rank byte counts and their displacements (as MPI's int counts).
std::vector<int> counts_of(MPI_Comm c, int size, size_t nbytes, std::vector<int>& displs) {
  const int mine = static_cast<int>(nbytes);
  std::vector<int> counts(size);
  MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, c);
  displs.assign(size, 0);
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  return counts;
}

// One value combined over every rank by an exact operation (max, min, an integer sum): the same on every
// rank.
template <class T>
T reduced(MPI_Comm c, T v, MPI_Datatype type, MPI_Op op) {
  T r = v;
  MPI_Allreduce(&v, &r, 1, type, op, c);
  return r;
}

}  // namespace

Comm::Comm(MPI_Comm c) : comm_(c) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    serial_ = true;
    return;
  }
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

const Comm& Comm::local() {
  static const Comm c{Serial{}};
  return c;
}

// MPI_Allreduce order is fixed for a given rank count in Open MPI's default tuned algorithms, but to make
// sums reproducible regardless of algorithm choice we gather the per-rank partials and add them in rank
// order.
double Comm::sum(double v) const {
  if (size_ == 1) return v;
  std::vector<double> all(size_);
  MPI_Allgather(&v, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, comm_);
  double s = 0.0;
  for (double x : all) s += x;
  return s;
}

int64_t Comm::sum(int64_t v) const {
  return size_ == 1 ? v : reduced(comm_, v, MPI_INT64_T, MPI_SUM);
}

void Comm::sum(double* v, int n) const {
  if (size_ == 1 || n == 0) return;
  std::vector<double> all(static_cast<size_t>(n) * size_);
  MPI_Allgather(v, n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, comm_);
  for (int k = 0; k < n; ++k) {
    double s = 0.0;
    for (int r = 0; r < size_; ++r) s += all[static_cast<size_t>(r) * n + k];
    v[k] = s;
  }
}

void Comm::sum(int64_t* v, int n) const {
  if (size_ == 1 || n == 0) return;
  MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_SUM, comm_);
}

double Comm::max(double v) const {
  return size_ == 1 ? v : reduced(comm_, v, MPI_DOUBLE, MPI_MAX);
}

double Comm::min(double v) const {
  return size_ == 1 ? v : reduced(comm_, v, MPI_DOUBLE, MPI_MIN);
}

int64_t Comm::max(int64_t v) const {
  return size_ == 1 ? v : reduced(comm_, v, MPI_INT64_T, MPI_MAX);
}

int64_t Comm::min(int64_t v) const {
  return size_ == 1 ? v : reduced(comm_, v, MPI_INT64_T, MPI_MIN);
}

bool Comm::any(bool v) const {
  if (size_ == 1) return v;
  int in = v ? 1 : 0, out = 0;
  blocking(waited_, [&] { MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, comm_); });
  return out != 0;
}

void Comm::any_start(bool v, PendingAny& p) const {
  p.in = p.out = v ? 1 : 0;
  p.posted = true;
  p.req.clear();
  if (size_ == 1) return;
  if (size_ > kPeerVoteRanks) {
    p.req.emplace_back();
    MPI_Iallreduce(&p.in, &p.out, 1, MPI_INT, MPI_MAX, comm_, &p.req.back());
    return;
  }
  // Each rank sends its flag to every other rank at once. A collective's later rounds move only when a rank
  // calls into MPI (Open MPI's two-rank Iallreduce sends the result back from rank 0 once rank 0 polls), so
  // its finish waited for the other rank to reach *its* finish; these one-int messages are delivered eagerly,
  // so the finish waits only for the other ranks to have started the vote.
  if (votes_ == MPI_COMM_NULL) MPI_Comm_dup(comm_, &votes_);  // collective, once: every rank votes alike
  p.got.assign(size_ - 1, 0);
  for (int r = 0, k = 0; r < size_; ++r) {
    if (r == rank_) continue;
    p.req.emplace_back();
    MPI_Irecv(&p.got[k++], 1, MPI_INT, r, 0, votes_, &p.req.back());
  }
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    p.req.emplace_back();
    MPI_Isend(&p.in, 1, MPI_INT, r, 0, votes_, &p.req.back());
  }
}

bool Comm::any_finish(PendingAny& p) const {
  if (!p.posted) return false;
  p.posted = false;
  if (p.req.empty()) return p.out != 0;
  blocking(waited_, [&] { MPI_Waitall(static_cast<int>(p.req.size()), p.req.data(), MPI_STATUSES_IGNORE); });
  p.req.clear();
  if (size_ <= kPeerVoteRanks) {
    for (const int g : p.got) p.out |= g;
  }
  return p.out != 0;
}

void Comm::barrier() const {
  if (size_ > 1) MPI_Barrier(comm_);
}

void Comm::sum(__int128* v, int n) const {
  if (size_ == 1 || n == 0) return;
  // Two 64-bit halves per value; integer addition of the gathered partials is exact in any order.
  std::vector<__int128> all(static_cast<size_t>(n) * size_);
  MPI_Allgather(v, 2 * n, MPI_INT64_T, all.data(), 2 * n, MPI_INT64_T, comm_);
  for (int k = 0; k < n; ++k) {
    __int128 s = 0;
    for (int r = 0; r < size_; ++r) s += all[static_cast<size_t>(r) * n + k];
    v[k] = s;
  }
}

void Comm::sendrecv_bytes(const void* out, size_t n_out, int dest, void* in, size_t n_in, int source) const {
  if (dest == rank_ && source == rank_) {
    if (n_in) std::memcpy(in, out, n_in);
    return;
  }
  if (serial_) return;
  blocking(waited_, [&] {
    MPI_Sendrecv(out, static_cast<int>(n_out), MPI_BYTE, dest < 0 ? MPI_PROC_NULL : dest, 7, in,
                 static_cast<int>(n_in), MPI_BYTE, source < 0 ? MPI_PROC_NULL : source, 7, comm_,
                 MPI_STATUS_IGNORE);
  });
}

void Comm::exchange(const std::vector<Transfer>& t) const {
  std::vector<MPI_Request> req = start(t);
  finish(req);
}

std::vector<MPI_Request> Comm::start(const std::vector<Transfer>& t) const {
  std::vector<MPI_Request> req, send;
  start(t, req, send);
  req.insert(req.end(), send.begin(), send.end());
  return req;
}

void Comm::start(const std::vector<Transfer>& t, std::vector<MPI_Request>& recv,
                 std::vector<MPI_Request>& send) const {
  for (size_t k = 0; k < t.size(); ++k) {
    const Transfer& x = t[k];
    if (x.dest == rank_ && x.source == rank_) continue;
    if (serial_) continue;
    if (x.source >= 0) {
      recv.emplace_back();
      MPI_Irecv(x.in, static_cast<int>(x.n_in), MPI_BYTE, x.source, 100 + static_cast<int>(k), comm_,
                &recv.back());
    }
  }
  for (size_t k = 0; k < t.size(); ++k) {
    const Transfer& x = t[k];
    if (x.dest == rank_ && x.source == rank_) {
      if (x.n_in) std::memcpy(x.in, x.out, x.n_in);
      continue;
    }
    if (serial_) continue;
    if (x.dest >= 0) {
      send.emplace_back();
      MPI_Isend(x.out, static_cast<int>(x.n_out), MPI_BYTE, x.dest, 100 + static_cast<int>(k), comm_,
                &send.back());
    }
  }
}

void Comm::finish(std::vector<MPI_Request>& req) const {
  if (req.empty()) return;
  blocking(waited_, [&] { MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE); });
  req.clear();
}

__int128 TermSum::to_fixed(double v) {
  const double lim = 4.611686018427387904e18;  // 2^62
  v = v > lim ? lim : v < -lim ? -lim : v;
  return static_cast<__int128>(std::ldexp(v, 64));
}

std::vector<double> TermSum::total() const {
  std::vector<double> out = d_;
  if (!exact_) {
    comm_.sum(out.data(), static_cast<int>(out.size()));
    return out;
  }
  std::vector<__int128> q = q_;
  comm_.sum(q.data(), static_cast<int>(q.size()));
  // A non-finite term on any rank makes the total non-finite, as a plain sum would.
  std::vector<int64_t> bad(out.size());
  for (size_t k = 0; k < out.size(); ++k) bad[k] = std::isfinite(d_[k]) ? 0 : 1;
  comm_.sum(bad.data(), static_cast<int>(bad.size()));
  for (size_t k = 0; k < out.size(); ++k)
    out[k] = bad[k] ? std::nan("") : std::ldexp(static_cast<double>(q[k]), -64);
  return out;
}

std::vector<char> Comm::gather_bytes(const void* data, size_t nbytes) const {
  if (size_ == 1) {
    const char* p = static_cast<const char*>(data);
    return std::vector<char>(p, p + nbytes);
  }
  std::vector<int> displs;
  const std::vector<int> counts = counts_of(comm_, size_, nbytes, displs);
  std::vector<char> out;
  if (root()) out.resize(static_cast<size_t>(displs.back()) + counts.back());
  MPI_Gatherv(data, static_cast<int>(nbytes), MPI_BYTE, out.data(), counts.data(), displs.data(), MPI_BYTE, 0,
              comm_);
  return out;
}

std::vector<char> Comm::allgather_bytes(const void* data, size_t nbytes) const {
  if (size_ == 1) {
    const char* p = static_cast<const char*>(data);
    return std::vector<char>(p, p + nbytes);
  }
  std::vector<int> displs;
  const std::vector<int> counts = counts_of(comm_, size_, nbytes, displs);
  std::vector<char> out(static_cast<size_t>(displs.back()) + counts.back());
  MPI_Allgatherv(data, static_cast<int>(nbytes), MPI_BYTE, out.data(), counts.data(), displs.data(), MPI_BYTE,
                 comm_);
  return out;
}

void Comm::broadcast_bytes(void* data, size_t nbytes) const {
  if (size_ == 1 || nbytes == 0) return;
  MPI_Bcast(data, static_cast<int>(nbytes), MPI_BYTE, 0, comm_);
}

void Comm::broadcast(std::string& s) const {
  if (size_ == 1) return;
  uint64_t n = s.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, comm_);
  s.resize(n);
  if (n) MPI_Bcast(s.data(), static_cast<int>(n), MPI_CHAR, 0, comm_);
}

void Comm::abort(const std::string& message) const {
  // One write, so that mpirun's abort banner from another rank cannot land inside the line.
  const std::string line = "error: rank " + std::to_string(rank_) + ": " + message + "\n";
  std::cerr.flush();
  [[maybe_unused]] const ssize_t written = ::write(2, line.data(), line.size());
  if (serial_) std::exit(exit_run_failed);
  MPI_Abort(comm_, exit_run_failed);
  std::abort();
}

}  // namespace wmd::md
