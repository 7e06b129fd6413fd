#!/usr/bin/python3
"""CPU-cluster projection for `wafermd scaling`: fitted to the training rows of cpu_measurements.yaml and checked
against its held-out rows (docs/scaling.md, "The CPU-cluster projection").

Seconds per step of an EAM problem of N atoms on P MPI ranks (one per core), n = N / P atoms each, on nodes of C
cores (D = ceil(P / C) nodes):

    t(N, P) = c * k * n
              + [P > 1] * t_sync
              + [D > 1] * (E * S(n) * alpha + ceil(log2 P) * alpha + G_node(N / D) * B / beta)

  c        seconds per atom-step of one core on the reference problem (LAMMPS bench `in.eam`), from each training
           machine's 1-rank row; a preset with no rows of its own takes the training machines' geometric mean,
           the band their fastest and slowest;
  k        the problem's pairs per atom (half list, cut-off + skin) over the reference's 37.74: EAM work per atom;
  t_sync   per-step cost of running on more than one rank beyond c * k * n (halo pack/unpack and on-node message
           passing, imbalance, shared memory bandwidth): what each training multi-rank row leaves, smallest /
           median / largest;
  E, B     exchanges per step and bytes per ghost per step of LAMMPS's CPU EAM step with newton on (4 and 64:
           forward x, reverse rho, forward F'(rho), reverse f);
  S(n)     messages per exchange: 2 per decomposed dimension times ceil(ghost cut-off / sub-domain width);
  log2 P   the MPI_Allreduce of `neigh_modify check yes` on every step;
  G_node   ghost atoms of one node's sub-domain: what crosses the node's network link;
  alpha, beta  the network's documented latency and per-node bandwidth (cpu_projection.yaml).

Only load_training() feeds the fit; the held-out rows are read by heldout_check() alone, after the fit.

Usage: cpu_projection.py [--measurements M.yaml] [--presets P.yaml] fit --preset NAME
       cpu_projection.py [...] project --preset NAME --atoms N [--geometry G | --cutoff RC_PLUS_SKIN --density RHO
                                      --pairs-per-atom K] [--json OUT]
       cpu_projection.py [...] train [--json OUT] | check [--json OUT]
"""
import json
import math
import os
import sys

import numpy as np

import published_table

HERE = os.path.dirname(os.path.abspath(__file__))
MEASUREMENTS = os.path.join(HERE, "cpu_measurements.yaml")
PRESETS = os.path.join(HERE, "cpu_projection.yaml")
RANKS = np.unique(np.round(np.logspace(0, 5, 101)).astype(int))  # 1 to 100,000 ranks
ATOMS_PER_CELL = {"fcc": 4, "bcc": 2}


def _rate(r):
    """Steps/s from the rate as the source gave it; a whole job's wall time gives a lower bound."""
    if "loop_seconds" in r:
        r["steps_per_second"] = r["steps"] / float(r["loop_seconds"])
    elif "wall_seconds_at_most" in r:  # a whole job's wall time: the loop ran at least this fast
        r["steps_per_second"] = r["steps"] / float(r["wall_seconds_at_most"])
        r["bound"] = "lower"
    else:
        r["steps_per_second"] = float(r["steps_per_second"])


def load_rows(path=MEASUREMENTS):
    return published_table.load_rows(path, _rate)


def load_training(path=MEASUREMENTS):
    """The rows the fit may read: `split: train` only."""
    return published_table.training(load_rows(path))


def load_heldout(path=MEASUREMENTS):
    return published_table.heldout(load_rows(path))


def load_presets(path=PRESETS):
    return published_table.load_yaml(path)


