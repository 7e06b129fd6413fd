// fix ave/chunk Nevery Nrepeat Nfreq chunkID values… [norm all|sample|none] [ave one|running|window M]
// [bias tempID] [adof N] [cdof N] [file F] [overwrite] [format fmt] [title1|title2|title3 text], as LAMMPS
// fix ave/chunk: per chunk of a compute chunk/atom, the sums over the fix group's atoms of vx vy vz fx fy fz,
// mass, density/number, density/mass, temp and per-atom c_ID, c_ID[i], f_ID, f_ID[i], v_name, sampled Nrepeat
// times Nevery steps apart ending on each Nfreq step and normalised as LAMMPS does (norm all: by the atoms
// counted over all samples; sample: per sample; none: not by the count; temp by its degrees of freedom cdof +
// adof·count, the bias compute's bias removed, densities by the bin volume). Its global array, rows per
// chunk: the chunk's coordinates, its atom count and the values (f_ID[i][j]); the file gets LAMMPS's header
// and rows. The per-chunk sums go through one TermSum per Nfreq (rank-count independent in deterministic
// mode).
#include <cstdio>
#include <fstream>

#include "base/memory_budget.hpp"
#include "base/units.hpp"
#include "md/styles/averaging.hpp"
#include "md/styles/computes/compute_chunk_atom.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"
#include "md/styles/reference.hpp"

namespace wmd::md {
namespace {

class FixAveChunk : public Fix {
 public:
  enum class Value { vx, vy, vz, fx, fy, fz, density_number, density_mass, mass, temp, ref };
  struct Options {
    enum { all, sample, none } norm = all;
    enum { one, running, window } ave = one;
    int nwindow = 1;
    double adof = 3.0, cdof = 0.0;
    std::string bias;  // a temperature compute whose velocity bias temp removes
    std::string file, format = " %g", title[3];
    bool overwrite = false;
  };

  FixAveChunk(const FixArgs& f, int64_t nevery, int64_t nrepeat, int64_t nfreq, ComputeChunkAtom* chunks,
              std::vector<Value> which, std::vector<Reference> refs, std::vector<std::string> names,
              Options o)
      : Fix(f.id, f.style, f.group),
        nevery_(nevery),
        nrepeat_(nrepeat),
        nfreq_(nfreq),
        chunk_id_(chunks->id()),
        which_(std::move(which)),
        refs_(std::move(refs)),
        names_(std::move(names)),
        o_(std::move(o)),
        pos_(f.a.pos()),
        chunks_(chunks),
        ncoord_(chunks->ncoord()),
        rows0_(chunks->nchunk()) {
    for (size_t k = 0; k < f.ctx.s.group_names.size(); ++k)
      if ((1u << k) == group_) group_name_ = f.ctx.s.group_names[k];
    nvalid_ = next_valid(f.ctx.s.step);
    charge(rows0_);
  }

  /// Checks the per-chunk arrays against the memory budget before they are sized (the chunk count comes
  /// from input bin widths): per value and count, the total, the Nrepeat sum, one sample, its reduction
  /// (3 words) and its result, plus the window's history and the coordinates.
  void charge(int nchunk) const {
    const double per_chunk =
        8.0 * ((which_.size() + 1.0) * (7.0 + (o_.ave == Options::window ? o_.nwindow : 0)) + ncoord_);
    memory::check_allocation("fix ave/chunk " + id_ + " over " + std::to_string(nchunk) + " chunks",
                             per_chunk * nchunk, pos_);
    // One reduction holds every chunk's values: its length is an int.
    if (static_cast<double>(nchunk) * (which_.size() + 1.0) > 2147483647.0)
      fail_input(pos_, "fix ave/chunk " + id_ + ": " + std::to_string(nchunk) + " chunks of " +
                           std::to_string(which_.size() + 1) +
                           " values are more than one reduction can hold");
  }

  OutputShape shape() const override {
    OutputShape s;
    s.array_rows = nchunk_ > 0 ? nchunk_ : rows0_;
    s.array_cols = ncoord_ + 1 + static_cast<int>(which_.size());
    return s;
  }
  double array_value(int i, int j) const override {
    if (i < 0 || i >= nchunk_ || total_.empty()) return 0.0;
    if (j < ncoord_) return coord_[static_cast<size_t>(i) * ncoord_ + j];
    j -= ncoord_ + 1;
    if (norm_count_ == 0) return 0.0;
    if (j < 0) return count_total_[i] / norm_count_;
    return total_[static_cast<size_t>(i) * which_.size() + j] / norm_count_;
  }
  int64_t global_freq() const override { return nfreq_; }

