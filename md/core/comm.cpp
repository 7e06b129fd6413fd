#include "md/core/comm.hpp"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "base/error.hpp"

namespace wmd::md {
namespace {

static_assert(sizeof(MPI_Comm) <= sizeof(uint64_t), "Comm holds an MPI_Comm in 64 bits");

// The MPI_Comm whose bits a Comm::Handle holds.
MPI_Comm mpi_comm(uint64_t bits) {
  MPI_Comm c;
  std::memcpy(&c, &bits, sizeof c);
  return c;
}

// The MPI_Comm of a Comm::Handle (a template: the handle type is Comm's own).
template <class Handle>
MPI_Comm mpi(const Handle& h) {
  return mpi_comm(h.bits);
}

// A message size as MPI's int count; larger messages would need MPI 4's large-count calls.
int mpi_count(size_t n) {
  if (n > static_cast<size_t>(INT_MAX))
    throw RunError("a message of " + std::to_string(n) + " elements exceeds MPI's int count");
  return static_cast<int>(n);
}

// MPI is usable: initialised and not yet finalised.
bool mpi_up() {
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  return up && !down;
}

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

struct Comm::Requests::Impl {
  std::vector<MPI_Request> req;
};

Comm::Requests::Requests() = default;
Comm::Requests::Requests(Requests&&) noexcept = default;
Comm::Requests& Comm::Requests::operator=(Requests&& o) noexcept {
  if (this != &o) {
    // What this set still held must complete (as at destruction) before its handles are dropped.
    if (!empty() && mpi_up())
      MPI_Waitall(static_cast<int>(impl_->req.size()), impl_->req.data(), MPI_STATUSES_IGNORE);
    impl_ = std::move(o.impl_);
  }
  return *this;
}

Comm::Requests::~Requests() {
  if (!empty() && mpi_up())
    MPI_Waitall(static_cast<int>(impl_->req.size()), impl_->req.data(), MPI_STATUSES_IGNORE);
}

bool Comm::Requests::empty() const {
  return !impl_ || impl_->req.empty();
}

size_t Comm::Requests::size() const {
  return impl_ ? impl_->req.size() : 0;
}

namespace {

// A new request slot in r (its storage made at the first post).
MPI_Request* next_request(std::unique_ptr<Comm::Requests::Impl>& impl) {
  if (!impl) impl = std::make_unique<Comm::Requests::Impl>();
  impl->req.emplace_back();
  return &impl->req.back();
}

}  // namespace

Comm::Comm() : Comm(Handle::of(MPI_COMM_WORLD)) {}

Comm::Comm(Handle c) : comm_(c) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    serial_ = true;
    return;
  }
  MPI_Comm_rank(mpi(comm_), &rank_);
  MPI_Comm_size(mpi(comm_), &size_);
}

const Comm& Comm::local() {
  static const Comm c{Serial{}};
  return c;
}

// MPI_Allreduce order is fixed for a given rank count in Open MPI's default tuned algorithms, but to make
// sums reproducible regardless of algorithm choice we gather the per-rank partials and add them in rank
// order.
double Comm::sum_in_rank_order(double v) const {
  count(1);
  if (size_ == 1) return v;
  std::vector<double> all(size_);
  MPI_Allgather(&v, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, mpi(comm_));
  double s = 0.0;
  for (double x : all) s += x;
  return s;
}

int64_t Comm::sum(int64_t v) const {
  count(1);
  return size_ == 1 ? v : reduced(mpi(comm_), v, MPI_INT64_T, MPI_SUM);
}

void Comm::sum_in_rank_order(double* v, int n) const {
  count(n);
  if (size_ == 1 || n == 0) return;
  std::vector<double> all(static_cast<size_t>(n) * size_);
  MPI_Allgather(v, n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, mpi(comm_));
  for (int k = 0; k < n; ++k) {
    double s = 0.0;
    for (int r = 0; r < size_; ++r) s += all[static_cast<size_t>(r) * n + k];
    v[k] = s;
  }
}

void Comm::sum(int64_t* v, int n) const {
  count(n);
  if (size_ == 1 || n == 0) return;
  MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_SUM, mpi(comm_));
}

