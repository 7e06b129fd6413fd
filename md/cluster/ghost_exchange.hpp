// Communication of the cluster decomposition: atom migration and the face-by-face ghost exchange (x, then y,
// then z, forwarding ghosts of ghosts; as many hops per direction as the cutoff spans sub-domains), with
// periodic shifts applied by the sender as integer box shifts.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "md/cluster/ghost_images.hpp"
#include "md/core/atoms.hpp"
#include "md/core/box.hpp"
#include "md/core/comm.hpp"
#include "md/core/decomposition.hpp"

namespace wmd::md {

/// Moves every atom to the rank whose sub-domain holds it, direction by direction (x, y, z), hopping between
/// face neighbours until it arrives. Coordinates must already be wrapped into the box.
void migrate_atoms(const Comm& comm, const Decomposition& dec, const Box& box, Atoms& atoms);

class GhostExchange {
 public:
  GhostExchange() = default;
  GhostExchange(const GhostExchange&) = delete;
  GhostExchange& operator=(const GhostExchange&) = delete;
  /// Fills g with this rank's owned atoms (records 0..nlocal−1, owner = global id) and every periodic image
  /// or remote atom within `cut` of its sub-domain: per direction, records near each face go to the face
  /// neighbour (itself with several shifts when the grid has one cell along that direction), which passes
  /// them on, hop after hop, while they are within `cut` of the next sub-domain (LAMMPS's maxneed swaps),
  /// so sub-domains may be thinner than `cut`.
  void build(const Comm& comm, const Decomposition& dec, const Box& box, const Atoms& a, double cut,
             GhostImages& g);
  /// build with a cutoff per direction: on a triclinic box `box` is its lamda_frame(), the atoms' positions
  /// are fractional and cut[d] is the cutoff's fractional reach along d (LAMMPS's cutghost); to_cartesian
  /// then turns every record into box coordinates (LAMMPS's lamda2x over owned and ghost atoms).
  void build(const Comm& comm, const Decomposition& dec, const Box& box, const Atoms& a, const double cut[3],
             GhostImages& g);
  void to_cartesian(const Box& box, GhostImages& g);
  /// Forward communication of positions: ghosts get their owners' current coordinates + shift·L.
  void forward_positions(const Comm& comm, const Box& box, const Atoms& a, GhostImages& g);
  /// forward_positions for the records alone, in two halves (see forward_begin): owned records and this
  /// rank's own images are current after begin, the rest after end. Each image is copied from its source
  /// record with the swap's box shift added (LAMMPS's pbc forward), which gives forward_positions' bits
  /// without the owner-coordinate copy; raw() is not refreshed. With `hold` (3 per owned atom) it also
  /// returns whether an owned atom is more than √trigger away from its entry there: the neighbour list's
  /// rebuild check, folded into the one pass that reads the positions anyway.
  bool forward_records_begin(const Comm& comm, const Box& box, const Atoms& a, GhostImages& g,
                             const double* hold = nullptr, double trigger = 0.0);
  void forward_records_end(const Comm& comm, const Box& box, GhostImages& g);
  /// Forward communication of n values per record (e.g. F'): each ghost gets its source's values.
  void forward(const Comm& comm, double* v, int n);
  /// Reverse communication of n values per record (ρ̄, forces): ghosts' values are added onto their sources,
  /// swaps in reverse order, so ghosts of ghosts reach the owner.
  void reverse(const Comm& comm, double* v, int n);
  /// forward() in two halves, to overlap the wait for another rank with work: begin runs the stages (a
  /// direction's local images, or one hop of a shared direction) up to the first one that talks to another
  /// rank and posts that one's messages; end waits for them and runs the rest. In between the caller may
  /// touch owned records' values only, and not those being sent.
  void forward_begin(const Comm& comm, double* v, int n);
  void forward_end(const Comm& comm);
  /// reverse() in two halves: begin posts the last stage, which talks to another rank (the shared
  /// directions come last, so nothing is folded yet); end waits, adds what arrived and folds the earlier
  /// stages. In between the caller may add to owned records and to ghosts made before the first stage
  /// shared with another rank.
  void reverse_begin(const Comm& comm, double* v, int n);
  void reverse_end(const Comm& comm);
  /// Index of the first ghost record that came from another rank (or through one): ghosts before it are
  /// images this rank made itself, current after forward_begin. nall when no direction is shared.
  int first_remote_record(const Comm& comm, int nall) const;
  /// Unshifted owner coordinates of every record (3 per record) and global ids.
  const std::vector<double>& raw() const { return raw_; }
  const std::vector<int64_t>& tag() const { return tag_; }
  /// Doubles sent and received by this rank in the last forward_positions (for statistics).
  int swaps() const { return static_cast<int>(swaps_.size()); }