  void save_state(FixStateMap& out) const override {
    out["many"] = many_, out["count_many"] = count_many_, out["total"] = total_;
    out["count_total"] = count_total_, out["window"] = list_, out["count_window"] = count_list_;
    out["coord"] = coord_;
    out["counters"] = {static_cast<double>(irepeat_),    static_cast<double>(nvalid_),
                       static_cast<double>(norm_count_), static_cast<double>(iwindow_),
                       window_full_ ? 1.0 : 0.0,         static_cast<double>(nchunk_)};
  }
  void restore_state(const FixStateMap& in) override {
    // Checked against this fix's own shape before anything is assigned: nchunk chunks of which_.size()
    // values, a window of nwindow samples, the window index inside it.
    const FixStateReader r(in, *this);
    const std::vector<double>* cnt = r.sized("counters", {6});
    if (!cnt) return;
    const int64_t nwindow = o_.ave == Options::window ? o_.nwindow : 1;
    const int64_t irepeat = r.integer(*cnt, 0, "counters", 0, nrepeat_);
    const int64_t nvalid = r.integer(*cnt, 1, "counters", 0, FixStateReader::kMaxStep);
    const int64_t norm = r.integer(*cnt, 2, "counters", 0, FixStateReader::kMaxStep);
    const int64_t iwindow = r.integer(*cnt, 3, "counters", 0, nwindow - 1);
    const int64_t full = r.integer(*cnt, 4, "counters", 0, 1);
    const int64_t nchunk = r.integer(*cnt, 5, "counters", 0, INT32_MAX / 2);
    const size_t nk = static_cast<size_t>(nchunk), n = nk * which_.size();
    const std::vector<double>*many = r.sized("many", {n}), *count_many = r.sized("count_many", {nk});
    const std::vector<double>*total = r.sized("total", {n}), *count_total = r.sized("count_total", {nk});
    const std::vector<double>* window = r.sized("window", {0, static_cast<size_t>(nwindow) * n});
    const std::vector<double>* count_window = r.sized("count_window", {0, static_cast<size_t>(nwindow) * nk});
    if ((window && !window->empty()) != (count_window && !count_window->empty()))
      r.fail("count_window", "disagrees with window");
    const std::vector<double>* coord = r.sized("coord", {0, nk * static_cast<size_t>(ncoord_)});
    // The per-chunk arrays must all be there (a crafted chunk count never sizes an allocation by itself).
    if (nk > 0)
      for (const char* k : {"many", "count_many", "total", "count_total"})
        if (!r.has(k)) r.fail(k, "is missing for " + std::to_string(nk) + " chunks");
    if (many) many_ = *many;
    if (count_many) count_many_ = *count_many;
    if (total) total_ = *total;
    if (count_total) count_total_ = *count_total;
    if (window) list_ = *window;
    if (count_window) count_list_ = *count_window;
    if (coord) coord_ = *coord;
    coord_.resize(nk * ncoord_);
    many_.resize(n), count_many_.resize(nk), total_.resize(n), count_total_.resize(nk);
    if (list_.size() != static_cast<size_t>(nwindow) * n ||
        count_list_.size() != static_cast<size_t>(nwindow) * nk)
      list_.clear(), count_list_.clear();
    irepeat_ = irepeat, nvalid_ = nvalid, norm_count_ = norm, iwindow_ = static_cast<int>(iwindow);
    window_full_ = full != 0, nchunk_ = static_cast<int>(nchunk);
  }
  bool samples_at(int64_t step) const override { return step == nvalid_; }

  void setup(FixContext& c) override {
    find_chunks(c);
    if (!opened_) open_file(c);
    if (nvalid_ < c.s.step) irepeat_ = 0, nvalid_ = next_valid(c.s.step);
    end_of_step(c);
  }
  void end_of_step(FixContext& c) override {
    if (c.s.step != nvalid_) return;
    sample(c);
  }

