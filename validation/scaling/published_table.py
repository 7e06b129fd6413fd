#!/usr/bin/python3
"""The tables of published timings behind the projections (gpu_measurements.yaml, cpu_measurements.yaml): every
row with its rate made steps/s, and the split that keeps the held-out rows away from the fits. Only `split: train`
rows may reach a fit (training()); the held-out ones are read by the checks alone (heldout())."""
import argparse
import json
import sys

import yaml


def load_yaml(path):
    with open(path) as f:
        return yaml.safe_load(f)


def load_rows(path, rate):
    """Every row of the table at `path`, copied, with `rate(row)` filling in its steps/s (and whatever other form
    of the rate the projection uses) from the figure as its source gave it; a split other than train or heldout
    is refused."""
    rows = []
    for r in load_yaml(path)["rows"]:
        r = dict(r)
        rate(r)
        if r["split"] not in ("train", "heldout"):
            raise ValueError(f"{r['id']}: split must be train or heldout, not {r['split']!r}")
        rows.append(r)
    return rows


def training(rows):
    """The rows a fit may read: `split: train` only."""
    return [r for r in rows if r["split"] == "train"]


def heldout(rows):
    return [r for r in rows if r["split"] == "heldout"]


def parser(description, measurements, presets):
    """The projections' shared command line: fit, project, train and check. Returns the parser and the `project`
    subparser, to which a projection adds its own geometry options."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--measurements", default=measurements)
    ap.add_argument("--presets", default=presets)
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit", help="print the fitted parameters of a preset (JSON)")
    f.add_argument("--preset", required=True)
    pr = sub.add_parser("project", help="the EAM projection for an atom count")
    pr.add_argument("--preset", required=True)
    pr.add_argument("--atoms", type=int, required=True)
    pr.add_argument("--json")
    for name, text in (("train", "the training rows against the fit"), ("check", "the held-out rows against the fit")):
        sub.add_parser(name, help=text).add_argument("--json")
    return ap, pr


def known(names, name, what):
    """False, with an error line naming the known ones, when `name` is given and not among `names`."""
    if name is not None and name not in names:
        print(f"error: unknown {what} '{name}' (known: {', '.join(names)})", file=sys.stderr)
        return False
    return True


def dump(res, path):
    if path:
        with open(path, "w") as out:
            json.dump(res, out, indent=1)


def print_rows(results, title, counts):
    """The rows against the fit, one line each; `counts` names the hardware-count key (devices, ranks)."""
    print(title)
    print(f"{'row':28s} {'atoms':>13s} {counts:>7s} {'published':>10s} {'projected':>10s} {'band':>19s} "
          f"{'ratio':>6s}  2x  band")
    for x in results:
        band = f"{x['band_low']:.4g}-{x['band_high']:.4g}"
        count = "best" if x.get(counts) is None else str(x[counts])  # a best-over-counts row
        pub = f"{'>=' if x.get('bound') == 'lower' else ''}{x['measured']:.4g}"
        print(f"{x['id']:28s} {x['atoms']:13,d} {count:>7s} {pub:>10s} {x['projected']:10.4g} {band:>19s} "
              f"{x['ratio']:6.2f}  {'y' if x['within_2x'] else 'N'}   {'y' if x['inside_band'] else 'n'}")


def train_or_check(a, training_check, heldout_check, counts):
    """The `train` and `check` subcommands."""
    if a.cmd == "train":
        res = training_check(a.measurements, a.presets)
        print_rows(res, "training rows (the fit's own data)", counts)
    else:
        res = heldout_check(a.measurements, a.presets)
        print_rows(res, "held-out rows (never read by the fit)", counts)
        n2 = sum(x["within_2x"] for x in res)
        print(f"{n2} of {len(res)} held-out rows within 2x; {sum(x['inside_band'] for x in res)} inside the band")
    dump(res, a.json)
    return 0
