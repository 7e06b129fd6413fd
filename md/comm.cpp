#include "md/comm.hpp"

#include <cstdlib>
#include <iostream>

#include "base/error.hpp"

namespace wmd::md {
namespace {

// Gathers per-rank byte counts and their displacements (as MPI's int counts).
std::vector<int> counts_of(MPI_Comm c, int size, size_t nbytes, std::vector<int>& displs) {
  const int mine = static_cast<int>(nbytes);
  std::vector<int> counts(size);
  MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, c);
  displs.assign(size, 0);
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  return counts;
}

}  // namespace

Comm::Comm(MPI_Comm c) : comm_(c) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

// MPI_Allreduce order is fixed for a given rank count in Open MPI's default tuned algorithms, but to make
// sums reproducible regardless of algorithm choice we gather the per-rank partials and add them in rank order.
double Comm::sum(double v) const {
  std::vector<double> all(size_);
  MPI_Allgather(&v, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, comm_);
  double s = 0.0;
  for (double x : all) s += x;
  return s;
}

int64_t Comm::sum(int64_t v) const {
  int64_t s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_INT64_T, MPI_SUM, comm_);
  return s;
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
  double r = v;
  MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, comm_);
  return r;
}

double Comm::min(double v) const {
  double r = v;
  MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MIN, comm_);
  return r;
}

int64_t Comm::max(int64_t v) const {
  int64_t r = v;
  MPI_Allreduce(&v, &r, 1, MPI_INT64_T, MPI_MAX, comm_);
  return r;
}

int64_t Comm::min(int64_t v) const {
  int64_t r = v;
  MPI_Allreduce(&v, &r, 1, MPI_INT64_T, MPI_MIN, comm_);
  return r;
}

bool Comm::any(bool v) const {
  int in = v ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, comm_);
  return out != 0;
}

void Comm::barrier() const { MPI_Barrier(comm_); }

std::vector<char> Comm::gather_bytes(const void* data, size_t nbytes) const {
  std::vector<int> displs;
  const std::vector<int> counts = counts_of(comm_, size_, nbytes, displs);
  std::vector<char> out;
  if (root()) out.resize(static_cast<size_t>(displs.back()) + counts.back());
  MPI_Gatherv(data, static_cast<int>(nbytes), MPI_BYTE, out.data(), counts.data(), displs.data(), MPI_BYTE, 0,
              comm_);
  return out;
}

std::vector<char> Comm::allgather_bytes(const void* data, size_t nbytes) const {
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
  std::cerr << "error: rank " << rank_ << ": " << message << std::endl;
  MPI_Abort(comm_, exit_run_failed);
  std::abort();
}

}  // namespace wmd::md
