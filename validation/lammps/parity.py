#!/usr/bin/python3
"""EAM parity between the Debian LAMMPS (`lmp`) and wafermd on identical `run 0` inputs.

Each case is a small periodic crystal (fcc or bcc at the potential's own lattice constant) whose
atoms are displaced at random with a fixed seed, written once as a LAMMPS data file and read by
both codes through the same input script. We compare the potential energy, the six virial
components (recovered from the pressure tensor, as velocities are zero) and every per-atom force.

    /usr/bin/python3 validation/lammps/parity.py            # the required cases (= --quick)
    /usr/bin/python3 validation/lammps/parity.py --all      # plus every *.eam, *.eam.alloy, *.eam.fs
    /usr/bin/python3 validation/lammps/parity.py --write-references tests/data/parity

Run it from anywhere; paths are resolved against the repository root. Needs numpy.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]


def shown_path(path):
    """A path as reports print it: relative to the repository root, or only its name outside the repository, so
    that a committed report carries no folder of the machine that wrote it."""
    p = Path(path).resolve()
    try:
        return str(p.relative_to(REPO))
    except ValueError:
        return p.name
POTENTIALS = Path()  # set by main: potentials_dir(exe)


def use_potentials_of(exe):
    """Reads the potentials from where `exe` (and lmp) find them."""
    global POTENTIALS
    POTENTIALS = potentials_dir(exe)


def potentials_dir(exe):
    """Where LAMMPS's potential files are: $LAMMPS_POTENTIALS, else the directory wafermd searches last."""
    env = os.environ.get("LAMMPS_POTENTIALS")
    if env:
        return Path(env)
    out = subprocess.run([str(exe), "--potentials-dir"], capture_output=True, text=True, check=True).stdout
    return Path(out.strip())
TABLE_PATH = REPO / "validation" / "lammps" / "parity_table.md"
LAMMPS_VERSION = "29 Sep 2021 - Update 2 (Debian 20220106)"

NKTV2P = 1.6021765e6          # eV/Å^3 -> bar in LAMMPS units metal
TOLERANCE = 1e-10             # relative error that counts as parity
DISPLACEMENT = 0.15           # Å, half-width of the uniform random displacement per component
SEED = 20240611               # every configuration is reproducible from this seed
PRESSURE_KEYS = ["pxx", "pyy", "pzz", "pxy", "pxz", "pyz"]
THERMO_KEYS = ["step", "pe", "press"] + PRESSURE_KEYS + ["vol"]
DUMP_NAME = "forces.dump"
DATA_NAME = "atoms.data"
INPUT_NAME = "in.parity"

# Unit cells in fractional coordinates; hcp headers become fcc at the same nearest-neighbour distance.
BASIS = {
    "fcc": [(0.0, 0.0, 0.0), (0.5, 0.5, 0.0), (0.5, 0.0, 0.5), (0.0, 0.5, 0.5)],
    "bcc": [(0.0, 0.0, 0.0), (0.5, 0.5, 0.5)],
}


@dataclass
class Element:
    """One element as a potential file's header describes it (`Z mass a0 lattice`)."""
    name: str
    mass: float
    a0: float
    lattice: str


@dataclass
class Case:
    """One comparison: a potential set-up plus the crystal it is evaluated on."""
    name: str                 # short identifier, also the reference folder's name
    label: str                # what the table shows in its "file" column
    style: str                # pair_style
    pair_coeffs: list         # pair_coeff lines (without the keyword)
    masses: list              # one mass per atom type
    lattice: str              # "fcc" or "bcc"
    a0: float
    cells: int                # cells per box edge
    required: bool = False
    note: str = ""
    result: dict = field(default_factory=dict)


# ---------------------------------------------------------------- potential-file headers

def lattice_and_a0(lattice, a0):
    """Map a header's lattice name and constant to a cubic crystal we can build (fcc/bcc)."""
    lattice = lattice.lower()
    if lattice == "bcc":
        return "bcc", a0
    if lattice == "hcp":
        return "fcc", a0 * np.sqrt(2.0)   # same nearest-neighbour distance as the hcp basal plane
    return "fcc", a0


