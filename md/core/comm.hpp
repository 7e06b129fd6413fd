// The one place md/ talks to MPI: rank identity, global sums/extrema, gathers to rank 0 and broadcasts,
// point-to-point messages and all-to-all exchanges. Contract for all of md/: State::atoms holds only this
// rank's atoms; anything global goes through a Comm. No MPI type appears here (only comm.cpp includes
// <mpi.h>), so the rest of md/ cannot call MPI around it.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace wmd::md {

class Comm {
 public:
  /// Wraps MPI_COMM_WORLD. Without MPI_Init (in-process unit tests) it is a one-rank communicator that never
  /// calls MPI.
  Comm();
  /// Wraps another communicator: an MPI_Comm (a pointer in Open MPI, an integer in MPICH), taken as a
  /// template so that this header needs no <mpi.h>.
  template <class MpiComm,
            std::enable_if_t<std::is_pointer_v<MpiComm> || std::is_integral_v<MpiComm>, int> = 0>
  explicit Comm(MpiComm c) : Comm(Handle::of(c)) {}
  /// A one-rank communicator that never calls MPI (for code that works on this rank's atoms only).
  static const Comm& local();

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// True on rank 0, the rank that writes files and prints.
  bool root() const { return rank_ == 0; }
  /// Deterministic mode: sums of per-atom terms (TermSum) are exact, so independent of order and rank count.
  void set_deterministic(bool on) { deterministic_ = on; }
  bool deterministic() const { return deterministic_; }

  /// Exact global sum of integers (counts): the same at any rank count.
  int64_t sum(int64_t v) const;
  void sum(int64_t* v, int n) const;
  /// A floating-point value does not convert to a count here: it goes through TermSum or sum_in_rank_order.
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  T sum(T v) const = delete;
  /// Global sum of per-rank doubles added in rank order: reproducible for a fixed rank count only. Every
  /// reduction that reaches a trajectory or a printed value sums its per-atom terms through TermSum instead
  /// (exact in deterministic mode); this one is for values that are not sums of per-atom terms, each caller
  /// saying why: timings and memory statistics, a backend's per-rank partials that the rank split already
  /// shapes (the half-list force pass outside deterministic mode), elements held by one rank each (exact).
  double sum_in_rank_order(double v) const;
  /// Element-wise sum_in_rank_order of n values, in place.
  void sum_in_rank_order(double* v, int n) const;
  double max(double v) const;
  double min(double v) const;
  int64_t max(int64_t v) const;
  int64_t min(int64_t v) const;
  /// Element-wise global maximum of n values, in place (exact: the same on every rank).
  void max(int* v, int n) const;
  void max(int64_t* v, int n) const;
  void max(double* v, int n) const;
  /// Element-wise bitwise or of n words over every rank, in place.
  void bit_or(uint32_t* v, int n) const;
  /// True if v is true on any rank.
  bool any(bool v) const;

  /// Messages in flight: the receives and sends that start(), post_receive() and post_send() posted,
  /// completed by finish(). It owns the MPI requests, so that no MPI type reaches Comm's users. Destroying it
  /// waits for what is still in flight (MPI requires every request completed before MPI_Finalize), unless MPI
  /// is down.
  class Requests {
   public:
    Requests();
    ~Requests();
    Requests(Requests&&) noexcept;
    Requests& operator=(Requests&&) noexcept;
    Requests(const Requests&) = delete;
    Requests& operator=(const Requests&) = delete;
    bool empty() const;
    size_t size() const;
    struct Impl;  // defined in comm.cpp only

   private:
    friend class Comm;
    std::unique_ptr<Impl> impl_;  // made at the first post: a one-rank run never allocates it
  };

  /// A global `any` in flight (any_start … any_finish); must stay in place in between.
  struct PendingAny {
    Requests req;          // receives, then sends (flags to and from each other rank)
    std::vector<int> got;  // the other ranks' flags
    int in = 0, out = 0;
    bool posted = false;
  };
  /// Starts any(v) without waiting, so that no rank waits for the others at this point. Every rank must
  /// start its votes in the same order (their messages share one communicator and tag).
  void any_start(bool v, PendingAny& p) const;
  /// Waits for the `any` that any_start began and returns it (false if none was started).
  bool any_finish(PendingAny& p) const;
  void barrier() const;
  /// Exact global sum of 64.64 fixed-point values, in place (integer addition: any order gives the same
  /// bits).
  void sum(__int128* v, int n) const;

