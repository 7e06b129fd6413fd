// The one place md/ talks to MPI: rank identity, global sums/extrema, gathers to rank 0 and broadcasts.
// Contract for all of md/: State::atoms holds only this rank's atoms; anything global goes through a Comm.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace wmd::md {

class Comm {
 public:
  /// Wraps a communicator (MPI must be initialised); defaults to MPI_COMM_WORLD.
  explicit Comm(MPI_Comm c = MPI_COMM_WORLD);

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// True on rank 0, the rank that writes files and prints.
  bool root() const { return rank_ == 0; }
  MPI_Comm raw() const { return comm_; }

  /// Global sum, in rank order (reproducible for a fixed rank count).
  double sum(double v) const;
  int64_t sum(int64_t v) const;
  /// Element-wise global sum of n values, in place.
  void sum(double* v, int n) const;
  void sum(int64_t* v, int n) const;
  double max(double v) const;
  double min(double v) const;
  int64_t max(int64_t v) const;
  int64_t min(int64_t v) const;
  /// True if v is true on any rank.
  bool any(bool v) const;
  void barrier() const;

  /// Rank 0 gets every rank's vector concatenated in rank order; other ranks get an empty vector.
  template <class T>
  std::vector<T> gather(const std::vector<T>& local) const {
    static_assert(std::is_trivially_copyable_v<T>);
    return gather_bytes_as<T>(local.data(), local.size());
  }
  /// Every rank gets every rank's vector concatenated in rank order.
  template <class T>
  std::vector<T> allgather(const std::vector<T>& local) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> out;
    std::vector<char> bytes = allgather_bytes(local.data(), local.size() * sizeof(T));
    out.resize(bytes.size() / sizeof(T));
    if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
  }
  /// Copies rank 0's n values to every rank.
  template <class T>
  void broadcast(T* data, size_t n) const {
    static_assert(std::is_trivially_copyable_v<T>);
    broadcast_bytes(data, n * sizeof(T));
  }
  /// Copies rank 0's string to every rank.
  void broadcast(std::string& s) const;
  /// Ends the whole job from one failing rank: prints "error: message" and aborts with exit status 3.
  [[noreturn]] void abort(const std::string& message) const;

 private:
  template <class T>
  std::vector<T> gather_bytes_as(const T* data, size_t n) const {
    std::vector<char> bytes = gather_bytes(data, n * sizeof(T));
    std::vector<T> out(bytes.size() / sizeof(T));
    if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
  }
  std::vector<char> gather_bytes(const void* data, size_t nbytes) const;
  std::vector<char> allgather_bytes(const void* data, size_t nbytes) const;
  void broadcast_bytes(void* data, size_t nbytes) const;

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
};

}  // namespace wmd::md