 private:
  int64_t next_valid(int64_t step) const { return averaging_next_valid(step, nevery_, nrepeat_, nfreq_); }
  // The compute may have been redefined since the fix was (LAMMPS's init looks it up again).
  void find_chunks(FixContext& c) {
    Compute* cp = c.styles ? c.styles->compute(chunk_id_) : nullptr;
    auto* ch = dynamic_cast<ComputeChunkAtom*>(cp);
    if (!ch)
      fail_input(pos_, "fix ave/chunk: compute " + chunk_id_ + " (chunk/atom) does not exist any more");
    chunks_ = ch;
  }

  void sample(FixContext& c) {
    const size_t nv = which_.size();
    if (irepeat_ == 0) {
      // The chunks of this Nfreq average, held until its last sample (for ever with running or window
      // averages: LAMMPS's lock).
      const int nchunk = chunks_->setup_chunks(c.s);
      if (nchunk != nchunk_) charge(nchunk);
      nchunk_ = nchunk;
      if (nrepeat_ > 1 || o_.ave != Options::one) chunks_->lock(id_, this);
      const size_t n = static_cast<size_t>(nchunk_) * nv;
      if (many_.size() != n) {
        total_.assign(n, 0.0), count_total_.assign(nchunk_, 0.0), list_.clear(), count_list_.clear();
      }
      many_.assign(n, 0.0), count_many_.assign(nchunk_, 0.0);
    }
    const std::vector<int> ichunk = chunks_->compute_ichunk(c.s);
    const Atoms& a = c.s.atoms;
    std::vector<double> one(static_cast<size_t>(nchunk_) * nv, 0.0), count_one(nchunk_, 0.0);
    // One TermSum of this sample's per-chunk counts and sums: [count…, values…].
    TermSum sum(c.comm, nchunk_ * static_cast<int>(nv + 1));
    auto selected_chunk = [&](size_t i) {
      return (a.mask[i] & group_) && ichunk[i] > 0 ? ichunk[i] - 1 : -1;
    };
    for (size_t i = 0; i < a.size(); ++i) {
      const int k = selected_chunk(i);
      if (k >= 0) sum.add(k, 1.0);
    }
    if (c.styles) c.styles->clearstep_computes();
    const ComputeContext cc = c.compute_context();
    std::vector<double> peratom;
    for (size_t v = 0; v < nv; ++v) {
      const Value w = which_[v];
      if (w == Value::ref) reference_peratom(refs_[v], cc, pos_, peratom);
      // temp with a bias: the kinetic energy of the velocities less the compute's bias (LAMMPS's
      // remove_bias_all over the compute's group, restored after).
      Compute* bias = w == Value::temp && !o_.bias.empty() && c.styles ? c.styles->compute(o_.bias) : nullptr;
      if (w == Value::temp && !o_.bias.empty() && !bias)
        fail_input(pos_, "fix ave/chunk: bias compute " + o_.bias + " does not exist (any more)");
      if (bias) {
        if (bias->invoked_scalar != c.s.step) bias->compute_scalar(cc);
        for (size_t i = 0; i < a.size(); ++i)
          if (a.mask[i] & bias->group()) bias->remove_bias(c.s, i);
      }
      for (size_t i = 0; i < a.size(); ++i) {
        const int k = selected_chunk(i);
        if (k < 0) continue;
        const double m = c.s.mass[a.type[i]];
        double x = 0.0;
        switch (w) {
          case Value::vx:
            x = a.vx[i];
            break;
          case Value::vy:
            x = a.vy[i];
            break;
          case Value::vz:
            x = a.vz[i];
            break;
          case Value::fx:
            x = a.fx[i];
            break;
          case Value::fy:
            x = a.fy[i];
            break;
          case Value::fz:
            x = a.fz[i];
            break;
          case Value::density_number:
            x = 1.0;
            break;
          case Value::density_mass:
          case Value::mass:
            x = m;
            break;
          case Value::temp: {
            const double v[3] = {a.vx[i], a.vy[i], a.vz[i]};
            x = mv2_term(v, m);  // compute temp's term (md/core/kinetic_energy.hpp)
            break;
          }
          case Value::ref:
            x = peratom[i];
            break;
        }
        sum.add(nchunk_ + k * static_cast<int>(nv) + static_cast<int>(v), x);
      }
      if (bias)
        for (size_t i = 0; i < a.size(); ++i)
          if (a.mask[i] & bias->group()) bias->restore_bias(c.s, i);
    }
    const std::vector<double> t = sum.total();
    for (int k = 0; k < nchunk_; ++k) count_one[k] = t[k];
    for (size_t k = 0; k < one.size(); ++k) one[k] = t[nchunk_ + k];
    const double volume = chunks_->chunk_volume();

    if (o_.norm == Options::all) {
      for (int k = 0; k < nchunk_; ++k) count_many_[k] += count_one[k];
      for (size_t k = 0; k < one.size(); ++k) many_[k] += one[k];
    } else {
      for (int k = 0; k < nchunk_; ++k) {
        if (count_one[k] > 0.0)
          for (size_t v = 0; v < nv; ++v) {
            double& x = one[k * nv + v];
            double& acc = many_[k * nv + v];
            if (which_[v] == Value::temp) {
              acc += units::mvv2e * x / ((o_.cdof + o_.adof * count_one[k]) * units::boltz);
            } else if (which_[v] == Value::density_number) {
              x /= volume;
              acc += x;
            } else if (which_[v] == Value::density_mass) {
              x /= volume;
              acc += units::mv2d * x;
            } else if (o_.norm == Options::none) {
              acc += x;
            } else {
              acc += x / count_one[k];
            }
          }
        count_many_[k] += count_one[k];
      }
    }
    if (++irepeat_ < nrepeat_) {
      nvalid_ += nevery_;
      return;
    }
    irepeat_ = 0;
    nvalid_ = c.s.step + nfreq_ - (nrepeat_ - 1) * nevery_;
    if (nrepeat_ > 1 && o_.ave == Options::one) chunks_->unlock(this);
    // The chunks' coordinates as of this average (the global array is read between runs too).
    coord_.resize(static_cast<size_t>(nchunk_) * ncoord_);
    for (int k = 0; k < nchunk_; ++k)
      for (int d = 0; d < ncoord_; ++d) coord_[static_cast<size_t>(k) * ncoord_ + d] = chunks_->coord(k, d);

    const double repeat = static_cast<double>(nrepeat_);
    std::vector<double> sum_v = many_, count_sum = count_many_;
    if (o_.norm == Options::all) {
      for (int k = 0; k < nchunk_; ++k) {
        if (count_sum[k] > 0.0)
          for (size_t v = 0; v < nv; ++v) {
            double& x = sum_v[k * nv + v];
            if (which_[v] == Value::temp) {
              x *= units::mvv2e / ((repeat * o_.cdof + o_.adof * count_sum[k]) * units::boltz);
            } else if (which_[v] == Value::density_number) {
              x /= volume;
              x /= repeat;
            } else if (which_[v] == Value::density_mass) {
              x /= volume;
              x *= units::mv2d / repeat;
            } else {
              x /= count_sum[k];
            }
          }
        count_sum[k] /= repeat;
      }
    } else {
      for (int k = 0; k < nchunk_; ++k) {
        for (size_t v = 0; v < nv; ++v) sum_v[k * nv + v] /= repeat;
        count_sum[k] /= repeat;
      }
    }

    if (o_.ave == Options::one) {
      total_ = sum_v, count_total_ = count_sum;
      norm_count_ = 1;
    } else if (o_.ave == Options::running) {
      for (size_t k = 0; k < total_.size(); ++k) total_[k] += sum_v[k];
      for (int k = 0; k < nchunk_; ++k) count_total_[k] += count_sum[k];
      ++norm_count_;
    } else {
      if (list_.empty()) {
        list_.assign(static_cast<size_t>(o_.nwindow) * sum_v.size(), 0.0);
        count_list_.assign(static_cast<size_t>(o_.nwindow) * nchunk_, 0.0);
      }
      double* slot = &list_[static_cast<size_t>(iwindow_) * sum_v.size()];
      double* cslot = &count_list_[static_cast<size_t>(iwindow_) * nchunk_];
      for (size_t k = 0; k < sum_v.size(); ++k) {
        total_[k] += sum_v[k];
        if (window_full_) total_[k] -= slot[k];
        slot[k] = sum_v[k];
      }
      for (int k = 0; k < nchunk_; ++k) {
        count_total_[k] += count_sum[k];
        if (window_full_) count_total_[k] -= cslot[k];
        cslot[k] = count_sum[k];
      }
      if (++iwindow_ == o_.nwindow) iwindow_ = 0, window_full_ = true;
      norm_count_ = window_full_ ? o_.nwindow : iwindow_;
    }
    write_rows(c);
  }