double Comm::max(double v) const {
  count(1);
  return size_ == 1 ? v : reduced(mpi(comm_), v, MPI_DOUBLE, MPI_MAX);
}

double Comm::min(double v) const {
  count(1);
  return size_ == 1 ? v : reduced(mpi(comm_), v, MPI_DOUBLE, MPI_MIN);
}

int64_t Comm::max(int64_t v) const {
  count(1);
  return size_ == 1 ? v : reduced(mpi(comm_), v, MPI_INT64_T, MPI_MAX);
}

int64_t Comm::min(int64_t v) const {
  count(1);
  return size_ == 1 ? v : reduced(mpi(comm_), v, MPI_INT64_T, MPI_MIN);
}

bool Comm::any(bool v) const {
  count(1);
  if (size_ == 1) return v;
  int in = v ? 1 : 0, out = 0;
  blocking(waited_, [&] { MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, mpi(comm_)); });
  return out != 0;
}

void Comm::any_start(bool v, PendingAny& p) const {
  p.in = p.out = v ? 1 : 0;
  p.posted = true;
  finish(p.req);  // empty unless a vote was started and never finished
  if (size_ == 1) return;
  if (size_ > kPeerVoteRanks) {
    MPI_Iallreduce(&p.in, &p.out, 1, MPI_INT, MPI_MAX, mpi(comm_), next_request(p.req.impl_));
    return;
  }
  // Each rank sends its flag to every other rank at once. A collective's later rounds move only when a rank
  // calls into MPI (Open MPI's two-rank Iallreduce sends the result back from rank 0 once rank 0 polls), so
  // its finish waited for the other rank to reach *its* finish; these one-int messages are delivered eagerly,
  // so the finish waits only for the other ranks to have started the vote.
  make_duplicate(votes_, votes_made_);  // collective, once: every rank votes alike
  p.got.assign(size_ - 1, 0);
  for (int r = 0, k = 0; r < size_; ++r) {
    if (r == rank_) continue;
    MPI_Irecv(&p.got[k++], 1, MPI_INT, r, 0, mpi(votes_), next_request(p.req.impl_));
  }
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    MPI_Isend(&p.in, 1, MPI_INT, r, 0, mpi(votes_), next_request(p.req.impl_));
  }
}

bool Comm::any_finish(PendingAny& p) const {
  if (!p.posted) return false;
  p.posted = false;
  if (p.req.empty()) return p.out != 0;
  finish(p.req);
  if (size_ <= kPeerVoteRanks) {
    for (const int g : p.got) p.out |= g;
  }
  return p.out != 0;
}

void Comm::barrier() const {
  if (size_ > 1) MPI_Barrier(mpi(comm_));
}

void Comm::sum(__int128* v, int n) const {
  if (size_ == 1 || n == 0) return;
  // Two 64-bit halves per value; integer addition of the gathered partials is exact in any order.
  std::vector<__int128> all(static_cast<size_t>(n) * size_);
  MPI_Allgather(v, 2 * n, MPI_INT64_T, all.data(), 2 * n, MPI_INT64_T, mpi(comm_));
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
                 static_cast<int>(n_in), MPI_BYTE, source < 0 ? MPI_PROC_NULL : source, 7, mpi(comm_),
                 MPI_STATUS_IGNORE);
  });
}

void Comm::exchange(const std::vector<Transfer>& t) const {
  Requests req = start(t);
  finish(req);
}

Comm::Requests Comm::start(const std::vector<Transfer>& t) const {
  Requests req;
  start(t, req, req);  // receives first, then sends, in one set
  return req;
}

void Comm::start(const std::vector<Transfer>& t, Requests& recv, Requests& send) const {
  for (size_t k = 0; k < t.size(); ++k) {
    const Transfer& x = t[k];
    if (x.dest == rank_ && x.source == rank_) continue;
    if (serial_) continue;
    if (x.source >= 0) {
      MPI_Irecv(x.in, mpi_count(x.n_in), MPI_BYTE, x.source, 100 + static_cast<int>(k), mpi(comm_),
                next_request(recv.impl_));
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
      MPI_Isend(x.out, mpi_count(x.n_out), MPI_BYTE, x.dest, 100 + static_cast<int>(k), mpi(comm_),
                next_request(send.impl_));
    }
  }
}

