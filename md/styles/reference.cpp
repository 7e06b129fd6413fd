#include "md/styles/reference.hpp"

#include <cctype>

namespace wmd::md {
namespace {

const char* kind_name(Reference::Kind k) {
  return k == Reference::Kind::compute ? "compute" : k == Reference::Kind::fix ? "fix" : "variable";
}

std::string not_current(const Reference& r, int64_t last, int64_t step) {
  return "compute " + r.id + " (" + r.text + ") is used between runs but is not current: it was " +
         (last < 0 ? std::string("never computed") : "last computed at step " + std::to_string(last)) +
         ", the step is " + std::to_string(step) +
         " (LAMMPS: \"Compute used in variable between runs is not current\"; print it in thermo output on "
         "the "
         "run's last step, or use it inside the run)";
}

Compute& find_compute(const Reference& r, const ComputeContext& ctx, const SourcePos& at) {
  Compute* c = ctx.styles ? ctx.styles->compute(r.id) : nullptr;
  if (!c) fail_input(at, r.text + ": compute " + r.id + " does not exist (any more)");
  return *c;
}

Fix& find_fix(const Reference& r, const ComputeContext& ctx, const SourcePos& at) {
  Fix* f = ctx.styles ? ctx.styles->fix(r.id) : nullptr;
  if (!f) fail_input(at, r.text + ": fix " + r.id + " does not exist (any more)");
  return *f;
}

bool between_runs(const ComputeContext& ctx) {
  return ctx.styles && !ctx.styles->in_run() && !ctx.dry_run;
}

}  // namespace

bool parse_reference(const std::string& w, Reference& r, const io::ArgCursor& at) {
  if (w.size() < 3 || w[1] != '_' || (w[0] != 'c' && w[0] != 'f' && w[0] != 'v')) return false;
  r = Reference{};
  r.text = w;
  r.kind = w[0] == 'c'   ? Reference::Kind::compute
           : w[0] == 'f' ? Reference::Kind::fix
                         : Reference::Kind::variable;
  const size_t open = w.find('[');
  r.id = w.substr(2, open == std::string::npos ? std::string::npos : open - 2);
  if (r.id.empty()) at.fail("'" + w + "' names no ID");
  if (open == std::string::npos) return true;
  if (r.kind == Reference::Kind::variable) at.fail("'" + w + "': vector-style variables are not supported");
  int* idx[2] = {&r.i, &r.j};
  size_t p = open;
  for (int k = 0; k < 2 && p < w.size(); ++k) {
    if (w[p] != '[') at.fail("'" + w + "' is not a reference like c_ID[2]");
    const size_t close = w.find(']', p);
    if (close == std::string::npos) at.fail("'" + w + "' has an unclosed '['");
    const std::string num = w.substr(p + 1, close - p - 1);
    long long v = 0;
    if (!io::parse_integer(num, v) || v < 1 || v > 1000000000)
      at.fail("'" + w + "': the index '" + num + "' is not a positive integer (indices count from 1)");
    *idx[k] = static_cast<int>(v);
    p = close + 1;
  }
  if (p != w.size()) at.fail("'" + w + "' is not a reference like c_ID[2] or c_ID[2][3]");
  return true;
}

std::vector<std::string> expand_wildcard(const std::string& w, bool columns, const StyleLookup& styles,
                                         const io::ArgCursor& at) {
  const size_t open = w.find('[');
  if (w.size() < 3 || w[1] != '_' || (w[0] != 'c' && w[0] != 'f') || open == std::string::npos ||
      w.back() != ']' || w.find('*', open) == std::string::npos || w.find('[', open + 1) != std::string::npos)
    return {w};
  const std::string id = w.substr(2, open - 2);
  OutputShape s;
  if (w[0] == 'c') {
    const Compute* c = styles.compute(id);
    if (!c) at.fail("'" + w + "': compute " + id + " does not exist");
    s = c->shape();
  } else {
    const Fix* f = styles.fix(id);
    if (!f) at.fail("'" + w + "': fix " + id + " does not exist");
    s = f->shape();
  }
  const int n = !columns && s.vector > 0 ? s.vector
                : columns && s.array()   ? s.array_cols
                : s.peratom_cols > 0     ? s.peratom_cols
                : s.local_cols > 0       ? s.local_cols
                                         : 0;
  if (n == 0) at.fail("'" + w + "': it has no vector or array columns to expand");
  int lo = 0, hi = 0;
  if (!io::parse_bounds(w.substr(open + 1, w.size() - open - 2), n, lo, hi))
    at.fail("'" + w + "': the wildcard is not a range within 1.." + std::to_string(n));
  std::vector<std::string> out;
  for (int k = lo; k <= hi; ++k) out.push_back(w.substr(0, open) + "[" + std::to_string(k) + "]");
  return out;
}

void check_reference(const Reference& r, Reference::Shape want, const StyleLookup& styles,
                     const io::ArgCursor& at, const std::string& who) {
  const std::string w = who + " " + r.text + ": ";
  if (r.kind == Reference::Kind::variable) {
    if (!styles.has_variable(r.id)) at.fail(w + "variable " + r.id + " does not exist");
    const bool atom = styles.has_atom_variable(r.id);
    if (want == Reference::Shape::global && atom)
      at.fail(w + "variable " + r.id + " is atom-style (a value per atom), where one value is needed");
    if (want == Reference::Shape::local) at.fail(w + "a variable has no local values");
    if (want == Reference::Shape::peratom && !atom)
      at.fail(w + "variable " + r.id + " is not atom-style (per-atom values need variable NAME atom …)");
    return;
  }
  OutputShape s;
  if (r.kind == Reference::Kind::compute) {
    const Compute* c = styles.compute(r.id);
    if (!c) at.fail(w + "compute " + r.id + " does not exist");
    s = c->shape();
  } else {
    const Fix* f = styles.fix(r.id);
    if (!f) at.fail(w + "fix " + r.id + " does not exist");
    s = f->shape();
  }
  const std::string style = std::string(kind_name(r.kind)) + " " + r.id;
  if (want == Reference::Shape::global) {
    if (r.i == 0 && !s.scalar) at.fail(w + style + " has no global scalar");
    if (r.i > 0 && r.j == 0) {
      if (s.vector == 0) at.fail(w + style + " has no global vector");
      if (r.i > s.vector)
        at.fail(w + style + "'s global vector has " + std::to_string(s.vector) + " elements");
    }
    if (r.j > 0) {
      if (!s.array()) at.fail(w + style + " has no global array");
      if (r.i > s.array_rows || r.j > s.array_cols)
        at.fail(w + style + "'s global array is " + std::to_string(s.array_rows) + " x " +
                std::to_string(s.array_cols));
    }
    return;
  }
  const int cols = want == Reference::Shape::peratom ? s.peratom_cols : s.local_cols;
  const char* kind = want == Reference::Shape::peratom ? "per-atom" : "local";
  if (cols < 0) at.fail(w + style + " has no " + kind + " values");
  if (r.j > 0) at.fail(w + kind + " values take at most one index");
  if (r.i == 0 && cols > 0)
    at.fail(w + style + " gives a " + kind + " array of " + std::to_string(cols) + " columns: name one (" +
            r.text + "[1])");
  if (r.i > 0 && cols == 0) at.fail(w + style + " gives a " + kind + " vector (no column index)");
  if (r.i > cols) at.fail(w + style + " gives " + std::to_string(cols) + " " + kind + " columns");
}

bool reference_extensive(const Reference& r, const StyleLookup& styles) {
  if (r.kind == Reference::Kind::compute) {
    const Compute* c = styles.compute(r.id);
    return c && c->shape().extensive;
  }
  if (r.kind == Reference::Kind::fix) {
    const Fix* f = styles.fix(r.id);
    return f && f->shape().extensive;
  }
  return false;
}

double reference_value(const Reference& r, const ComputeContext& ctx, const SourcePos& at) {
  if (r.kind == Reference::Kind::variable) {
    if (!ctx.styles) fail_input(at, r.text + ": no variables here");
    return ctx.styles->variable(r.id);
  }
  if (r.kind == Reference::Kind::fix) {
    const Fix& f = find_fix(r, ctx, at);
    if (r.i == 0) {
      double v = 0.0;
      if (!f.scalar(v)) fail_input(at, r.text + ": fix " + r.id + " has no global scalar");
      return v;
    }
    if (r.j == 0) return f.vector_value(r.i - 1);
    return f.array_value(r.i - 1, r.j - 1);
  }
  Compute& c = find_compute(r, ctx, at);
  const bool between = between_runs(ctx);
  if (r.i == 0) {
    if (between) {
      if (c.invoked_scalar != ctx.s.step) fail_input(at, not_current(r, c.invoked_scalar, ctx.s.step));
      return c.scalar();
    }
    return invoke_scalar(c, ctx);
  }
  if (r.j == 0) {
    if (between && c.invoked_vector != ctx.s.step)
      fail_input(at, not_current(r, c.invoked_vector, ctx.s.step));
    const std::vector<double>& v = between ? c.vector() : invoke_vector(c, ctx);
    return static_cast<size_t>(r.i - 1) < v.size() ? v[r.i - 1] : 0.0;
  }
  if (between && c.invoked_array != ctx.s.step) fail_input(at, not_current(r, c.invoked_array, ctx.s.step));
  const std::vector<double>& v = between ? c.array() : invoke_array(c, ctx);
  const size_t k = static_cast<size_t>(r.i - 1) * c.shape().array_cols + (r.j - 1);
  return k < v.size() ? v[k] : 0.0;
}

void reference_peratom(const Reference& r, const ComputeContext& ctx, const SourcePos& at,
                       std::vector<double>& out) {
  const size_t n = ctx.s.atoms.size();
  out.assign(n, 0.0);
  const std::vector<double>* src = nullptr;
  int cols = 0;
  if (r.kind == Reference::Kind::variable) {
    if (!ctx.styles) fail_input(at, r.text + ": no variables here");
    ctx.styles->atom_variable(r.id, at, out);
    out.resize(n, 0.0);
    return;
  } else if (r.kind == Reference::Kind::fix) {
    const Fix& f = find_fix(r, ctx, at);
    src = f.peratom_values();
    cols = f.shape().peratom_cols;
    if (!src) fail_input(at, r.text + ": fix " + r.id + " has no per-atom values");
  } else {
    Compute& c = find_compute(r, ctx, at);
    if (between_runs(ctx)) {
      if (c.invoked_peratom != ctx.s.step) fail_input(at, not_current(r, c.invoked_peratom, ctx.s.step));
      src = &c.peratom();
    } else {
      src = &invoke_peratom(c, ctx);
    }
    cols = c.shape().peratom_cols;
  }
  const size_t stride = cols > 0 ? static_cast<size_t>(cols) : 1;
  const size_t col = r.i > 0 ? static_cast<size_t>(r.i - 1) : 0;
  for (size_t k = 0; k < n && k * stride + col < src->size(); ++k) out[k] = (*src)[k * stride + col];
}

void reference_local(const Reference& r, const ComputeContext& ctx, const SourcePos& at,
                     std::vector<double>& out) {
  out.clear();
  if (r.kind != Reference::Kind::compute) fail_input(at, r.text + ": only computes give local values here");
  Compute& c = find_compute(r, ctx, at);
  const std::vector<double>* src = nullptr;
  if (between_runs(ctx)) {
    if (c.invoked_local != ctx.s.step) fail_input(at, not_current(r, c.invoked_local, ctx.s.step));
    src = &c.local();
  } else {
    src = &invoke_local(c, ctx);
  }
  const int cols = c.shape().local_cols;
  const size_t stride = cols > 0 ? static_cast<size_t>(cols) : 1;
  const size_t col = r.i > 0 ? static_cast<size_t>(r.i - 1) : 0;
  for (size_t k = col; k < src->size(); k += stride) out.push_back((*src)[k]);
}

bool reference_is_local(const Reference& r, const StyleLookup& styles) {
  OutputShape s;
  if (r.kind == Reference::Kind::compute) {
    const Compute* c = styles.compute(r.id);
    if (!c) return false;
    s = c->shape();
  } else if (r.kind == Reference::Kind::fix) {
    const Fix* f = styles.fix(r.id);
    if (!f) return false;
    s = f->shape();
  } else {
    return false;
  }
  return !s.peratom() && s.local();
}

}  // namespace wmd::md