def read_funcfl_element(path):
    """The element of a funcfl (*.eam) file, from its second line."""
    with open(path) as handle:
        handle.readline()
        tokens = handle.readline().split()
    name = path.name.split("_")[0]
    lattice = tokens[3] if len(tokens) > 3 else "fcc"
    return Element(name, float(tokens[1]), float(tokens[2]), lattice)


def read_setfl_elements(path):
    """The elements of a setfl/Finnis-Sinclair file: names from line 4, masses and lattices
    from each element's header line (found by walking the arrays that follow it)."""
    tokens_by_line = [line.split() for line in open(path)]
    names = tokens_by_line[3][1:1 + int(tokens_by_line[3][0])]
    nrho, _, nr = int(tokens_by_line[4][0]), float(tokens_by_line[4][1]), int(tokens_by_line[4][2])
    per_element_values = nrho + nr * (len(names) if path.name.endswith(".fs") else 1)
    elements, line = [], 5
    for name in names:
        header = tokens_by_line[line]
        lattice = header[3] if len(header) > 3 else "fcc"
        elements.append(Element(name, float(header[1]), float(header[2]), lattice))
        line += 1
        seen = 0
        while seen < per_element_values:      # arrays may wrap lines freely
            seen += len(tokens_by_line[line])
            line += 1
    return elements


# ---------------------------------------------------------------- cases

def funcfl_case(name, files, required=False, cells=3):
    """A `pair_style eam` case: one funcfl file per atom type (cross pairs mixed by LAMMPS)."""
    elements = [read_funcfl_element(POTENTIALS / f) for f in files]
    lattice, a0 = lattice_and_a0(elements[0].lattice, float(np.mean([e.a0 for e in elements])))
    coeffs = [f"{t} {t} {POTENTIALS / f}" for t, f in enumerate(files, start=1)]
    return Case(name, " + ".join(files), "eam", coeffs, [e.mass for e in elements],
                lattice, a0, cells, required)


def setfl_case(name, file, style, required=False, cells=None):
    """An `eam/alloy` or `eam/fs` case using every element of the file, one type each."""
    elements = read_setfl_elements(POTENTIALS / file)
    lattice, a0 = lattice_and_a0(elements[0].lattice, elements[0].a0)
    note = ""
    if a0 <= 0.0:
        lattice, a0, note = "fcc", 4.0, "header has no lattice constant; used fcc a0=4.0"
    if cells is None:
        cells = 4 if lattice == "bcc" else 3
    coeffs = [f"* * {POTENTIALS / file} " + " ".join(e.name for e in elements)]
    return Case(name, file, style, coeffs, [e.mass for e in elements], lattice, a0, cells,
                required, note)


def required_cases():
    """The acceptance set: funcfl, mixed funcfl, setfl, two-type setfl, two-type fs.
    Cu_u3 uses a 2x2x2 box (7.23 Å < 2 x 4.95 Å cutoff) so atoms see several images."""
    return [
        funcfl_case("cu_u3_funcfl", ["Cu_u3.eam"], required=True, cells=2),
        funcfl_case("al_jnp_cu_u3_funcfl", ["Al_jnp.eam", "Cu_u3.eam"], required=True),
        setfl_case("cu_mishin1_alloy", "Cu_mishin1.eam.alloy", "eam/alloy", required=True),
        setfl_case("cuni_alloy", "CuNi.eam.alloy", "eam/alloy", required=True),
        setfl_case("alfe_mm_fs", "AlFe_mm.eam.fs", "eam/fs", required=True),
    ]


def all_cases():
    """The required cases, then one case for every other EAM file LAMMPS ships."""
    cases = required_cases()
    used = {c.label for c in cases}
    for path in sorted(POTENTIALS.iterdir()):
        file = path.name
        if file in used:
            continue
        stem = file.split(".")[0].lower()
        if file.endswith(".eam"):
            cases.append(funcfl_case(stem + "_funcfl", [file]))
        elif file.endswith(".eam.alloy"):
            cases.append(setfl_case(stem + "_alloy", file, "eam/alloy"))
        elif file.endswith(".eam.fs"):
            cases.append(setfl_case(stem + "_fs", file, "eam/fs"))
    return cases


# ---------------------------------------------------------------- inputs