def geometry(doc, name=None, atoms=None, cutoff=None, density=None, pairs_per_atom=None):
    """The problem's geometry: a named entry of cpu_projection.yaml (default `in-eam`), with any of cut-off (+ skin),
    number density and pairs per atom overriding it. A slab entry (lattice, a, cells) is decomposed in x and y only."""
    g = dict(doc["geometries"][name or "in-eam"])
    if "lattice" in g:  # slab: box and density from the lattice
        per = ATOMS_PER_CELL[g["lattice"]]
        nx, ny, nz = g["cells"]
        g["number_density"] = per / g["a"] ** 3
        g["box_xy"] = (nx * g["a"]) * (ny * g["a"])
        g["thickness"] = nz * g["a"]
        g["slab"] = True
    else:
        g["slab"] = False
    if cutoff is not None:
        g["ghost_cutoff"] = float(cutoff)
    if density is not None:
        g["number_density"] = float(density)
    if pairs_per_atom is not None:
        g["pairs_per_atom"] = float(pairs_per_atom)
    elif cutoff is not None or density is not None or "pairs_per_atom" not in g:
        # Half the atoms in a sphere of the list's radius; a slab loses 3 r / (8 T) of it to its two surfaces.
        r, rho = g["ghost_cutoff"], g["number_density"]
        full = 4.0 / 3.0 * math.pi * r**3 * rho
        if g["slab"]:
            full *= 1.0 - 3.0 * r / (8.0 * g["thickness"]) if r < g["thickness"] else 0.5 * g["thickness"] / r
        g["pairs_per_atom"] = 0.5 * full
    if g["slab"] and atoms is not None and name is not None:
        g["atoms_of_geometry"] = int(round(g["box_xy"] * g["thickness"] * g["number_density"]))
    return g


def ghosts_and_swaps(atoms, parts, g):
    """Ghost atoms of one of `parts` equal sub-domains of `atoms` atoms, and messages per exchange."""
    parts = np.asarray(parts, dtype=float)
    n = atoms / parts
    r, rho = g["ghost_cutoff"], g["number_density"]
    if g["slab"]:  # columns through the slab's thickness; no ghosts across its open faces
        t = g["thickness"]
        side = np.sqrt(n / (rho * t))
        ghost = ((side + 2 * r) ** 2 - side**2) * rho * t
        swaps = 4 * np.ceil(r / side)
    else:
        side = (n / rho) ** (1.0 / 3.0)
        ghost = ((side + 2 * r) ** 3 - side**3) * rho
        swaps = 6 * np.ceil(r / side)
    # A sub-domain cannot have more ghosts than there are other atoms (open boundaries), nor need ghosts alone.
    ghost = np.where(parts > 1, np.minimum(ghost, atoms - n), 0.0)
    return ghost, swaps


def fit(train, doc, preset):
    """The projection's parameters for `preset` from training rows only."""
    p = doc["presets"][preset]
    # Per-core cost of each training machine: its 1-rank row, the reference problem (in.eam) at 1 rank.
    per_core = {}
    for r in train:
        if r["ranks"] == 1:
            per_core[r["machine"]] = 1.0 / (r["steps_per_second"] * r["atoms"])
    if not per_core:
        raise ValueError("no 1-rank training row: the per-core cost cannot be fitted")
    # Multi-rank cost: what each training row on more than one rank leaves after its machine's c * n. Every
    # training multi-rank row ran on one node, so no network term is taken off.
    excess = []
    for r in train:
        if r["ranks"] > 1 and r["machine"] in per_core:
            n = r["atoms"] / r["ranks"]
            excess.append(1.0 / r["steps_per_second"] - per_core[r["machine"]] * n)
    if not excess:
        raise ValueError("no multi-rank training row: t_sync cannot be fitted")
    costs = sorted(per_core.values())
    own = p.get("machine")
    if own is not None and own in per_core:
        c_low = c_mid = c_high = per_core[own]
    else:
        c_low, c_high = costs[0], costs[-1]
        c_mid = float(math.exp(np.mean(np.log(costs))))
    return {
        "preset": preset,
        "name": p["name"],
        "c_low_s": c_low,  # fastest core: the band's fast edge
        "c_mid_s": c_mid,
        "c_high_s": c_high,
        "per_core_s": dict(sorted(per_core.items())),
        "t_sync_low_s": float(max(min(excess), 0.0)),
        "t_sync_mid_s": float(max(np.median(excess), 0.0)),
        "t_sync_high_s": float(max(max(excess), 0.0)),
        "latency_s": p["latency_seconds"],
        "bandwidth_bytes_per_s_per_node": p["bandwidth_bytes_per_second_per_node"],
        "cores_per_node": p["cores_per_node"],
        "exchanges_per_step": doc["exchanges_per_step"],
        "bytes_per_ghost_per_step": doc["bytes_per_ghost_per_step"],
        "reference_pairs_per_atom": doc["reference_pairs_per_atom"],
        "training_rows": {"machines": len(per_core), "multi_rank": len(excess)},
    }