void Comm::post_receive_bytes(void* in, size_t nbytes, int source, int tag, Requests& r) const {
  if (source < 0) return;
  // Without MPI there is no other rank to receive from; a message to oneself needs a Transfer (a copy).
  if (serial_ || source == rank_) throw RunError("internal error: post_receive from this rank itself");
  MPI_Irecv(in, mpi_count(nbytes), MPI_BYTE, source, tag, mpi(comm_), next_request(r.impl_));
}

void Comm::post_send_bytes(const void* out, size_t nbytes, int dest, int tag, Requests& r) const {
  if (dest < 0) return;
  if (serial_ || dest == rank_) throw RunError("internal error: post_send to this rank itself");
  MPI_Isend(out, mpi_count(nbytes), MPI_BYTE, dest, tag, mpi(comm_), next_request(r.impl_));
}

void Comm::finish(Requests& r) const {
  if (r.empty()) return;
  std::vector<MPI_Request>& req = r.impl_->req;
  blocking(waited_, [&] { MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE); });
  req.clear();  // keeps its capacity for the next posts
}

void Comm::max(int* v, int n) const {
  count(n);
  if (size_ > 1 && n > 0) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT, MPI_MAX, mpi(comm_));
}

void Comm::max(int64_t* v, int n) const {
  count(n);
  if (size_ > 1 && n > 0) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_MAX, mpi(comm_));
}

void Comm::max(double* v, int n) const {
  count(n);
  if (size_ > 1 && n > 0) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, mpi(comm_));
}

void Comm::bit_or(uint32_t* v, int n) const {
  count(n);
  if (size_ > 1 && n > 0) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_UINT32_T, MPI_BOR, mpi(comm_));
}

std::vector<char> Comm::all_to_all_bytes(const std::vector<const void*>& out,
                                         const std::vector<size_t>& counts, size_t elem) const {
  if (out.size() != static_cast<size_t>(size_))
    throw RunError("internal error: all_to_all needs one buffer per rank");
  if (size_ == 1) {
    const char* p = static_cast<const char*>(out[0]);
    return std::vector<char>(p, p + counts[0] * elem);
  }
  // Counts in elements of `elem` bytes (a contiguous type), so that the int counts reach as far as MPI's.
  MPI_Datatype type;
  MPI_Type_contiguous(mpi_count(elem), MPI_BYTE, &type);
  MPI_Type_commit(&type);
  std::vector<int> nsend(size_), nrecv(size_), sdis(size_, 0), rdis(size_, 0);
  for (int r = 0; r < size_; ++r) nsend[r] = mpi_count(counts[r]);
  MPI_Alltoall(nsend.data(), 1, MPI_INT, nrecv.data(), 1, MPI_INT, mpi(comm_));
  std::vector<char> sbuf, rbuf;
  size_t ssum = 0, rsum = 0;
  for (int r = 0; r < size_; ++r) {
    sdis[r] = mpi_count(ssum), rdis[r] = mpi_count(rsum);
    ssum += counts[r], rsum += static_cast<size_t>(nrecv[r]);
  }
  sbuf.resize(ssum * elem);
  for (int r = 0; r < size_; ++r)
    if (counts[r]) std::memcpy(sbuf.data() + static_cast<size_t>(sdis[r]) * elem, out[r], counts[r] * elem);
  rbuf.resize(rsum * elem);
  MPI_Alltoallv(sbuf.data(), nsend.data(), sdis.data(), type, rbuf.data(), nrecv.data(), rdis.data(), type,
                mpi(comm_));
  MPI_Type_free(&type);
  return rbuf;
}