def build_configuration(case, rng):
    """Positions (N x 3), types (N) and box edge for the case's displaced crystal.
    The lattice is shifted by a0/4 so no displaced atom leaves the box (no wrapping needed)."""
    basis = np.array(BASIS[case.lattice])
    cells = np.array([(i, j, k) for i in range(case.cells) for j in range(case.cells)
                      for k in range(case.cells)], dtype=float)
    fractional = (cells[:, None, :] + basis[None, :, :]).reshape(-1, 3) + 0.25
    positions = fractional * case.a0 + rng.uniform(-DISPLACEMENT, DISPLACEMENT, (len(fractional), 3))
    ntypes = len(case.masses)
    types = rng.permutation(np.arange(len(positions)) % ntypes) + 1   # equal shares, random sites
    return positions, types, case.cells * case.a0


def write_data_file(path, case, positions, types, edge):
    """A LAMMPS data file (atom_style atomic) with every number at full double precision."""
    lines = [f"wafermd parity case {case.name}: {case.label}, {case.lattice} a0={case.a0!r}, "
             f"seed {SEED}", "", f"{len(positions)} atoms", f"{len(case.masses)} atom types", ""]
    for axis in "xyz":
        lines.append(f"0.0 {edge!r} {axis}lo {axis}hi")
    lines += ["", "Masses", ""]
    lines += [f"{t} {m!r}" for t, m in enumerate(case.masses, start=1)]
    lines += ["", "Atoms # atomic", ""]
    for i, (t, x) in enumerate(zip(types, positions), start=1):
        lines.append(f"{i} {t} {x[0]!r} {x[1]!r} {x[2]!r}")
    path.write_text("\n".join(lines) + "\n")


def input_script(case):
    """The `run 0` script both codes execute; it prints 17 significant digits everywhere."""
    coeffs = "\n".join(f"pair_coeff {c}" for c in case.pair_coeffs)
    return f"""# wafermd/LAMMPS parity case {case.name}: {case.label}
units metal
atom_style atomic
boundary p p p
read_data {DATA_NAME}
pair_style {case.style}
{coeffs}
thermo_style custom {' '.join(THERMO_KEYS)}
thermo_modify format float %24.17g
dump 1 all custom 1 {DUMP_NAME} id fx fy fz
dump_modify 1 sort id format float %24.17g
run 0
"""


# ---------------------------------------------------------------- running and parsing

def last_error(text):
    """The first ERROR line of a program's output, or its last non-empty line."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    errors = [l for l in lines if "ERROR" in l or "error" in l.lower()]
    return (errors or lines or ["no output"])[0][:160]


def parse_lammps_thermo(stdout):
    """The step-0 thermo values LAMMPS prints to the screen, keyed by our thermo keywords."""
    lines = stdout.splitlines()
    for i, line in enumerate(lines):
        if line.split()[:1] == ["Step"]:
            return dict(zip(THERMO_KEYS, (float(v) for v in lines[i + 1].split())))
    raise RuntimeError("no thermo header in LAMMPS output: " + last_error(stdout))


def parse_thermo_csv(path):
    """wafermd's thermo.csv: header of keywords, then one full-precision row per output step."""
    rows = [line.strip().split(",") for line in open(path) if line.strip()]
    return dict(zip(rows[0], (float(v) for v in rows[1])))


def parse_dump_forces(path):
    """Forces (N x 3) ordered by atom id, and the ids, from a sorted `id fx fy fz` dump."""
    lines = open(path).read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("ITEM: ATOMS")) + 1
    table = np.array([[float(v) for v in l.split()] for l in lines[start:] if l.strip()])
    order = np.argsort(table[:, 0])
    return table[order, 0].astype(int), table[order, 1:4]


def virial(thermo):
    """The six virial components (eV) from a zero-velocity pressure tensor: W = P V / nktv2p."""
    return np.array([thermo[k] for k in PRESSURE_KEYS]) * thermo["vol"] / NKTV2P


def relative_errors(ours, reference):
    """Energy, force and virial relative errors between two {thermo, ids, forces} results."""
    if not np.array_equal(ours["ids"], reference["ids"]):
        raise RuntimeError("atom ids differ between the two dumps")
    e_ref = reference["thermo"]["pe"]
    w_ours, w_ref = virial(ours["thermo"]), virial(reference["thermo"])
    return {
        "energy": abs(ours["thermo"]["pe"] - e_ref) / abs(e_ref),
        "force": np.max(np.abs(ours["forces"] - reference["forces"])) / np.max(np.abs(reference["forces"])),
        "virial": np.max(np.abs(w_ours - w_ref)) / np.max(np.abs(w_ref)),
    }