def step_time(params, g, atoms, ranks, c, t_sync, nodes=None):
    """Seconds per step for `atoms` atoms on each of `ranks` (array); `nodes` defaults to ceil(ranks / C)."""
    p = np.asarray(ranks, dtype=float)
    d = np.ceil(p / params["cores_per_node"]) if nodes is None else np.asarray(nodes, dtype=float)
    k = g["pairs_per_atom"] / params["reference_pairs_per_atom"]
    t = c * k * atoms / p + np.where(p > 1, t_sync, 0.0)
    _, swaps = ghosts_and_swaps(atoms, p, g)
    node_ghosts, _ = ghosts_and_swaps(atoms, np.maximum(d, 1.0), g)
    alpha = params["latency_s"]
    net = params["exchanges_per_step"] * swaps * alpha + np.ceil(np.log2(np.maximum(p, 2))) * alpha
    net = net + node_ghosts * params["bytes_per_ghost_per_step"] / params["bandwidth_bytes_per_s_per_node"]
    return t + np.where(d > 1, net, 0.0)


def curves(params, g, atoms, ranks=RANKS, nodes=None, c=None):
    """Steps/s over `ranks`: central, slow edge and fast edge of the band."""
    cs = (params["c_mid_s"], params["c_high_s"], params["c_low_s"]) if c is None else (c, c, c)
    ts = (params["t_sync_mid_s"], params["t_sync_high_s"], params["t_sync_low_s"])
    return [1.0 / step_time(params, g, atoms, ranks, ci, ti, nodes) for ci, ti in zip(cs, ts)]


def best(params, g, atoms, ranks=RANKS):
    mid, low, high = curves(params, g, atoms, ranks)
    # Where the curve flattens into its plateau, the last ranks buy nothing: the peak is the smallest count
    # within 1 % of the best rate.
    i = int(np.argmax(mid >= 0.99 * mid.max()))
    return mid, low, high, i


def project(preset, atoms, cutoff=None, density=None, pairs_per_atom=None, geometry_name=None,
            measurements=MEASUREMENTS, presets=PRESETS, ranks=RANKS):
    """The EAM projection for `atoms` on `preset` (projection.json's content): curves over 1 to 100,000 ranks and the
    best point. Geometry: LAMMPS in.eam's unless `geometry_name` (cpu_projection.yaml) or cut-off (+ skin, A),
    density (atoms/A^3) or pairs per atom are given."""
    doc = load_presets(presets)
    if preset not in doc["presets"]:
        raise KeyError(f"unknown CPU preset '{preset}' (known: {', '.join(doc['presets'])})")
    params = fit(load_training(measurements), doc, preset)
    g = geometry(doc, geometry_name, atoms, cutoff, density, pairs_per_atom)
    ranks = np.asarray(ranks)
    mid, low, high, i = best(params, g, atoms, ranks)
    return {
        "preset": preset,
        "name": params["name"],
        "atoms": int(atoms),
        "geometry": {"name": geometry_name or "in-eam", "ghost_cutoff": g["ghost_cutoff"],
                     "number_density": g["number_density"], "pairs_per_atom": g["pairs_per_atom"],
                     "slab_thickness": g.get("thickness")},
        "best_steps_per_second": float(mid.max()),
        "best_ranks": int(ranks[i]),
        "best_nodes": int(math.ceil(ranks[i] / params["cores_per_node"])),
        # The band's edges at their own best rank counts: what the slowest and fastest fits reach at most.
        "band_low": float(low.max()),
        "band_high": float(high.max()),
        "ranks": [int(v) for v in ranks],
        "steps_per_second": [float(v) for v in mid],
        "band_low_curve": [float(v) for v in low],
        "band_high_curve": [float(v) for v in high],
        "params": params,
    }