 private:
  struct Swap {
    int dim = 0;
    int stage = 0;             // swaps of one stage (a direction's local images, or one hop) are independent
    int k = 0;                 // box lengths added along dim to what is sent (crossing a periodic face)
    int to = -1, from = -1;    // ranks (this rank for local images, −1 for none)
    bool local = false;        // this rank's own periodic images: copied in place, no message
    std::vector<int> send;     // record indices sent
    int first = 0, count = 0;  // ghost records received
  };
  // Ghost records [j0, j1) at their sources' coordinates + shift·L.
  void place_images(const Box& box, GhostImages& g, int j0, int j1) const;
  // Swaps [b, e) of one stage.
  size_t group_end(size_t b) const;
  size_t group_begin(size_t e) const;
  bool remote(const Comm& comm, size_t b, size_t e) const;
  // Sends in flight per exchanged array (key: the array, or the image set for records). A send completes
  // only once the partner is inside an MPI call, so an exchange's end waits for what it receives alone;
  // its sends, staged here, complete when the next exchange of the same array opens the outbox (or when
  // the exchange is destroyed: Comm::Requests completes what it holds, as MPI requires before finalising).
  struct Outbox {
    const void* key = nullptr;
    std::vector<std::vector<double>> bufs;  // staged values per swap
    Comm::Requests req;
  };
  Outbox& open_outbox(const Comm& comm, const void* key);
  void complete_sends(const Comm& comm);
  // Post swaps [b, e) of one stage: their receives are added to `recv`, their sends to the outbox.
  void post_forward(const Comm& comm, double* v, int n, size_t b, size_t e, Outbox& ob, Comm::Requests& recv);
  void post_reverse(const Comm& comm, double* v, int n, size_t b, size_t e, Outbox& ob, Comm::Requests& recv);
  void post_records(const Comm& comm, const Box& box, GhostImages& g, size_t b, size_t e, Outbox& ob,
                    Comm::Requests& recv);
  void unpack_records(GhostImages& g, size_t b, size_t e) const;
  // The forward driver shared by values and records: begin posts the stages in order (local ones
  // complete in place) up to the first that talks to another rank, which stays pending; end waits for its
  // receives and runs the later groups. `received` (may be empty) runs on each group once its data is in.
  using PostGroup = std::function<void(size_t b, size_t e, Comm::Requests& recv)>;
  using Received = std::function<void(size_t b, size_t e)>;
  void forward_groups_begin(const Comm& comm, const PostGroup& post);
  void forward_groups_end(const Comm& comm, const PostGroup& post, const Received& received);
  void add_reverse(double* v, int n, size_t b, size_t e) const;

  // The half-done exchange between a *_begin and its *_end: swaps [b, e) posted (receives in req), the
  // rest still to run.
  struct Pending {
    double* v = nullptr;
    int n = 0;
    GhostImages* g = nullptr;  // records exchange (forward_records_*) instead of values
    Outbox* out = nullptr;
    size_t b = 0, e = 0;
    Comm::Requests req;  // kept between exchanges (empty), so that its storage is reused
    bool active = false;
  };
  // Opens pending_ for an exchange of v (n per record) or of g's records, nothing posted yet.
  void open_pending(double* v, int n, GhostImages* g, Outbox& ob);
  Pending pending_;
  std::vector<Swap> swaps_;
  // Every ghost took at most one box shift per direction, so placing it as its source + k·L (the record
  // forward) gives build's owner + shift·L bits. False when a shared direction has more hops than
  // sub-domains (a periodic box thinner than about the cutoff): the record forward then places images from
  // owner coordinates on every rank.
  bool shift_by_swaps_ = true;
  // The order build took the directions in: a triclinic image's x accumulates one edge vector per shifted
  // direction, and placing it from its owner adds them in this order, as the swaps did.
  int dim_order_[3] = {0, 1, 2};
  std::vector<double> raw_;
  std::vector<int64_t> tag_;
  std::vector<Outbox> outboxes_;
  std::vector<std::vector<double>> inbufs_;  // received values per swap (reverse sums, records)
};

}  // namespace wmd::md