TermSum::Fixed TermSum::to_fixed(double v) {
  const double lim = 4.611686018427387904e18;  // 2^62
  v = v > lim ? lim : v < -lim ? -lim : v;
  // hi: v truncated to a multiple of 2⁻⁶⁴ (a double with v's leading bits, so it converts back exactly); the
  // remainder v − hi·2⁻⁶⁴ is v's lower bits, exact in a double, below 2⁻⁶⁴ in magnitude.
  const double scaled = std::trunc(std::ldexp(v, 64));
  const double rest = v - std::ldexp(scaled, -64);
  return Fixed{static_cast<__int128>(scaled), static_cast<__int128>(std::ldexp(rest, 128))};
}

std::vector<double> TermSum::total() const {
  const Comm::Tally before = comm_.tally_;
  struct OneReduction {  // however many calls the exact path makes, the wafer forms one sum
    const Comm& c;
    Comm::Tally t;
    int n;
    ~OneReduction() { c.tally_ = t, c.count(n); }
  } one{comm_, before, static_cast<int>(d_.size())};
  std::vector<double> out = d_;
  if (!exact_) {
    comm_.sum_in_rank_order(out.data(), static_cast<int>(out.size()));
    return out;
  }
  std::vector<__int128> q = q_;
  comm_.sum(q.data(), static_cast<int>(q.size()));
  // A non-finite term on any rank makes the total non-finite, as a plain sum would.
  std::vector<int64_t> bad(out.size());
  for (size_t k = 0; k < out.size(); ++k) bad[k] = std::isfinite(d_[k]) ? 0 : 1;
  comm_.sum(bad.data(), static_cast<int>(bad.size()));
  for (size_t k = 0; k < out.size(); ++k) {
    if (bad[k]) {
      out[k] = std::nan("");
      continue;
    }
    // Normalise to hi·2⁻⁶⁴ + lo·2⁻¹²⁸ with 0 ≤ lo < 2⁶⁴ (the carry moves into hi), then convert: the same
    // integers give the same double at any rank count.
    __int128 hi = q[2 * k], lo = q[2 * k + 1];
    const __int128 carry = lo >> 64;  // floor(lo / 2⁶⁴)
    hi += carry, lo -= carry * (static_cast<__int128>(1) << 64);
    out[k] = std::ldexp(static_cast<double>(hi), -64) + std::ldexp(static_cast<double>(lo), -128);
  }
  return out;
}

std::vector<char> Comm::gather_bytes(const void* data, size_t nbytes) const {
  if (size_ == 1) {
    const char* p = static_cast<const char*>(data);
    return std::vector<char>(p, p + nbytes);
  }
  std::vector<int> displs;
  const std::vector<int> counts = counts_of(mpi(comm_), size_, nbytes, displs);
  std::vector<char> out;
  if (root()) out.resize(static_cast<size_t>(displs.back()) + counts.back());
  MPI_Gatherv(data, static_cast<int>(nbytes), MPI_BYTE, out.data(), counts.data(), displs.data(), MPI_BYTE, 0,
              mpi(comm_));
  return out;
}

std::vector<char> Comm::allgather_bytes(const void* data, size_t nbytes) const {
  if (size_ == 1) {
    const char* p = static_cast<const char*>(data);
    return std::vector<char>(p, p + nbytes);
  }
  std::vector<int> displs;
  const std::vector<int> counts = counts_of(mpi(comm_), size_, nbytes, displs);
  std::vector<char> out(static_cast<size_t>(displs.back()) + counts.back());
  MPI_Allgatherv(data, static_cast<int>(nbytes), MPI_BYTE, out.data(), counts.data(), displs.data(), MPI_BYTE,
                 mpi(comm_));
  return out;
}

void Comm::broadcast_bytes(void* data, size_t nbytes) const {
  if (size_ == 1 || nbytes == 0) return;
  // Pieces of 1 GiB: MPI counts are ints, and a checkpoint may pass INT_MAX bytes.
  constexpr size_t kPiece = size_t(1) << 30;
  char* p = static_cast<char*>(data);
  for (size_t at = 0; at < nbytes; at += kPiece)
    MPI_Bcast(p + at, static_cast<int>(std::min(kPiece, nbytes - at)), MPI_BYTE, 0, mpi(comm_));
}