  /// Sends n_out values to rank `dest` and receives n_in values from rank `source` (either may be -1: none;
  /// this rank itself: a copy). The counts must match the partner's.
  template <class T>
  void sendrecv(const T* out, size_t n_out, int dest, T* in, size_t n_in, int source) const {
    static_assert(std::is_trivially_copyable_v<T>);
    sendrecv_bytes(out, n_out * sizeof(T), dest, in, n_in * sizeof(T), source);
  }
  /// One message of `exchange`: n_out bytes to dest, n_in bytes from source (−1: none; this rank: a copy).
  struct Transfer {
    const void* out;
    size_t n_out;
    int dest;
    void* in;
    size_t n_in;
    int source;
  };
  /// Performs independent transfers at once (all receives and sends posted, then waited for): one
  /// synchronisation instead of one per transfer. Transfers between the same pair of ranks match in order.
  void exchange(const std::vector<Transfer>& t) const;
  /// exchange() in two halves, so that work can run while messages are in flight: `start` posts every
  /// receive and send (copies to this rank at once) and returns what `finish` waits for. The buffers must
  /// stay untouched in between.
  Requests start(const std::vector<Transfer>& t) const;
  /// start() with the receives and the sends in separate sets (appended to), so that a caller can wait for
  /// what it receives now and complete its sends later: a send may complete only once the partner is inside
  /// an MPI call (Open MPI's shared-memory transport), so waiting for it couples the ranks' timing.
  void start(const std::vector<Transfer>& t, Requests& recv, Requests& send) const;
  /// Posts the receive of n values from rank `source` (another rank; −1: none) with the caller's `tag`,
  /// without waiting; `in` must stay in place until finish(r). For messages whose pairing `Transfer` cannot
  /// express (a rank's receives and sends listed independently): two messages in flight between the same
  /// ranks differ in tag.
  template <class T>
  void post_receive(T* in, size_t n, int source, int tag, Requests& r) const {
    static_assert(std::is_trivially_copyable_v<T>);
    post_receive_bytes(in, n * sizeof(T), source, tag, r);
  }
  /// Posts the send of n values to rank `dest` (another rank; −1: none) with `tag`, without waiting; `out`
  /// must stay untouched until finish(r).
  template <class T>
  void post_send(const T* out, size_t n, int dest, int tag, Requests& r) const {
    static_assert(std::is_trivially_copyable_v<T>);
    post_send_bytes(out, n * sizeof(T), dest, tag, r);
  }
  /// Waits for every request in r and empties it.
  void finish(Requests& r) const;
  /// Seconds this rank has spent blocked in finish(), any_finish(), any() and sendrecv(): waiting for other
  /// ranks' messages and votes (their lateness, i.e. load imbalance or a slower core, and the transfers).
  /// Collective data operations (sums, extrema, gathers, all_to_all) are not counted.
  double waited() const { return waited_; }
  /// Global reductions (sums, extrema, votes) this Comm has formed, and the values they combined: on the
  /// wafer each is a fabric reduction, which the mesh backend charges for the fixes and outputs of a step.
  struct Tally {
    int64_t reductions = 0, values = 0;
  };
  Tally tally() const { return tally_; }
  /// Sends a vector to `dest` and returns the one `source` sends (counts exchanged first).
  template <class T>
  std::vector<T> sendrecv(const std::vector<T>& out, int dest, int source) const {
    uint64_t n_out = out.size(), n_in = 0;
    sendrecv(&n_out, dest >= 0 ? 1 : 0, dest, &n_in, source >= 0 ? 1 : 0, source);
    std::vector<T> in(n_in);
    sendrecv(out.data(), dest >= 0 ? out.size() : 0, dest, in.data(), in.size(), source);
    return in;
  }
  /// Collective: sends out[r] (any length, empty too) to every rank r, this one included, and returns what
  /// every rank sent to this one, concatenated in rank order. out.size() must equal size().
  template <class T>
  std::vector<T> all_to_all(const std::vector<std::vector<T>>& out) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<const void*> data(out.size());
    std::vector<size_t> counts(out.size());
    for (size_t r = 0; r < out.size(); ++r) data[r] = out[r].data(), counts[r] = out[r].size();
    std::vector<char> bytes = all_to_all_bytes(data, counts, sizeof(T));
    std::vector<T> in(bytes.size() / sizeof(T));
    if (!bytes.empty()) std::memcpy(in.data(), bytes.data(), bytes.size());
    return in;
  }

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
  /// Ends the whole job from one failing rank: prints "error: rank N: message" and aborts with `exit_code`.
  [[noreturn]] void abort(const std::string& message, int exit_code = 3) const;

  /// Where one rank stands at a point every rank must pass alike (an input's command, its end, a failure).
  struct Standing {
    uint64_t token = 0;  // what this rank does next (a hash of the command)
    int exit_code = 0;   // this rank's failure (2 or 3), or 0
    int signal = 0;      // a signal this rank received, or 0
  };
  /// What the ranks' Standings add up to.
  struct Agreed {
    bool same = true;   // every rank has the same token
    int exit_code = 0;  // the largest failure's exit code, or 0
    bool all_failed = false;
    int first_failed = -1;   // the lowest failing rank, or -1
    int signal = 0;          // the largest signal number received on any rank, or 0
    bool timed_out = false;  // not every rank came within the time given
  };
  /// Collective over a communicator of its own (made by make_agreements(), so it never matches another
  /// collective call): every rank's Standing combined. Waits at most `timeout_s` seconds (< 0: for ever);
  /// past that, returns timed_out (the caller ends the job: a rank that does not come waits for this one).
  Agreed agree(const Standing& mine, double timeout_s) const;
  /// Makes the communicator agree() uses (collective: every rank at the same point, before anything else).
  void make_agreements();
  /// On the agreement communicator, after an agree() every rank saw: rank `root`'s string to every rank.
  void share(std::string& s, int root) const;
  /// On the agreement communicator: every rank's token (rank order).
  std::vector<uint64_t> tokens(uint64_t mine) const;
  /// Makes the communicator share_read() uses (collective: every rank at the same point, at start-up), so
  /// that a broadcast of a file's text never matches another collective call (md/programs/root_reads.hpp).
  void make_file_reads();
  /// On that communicator: rank 0's string to every rank, any length (sent in pieces MPI's int counts
  /// hold). `receive_check` runs on the other ranks with the length before they make room for it (it may
  /// throw: a memory budget).
  void share_read(std::string& s, void (*receive_check)(uint64_t bytes) = nullptr) const;

 private:
  friend class TermSum;  // one TermSum total is one reduction, however many calls it makes
  void count(int values) const { ++tally_.reductions, tally_.values += values; }
  /// An MPI handle held as plain bits; only comm.cpp gives it its MPI type back (MPI_Comm is a pointer in
  /// Open MPI, an int in MPICH: both fit).
  struct Handle {
    uint64_t bits = 0;
    template <class H>
    static Handle of(H h) {
      static_assert(std::is_trivially_copyable_v<H> && sizeof(H) <= sizeof(uint64_t));
      Handle x;
      std::memcpy(&x.bits, &h, sizeof h);
      return x;
    }
  };
  explicit Comm(Handle c);
  struct Serial {};
  explicit Comm(Serial) : serial_(true) {}

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
  void sendrecv_bytes(const void* out, size_t n_out, int dest, void* in, size_t n_in, int source) const;
  void post_receive_bytes(void* in, size_t nbytes, int source, int tag, Requests& r) const;
  void post_send_bytes(const void* out, size_t nbytes, int dest, int tag, Requests& r) const;
  std::vector<char> all_to_all_bytes(const std::vector<const void*>& out, const std::vector<size_t>& counts,
                                     size_t elem) const;

  Handle comm_;  // the MPI_Comm (unused in serial mode)
  // A duplicate of comm_ for the votes' messages, made at the first vote: their own context, so that no
  // other receive (the mesh backend's tags are row numbers) can ever match them.
  mutable Handle votes_;
  mutable bool votes_made_ = false;
  /// A duplicate of comm_ into `h`, once (`made`): a communicator of its own for one kind of message.
  void make_duplicate(Handle& h, bool& made) const;
  Handle agreements_;  // a duplicate of comm_ for agree(), share() and tokens()
  bool agreements_made_ = false;
  Handle file_reads_;  // a duplicate of comm_ for share_read()
  bool file_reads_made_ = false;
  int rank_ = 0, size_ = 1;
  mutable double waited_ = 0.0;
  mutable Tally tally_;
  bool serial_ = false;  // no MPI calls at all (MPI not initialised, or Comm::local())
  bool deterministic_ = false;
};