  void open_file(FixContext& c) {
    opened_ = true;
    if (o_.file.empty() || !c.comm.root()) return;
    out_.open(o_.file, std::ios::trunc);
    if (!out_) throw RunError("fix ave/chunk " + id_ + ": cannot open file '" + o_.file + "'");
    out_ << (o_.title[0].empty() ? "# Chunk-averaged data for fix " + id_ + " and group " + group_name_
                                 : o_.title[0])
         << "\n";
    out_ << (o_.title[1].empty() ? "# Timestep Number-of-chunks Total-count" : o_.title[1]) << "\n";
    if (!o_.title[2].empty()) {
      out_ << o_.title[2] << "\n";
    } else {
      static const char* const kCoords[] = {"# Chunk Ncount", "# Chunk Coord1 Ncount",
                                            "# Chunk Coord1 Coord2 Ncount",
                                            "# Chunk Coord1 Coord2 Coord3 Ncount"};
      out_ << kCoords[ncoord_];
      for (const std::string& n : names_) out_ << " " << n;
      out_ << "\n";
    }
    out_.flush();
    header_end_ = out_.tellp();
  }
  void write_rows(FixContext& c) {
    if (!out_.is_open() || !c.comm.root()) return;
    if (o_.overwrite) out_.seekp(header_end_);
    char buf[128];
    double count = 0.0;
    for (int k = 0; k < nchunk_; ++k) count += count_total_[k];
    std::snprintf(buf, sizeof buf, "%lld %d %g\n", static_cast<long long>(c.s.step), nchunk_, count);
    out_ << buf;
    const size_t nv = which_.size();
    for (int k = 0; k < nchunk_; ++k) {
      std::snprintf(buf, sizeof buf, "  %d", k + 1);
      out_ << buf;
      for (int d = 0; d < ncoord_; ++d) {
        std::snprintf(buf, sizeof buf, " %g", coord_[static_cast<size_t>(k) * ncoord_ + d]);
        out_ << buf;
      }
      std::snprintf(buf, sizeof buf, " %g", count_total_[k] / norm_count_);
      out_ << buf;
      for (size_t v = 0; v < nv; ++v) {
        std::snprintf(buf, sizeof buf, o_.format.c_str(), total_[k * nv + v] / norm_count_);
        out_ << buf;
      }
      out_ << "\n";
    }
    finish_average_write(out_, o_.file, o_.overwrite, "fix ave/chunk " + id_);
  }