void Comm::broadcast(std::string& s) const {
  if (size_ == 1) return;
  uint64_t n = s.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, mpi(comm_));
  s.resize(n);
  broadcast_bytes(s.data(), n);
}

void Comm::make_duplicate(Handle& h, bool& made) const {
  if (serial_ || size_ == 1 || made) return;
  MPI_Comm dup;
  MPI_Comm_dup(mpi(comm_), &dup);
  h = Handle::of(dup);
  made = true;
}

void Comm::make_agreements() {
  make_duplicate(agreements_, agreements_made_);
}

Comm::Agreed Comm::agree(const Standing& mine, double timeout_s) const {
  Agreed a;
  if (serial_ || size_ == 1) {
    a.exit_code = mine.exit_code;
    a.all_failed = mine.exit_code != 0;
    a.first_failed = mine.exit_code ? 0 : -1;
    a.signal = mine.signal;
    return a;
  }
  if (!agreements_made_) throw RunError("Comm::agree before make_agreements");
  // One maximum over every value: minima as maxima of negated values.
  const int64_t token = static_cast<int64_t>(mine.token >> 1);
  int64_t v[6] = {token,
                  -token,
                  mine.exit_code,
                  -static_cast<int64_t>(mine.exit_code),
                  -(mine.exit_code ? rank_ : INT64_MAX),
                  mine.signal};
  int64_t out[6];
  MPI_Request req;
  MPI_Iallreduce(v, out, 6, MPI_INT64_T, MPI_MAX, mpi(agreements_), &req);
  if (timeout_s < 0) {
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    const double until = MPI_Wtime() + timeout_s;
    for (int done = 0;;) {
      MPI_Test(&req, &done, MPI_STATUS_IGNORE);
      if (done) break;
      if (MPI_Wtime() > until) {
        a.timed_out = true;  // the request stays pending: the caller aborts the job
        return a;
      }
      usleep(1000);
    }
  }
  a.same = out[0] == -out[1];
  a.exit_code = static_cast<int>(out[2]);
  a.all_failed = -out[3] > 0;
  a.first_failed = out[4] == -INT64_MAX ? -1 : static_cast<int>(-out[4]);
  a.signal = static_cast<int>(out[5]);
  return a;
}

void Comm::share(std::string& s, int root) const {
  if (serial_ || size_ == 1) return;
  uint64_t n = s.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, root, mpi(agreements_));
  s.resize(n);
  if (n) MPI_Bcast(s.data(), mpi_count(n), MPI_CHAR, root, mpi(agreements_));
}

void Comm::make_file_reads() {
  make_duplicate(file_reads_, file_reads_made_);
}

void Comm::share_read(std::string& s, void (*receive_check)(uint64_t bytes)) const {
  if (serial_ || size_ == 1) return;
  if (!file_reads_made_) throw RunError("Comm::share_read before make_file_reads");
  uint64_t n = s.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, mpi(file_reads_));
  if (rank_ != 0) {
    if (receive_check) receive_check(n);
    s.resize(n);
  }
  // Pieces of 1 GiB: a file's text may pass INT_MAX bytes.
  constexpr uint64_t kPiece = uint64_t(1) << 30;
  for (uint64_t at = 0; at < n; at += kPiece)
    MPI_Bcast(s.data() + at, static_cast<int>(std::min(kPiece, n - at)), MPI_CHAR, 0, mpi(file_reads_));
}

std::vector<uint64_t> Comm::tokens(uint64_t mine) const {
  if (serial_ || size_ == 1) return {mine};
  std::vector<uint64_t> all(size_);
  MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, mpi(agreements_));
  return all;
}

void Comm::abort(const std::string& message, int exit_code) const {
  // One write, so that mpirun's abort banner from another rank cannot land inside the line.
  const std::string line = "error: rank " + std::to_string(rank_) + ": " + message + "\n";
  std::cerr.flush();
  [[maybe_unused]] const ssize_t written = ::write(2, line.data(), line.size());
  if (serial_) std::exit(exit_code);
  MPI_Abort(mpi(comm_), exit_code);
  std::abort();
}

}  // namespace wmd::md