def predict_row(params, doc, r):
    """Central, slow and fast projection for one row: its own machine's per-core cost where the fit has it."""
    c = params["per_core_s"].get(r["machine"])
    if r.get("geometry") == "sc24-slowest":  # the slowest element's job: the lowest projected rate of the three
        res = [curves(params, geometry(doc, name), r["atoms"], np.array([r["ranks"]]), np.array([r["nodes"]]), c)
               for name in ("cu-sc24", "w-sc24", "ta-sc24")]
        return tuple(float(min(x[j][0] for x in res)) for j in range(3))
    g = geometry(doc, r.get("geometry"))
    mid, low, high = curves(params, g, r["atoms"], np.array([r["ranks"]]), np.array([r["nodes"]]), c)
    return float(mid[0]), float(low[0]), float(high[0])


def compare(rows, doc, params):
    out = []
    for r in rows:
        mid, low, high = predict_row(params, doc, r)
        meas = r["steps_per_second"]
        out.append({"id": r["id"], "machine": r["machine"], "atoms": r["atoms"], "ranks": r["ranks"],
                    "nodes": r["nodes"], "measured": meas, "bound": r.get("bound"), "projected": mid,
                    "band_low": low, "band_high": high, "ratio": mid / meas, "within_2x": 0.5 <= mid / meas <= 2.0,
                    "inside_band": low * (1 - 1e-9) <= meas <= high * (1 + 1e-9)})
    return out


def fit_default(measurements=MEASUREMENTS, presets=PRESETS, preset="quartz"):
    doc = load_presets(presets)
    return doc, fit(load_training(measurements), doc, preset)


def heldout_check(measurements=MEASUREMENTS, presets=PRESETS):
    """The held-out rows against the projection fitted without them (network figures: the quartz preset)."""
    doc, params = fit_default(measurements, presets)
    return compare(load_heldout(measurements), doc, params)


def training_check(measurements=MEASUREMENTS, presets=PRESETS):
    doc, params = fit_default(measurements, presets)
    return compare(load_training(measurements), doc, params)


def main(argv=None):
    ap, pr = published_table.parser(__doc__, MEASUREMENTS, PRESETS)
    pr.add_argument("--geometry", help="a geometry of cpu_projection.yaml (default in-eam)")
    pr.add_argument("--cutoff", type=float, help="ghost cut-off: pair cut-off + skin (A)")
    pr.add_argument("--density", type=float, help="atoms per A^3")
    pr.add_argument("--pairs-per-atom", type=float, help="half-list pairs per atom (cut-off + skin)")
    a = ap.parse_args(argv)
    doc = load_presets(a.presets)
    if not (published_table.known(list(doc["presets"]), getattr(a, "preset", None), "CPU preset")
            and published_table.known(list(doc["geometries"]), getattr(a, "geometry", None), "geometry")):
        return 2
    if a.cmd == "fit":
        print(json.dumps(fit(load_training(a.measurements), doc, a.preset), indent=1, sort_keys=True))
    elif a.cmd == "project":
        res = project(a.preset, a.atoms, a.cutoff, a.density, a.pairs_per_atom, a.geometry, a.measurements,
                      a.presets)
        print(f"{res['name']}: best {res['best_steps_per_second']:,.0f} steps/s at {res['best_ranks']:,} ranks "
              f"({res['best_nodes']:,} nodes) for {a.atoms:,} EAM atoms (band {res['band_low']:,.0f}-"
              f"{res['band_high']:,.0f})")
        published_table.dump(res, a.json)
    else:
        return published_table.train_or_check(a, training_check, heldout_check, "ranks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