/// The one order-free global sum of md/: a sum of per-atom (or per-pair) terms over n components. Default:
/// each rank adds its terms in its own order, then the ranks' partial sums are added in rank order (on one
/// rank: exactly the plain loop; on several: LAMMPS's local sum and MPI_Allreduce). With a deterministic Comm
/// every term is converted to fixed point with 64 integer and 128 fraction bits and added as integers, so the
/// total does not depend on the order of the terms or on how the atoms are spread over ranks.
class TermSum {
 public:
  TermSum(const Comm& comm, int n)
      : comm_(comm), exact_(comm.deterministic()), d_(n, 0.0), q_(exact_ ? 2 * n : 0, 0) {}
  /// Adds one term to component k.
  void add(int k, double v) {
    if (!exact_) {
      d_[k] += v;
    } else if (std::isfinite(v)) {
      const Fixed f = to_fixed(v);
      q_[2 * k] += f.hi, q_[2 * k + 1] += f.lo;
    } else {
      d_[k] = v;  // carries the non-finite value through
    }
  }
  /// Collective: the global totals, on every rank (one reduction).
  std::vector<double> total() const;
  /// A finite v as fixed point: v = hi·2⁻⁶⁴ + lo·2⁻¹²⁸ (|lo| < 2⁶⁴), truncated toward zero below 2⁻¹²⁸ and
  /// clamped to |v| ≤ 2⁶². The fraction reaches 2⁻¹²⁸ ≈ 3·10⁻³⁹ so that small terms (the squared forces of a
  /// converged minimisation, ~10⁻²⁰) keep their digits; an __int128 accumulator holds 2⁶³ such terms.
  struct Fixed {
    __int128 hi, lo;
  };
  static Fixed to_fixed(double v);

 private:
  const Comm& comm_;
  bool exact_;
  std::vector<double> d_;
  std::vector<__int128> q_;  // per component: Σ hi, Σ lo
};

}  // namespace wmd::md
