#!/usr/bin/python3
"""GPU-cluster projection for `wafermd scaling`: fitted to the training rows of gpu_measurements.yaml and checked
against its held-out rows (docs/scaling.md, "The GPU-cluster projection").

Seconds per step of an EAM problem of N atoms on P devices, n = N / P atoms each:

    t(N, P) = c * t1(n) + [P > 1] * (E * S * alpha + m * t_sync + G(n) * B / beta)

  t1(n) = t_dev + n / R   one device running LJ (KOKKOS): fixed per-step cost and large-size rate, fitted to the
                          device_curve rows of the preset's device;
  c                       EAM/LJ cost ratio, from the eam_ratio pairs (same GPU, package and size);
  t_sync                  per-step cost of running on more than one device beyond the wire latency and bandwidth
                          (MPI calls, GPU synchronisation, waiting), fitted to the preset's LJ strong-scaling
                          network rows;
  E, S, B, G(n)           exchanges per step, 6 swaps per exchange, bytes per ghost, ghosts of a cubic sub-domain
                          (gpu_projection.yaml);
  alpha, beta             the network's documented latency and per-device bandwidth (gpu_projection.yaml);
  m                       how t_sync carries over from LJ (one exchange per step) to EAM (two): 1 if it is paid
                          once per step, 2 if once per exchange.

The band is the fit's spread: its slow edge takes the largest c, m = 2 and the largest per-row t_sync; its fast edge
the smallest c, m = 1 and the smallest t_sync; the central curve the geometric means (c, m) and the median t_sync.

Only load_training() feeds the fit; the held-out rows are read by heldout_check() alone, after the fit.

Usage: gpu_projection.py [--measurements M.yaml] [--presets P.yaml] fit --preset NAME
       gpu_projection.py [...] project --preset NAME --atoms N [--json OUT]
       gpu_projection.py [...] train [--json OUT] | check [--json OUT]
"""
import json
import math
import os
import sys

import numpy as np

import published_table

HERE = os.path.dirname(os.path.abspath(__file__))
MEASUREMENTS = os.path.join(HERE, "gpu_measurements.yaml")
PRESETS = os.path.join(HERE, "gpu_projection.yaml")
DEVICES = np.unique(np.round(np.logspace(0, 4, 81)).astype(int))  # 1 to 10,000 devices


def _rate(r):
    """Both rate forms: steps/s and atom-steps/s (whichever the source gave, the other derived)."""
    if "steps_per_second" in r:
        r["atom_steps_per_second"] = float(r["steps_per_second"]) * r["atoms"]
    else:
        r["atom_steps_per_second"] = float(r["matom_steps_per_second"]) * 1e6
        r["steps_per_second"] = r["atom_steps_per_second"] / r["atoms"]


def load_rows(path=MEASUREMENTS):
    return published_table.load_rows(path, _rate)


def load_training(path=MEASUREMENTS):
    """The rows the fit may read: `split: train` only."""
    return published_table.training(load_rows(path))


def load_heldout(path=MEASUREMENTS):
    return published_table.heldout(load_rows(path))


def load_presets(path=PRESETS):
    return published_table.load_yaml(path)


def ghosts(n, pot):
    """Ghost atoms around a cubic sub-domain of n atoms: a shell one cut-off deep (at most 26 images of it)."""
    n = np.asarray(n, dtype=float)
    rho, rc = pot["number_density"], pot["ghost_cutoff"]
    side = (n / rho) ** (1.0 / 3.0)
    return np.minimum(((side + 2 * rc) ** 3 - side**3) * rho, 26.0 * n)