  int64_t nevery_, nrepeat_, nfreq_;
  std::string chunk_id_;
  std::vector<Value> which_;
  std::vector<Reference> refs_;  // for Value::ref
  std::vector<std::string> names_;
  Options o_;
  SourcePos pos_;
  ComputeChunkAtom* chunks_;   // refreshed at each set-up (it is only used during runs)
  int ncoord_, rows0_;         // its coordinates per chunk; its chunk count when the fix was defined
  std::vector<double> coord_;  // the chunks' coordinates at the last Nfreq average
  std::string group_name_;
  int nchunk_ = 0;
  std::vector<double> many_, count_many_, total_, count_total_, list_, count_list_;
  int64_t irepeat_ = 0, nvalid_ = 0, norm_count_ = 0;
  int iwindow_ = 0;
  bool window_full_ = false, opened_ = false;
  std::ofstream out_;
  std::streampos header_end_ = 0;
};

std::unique_ptr<Fix> make(const FixArgs& f) {
  using V = FixAveChunk::Value;
  io::ArgCursor& a = f.a;
  const AveragingSchedule sched = read_averaging_schedule(a, "fix ave/chunk");
  const int64_t nevery = sched.nevery, nrepeat = sched.nrepeat, nfreq = sched.nfreq;
  const std::string chunk_id = a.word("the ID of a compute chunk/atom");
  if (!f.ctx.styles) a.fail("fix ave/chunk needs the computes, fixes and variables of a script");
  const StyleLookup& styles = *f.ctx.styles;
  Compute* cp = styles.compute(chunk_id);
  if (!cp) a.fail("fix ave/chunk: compute " + chunk_id + " does not exist");
  auto* chunks = dynamic_cast<ComputeChunkAtom*>(cp);
  if (!chunks) a.fail("fix ave/chunk: compute " + chunk_id + " is not a compute chunk/atom");

  static const std::pair<const char*, V> kNamed[] = {{"vx", V::vx},
                                                     {"vy", V::vy},
                                                     {"vz", V::vz},
                                                     {"fx", V::fx},
                                                     {"fy", V::fy},
                                                     {"fz", V::fz},
                                                     {"density/number", V::density_number},
                                                     {"density/mass", V::density_mass},
                                                     {"mass", V::mass},
                                                     {"temp", V::temp}};
  std::vector<V> which;
  std::vector<Reference> refs;
  std::vector<std::string> names;
  while (!a.done()) {
    const std::string w = a.peek();
    bool named = false;
    for (const auto& [n, v] : kNamed)
      if (w == n) which.push_back(v), refs.emplace_back(), names.push_back(w), named = true;
    if (named) {
      a.word("a value");
      continue;
    }
    if (w.size() < 3 || w[1] != '_' || (w[0] != 'c' && w[0] != 'f' && w[0] != 'v')) break;
    a.word("a value");
    for (const std::string& e : expand_wildcard(w, true, styles, a)) {
      Reference r;
      parse_reference(e, r, a);
      check_reference(r, Reference::Shape::peratom, styles, a, "fix ave/chunk");
      which.push_back(V::ref), refs.push_back(r), names.push_back(e);
    }
  }
  if (which.empty())
    a.fail(
        "fix ave/chunk: no values (vx vy vz fx fy fz density/number density/mass mass temp c_ID f_ID "
        "v_name)");
  FixAveChunk::Options o;
  while (!a.done()) {
    const std::string k = a.word("a keyword");
    if (k == "norm") {
      const std::string n = a.choice("norm", {"all", "sample", "none"});
      o.norm = n == "all"      ? FixAveChunk::Options::all
               : n == "sample" ? FixAveChunk::Options::sample
                               : FixAveChunk::Options::none;
    } else if (k == "ave") {
      const std::string m = a.choice("the averaging", {"one", "running", "window"});
      o.ave = m == "one"       ? FixAveChunk::Options::one
              : m == "running" ? FixAveChunk::Options::running
                               : FixAveChunk::Options::window;
      if (m == "window") o.nwindow = static_cast<int>(a.integer("the window M", 1, 100000000));
    } else if (k == "bias") {
      o.bias = a.word("a temperature compute ID");
      const Compute* t = styles.compute(o.bias);
      if (!t) a.fail("fix ave/chunk: bias compute " + o.bias + " does not exist");
      if (!t->is_temperature())
        a.fail("fix ave/chunk: bias compute " + o.bias + " does not compute temperature");
      if (!t->has_bias()) a.fail("fix ave/chunk: bias compute " + o.bias + " has no velocity bias");
    } else if (k == "adof") {
      o.adof = a.non_negative("adof");
    } else if (k == "cdof") {
      o.cdof = a.real("cdof");
    } else if (k == "file") {
      o.file = a.word("a file name");
    } else if (k == "overwrite") {
      o.overwrite = true;
    } else if (k == "format") {
      o.format = a.word("a format");
      const size_t pct = o.format.find('%');
      const size_t conv = pct == std::string::npos ? pct : o.format.find_first_of("eEfgG", pct);
      if (pct == std::string::npos || o.format.find('%', pct + 1) != std::string::npos ||
          conv == std::string::npos || o.format.find_first_not_of("0123456789.-+ #", pct + 1) != conv)
        a.fail("fix ave/chunk: format '" + o.format + "' must print one floating-point value");
    } else if (k == "title1" || k == "title2" || k == "title3") {
      o.title[k[5] - '1'] = a.word("a title");
    } else {
      a.fail(
          "fix ave/chunk: keyword '" + k +
          "' is not supported (norm, ave, bias, adof, cdof, file, overwrite, format, title1, title2, title3; "
          "not append)");
    }
  }
  if (o.overwrite && o.ave != FixAveChunk::Options::running)
    a.fail("fix ave/chunk: overwrite needs ave running");
  return std::make_unique<FixAveChunk>(f, nevery, nrepeat, nfreq, chunks, std::move(which), std::move(refs),
                                       std::move(names), std::move(o));
}

}  // namespace

WMD_FIX_STYLE("ave/chunk", make)

}  // namespace wmd::md