def run_lammps(folder):
    """Run `lmp` on the case in `folder`; returns its results (or raises with the reason)."""
    proc = subprocess.run(["lmp", "-in", INPUT_NAME, "-log", "none"], cwd=folder,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0 or not (folder / DUMP_NAME).exists():
        raise RuntimeError("LAMMPS failed: " + last_error(proc.stdout + proc.stderr))
    thermo = parse_lammps_thermo(proc.stdout)
    ids, forces = parse_dump_forces(folder / DUMP_NAME)
    (folder / DUMP_NAME).rename(folder / "lammps.dump")
    warnings = sorted({l.strip() for l in proc.stdout.splitlines()
                       if l.startswith("WARNING") and "No fixes defined" not in l})  # expected for run 0
    return {"thermo": thermo, "ids": ids, "forces": forces, "warnings": warnings}


def run_wafermd(folder, exe):
    """Run wafermd on the same script in the same folder; returns its results (or raises)."""
    out = folder / "wafermd_out"
    proc = subprocess.run([str(exe), "run", INPUT_NAME, "--output", str(out)], cwd=folder,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0 or not (folder / DUMP_NAME).exists():
        raise RuntimeError(f"wafermd failed (rc {proc.returncode}): "
                           + last_error(proc.stderr + proc.stdout))
    thermo = parse_thermo_csv(out / "thermo.csv")
    ids, forces = parse_dump_forces(folder / DUMP_NAME)
    (folder / DUMP_NAME).rename(folder / "wafermd.dump")
    return {"thermo": thermo, "ids": ids, "forces": forces}


def prepare_case(case, folder):
    """Write the case's data file and input script into a fresh folder."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    rng = np.random.default_rng([SEED, sum(map(ord, case.name))])
    positions, types, edge = build_configuration(case, rng)
    write_data_file(folder / DATA_NAME, case, positions, types, edge)
    (folder / INPUT_NAME).write_text(input_script(case))
    case.result["natoms"] = len(positions)


def run_case(case, folder, exe):
    """Prepare and run one case, filling case.result with errors, status and reasons."""
    prepare_case(case, folder)
    try:
        case.result["lammps"] = lammps = run_lammps(folder)
    except Exception as err:           # LAMMPS itself rejects the file: report, don't hide
        case.result.update(status="LAMMPS-FAIL", reason=str(err))
        return
    if lammps["warnings"]:
        case.note = "; ".join(filter(None, [case.note] + lammps["warnings"]))
    try:
        case.result.update(relative_errors(run_wafermd(folder, exe), lammps))
    except Exception as err:
        case.result.update(status="FAIL", reason=str(err))
        return
    worst = max(case.result[k] for k in ("energy", "force", "virial"))
    case.result["status"] = "PASS" if worst <= TOLERANCE else "FAIL"


# ---------------------------------------------------------------- reporting

def table_rows(cases):
    """Rows for the screen and Markdown tables."""
    rows = []
    for c in cases:
        r = c.result
        errors = [f"{r[k]:.2e}" if k in r else "-" for k in ("energy", "force", "virial")]
        notes = "; ".join(filter(None, [r.get("reason", ""), c.note]))
        rows.append([c.label + (" (required)" if c.required else ""), c.style,
                     str(r.get("natoms", "-")), f"{c.lattice} {c.a0:.4f}"] + errors
                    + [r.get("status", "-"), notes])
    return rows


HEADER = ["file", "style", "natoms", "crystal (Å)", "energy rel. err", "force rel. err",
          "virial rel. err", "result", "notes"]


def print_table(cases):
    """A plain-text table on stdout."""
    rows = [HEADER[:-1]] + [r[:-1] for r in table_rows(cases)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)))
    for case, row in zip(cases, table_rows(cases)):
        if row[-1]:
            print(f"  note {case.label}: {row[-1]}")


def write_markdown(cases, command, exe):
    """The table as Markdown, headed by the command that reproduces it."""
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    lines = ["# wafermd vs LAMMPS EAM parity", "",
             f"Reproduce with (from the repository root): `{command}`", "",
             f"LAMMPS {LAMMPS_VERSION}; wafermd binary `{shown_path(exe)}` (tree at commit {commit}). "
             f"`run 0` on randomly displaced crystals (±{DISPLACEMENT} Å uniform, seed {SEED}); "
             f"errors are |E−E_L|/|E_L|, max|f−f_L|/max|f_L| and max_c |W_c−W_L,c|/max_c |W_L,c| "
             f"with W = P·V/nktv2p. PASS means all three ≤ {TOLERANCE:g}.", "",
             "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for row in table_rows(cases):
        lines.append("| " + " | ".join(v.replace("|", "\\|") for v in row) + " |")
    TABLE_PATH.write_text("\n".join(lines) + "\n")


def write_references(cases, destination):
    """Store each required case's input, data and LAMMPS results for the C++ parity test."""
    destination.mkdir(parents=True, exist_ok=True)
    for case in cases:
        lammps = case.result.get("lammps")
        if not case.required or lammps is None:
            continue
        folder = destination / case.name
        folder.mkdir(exist_ok=True)
        source = Path(case.result["folder"])
        shutil.copy(source / INPUT_NAME, folder / INPUT_NAME)
        shutil.copy(source / DATA_NAME, folder / DATA_NAME)
        lines = [f"# LAMMPS {LAMMPS_VERSION} results for {INPUT_NAME} ({case.label}), run 0.",
                 "# Thermo values as printed with %24.17g: pe in eV, pressures in bar, vol in Å^3;",
                 "# virial W = P*vol/nktv2p (zero velocities). Then one line per atom: id fx fy fz (eV/Å).",
                 f"natoms {len(lammps['ids'])}"]
        lines += [f"{k} {lammps['thermo'][k]!r}" for k in ["pe", "vol"] + PRESSURE_KEYS]
        lines.append("forces")
        lines += [f"{i} {f[0]!r} {f[1]!r} {f[2]!r}" for i, f in zip(lammps["ids"], lammps["forces"])]
        (folder / "lammps_reference.txt").write_text("\n".join(lines) + "\n")
        print(f"wrote {folder}")


# ---------------------------------------------------------------- main

def main():
    """Parse options, run the cases, print and store the table; non-zero if a required case fails."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default_exe = os.environ.get("WAFERMD", str(REPO / "build" / "wafermd"))
    parser.add_argument("--wafermd", default=default_exe, help="wafermd executable")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="required cases only (default)")
    mode.add_argument("--all", action="store_true", help="also every other EAM file in the potentials directory")
    parser.add_argument("--work", help="scratch folder (default: a new temporary folder)")
    parser.add_argument("--write-references", metavar="DIR",
                        help="store the required cases' inputs and LAMMPS results in DIR")
    args = parser.parse_args()

    exe = Path(args.wafermd).resolve()
    if not exe.is_file():
        sys.exit(f"wafermd executable not found: {exe} (build it, or pass --wafermd / set WAFERMD)")
    use_potentials_of(exe)
    work = Path(args.work).resolve() if args.work else Path(tempfile.mkdtemp(prefix="wafermd-parity-"))
    cases = all_cases() if args.all else required_cases()

    for case in cases:
        folder = work / case.name
        case.result["folder"] = str(folder)
        run_case(case, folder, exe)
        r = case.result
        print(f"{case.label:28s} {r['status']:11s} " + " ".join(
            f"{k}={r[k]:.2e}" for k in ("energy", "force", "virial") if k in r), flush=True)

    print()
    print_table(cases)
    command = "/usr/bin/python3 validation/lammps/parity.py " + ("--all" if args.all else "--quick")
    if args.write_references:
        command += f" --write-references {shown_path(args.write_references)}"
    write_markdown(cases, command, exe)
    print(f"\nwrote {shown_path(TABLE_PATH)}; scratch in {work}")
    if args.write_references:
        destination = Path(args.write_references)
        write_references(cases, destination if destination.is_absolute() else REPO / destination)

    failed = [c.label for c in cases if c.required and c.result.get("status") != "PASS"]
    if failed:
        print("required cases failing: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