def fit(train, doc, preset):
    """The projection's parameters for `preset` from training rows only."""
    p = doc["presets"][preset]
    # One device: t1(n) = t_dev + n / R, least squares on the relative error (each row counts alike).
    curve = [r for r in train if r["use"] == "device_curve" and r["device"] == p["device"]]
    if len(curve) < 2:
        raise ValueError(f"preset {preset}: fewer than two training rows for device {p['device']}")
    n = np.array([r["atoms"] for r in curve], dtype=float)
    t = np.array([1.0 / r["steps_per_second"] for r in curve])
    a = np.column_stack([1.0 / t, n / t])
    (t_dev, inv_rate), *_ = np.linalg.lstsq(a, np.ones_like(t), rcond=None)
    if t_dev <= 0 or inv_rate <= 0:
        raise ValueError(f"preset {preset}: the device fit is not physical (t_dev {t_dev}, 1/R {inv_rate})")
    # EAM/LJ cost ratio: per pair, LJ steps/s over EAM steps/s at the same size, package and GPU.
    pairs = {}
    for r in train:
        if r["use"] == "eam_ratio":
            pairs.setdefault(r["pair"], {})[r["potential"]] = r["steps_per_second"]
    ratios = sorted(v["lj"] / v["eam"] for v in pairs.values() if "lj" in v and "eam" in v)
    if not ratios:
        raise ValueError("no complete eam_ratio pair among the training rows")
    # Multi-device cost: what each LJ strong-scaling row leaves after one device's time and the wire terms.
    s = doc["swaps_per_exchange"]
    lj = doc["potentials"]["lj"]
    alpha, beta = p["latency_seconds"], p["bandwidth_bytes_per_second_per_device"]
    excess = []
    for r in train:
        if r["use"] != "network" or r["machine"] != p["machine"] or r["devices"] < 2:
            continue
        nd = r["atoms"] / r["devices"]
        wire = lj["exchanges_per_step"] * s * alpha + ghosts(nd, lj) * lj["bytes_per_ghost_per_step"] / beta
        excess.append(1.0 / r["steps_per_second"] - (t_dev + nd * inv_rate) - float(wire))
    if not excess:
        raise ValueError(f"preset {preset}: no training network rows for machine {p['machine']}")
    return {
        "preset": preset,
        "name": p["name"],
        "t_dev_s": float(t_dev),
        "rate_lj_atom_steps_per_s": float(1.0 / inv_rate),
        "c_low": ratios[0],
        "c_mid": float(math.exp(np.mean(np.log(ratios)))),
        "c_high": ratios[-1],
        "t_sync_low_s": float(max(min(excess), 0.0)),
        "t_sync_mid_s": float(max(np.median(excess), 0.0)),
        "t_sync_high_s": float(max(max(excess), 0.0)),
        "latency_s": alpha,
        "bandwidth_bytes_per_s": beta,
        "swaps_per_exchange": s,
        "training_rows": {"device_curve": len(curve), "eam_ratio_pairs": len(ratios), "network": len(excess)},
    }


def step_time(params, pot, atoms, devices, c, m, t_sync):
    """Seconds per step for `atoms` atoms on each of `devices` (array) with the given c, m and t_sync."""
    p = np.asarray(devices, dtype=float)
    n = atoms / p
    t1 = params["t_dev_s"] + n / params["rate_lj_atom_steps_per_s"]
    multi = pot["exchanges_per_step"] * params["swaps_per_exchange"] * params["latency_s"] + m * t_sync
    multi = multi + ghosts(n, pot) * pot["bytes_per_ghost_per_step"] / params["bandwidth_bytes_per_s"]
    return c * t1 + np.where(p > 1, multi, 0.0)


def curves(params, doc, atoms, potential="eam", devices=DEVICES):
    """Steps/s over `devices`: central, slow edge and fast edge of the band."""
    pot = doc["potentials"][potential]
    if potential == "eam":
        ratio = doc["potentials"]["eam"]["exchanges_per_step"] / doc["potentials"]["lj"]["exchanges_per_step"]
        c = (params["c_mid"], params["c_high"], params["c_low"])
        m = (math.sqrt(ratio), ratio, 1.0)
    else:  # the LJ rows themselves: no EAM transfer
        c, m = (1.0, 1.0, 1.0), (1.0, 1.0, 1.0)
    ts = (params["t_sync_mid_s"], params["t_sync_high_s"], params["t_sync_low_s"])
    return [1.0 / step_time(params, pot, atoms, devices, ci, mi, ti) for ci, mi, ti in zip(c, m, ts)]


