// compute heat/flux ke-ID pe-ID stress-ID: the group's heat flux J = Σ e_i v_i − Σ S_i·v_i (e_i = ke_i + pe_i
// from a ke/atom and a pe/atom compute, S_i from a stress/atom compute, converted from pressure·volume to
// energy) and its convective part Σ e_i v_i, as LAMMPS compute heat/flux: a global vector Jx Jy Jz Jcx Jcy
// Jcz (eV·Å/ps, extensive, not divided by the volume) for Green–Kubo thermal conductivity.
#include "base/units.hpp"
#include "md/styles/compute.hpp"

namespace wmd::md {
namespace {

class ComputeHeatFlux : public Compute {
 public:
  ComputeHeatFlux(const ComputeArgs& c, std::string ke, std::string pe, std::string stress)
      : Compute(c.id, c.style, c.group),
        ids_{std::move(ke), std::move(pe), std::move(stress)},
        at_(c.a.pos()) {}
  OutputShape shape() const override { return {false, 6, -1, true}; }
  void compute_vector(const ComputeContext& c) override {
    invoked_vector = c.s.step;
    Compute* in[3];
    for (int k = 0; k < 3; ++k) {
      in[k] = c.styles ? c.styles->compute(ids_[k]) : nullptr;
      if (!in[k]) fail_input(at_, "Could not find compute heat/flux compute ID " + ids_[k]);
    }
    // Copies: invoking one compute may reuse another's buffers.
    const std::vector<double> ke = invoke_peratom(*in[0], c), pe = invoke_peratom(*in[1], c);
    const std::vector<double>& stress = invoke_peratom(*in[2], c);
    const Atoms& a = c.s.atoms;
    TermSum sum(c.comm, 6);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!in_group(a, i)) continue;
      const double e = pe[i] + ke[i], v[3] = {a.vx[i], a.vy[i], a.vz[i]};
      const double* s = &stress[6 * i];  // xx yy zz xy xz yz
      // Σ e v and −Σ S·v (pressure·volume) apart; the latter is converted once summed, as LAMMPS.
      sum.add(0, e * v[0]), sum.add(1, e * v[1]), sum.add(2, e * v[2]);
      sum.add(3, -(s[0] * v[0] + s[3] * v[1] + s[4] * v[2]));
      sum.add(4, -(s[3] * v[0] + s[1] * v[1] + s[5] * v[2]));
      sum.add(5, -(s[4] * v[0] + s[5] * v[1] + s[2] * v[2]));
    }
    const std::vector<double> t = sum.total();
    vector_.resize(6);
    for (int d = 0; d < 3; ++d) vector_[d] = t[d] + t[d + 3] / units::nktv2p, vector_[d + 3] = t[d];
  }

 private:
  std::string ids_[3];
  SourcePos at_;
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  const std::string ke = c.a.word("a ke/atom compute ID"), pe = c.a.word("a pe/atom compute ID"),
                    stress = c.a.word("a stress/atom compute ID");
  c.a.finish();
  if (c.ctx.styles) {
    Compute* k = c.ctx.styles->compute(ke);
    Compute* p = c.ctx.styles->compute(pe);
    Compute* s = c.ctx.styles->compute(stress);
    if (!k || !p || !s) c.a.fail("Could not find compute heat/flux compute ID");
    if (k->style() != "ke/atom") c.a.fail("Compute heat/flux compute ID does not compute ke/atom");
    if (!p->needs_eatom()) c.a.fail("Compute heat/flux compute ID does not compute pe/atom");
    if (s->style() != "stress/atom") c.a.fail("Compute heat/flux compute ID does not compute stress/atom");
  }
  return std::make_unique<ComputeHeatFlux>(c, ke, pe, stress);
}

}  // namespace

WMD_COMPUTE_STYLE("heat/flux", make)

}  // namespace wmd::md