def project(params, doc, atoms, devices=DEVICES):
    """The EAM projection for `atoms`: curves and the best point (projection.json's content)."""
    mid, low, high = curves(params, doc, atoms, "eam", devices)
    # Where the curve flattens into its plateau, the last devices buy nothing: the peak is the smallest count
    # within 1 % of the best rate.
    i = int(np.argmax(mid >= 0.99 * mid.max()))
    return {
        "preset": params["preset"],
        "name": params["name"],
        "atoms": int(atoms),
        "best_steps_per_second": float(mid.max()),
        "best_devices": int(devices[i]),
        # The band's edges at their own best device counts: what the slowest and fastest fits reach at most.
        "band_low": float(low.max()),
        "band_high": float(high.max()),
        "devices": [int(d) for d in devices],
        "steps_per_second": [float(v) for v in mid],
        "band_low_curve": [float(v) for v in low],
        "band_high_curve": [float(v) for v in high],
        "params": params,
    }


def predict_row(params, doc, r):
    """Central, slow and fast projection for one measured row of the table."""
    if r["use"] == "device_curve":
        v = 1.0 / (params["t_dev_s"] + r["atoms"] / params["rate_lj_atom_steps_per_s"])
        return v, v, v
    if r["use"] == "network":
        mid, low, high = curves(params, doc, r["atoms"], "lj", np.array([r["devices"]]))
        return float(mid[0]), float(low[0]), float(high[0])
    if r["use"] == "eam_best":
        mid, low, high = curves(params, doc, r["atoms"], "eam")
        return float(mid.max()), float(low.max()), float(high.max())
    return None


def _preset_for(doc, r):
    for name, p in doc["presets"].items():
        if r.get("device") == p["device"] or r.get("machine") == p["machine"]:
            return name
    return None


def compare(rows, doc, params_by_preset):
    out = []
    for r in rows:
        name = _preset_for(doc, r)
        if name is None or r["use"] == "eam_ratio":
            continue
        mid, low, high = predict_row(params_by_preset[name], doc, r)
        meas = r["steps_per_second"]
        out.append({"id": r["id"], "preset": name, "use": r["use"], "potential": r["potential"],
                    "atoms": r["atoms"], "devices": r.get("devices"), "measured": meas, "projected": mid,
                    "band_low": low, "band_high": high, "ratio": mid / meas,
                    "within_2x": 0.5 <= mid / meas <= 2.0, "inside_band": low * (1 - 1e-9) <= meas <= high * (1 + 1e-9)})
    return out


def fit_all(measurements=MEASUREMENTS, presets=PRESETS):
    doc = load_presets(presets)
    train = load_training(measurements)
    return doc, {name: fit(train, doc, name) for name in doc["presets"]}


def heldout_check(measurements=MEASUREMENTS, presets=PRESETS):
    """The held-out rows against the projection fitted without them."""
    doc, params = fit_all(measurements, presets)
    return compare(load_heldout(measurements), doc, params)


def training_check(measurements=MEASUREMENTS, presets=PRESETS):
    doc, params = fit_all(measurements, presets)
    return compare(load_training(measurements), doc, params)


def main(argv=None):
    ap, _ = published_table.parser(__doc__, MEASUREMENTS, PRESETS)
    a = ap.parse_args(argv)
    doc = load_presets(a.presets)
    if not published_table.known(list(doc["presets"]), getattr(a, "preset", None), "GPU preset"):
        return 2
    if a.cmd == "fit":
        print(json.dumps(fit(load_training(a.measurements), doc, a.preset), indent=1, sort_keys=True))
    elif a.cmd == "project":
        res = project(fit(load_training(a.measurements), doc, a.preset), doc, a.atoms)
        print(f"{res['name']}: best {res['best_steps_per_second']:,.0f} steps/s at {res['best_devices']:,} "
              f"devices for {a.atoms:,} EAM atoms (band {res['band_low']:,.0f}-{res['band_high']:,.0f})")
        published_table.dump(res, a.json)
    else:
        return published_table.train_or_check(a, training_check, heldout_check, "devices")
    return 0


if __name__ == "__main__":
    sys.exit(main())
