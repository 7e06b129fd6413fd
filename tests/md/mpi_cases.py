#!/usr/bin/python3
"""Multi-rank checks of the cluster backend and of the mesh emulator tiled over ranks, run by ctest under mpirun.

usage: mpi_cases.py MPIEXEC WAFERMD SOURCE_DIR SCRATCH CASE [TEST_PROGRAM]
CASE: lammps_digits | lammps_digits_targets | deterministic | grid_mismatch | lost_atom | failures_once | mesh_bits | bad_restart |
      mesh_tiled | mesh_tiled_restart | mesh_shrink_wrap | balance | fix_balance | minimize_empty_rank | comm | ghosts | thin_subdomains |
      geometry | root_reads | rank_failure_report
TEST_PROGRAM: the GoogleTest executable that `comm` or `ghosts` runs on several ranks (test_comm_mpi,
      test_ghosts_mpi)
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

MPIEXEC, WAFERMD, SOURCE, SCRATCH, CASE = sys.argv[1:6]
TEST_PROGRAM = sys.argv[6] if len(sys.argv) > 6 else None
POT = "Cu_u3.eam"
# LAMMPS (Debian lmp 29 Sep 2021) prints this row for inputs/lammps/in.eam at step 100.
LAMMPS_STEP_100 = "     100      801.832    -109957.3            0   -106640.77    51322.821 "


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


# The exit status ctest reports as Skipped (SKIP_RETURN_CODE in tests/md/CMakeLists.txt).
SKIPPED = 77


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIPPED)


def run(ranks, args, cwd, timeout=240, program=WAFERMD):
    """Runs wafermd (or `program`) on `ranks` MPI ranks in cwd; returns (exit status, stdout, stderr). On a
    timeout the whole process group goes (mpirun and its ranks, so that a hung rank cannot outlive the test),
    then TimeoutExpired is raised."""
    cmd = [MPIEXEC, "--oversubscribe", "--allow-run-as-root", "-np", str(ranks), program] + args
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise
    return p.returncode, out, err


def fresh(name):
    d = os.path.join(SCRATCH, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def read_data(path):
    """Atoms of a LAMMPS data file as {id: (unwrapped x, y, z)}."""
    lines = open(path).read().splitlines()
    box = {}
    for ln in lines:
        w = ln.split()
        if len(w) == 4 and w[2].endswith("lo") and w[3].endswith("hi"):
            box[w[2][0]] = float(w[1]) - float(w[0])
    start = next(i for i, ln in enumerate(lines) if ln.startswith("Atoms")) + 2
    atoms = {}
    for ln in lines[start:]:
        w = ln.split()
        if not w:
            break
        x, y, z = (float(v) for v in w[2:5])
        ix, iy, iz = (int(v) for v in w[5:8])
        atoms[int(w[0])] = (x + ix * box["x"], y + iy * box["y"], z + iz * box["z"])
    return atoms


def file_bytes(d, name):
    """The bytes of file `name` in directory d (data files are compared byte for byte)."""
    with open(os.path.join(d, name), "rb") as f:
        return f.read()


def write_file(d, name, text):
    with open(os.path.join(d, name), "w") as f:
        f.write(text)


def nlocal_range(d, outdir):
    """Most and fewest atoms on a rank: LAMMPS's "Nlocal: ave max min" line of the run's log."""
    w = next(ln for ln in open(os.path.join(d, outdir, "log.txt")) if ln.startswith("Nlocal:")).split()
    return float(w[3]), float(w[5])


def max_deviation(path_a, path_b):
    """Largest coordinate difference (A) between the same atoms of two data files."""
    a, b = read_data(path_a), read_data(path_b)
    return max(max(abs(p - q) for p, q in zip(a[i], b[i])) for i in a)


# A Cu slab in the lower 3/8 of a periodic box (vacuum above): 2 ranks split along z leave rank 1 empty.
SLAB = ("units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\n"
        "region box block 0 8 0 8 0 16\nregion slab block 0 8 0 8 0 6\ncreate_box 1 box\n"
        f"create_atoms 1 region slab\npair_style eam\npair_coeff 1 1 {POT}\n")


def small_input(cells, extra="", boundary="p p p"):
    return (f"units metal\natom_style atomic\nboundary {boundary}\nlattice fcc 3.615\n"
            f"region box block 0 {cells} 0 {cells} 0 {cells}\ncreate_box 1 box\ncreate_atoms 1 box\n"
            f"pair_style eam\npair_coeff 1 1 {POT}\n" + extra)


def ordered(stat):
    """min <= avg <= max for report.json's per-rank statistics. avg is a sum over ranks divided by their count,
    so where every rank has the same value it may round a last bit past it."""
    slack = 1e-12 * abs(stat["max"])
    return stat["min"] <= stat["avg"] + slack and stat["avg"] <= stat["max"] + slack


def lammps_digits():
    # in.eam at 1-4 ranks prints LAMMPS's step-100 row and rebuild count; 1 vs 4 ranks positions agree within
    # 1e-9 Å.
    data = {}
    for n in (1, 2, 3, 4):
        d = fresh(f"digits_{n}")
        with open(os.path.join(d, "in.wrap"), "w") as f:
            f.write(f"include {SOURCE}/inputs/lammps/in.eam\nwrite_data final.data\n")
        rc, out, err = run(n, ["run", "in.wrap", "--output", "out"], d)
        if rc != 0:
            fail(f"{n} ranks: exit {rc}\n{err}")
        if LAMMPS_STEP_100 not in out.splitlines():
            fail(f"{n} ranks: no LAMMPS step-100 row in\n{out}")
        if f"on {n} procs" not in out or f"{n} MPI tasks" not in out:
            fail(f"{n} ranks: summary does not name {n} procs")
        # LAMMPS's rebuild count: every rank's vote on "an atom moved half the skin" is combined each step.
        if "Neighbor list builds = 13" not in out or "Dangerous builds = 0" not in out:
            fail(f"{n} ranks: LAMMPS rebuilds the lists 13 times (0 dangerous); the summary says otherwise\n{out}")
        # The time ranks spent blocked on each other: none on one rank, some (each exchange waits) on more.
        report = json.load(open(os.path.join(d, "out", "report.json")))
        w = report["comm_wait"]
        if not (0.0 <= w["min"] and ordered(w) and w["max"] <= report["wall_seconds"]):
            fail(f"{n} ranks: comm_wait {w} is not 0 <= min <= avg <= max <= the loop's {report['wall_seconds']} s")
        if (n == 1) != (w["max"] == 0.0) or (n > 1) != ("Comm wait: " in out):
            fail(f"{n} ranks: comm_wait {w} and the log's 'Comm wait' line should be there with other ranks only")
        # The hypervisor's share of the ranks' CPU time in the loop, where Linux's /proc/stat tells it.
        if os.path.exists("/proc/stat"):
            h = report.get("host_steal")
            if h is None or not (0.0 <= h["min"] and ordered(h) and h["max"] <= 1.0) or "Host steal" in out:
                fail(f"{n} ranks: report.json's host_steal {h} should be shares 0 <= min <= avg <= max <= 1, "
                     "and the LAMMPS-format summary should have no 'Host steal' line")
        data[n] = read_data(os.path.join(d, "final.data"))
        print(f"{n} ranks: LAMMPS step-100 digits reproduced")
    a, b = data[1], data[4]
    if sorted(a) != sorted(b) or len(a) != 32000:
        fail("1 and 4 ranks hold different atom ids")
    worst = max(max(abs(p - q) for p, q in zip(a[i], b[i])) for i in a)
    print(f"largest position difference 1 vs 4 ranks: {worst:.3e} Å")
    if worst > 1e-9:
        fail("positions differ by more than 1e-9 Å")


def lammps_digits_targets():
    # in.eam at 2, 3 and 4 ranks on every SIMD target this CPU runs besides its best (which lammps_digits runs):
    # LAMMPS's step-100 row each time, so the target decides speed only.
    d = fresh("digits_targets_probe")
    rc, out, err = run(1, ["run", f"{SOURCE}/inputs/lammps/in.eam", "--output", "out"], d)
    if rc != 0:
        fail(f"1 rank: exit {rc}\n{err}")
    avail = json.load(open(os.path.join(d, "out", "report.json")))["simd_available"]
    if not avail or LAMMPS_STEP_100 not in out.splitlines():
        fail(f"report.json names no SIMD targets ({avail}) or the row is missing")
    if len(avail) < 2:
        skip(f"this CPU runs one SIMD target only ({avail[0]}), which lammps_digits covers")
    for target in avail[1:]:
        for n in (2, 3, 4):
            d = fresh(f"digits_{target}_{n}")
            rc, out, err = run(n, ["run", f"{SOURCE}/inputs/lammps/in.eam", "--set", f"simd={target}",
                                   "--output", "out"], d)
            if rc != 0:
                fail(f"{target}, {n} ranks: exit {rc}\n{err}")
            if LAMMPS_STEP_100 not in out.splitlines() or f"SIMD: {target} on " not in out:
                fail(f"{target}, {n} ranks: no LAMMPS step-100 row or SIMD line in\n{out}")
            print(f"{target}, {n} ranks: LAMMPS step-100 digits reproduced")


# deterministic: one script per style whose sums must not depend on the rank count (ClusterMpi.deterministic
# runs each at 1, 2 and 3 ranks). Every script ends with write_data final.data; thermo.csv holds 17 digits.
_DET_THERMO = "thermo_style custom step temp ke pe etotal press pxx pyy pzz vol{}\nthermo 5\n"
_DET_HOT = "velocity all create 1200.0 4928459 loop all\n"
_DET_STOP_TABLE = "# energy (eV) Se (eV/A)\n0 2.0\n50 4.0\n1.0e6 30.0\n"
# Files besides final.data and thermo.csv that a case compares.
DET_FILES = {"langevin": ["dump.txt"], "ave_time": ["avetime.txt"], "ave_chunk": ["chunk.txt"]}
DET_CASES = {
    # fix langevin's noise (LAMMPS's one stream in LAMMPS's atom order), its zero-force sum and its tally, a
    # shrink-wrapped z (split by the 2 and 3 rank grids) and a sorted per-atom-energy dump gathered to rank 0.
    "langevin": small_input(7, "velocity all create 3000.0 4928459 loop all\nneighbor 1.0 bin\n"
                            "neigh_modify every 1 delay 0 check yes\nfix 1 all nve\n"
                            "fix 2 all langevin 3000 3000 0.1 48279 zero yes tally yes\n"
                            "thermo_style custom step temp pe etotal press f_2\ntimestep 0.005\nthermo 10\n"
                            "compute pe all pe/atom\ndump d all custom 25 dump.txt id x y z vx c_pe\n"
                            "dump_modify d sort id format float %.17g\n"
                            "run 40\nvelocity all scale 1500.0\nrun 10\n", boundary="p p s"),
    "nvt": small_input(4, _DET_HOT + "fix 1 all nvt temp 1200 900 0.05\n" + _DET_THERMO.format(" f_1") +
                       "run 40\n"),
    "npt_iso": small_input(4, _DET_HOT + "fix 1 all npt temp 1200 1200 0.1 iso 5000 0 0.2 drag 1.0\n" +
                           _DET_THERMO.format(" lx f_1") + "run 40\n"),
    "npt_aniso": small_input(4, _DET_HOT + "fix 1 all npt temp 1200 1000 0.1 aniso 0 3000 0.2 drag 0.5\n" +
                             _DET_THERMO.format(" lx ly lz f_1") + "run 40\n"),
    "nph": small_input(4, _DET_HOT + "fix 1 all nph aniso 0 3000 0.2 drag 0.5\n" +
                       _DET_THERMO.format(" lx ly lz f_1") + "run 40\nrun 10\n"),
    # fix npt's TRICLINIC barostat on a tilted box (tilts of lattice vectors): six ω̇, the tilts' remap.
    "npt_tri": small_input(4, _DET_HOT + "fix 1 all npt temp 1200 1200 0.1 tri 0 3000 0.2\n" +
                           _DET_THERMO.format(" lx ly lz xy xz yz pxy f_1") + "run 40\n").replace(
                               "region box block 0 4 0 4 0 4", "region box prism 0 4 0 4 0 4 1 1 1"),
    "temp_berendsen": small_input(4, _DET_HOT + "fix 1 all nve\nfix 2 all temp/berendsen 1200 600 0.02\n" +
                                  _DET_THERMO.format(" f_2") + "run 40\n"),
    "temp_rescale": small_input(4, _DET_HOT + "fix 1 all nve\nfix 2 all temp/rescale 5 1200 600 10 0.5\n" +
                                _DET_THERMO.format(" f_2") + "run 40\n"),
    "press_berendsen": small_input(4, _DET_HOT + "fix 1 all nve\n"
                                   "fix 2 all press/berendsen aniso 5000 0 1.0 modulus 10000\n" +
                                   _DET_THERMO.format(" lx ly lz").replace("thermo 5", "thermo 50") +
                                   "run 400\n"),
    "deposit": ("units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\n"
                "region box block 0 4 0 4 0 10\ncreate_box 2 box\nregion slab block INF INF INF INF 0 4\n"
                f"create_atoms 1 region slab\nmass 2 63.546\npair_style eam\npair_coeff * * {POT}\n"
                "neighbor 1.0 bin\nneigh_modify every 1 delay 0 check yes\nregion dep block 0 4 0 4 7 8.5\n" +
                _DET_HOT + "timestep 0.002\nfix 1 all nve\n"
                "fix 2 all deposit 5 1 6 12345 region dep near 2.0 vx -1.0 1.0 vz -6.0 -4.0 units box\n"
                "fix 3 all deposit 4 2 6 777 region dep vz -5.0 -3.0 units box\n"
                "thermo_style custom step atoms temp ke pe etotal press pxx\nthermo 5\nrun 40\n"),
    "minimize_cg_box_relax": small_input(4, "displace_atoms all random 0.05 0.05 0.05 1234 units box\n"
                                         "fix 1 all box/relax iso 2000 vmax 0.001\n" +
                                         _DET_THERMO.format(" lx f_1 fnorm fmax") +
                                         "minimize 0 1e-8 40 400\n"),
    "minimize_cg_box_relax_aniso": small_input(4, "displace_atoms all random 0.05 0.05 0.05 1234 units box\n"
                                               "fix 1 all box/relax aniso 2000 vmax 0.001\n"
                                               "min_modify line backtrack\n" +
                                               _DET_THERMO.format(" lx ly lz fnorm") +
                                               "minimize 0 1e-8 40 400\n"),
    # fix box/relax tri: the box's six degrees of freedom in the line search's sums, on a tilted box whose
    # lattice constant is off (a vacancy lets the atoms move too).
    "minimize_cg_box_relax_tri": small_input(4, "group v id 42\ndelete_atoms group v\n"
                                             "fix 1 all box/relax tri 0 vmax 0.001\n" +
                                             _DET_THERMO.format(" lx ly lz xy xz yz fnorm") +
                                             "minimize 0 1e-8 40 400\n").replace(
                                                 "lattice fcc 3.615\nregion box block 0 4 0 4 0 4",
                                                 "lattice fcc 3.65\nregion box prism 0 4 0 4 0 4 1 1 1"),
    "minimize_fire": small_input(4, "displace_atoms all random 0.05 0.05 0.05 1234 units box\n"
                                 "min_style fire\n" + _DET_THERMO.format(" fnorm fmax") +
                                 "minimize 0 1e-8 60 600\n"),
    "compute_reduce": small_input(4, _DET_HOT + "fix 1 all nve\ncompute k all ke/atom\n"
                                  "compute r all reduce sum vx fx c_k\ncompute ra all reduce ave c_k fz\n"
                                  "compute rs all reduce sumsq vy\ncompute rm all reduce max c_k\n" +
                                  _DET_THERMO.format(" c_r[1] c_r[2] c_r[3] c_ra[1] c_ra[2] c_rs c_rm") +
                                  "run 30\n"),
    # ave/time of computes and of a fix's tally (addforce's energy and the forces it added to).
    "ave_time": small_input(4, _DET_HOT + "fix 1 all nve\ncompute k all ke/atom\n"
                            "compute r all reduce sum c_k\nfix af all addforce 0.01 0.0 -0.02\n"
                            "fix a all ave/time 2 5 10 c_thermo_temp c_thermo_press c_thermo_pe c_r f_af f_af[1] "
                            "file avetime.txt format \" %.17g\"\n"
                            "fix b all ave/time 1 1 5 c_thermo_press[1] c_thermo_press[4] ave running\n" +
                            _DET_THERMO.format(" f_a[1] f_a[2] f_a[3] f_a[4] f_a[5] f_a[6] f_b[1] f_b[2]").replace(
                                "thermo 5", "thermo 10") + "run 40\n"),
    # A knock-on atom slowed by electronic stopping (a table and the fitted form) under fix dt/reset.
    "cascade": small_input(5, "velocity all create 300.0 4928459 loop all\nneighbor 1.0 bin\n"
                           "neigh_modify every 1 delay 0 check yes\ngroup pka id 1\n"
                           "velocity pka set 120 100 -80 units box\nfix 1 all nve\n"
                           "fix 2 all dt/reset 1 1.0e-5 0.002 0.05 units box\n"
                           "fix 3 all electron/stopping 5.0 stop.txt\n"
                           "fix 4 all electron/stopping/fit 3.49 1.8e-3 9.0e-8\n"
                           "thermo_style custom step dt time temp pe etotal press f_2 f_3 f_4\nthermo 5\n"
                           "run 40\n"),
    # Styles the issue does not name: fix ave/chunk (temp, vx, density), compute msd, fix spring.
    "ave_chunk": small_input(4, _DET_HOT + "fix 1 all nve\ncompute ch all chunk/atom bin/1d z lower 0.5 units "
                             "reduced\nfix c all ave/chunk 2 5 10 ch temp vx density/mass ave running "
                             "file chunk.txt format \" %.17g\"\n"
                             "compute m all msd com yes\n" +
                             _DET_THERMO.format(" c_m[1] c_m[4]") + "run 30\n"),
    "spring": small_input(4, _DET_HOT + "region lo block 0 1 INF INF INF INF\n"
                          "region hi block 3 INF INF INF INF INF\ngroup lo region lo\ngroup hi region hi\n"
                          "fix 1 all nve\nfix 2 lo spring tether 2.0 10.0 NULL 0.5 0.0\n"
                          "fix 3 hi spring couple lo 1.5 NULL 0.3 8.0 0.5\nfix_modify 3 energy yes\n" +
                          _DET_THERMO.format(" f_2 f_3") + "run 30\n"),
}


def deterministic():
    # deterministic: true gives the same bytes at 1, 2 and 3 ranks (thermo.csv at 17 digits, write_data at full
    # precision, the DET_FILES), for every style in DET_CASES.
    only = os.environ.get("WMD_DET_CASES")  # a comma-separated subset, for checking one case by hand
    names = [n for n in DET_CASES if not only or n in only.split(",")]
    bad = []
    for name in names:
        files = {}
        for n in (1, 2, 3):
            d = fresh(f"det_{name}_{n}")
            write_file(d, "in.det", DET_CASES[name] + "write_data final.data\n")
            write_file(d, "stop.txt", _DET_STOP_TABLE)
            rc, out, err = run(n, ["run", "in.det", "--set", "deterministic=true", "--output", "out"], d)
            if rc != 0:
                fail(f"{name}, {n} ranks: exit {rc}\n{err}")
            outputs = ["final.data", "out/thermo.csv"] + DET_FILES.get(name, [])
            files[n] = {f: file_bytes(d, f) for f in outputs}
        differ = [f"{f} at {n} ranks" for n in (2, 3) for f in files[1] if files[n][f] != files[1][f]]
        print(f"{name}: " + ("1, 2, 3 ranks byte-identical" if not differ else "differs: " + ", ".join(differ)))
        if differ:
            bad.append(name)
    if bad:
        fail("deterministic mode differs between rank counts for: " + ", ".join(bad))
    print(f"deterministic: {len(names)} cases, 1, 2, 3 ranks byte-identical")


def grid_mismatch():
    d = fresh("grid_mismatch")
    with open(os.path.join(d, "in.grid"), "w") as f:
        f.write(small_input(8, "fix 1 all nve\nrun 1\n"))
    rc, out, err = run(2, ["run", "in.grid", "--set", "cluster.grid=2x2x1", "--output", "out"], d)
    if rc != 2 or "cluster.grid 2x2x1 has 4 sub-domains but this run has 2 MPI ranks" not in err:
        fail(f"exit {rc}\n{err}")
    rc, out, err = run(2, ["run", "in.grid", "--set", "cluster.grid=2x1x1", "--output", "out"], d)
    if rc != 0 or "2 by 1 by 1 MPI processor grid" not in out:
        fail(f"cluster.grid=2x1x1: exit {rc}\n{out}\n{err}")
    print("cluster.grid: mismatch refused, 2x1x1 used")
    # LAMMPS's `processors` before the box: * leaves a direction to the least-surface search; cluster.grid wins.
    for line, grid in (("processors 1 2 1", "1 by 2 by 1"), ("processors * 1 1", "2 by 1 by 1"),
                       ("processors * * *", "1 by 1 by 2")):
        with open(os.path.join(d, "in.proc"), "w") as f:
            f.write(line + "\n" + small_input(8, "fix 1 all nve\nrun 1\n"))
        rc, out, err = run(2, ["run", "in.proc", "--output", "out"], d)
        if rc != 0 or grid + " MPI processor grid" not in out:
            fail(f"{line}: exit {rc}, expected {grid}\n{out}\n{err}")
    rc, out, err = run(2, ["run", "in.proc", "--set", "cluster.grid=2x1x1", "--output", "out"], d)
    if rc != 0 or "2 by 1 by 1 MPI processor grid" not in out:
        fail(f"cluster.grid over processors: exit {rc}\n{out}\n{err}")
    for text, why in (("processors 2 2 1\n", "does not fit the 2 MPI ranks"),
                      ("processors 3 * *\n", "does not fit the 2 MPI ranks"),
                      ("processors 1 x 1\n", "along y (an integer or *)"),
                      ("processors 1 1 2 grid onelevel\n", "only 'processors Px Py Pz' is supported"),
                      ("units metal\nlattice fcc 3.615\nregion box block 0 8 0 8 0 8\ncreate_box 1 box\n"
                       "processors 1 1 2\n", "must come before the box is created")):
        with open(os.path.join(d, "in.bad"), "w") as f:
            f.write(text)
        rc, out, err = run(2, ["run", "in.bad", "--output", "out"], d)
        line = text.count("\n")
        if rc != 2 or why not in err or f"in.bad:{line}" not in err:
            fail(f"{text!r}: exit {rc}, expected 2 with '{why}' at line {line}\n{err}")
    print("processors: 1 2 1, * 1 1 and * * * used; cluster.grid overrides; bad forms refused with their line")


def balance():
    # LAMMPS's `balance 1.0 shift z`: a Cu slab filling 3/8 of a periodic box (vacuum above it) on 2 ranks split
    # along z. Uniform cuts leave rank 1 without atoms (imbalance factor 2); balanced, each rank holds half to
    # within a lattice plane. The trajectory is the unbalanced run's to 1e-9 A; a run restarted from a checkpoint
    # of the balanced run ends byte-identical to the uninterrupted one; bad forms exit 2 with their line.
    d = fresh("balance")
    slab = SLAB + ("velocity all create 600.0 4928 loop geom\nneighbor 1.0 bin\n"
                   "neigh_modify every 1 delay 0 check yes\nfix 1 all nve\ntimestep 0.002\n")

    def write(name, text):
        write_file(d, name, text)

    def nlocal(outdir):
        return nlocal_range(d, outdir)

    write("in.plain", slab + "run 40\nwrite_data plain.data\n")
    write("in.full", slab + "balance 1.0 shift z 30 1.0\nrun 40\nwrite_data full.data\n")
    write("in.half", slab + "balance 1.0 shift z 30 1.0\nrun 20\nwrite_data half.data\n")
    rc, out, err = run(2, ["run", "in.plain", "--output", "plain"], d)
    if rc != 0:
        fail(f"unbalanced run: exit {rc}\n{err}")
    most, least = nlocal("plain")
    if least != 0:
        fail(f"unbalanced: expected an empty rank, got {most:g}/{least:g} atoms")
    rc, out, err = run(2, ["run", "in.full", "--output", "full"], d)
    if rc != 0 or "initial imbalance factor = 2" not in out:
        fail(f"balanced run: exit {rc}\n{out}\n{err}")
    final = float(next(ln for ln in out.splitlines() if "final imbalance factor" in ln).split()[-1])
    most, least = nlocal("full")
    if final > 1.1 or least < 0.85 * most:
        fail(f"balanced: factor {final}, ranks hold {most:g} and {least:g} atoms")
    dev = max_deviation(os.path.join(d, "plain.data"), os.path.join(d, "full.data"))
    if dev > 1e-9:
        fail(f"balanced and unbalanced trajectories differ by {dev:.3g} A")
    rc, out, err = run(2, ["run", "in.half", "--output", "half", "--set", "output.checkpoint_every=20"], d)
    if rc != 0:
        fail(f"first half: exit {rc}\n{err}")
    rc, out, err = run(2, ["run", "in.half", "--output", "second", "--restart", os.path.join("half", "checkpoint.h5")], d)
    if rc != 0:
        fail(f"restart: exit {rc}\n{err}")
    if file_bytes(d, "full.data") != file_bytes(d, "half.data"):
        fail("the balanced run restarted from its checkpoint differs from the uninterrupted run")
    pot = f"pair_style eam\npair_coeff 1 1 {POT}\n"
    box = "units metal\nlattice fcc 3.615\nregion box block 0 8 0 8 0 8\ncreate_box 1 box\ncreate_atoms 1 box\n"
    for line, why in (("balance 0.5 shift z 10 1.0", "must be >= 1.0"),
                      ("balance 1.0 rcb", "only shift is supported"),
                      ("balance 1.0 shift zq 10 1.0", "bad directions"),
                      ("balance 1.0 shift z 10 1.0 weight time 1.0", "no balance keywords"),
                      ("balance 1.0 shift z 10 0.9", "stopping threshold")):
        write("in.bad", box + pot + line + "\n")
        rc, out, err = run(2, ["run", "in.bad", "--output", "bad"], d)
        if rc != 2 or why not in err or "in.bad:8" not in err:
            fail(f"{line!r}: exit {rc}, expected 2 with '{why}' at line 8\n{err}")
    write("in.bad", box + "balance 1.0 shift z 10 1.0\n" + pot)
    rc, out, err = run(2, ["run", "in.bad", "--output", "bad"], d)
    if rc != 2 or "needs the pair potential" not in err or "in.bad:6" not in err:
        fail(f"balance before pair_coeff: exit {rc}\n{err}")
    print(f"balance: imbalance 2 -> {final:g} ({most:g}/{least:g} atoms), trajectory within {dev:.2g} A of the "
          "unbalanced run, restart byte-identical, bad forms refused")


def fix_balance():
    # LAMMPS's `fix balance 20 1.05 shift z 20 1.02`: a Cu slab (3/8 of a periodic box along z) drifting up
    # 8 A in 100 steps on 2 ranks split along z. Without the fix one rank ends with few atoms; with it the
    # cuts follow the slab at set-up and every 20 steps (6 passes; f_2, the factor after balancing, stays
    # near 1), a set-up-only pass (Nfreq 0) leaves the ranks unequal again, the trajectory is the plain run's
    # to 1e-9 A, restarts from checkpoints between and at balancing steps end byte-identical (f_2 too),
    # deterministic mode is bit-identical at 1 and 2 ranks, and bad forms exit 2 with their line.
    d = fresh("fix_balance")
    head = SLAB + ("velocity all create 600.0 4928 loop geom\nvelocity all set NULL NULL 40.0 sum yes units box\n"
                   "neighbor 1.0 bin\nneigh_modify every 1 delay 0 check yes\nfix 1 all nve\ntimestep 0.002\n")
    fix = "fix 2 all balance 20 1.05 shift z 20 1.02\nthermo 20\nthermo_style custom step pe f_2\n"

    def f2(name):
        # thermo.csv rows as {step: f_2 text}: the imbalance factor after the last balancing step.
        rows = open(os.path.join(d, name, "thermo.csv")).read().split()[1:]
        return {int(r.split(",")[0]): r.split(",")[-1] for r in rows}

    def case(name, extra, steps, ranks=2, args=()):
        write_file(d, "in." + name, head + extra + f"run {steps}\nwrite_data {name}.data\n")
        rc, out, err = run(ranks, ["run", "in." + name, "--output", name] + list(args), d)
        if rc != 0:
            fail(f"{name}: exit {rc}\n{err}")
        return out

    case("plain", "", 100)
    most, least = nlocal_range(d, "plain")
    if least > 0.2 * most:
        fail(f"without fix balance the drifting slab should leave a rank nearly empty: {most:g}/{least:g} atoms")
    out = case("full", fix, 100)
    if "Sub-domain rebalancing (fix balance) = 6," not in out:
        fail("expected 6 balancing passes (set-up and steps 20-100):\n" + out)
    most, least = nlocal_range(d, "full")
    if least < 0.9 * most:
        fail(f"with fix balance the ranks hold {most:g} and {least:g} atoms")
    factors = f2("full")
    if max(float(v) for v in factors.values()) > 1.1:
        fail(f"f_2 (imbalance after balancing) should stay near 1: {factors}")
    case("setup_only", fix.replace("balance 20", "balance 0"), 100)
    m0, l0 = nlocal_range(d, "setup_only")
    if l0 > 0.5 * m0:
        fail(f"Nfreq 0 balances at set-up only, yet the ranks end with {m0:g} and {l0:g} atoms")
    if len(set(f2("setup_only").values())) != 1:
        fail(f"with Nfreq 0, f_2 keeps the set-up's factor: {f2('setup_only')}")
    dev = max_deviation(os.path.join(d, "plain.data"), os.path.join(d, "full.data"))
    if dev > 1e-9:
        fail(f"trajectories with and without fix balance differ by {dev:.3g} A")
    for at in (30, 40):  # between balancing steps, and at one
        case(f"first{at}", fix, at, args=("--set", f"output.checkpoint_every={at}"))
        case(f"rest{at}", fix, 100 - at, args=("--restart", os.path.join(f"first{at}", "checkpoint.h5")))
        if file_bytes(d, "full.data") != file_bytes(d, f"rest{at}.data"):
            fail(f"the run restarted at step {at} differs from the uninterrupted run")
        # f_2 holds between balancing steps: the restarted run's first row shows the last one's factor.
        if any(v != factors[k - k % 20] for k, v in f2(f"rest{at}").items()):
            fail(f"f_2 after the restart at step {at} differs: {f2(f'rest{at}')} vs {factors}")
    for n in (1, 2):
        case(f"det{n}", fix, 100, ranks=n, args=("--set", "deterministic=true"))
    if file_bytes(d, "det1.data") != file_bytes(d, "det2.data"):
        fail("deterministic mode with fix balance differs between 1 and 2 ranks")
    for line, why in (("fix 3 all balance -1 1.05 shift z 10 1.0", "Nfreq"),
                      ("fix 3 all balance 10 1.05 rcb", "only shift is supported"),
                      ("fix 3 all balance 10 1.05 shift z 10 1.0 out tmp.txt", "no fix balance keywords"),
                      ("fix 3 all balance 10 0.9 shift z 10 1.0", "must be >= 1.0"),
                      ("fix 3 all balance 10 1.05 shift z 10 1.0", "fix 2 already balances")):
        write_file(d, "in.bad", head + fix + line + "\nrun 10\n")
        rc, out, err = run(2, ["run", "in.bad", "--output", "bad"], d)
        if rc != 2 or why not in err or "in.bad:20" not in err:
            fail(f"{line!r}: exit {rc}, expected 2 with '{why}' at line 20\n{err}")
    print(f"fix balance: {most:g}/{least:g} atoms per rank (set-up only: {m0:g}/{l0:g}), trajectory within "
          f"{dev:.2g} A of the plain run, restarts byte-identical, deterministic 1 = 2 ranks, bad forms refused")


def minimize_empty_rank():
    # A Cu slab in the lower 3/8 of a box split along z on 2 ranks: rank 1 holds no atoms. minimize's "needs
    # atoms" check once looked at the rank's own atoms, so rank 1 stopped in the dry run while rank 0 went on and
    # waited for it forever. Now both ranks finish and reach the one-rank run's energy; a fix balance in the
    # script does not act during the minimisation, as in LAMMPS.
    d = fresh("minimize_empty_rank")
    write_file(d, "in.min", SLAB + "thermo_style custom step pe\nminimize 1e-10 1e-8 50 1000\n")
    write_file(d, "in.minfix", SLAB + "fix 2 all balance 5 1.05 shift z 20 1.02\n"
               "thermo_style custom step pe f_2\nminimize 1e-10 1e-8 50 1000\n")
    energies = {}
    for name, ranks in (("in.min", 1), ("in.min", 2), ("in.minfix", 2)):
        try:
            rc, out, err = run(ranks, ["run", name, "--output", f"{name}_{ranks}"], d, timeout=60)
        except subprocess.TimeoutExpired:
            fail(f"{name} on {ranks} ranks did not finish in 60 s (a rank waits for one that stopped)")
        if rc != 0:
            fail(f"{name} on {ranks} ranks: exit {rc}\n{err}")
        last = open(os.path.join(d, f"{name}_{ranks}", "thermo.csv")).read().split()[-1].split(",")
        energies[(name, ranks)] = float(last[1])
        if name == "in.minfix" and float(last[2]) != 1.0:
            fail(f"fix balance acted during minimize: f_2 = {last[2]}")
    e1 = energies[("in.min", 1)]
    for key, e in energies.items():
        if abs(e - e1) > 1e-8 * abs(e1):
            fail(f"{key}: final energy {e!r} differs from one rank's {e1!r}")
    print(f"minimize with an empty rank: 2 ranks finish at the one-rank energy {e1:.10g} eV")


def failures_once():
    # Failures found alike on every rank (an empty input, a command line the parser rejects, a --var short of
    # its value, an exception from yaml-cpp) are printed once, by rank 0: one error line, exit 2.
    d = fresh("failures_once")
    write_file(d, "in.empty", "# no commands\n")
    write_file(d, "in.yaml", "system: {lattice: {style: fcc, constant: 3.615}, cells: [2, 2, 2]}\n"
               "potential: eam\nrun: 5\n")
    write_file(d, "in.ok", small_input(4, "run 0\n"))
    for args in (["run", "in.empty"], ["run", "in.ok", "--frobnicate"], ["run", "in.ok", "--var", "x"],
                 ["run", "in.yaml"]):
        rc, out, err = run(2, args + ["--output", "out"], d, timeout=120)
        if rc != 2:
            fail(f"{' '.join(args)}: exit {rc}, expected 2\n{err}")
        if err.count("error:") != 1:
            fail(f"{' '.join(args)}: the error must be printed once:\n{err}")
        print(f"{' '.join(args)}: {err.strip()}")


def lost_atom():
    # The top atom (on rank 1, the upper z sub-domain) flies out through the fixed z face: every rank stops,
    # exit 3 with the reason, no hang.
    d = fresh("lost_atom")
    with open(os.path.join(d, "in.lost"), "w") as f:
        f.write(small_input(6, "group top id 864\nvelocity top set 0 0 400 units box\nfix 1 all nve\n"
                            "timestep 0.005\nthermo 1\nrun 100\n", boundary="p p f"))
    rc, out, err = run(2, ["run", "in.lost", "--output", "out"], d, timeout=120)
    if rc != 3:
        fail(f"exit {rc}, expected 3\n{err}")
    if "error: rank 1: run failed: lost atom 864" not in err:
        fail(f"reason missing:\n{err}")
    print("lost atom: " + next(ln for ln in err.splitlines() if "lost atom" in ln))


def rank_failure_report():
    # A failure on rank 1 alone, in the middle of a run (a variable that divides by zero there at step 3),
    # while rank 0 waits for it inside the step: the job ends in seconds with exit 3, and report.json (written
    # by the failed rank before the abort) says failed, with the rank and the error.
    d = fresh("rank_failure_report")
    write_file(d, "in.fail", "variable r getenv OMPI_COMM_WORLD_RANK\n" + small_input(
        4, "velocity all create 300 5 loop geom\nfix 1 all nve\nvariable d equal 1/(1-v_r*(step>=3))\n"
        "thermo_style custom step temp v_d\nthermo 1\nrun 10\n"))
    rc, out, err = run(2, ["run", "in.fail", "--output", "out"], d, timeout=120)
    if rc != 3:
        fail(f"exit {rc}, expected 3\n{err}")
    try:
        with open(os.path.join(d, "out", "report.json")) as f:
            report = json.load(f)
    except OSError:
        fail("no report.json after rank 1 failed")
    if report.get("status") != "failed" or report.get("exit_code") != 3 or report.get("failed_rank") != 1:
        fail(f"report.json does not say rank 1 failed: {report}")
    if "division by zero" not in report.get("error", ""):
        fail(f"report.json lacks the error: {report}")
    print("rank failure report: " + report["error"])


def mesh_bits():
    # Deterministic mode is one arithmetic for both backends: the cluster backend on 2 ranks and the mesh
    # backend in fp64 must write byte-identical data files after 100 steps (rebuilds included), fix
    # langevin's noise in LAMMPS's atom order included.
    d = fresh("mesh_bits")
    with open(os.path.join(d, "in.bits"), "w") as f:
        f.write(small_input(8, "velocity all create 1600.0 376847 loop geom\n"
                            "neigh_modify every 1 delay 5 check yes\nfix 1 all nve\n"
                            "fix 2 all langevin 1600 1600 0.2 90121 zero yes\ntimestep 0.005\n"
                            "thermo 50\nrun 100\nwrite_data final.data\n"))
    common = ["--set", "deterministic=true"]
    rc, out, err = run(2, ["run", "in.bits", "--output", "c"] + common, d)
    if rc != 0:
        fail(f"cluster: exit {rc}\n{err}")
    shutil.move(os.path.join(d, "final.data"), os.path.join(d, "cluster.data"))
    rc, out, err = run(1, ["run", "in.bits", "--backend", "mesh", "--set", "mesh.precision=fp64",
                           "--output", "m"] + common, d)
    if rc != 0:
        fail(f"mesh: exit {rc}\n{err}")
    a, b = file_bytes(d, "cluster.data"), file_bytes(d, "final.data")
    if a != b:
        fail("cluster (2 ranks) and mesh (fp64) data files differ in deterministic mode")
    print(f"mesh fp64 == cluster on 2 ranks, deterministic: {len(a)} bytes identical")


def mesh_input(extra_run):
    # 2,400 Cu atoms and a fast knock-on atom (tests/md/test_mesh.cpp's): rebuilds, swaps and a remap.
    return ("units metal\natom_style atomic\nlattice fcc 3.615\nregion box block 0 10 0 10 0 6\n"
            f"create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 {POT}\n"
            "velocity all create 300.0 4928 loop geom\ngroup pka id 1\nvelocity pka set 540.0 100.0 30.0\n"
            "neighbor 1.0 bin\nneigh_modify every 1 delay 0 check yes\nfix 1 all nve\ntimestep 0.0002\n"
            "thermo 50\n" + extra_run)


def fabric_counts(outdir):
    f = json.load(open(os.path.join(outdir, "report.json")))["fabric"]
    return {k: f[k] for k in ("swaps", "remaps", "rebuilds", "window_b", "predicted_steps_per_second")}


def mesh_tiled():
    # The mesh emulator tiled over 2 and 3 ranks (bands of PE rows, halo rows of window width) writes the
    # bytes the 1-rank emulator writes, in fp32 and fp64, through rebuilds, swaps and remaps. Deterministic
    # mode, so that the run's own global sums (velocity scaling, thermo) do not depend on the rank count.
    d = fresh("mesh_tiled")
    with open(os.path.join(d, "in.mesh"), "w") as f:
        f.write(mesh_input("run 150\nwrite_data final.data\n"))
    for prec in ("fp32", "fp64"):
        ref = None
        for ranks in (1, 2, 3):
            out = f"{prec}_{ranks}"
            rc, so, err = run(ranks, ["run", "in.mesh", "--backend", "mesh", "--set", f"mesh.precision={prec}",
                                      "--set", "deterministic=true", "--output", out], d)
            if rc != 0:
                fail(f"mesh {prec} on {ranks} ranks: exit {rc}\n{err}")
            data = file_bytes(d, "final.data")
            counts = fabric_counts(os.path.join(d, out))
            if ref is None:
                ref = (data, counts)
                if counts["remaps"] < 1 or counts["swaps"] < 1:
                    fail(f"mesh {prec}: the knock-on atom should cause swaps and remaps: {counts}")
                continue
            if data != ref[0]:
                fail(f"mesh {prec}: data file on {ranks} ranks differs from 1 rank")
            if counts != ref[1]:
                fail(f"mesh {prec}: fabric counts on {ranks} ranks {counts} differ from 1 rank {ref[1]}")
        print(f"mesh {prec}: 1, 2 and 3 ranks byte-identical ({len(ref[0])} bytes), {ref[1]}")


def mesh_tiled_restart():
    # A 2-rank mesh run checkpointed at step 60 (after the knock-on atom's remap) and restarted on 2 ranks ends where the uninterrupted run
    # does; restarting it on 1 rank is refused with the rank count to use.
    d = fresh("mesh_tiled_restart")
    with open(os.path.join(d, "in.full"), "w") as f:
        f.write(mesh_input("run 120\nwrite_data full.data\n"))
    with open(os.path.join(d, "in.half"), "w") as f:
        f.write(mesh_input("run 60\nwrite_data half.data\n"))
    mesh = ["--backend", "mesh"]
    rc, so, err = run(2, ["run", "in.full", "--output", "full"] + mesh, d)
    if rc != 0:
        fail(f"full run: exit {rc}\n{err}")
    rc, so, err = run(2, ["run", "in.half", "--output", "half", "--set", "output.checkpoint_every=60"] + mesh, d)
    if rc != 0:
        fail(f"first half: exit {rc}\n{err}")
    ckpt = os.path.join("half", "checkpoint.h5")
    rc, so, err = run(1, ["run", "in.half", "--output", "one", "--restart", ckpt] + mesh, d, timeout=60)
    if rc != 2 or "restart on the same number" not in err:
        fail(f"restart on 1 rank: exit {rc}, expected 2 naming 2 ranks\n{err}")
    refused = next(ln for ln in err.splitlines() if "restart on the same number" in ln)
    rc, so, err = run(2, ["run", "in.half", "--output", "second", "--restart", ckpt] + mesh, d)
    if rc != 0:
        fail(f"restart: exit {rc}\n{err}")
    a, b = file_bytes(d, "full.data"), file_bytes(d, "half.data")
    if a != b:
        fail("2-rank mesh: restarted run's data file differs from the uninterrupted run's")
    print(f"2-rank mesh restart: {len(a)} bytes identical; on 1 rank refused: {refused}")


def shrink_slab_input(extra_run):
    # The open-boundary recipe of the published wafer runs (tests/data/styles/in.shrink_slab at 12x12x6
    # cells, 1,728 Ta atoms): boundary s s s, the box fitted to the atoms at every re-neighbouring.
    return ("units metal\natom_style atomic\natom_modify map hash\nlattice bcc 3.29890\n"
            "region box block 0 12 0 12 0 6\ncreate_box 1 box\ncreate_atoms 1 box\nmass 1 180.95\n"
            "displace_atoms all move 0.25 0.25 0.25\nchange_box all boundary s s s\n"
            "velocity all create 580.0 87287 loop geom\nvelocity all zero linear\nvelocity all zero angular\n"
            "pair_style eam/alloy\npair_coeff * * CuTa.eam.alloy Ta\nneighbor 0.5 bin\n"
            "neigh_modify every 1 delay 0 check yes\nfix 1 all nve\ntimestep 0.002\nthermo 25\n" + extra_run)


def mesh_shrink_wrap():
    # Shrink-wrapped faces on the mesh: in deterministic mode the emulator writes the same bytes on 1, 2 and 3
    # ranks (fp32 and fp64 PEs), fp64 the bytes of the cluster backend on 2 ranks; a 2-rank fp32 run
    # checkpointed half-way and restarted ends byte-identical to the uninterrupted run (the fitted box comes
    # back with the checkpoint).
    d = fresh("mesh_shrink_wrap")
    with open(os.path.join(d, "in.full"), "w") as f:
        f.write(shrink_slab_input("run 100\nwrite_data full.data\n"))
    with open(os.path.join(d, "in.half"), "w") as f:
        f.write(shrink_slab_input("run 50\nwrite_data half.data\n"))
    det = ["--set", "deterministic=true"]
    rc, so, err = run(2, ["run", "in.full", "--output", "cluster"] + det, d)
    if rc != 0:
        fail(f"cluster on 2 ranks: exit {rc}\n{err}")
    cluster = file_bytes(d, "full.data")
    for prec in ("fp32", "fp64"):
        ref = None
        for ranks in (1, 2, 3):
            out = f"{prec}_{ranks}"
            rc, so, err = run(ranks, ["run", "in.full", "--backend", "mesh", "--set", f"mesh.precision={prec}",
                                      "--output", out] + det, d)
            if rc != 0:
                fail(f"mesh {prec} on {ranks} ranks: exit {rc}\n{err}")
            data, counts = file_bytes(d, "full.data"), fabric_counts(os.path.join(d, out))
            if ref is None:
                ref = (data, counts)
                if counts["rebuilds"] < 3:
                    fail(f"mesh {prec}: the slab should re-neighbour (and refit its box): {counts}")
            elif data != ref[0] or counts != ref[1]:
                fail(f"mesh {prec}: {ranks} ranks differ from 1 rank ({counts} against {ref[1]})")
        if prec == "fp64" and ref[0] != cluster:
            fail("mesh fp64 and the cluster backend on 2 ranks write different data files in deterministic mode")
        print(f"mesh {prec}, shrink-wrapped: 1, 2 and 3 ranks byte-identical ({len(ref[0])} bytes), {ref[1]}")
    # The site mapping (cell columns on PE patches, no swaps): the same trajectory as the cluster's in fp64, and
    # the same fabric counts on 1 and 3 ranks.
    site_counts = None
    for ranks in (1, 3):
        out = f"sites_{ranks}"
        rc, so, err = run(ranks, ["run", "in.full", "--backend", "mesh", "--set", "mesh.precision=fp64", "--set",
                                  "mesh.mapping=sites", "--output", out] + det, d)
        if rc != 0:
            fail(f"mesh sites on {ranks} ranks: exit {rc}\n{err}")
        counts = fabric_counts(os.path.join(d, out))
        if file_bytes(d, "full.data") != cluster:
            fail(f"mesh sites on {ranks} ranks: the data file differs from the cluster backend's")
        if site_counts is not None and counts != site_counts:
            fail(f"mesh sites: 3 ranks' fabric counts {counts} differ from 1 rank's {site_counts}")
        site_counts = counts
    print(f"mesh sites, shrink-wrapped fp64: 1 and 3 ranks equal the cluster's bytes, fabric counts {site_counts}")
    mesh = ["--backend", "mesh"]
    rc, so, err = run(2, ["run", "in.full", "--output", "full"] + mesh, d)
    if rc != 0:
        fail(f"full run: exit {rc}\n{err}")
    full = file_bytes(d, "full.data")
    rc, so, err = run(2, ["run", "in.half", "--output", "half", "--set", "output.checkpoint_every=50"] + mesh, d)
    if rc != 0:
        fail(f"first half: exit {rc}\n{err}")
    rc, so, err = run(2, ["run", "in.half", "--output", "again", "--restart", os.path.join("half", "checkpoint.h5")]
                      + mesh, d)
    if rc != 0:
        fail(f"restart: exit {rc}\n{err}")
    if file_bytes(d, "half.data") != full:
        fail("shrink-wrapped 2-rank mesh: the restarted run's data file differs from the uninterrupted run's")
    # The PE assignment and the lattice planes keying its swaps come back too: the same swaps and prices.
    a, b = fabric_counts(os.path.join(d, "full")), fabric_counts(os.path.join(d, "again"))
    if a != b:
        fail(f"shrink-wrapped 2-rank mesh: the restarted run's fabric counts {b} differ from the uninterrupted {a}")
    print(f"shrink-wrapped 2-rank mesh restart: {len(full)} bytes identical, fabric counts {a}; mesh fp64 == cluster")


def bad_restart():
    # A checkpoint rank 0 cannot read fails every rank with its message (exit 2), instead of leaving rank 1
    # waiting for the broadcast.
    d = fresh("bad_restart")
    with open(os.path.join(d, "in.md"), "w") as f:
        f.write(small_input(6, "fix 1 all nve\nrun 10\n"))
    with open(os.path.join(d, "junk.h5"), "w") as f:
        f.write("not a checkpoint\n")
    for path, reason in (("missing.h5", "does not exist"), ("junk.h5", "not a readable HDF5 checkpoint")):
        try:
            rc, out, err = run(2, ["run", "in.md", "--output", "out", "--restart", path], d, timeout=60)
        except subprocess.TimeoutExpired:
            fail(f"--restart {path} on 2 ranks hung")
        if rc != 2 or reason not in err:
            fail(f"--restart {path}: exit {rc}, expected 2 with '{reason}'\n{err}")
        print(f"--restart {path} on 2 ranks: exit 2, " + next(ln for ln in err.splitlines() if reason in ln))


THIN = os.path.join(SOURCE, "tests", "data", "thin")
# tests/data/thin/in.NAME: (MPI ranks, `processors` line or "", the grid wafermd must print). Each grid but
# the one-rank runs' splits some direction into sub-domains thinner than the neighbour cutoff (in.cu6's
# 1 by 2 by 2 is the thick control).
THIN_RUNS = {
    "cu4": [(1, "", "1 by 1 by 1"), (3, "", "1 by 1 by 3"), (4, "processors 1 1 4", "1 by 1 by 4")],
    "cu6": [(1, "", "1 by 1 by 1"), (3, "processors 1 1 3", "1 by 1 by 3"), (3, "processors * * *", "1 by 1 by 3"),
            (4, "processors * * *", "1 by 2 by 2"), (4, "processors 1 1 4", "1 by 1 by 4")],
    "cu3": [(1, "", "1 by 1 by 1"), (2, "", "1 by 1 by 2"), (3, "processors 3 1 1", "3 by 1 by 1"),
            (4, "", "1 by 2 by 2")],
    "slab": [(1, "", "1 by 1 by 1"), (2, "processors 1 1 2", "1 by 1 by 2"), (3, "processors 1 1 3", "1 by 1 by 3")],
    "shrink": [(1, "", "1 by 1 by 1"), (3, "", "1 by 1 by 3"), (4, "processors 1 1 4", "1 by 1 by 4")],
    "min": [(1, "", "1 by 1 by 1"), (3, "", "1 by 1 by 3")],
    "deposit": [(1, "", "1 by 1 by 1"), (3, "", "1 by 1 by 3")],
}


def close_rows(got, ref, tol):
    """None when two tables of numbers agree to tol relative (of max(1, |ref|)), else the first difference."""
    if len(got) != len(ref):
        return f"{len(got)} rows, expected {len(ref)}"
    for r, (a, b) in enumerate(zip(got, ref)):
        if len(a) != len(b):
            return f"row {r}: {len(a)} values, expected {len(b)}"
        for x, y in zip(a, b):
            if abs(x - y) > tol * max(1.0, abs(y)):
                return f"row {r}: {a}, expected {b}"
    return None


def numbers(path, skip=1):
    """Rows of numbers of a thermo table (thermo.csv or lmp's rows), past `skip` header lines."""
    lines = open(path).read().splitlines()[skip:]
    return [[float(x) for x in ln.replace(",", " ").split()] for ln in lines if ln.strip()]


def dump_numbers(path):
    rows, atoms = [], False
    for ln in open(path).read().splitlines():
        if ln.startswith("ITEM:"):
            atoms = ln.startswith("ITEM: ATOMS")
        elif atoms:
            rows.append([float(x) for x in ln.split()])
    return rows


def thin_subdomains():
    # Sub-domains thinner than the neighbour cutoff (pair cutoff + skin): ghosts come over several hops per
    # direction, as LAMMPS's maxneed swaps bring them. Each case of tests/data/thin on 1-4 ranks (grids split
    # along one direction, two sub-domains along a direction, a box thinner than the cutoff, a shrink-wrapped
    # face, a minimisation, fix deposit) prints lmp's thermo rows and writes lmp's dumps to round-off, and
    # the one-rank run's; deterministic mode writes the same bytes on 1, 2, 3 and 4 ranks.
    for name, runs in THIN_RUNS.items():
        ref = numbers(os.path.join(THIN, f"lammps_{name}.txt"))
        # A minimisation's line searches amplify the summation order's round-off.
        tol = 1e-8 if name == "min" else 1e-9
        one = None
        for ranks, proc, grid in runs:
            d = fresh(f"thin_{name}_{ranks}_{len(proc)}")
            write_file(d, "in." + name, (proc + "\n" if proc else "") + open(os.path.join(THIN, "in." + name)).read())
            rc, out, err = run(ranks, ["run", "in." + name, "--output", "out"], d)
            what = f"in.{name} on {ranks} ranks ({proc or 'default grid'})"
            if rc != 0:
                fail(f"{what}: exit {rc}\n{err}")
            if f"{grid} MPI processor grid" not in out:
                fail(f"{what}: expected the {grid} grid\n{out}")
            got = numbers(os.path.join(d, "out", "thermo.csv"))
            why = close_rows(got, ref, tol)
            if why:
                fail(f"{what}: thermo differs from lmp's: {why}")
            if one is None:
                one = got
            why = close_rows(got, one, tol)
            if why:
                fail(f"{what}: thermo differs from one rank's: {why}")
            dump = os.path.join(THIN, f"lammps_{name}.dump")
            if os.path.exists(dump):
                why = close_rows(dump_numbers(os.path.join(d, f"{name}.dump")), dump_numbers(dump), 1e-8)
                if why:
                    fail(f"{what}: {name}.dump differs from lmp's: {why}")
            print(f"{what}: lmp's thermo rows" + (" and dump" if os.path.exists(dump) else ""))
    # A run restarted from its checkpoint ends byte-identical to the uninterrupted one (the restart rebuilds
    # the ghosts from the saved build positions): hops within the grid (in.cu4, 3 ranks) and round a box
    # thinner than the cutoff (in.slab, 2 ranks).
    for name, ranks, proc in (("cu4", 3, ""), ("slab", 2, "processors 1 1 2")):
        d = fresh(f"thin_restart_{name}")
        text = (proc + "\n" if proc else "") + "".join(
            ln for ln in open(os.path.join(THIN, "in." + name)).readlines() if not ln.startswith(("dump", "run")))
        write_file(d, "in.full", text + "run 60\nwrite_data full.data\n")
        write_file(d, "in.half", text + "run 30\nwrite_data half.data\n")
        for args in (["in.full", "--output", "full"], ["in.half", "--output", "half", "--set", "output.checkpoint_every=30"],
                     ["in.half", "--output", "second", "--restart", os.path.join("half", "checkpoint.h5")]):
            rc, out, err = run(ranks, ["run"] + args, d)
            if rc != 0:
                fail(f"in.{name} restart check on {ranks} ranks, {' '.join(args)}: exit {rc}\n{err}")
        if file_bytes(d, "full.data") != file_bytes(d, "half.data"):
            fail(f"in.{name} on {ranks} ranks: the run restarted at step 30 differs from the uninterrupted one")
        print(f"in.{name} on {ranks} ranks: restarted at step 30, byte-identical at step 60")
    # Deterministic mode: the same bytes whatever the rank count and grid, thin sub-domains or not.
    files = None
    for ranks, proc in ((1, ""), (2, ""), (3, ""), (4, ""), (4, "processors 1 1 4")):
        d = fresh(f"thin_det_{ranks}_{len(proc)}")
        write_file(d, "in.shrink", (proc + "\n" if proc else "") + open(os.path.join(THIN, "in.shrink")).read())
        rc, out, err = run(ranks, ["run", "in.shrink", "--set", "deterministic=true", "--output", "out"], d)
        if rc != 0:
            fail(f"deterministic in.shrink on {ranks} ranks: exit {rc}\n{err}")
        got = [file_bytes(d, f) for f in ("shrink.data", "shrink.dump", os.path.join("out", "thermo.csv"))]
        if files is None:
            files = got
        elif got != files:
            fail(f"deterministic in.shrink on {ranks} ranks ({proc or 'default grid'}): output differs from 1 rank")
    print("deterministic in.shrink: 1, 2, 3, 4 ranks (1 by 1 by 3, 1 by 2 by 2, 1 by 1 by 4) byte-identical")


def ghosts():
    # The ghost exchange against brute force on 2, 3 and 4 ranks (test_ghosts_mpi's cases on every rank):
    # sub-domains thinner than the cutoff, two per direction, boxes thinner than the cutoff, fixed faces.
    if not TEST_PROGRAM:
        fail("the ghosts case needs the test program (test_ghosts_mpi) as its last argument")
    d = fresh("ghosts")
    for n in (2, 3, 4):
        try:
            rc, out, err = run(n, ["--gtest_brief=1", "--gtest_color=no"], d, timeout=120, program=TEST_PROGRAM)
        except subprocess.TimeoutExpired:
            fail(f"{n} ranks: ghost exchange tests hung")
        if rc != 0:
            fail(f"{n} ranks: exit {rc}\n{out}\n{err}")
        passed = sum(1 for ln in out.splitlines() if ln.startswith("[  PASSED  ]"))
        if passed != n:
            fail(f"{n} ranks: {passed} ranks report their tests passed, expected {n}\n{out}")
        print(f"{n} ranks: ghost exchange matches brute force on every rank")


def comm():
    # Comm's operations (element-wise maxima and bitwise or, all_to_all, tagged messages, Requests, votes,
    # waited()) on 2, 3 and 4 ranks: every rank runs test_comm_mpi's cases and must pass them all.
    if not TEST_PROGRAM:
        fail("the comm case needs the test program (test_comm_mpi) as its last argument")
    d = fresh("comm")
    for n in (2, 3, 4):
        try:
            rc, out, err = run(n, ["--gtest_brief=1", "--gtest_color=no"], d, timeout=60, program=TEST_PROGRAM)
        except subprocess.TimeoutExpired:
            fail(f"{n} ranks: Comm tests hung")
        if rc != 0:
            fail(f"{n} ranks: exit {rc}\n{out}\n{err}")
        passed = sum(1 for ln in out.splitlines() if ln.startswith("[  PASSED  ]"))
        if passed != n:
            fail(f"{n} ranks: {passed} ranks report their tests passed, expected {n}\n{out}")
        print(f"{n} ranks: Comm's operations pass on every rank")


GEOMETRY = os.path.join(SOURCE, "tests", "data", "geometry")
# Every dump case of tests/data/geometry (validation/geometry/regenerate.sh); after 1100 steps of dynamics,
# positions agree to round-off only.
GEOMETRY_CASES = ["lattice_fcc_orient", "lattice_fcc_111", "lattice_fcc_spacing", "lattice_bcc", "lattice_diamond",
                  "lattice_hcp", "lattice_hcp_orient", "lattice_custom", "regions", "groups", "create_single_random",
                  "replicate", "random_choices", "overlap", "change_box", "sorted_compress", "examples_shear",
                  "examples_shear_void"]


def dump_frames(path):
    """A LAMMPS text dump as [(step, {id: [other columns as text]})]."""
    lines = open(path).read().splitlines()
    frames, i = [], 0
    while i < len(lines):
        if lines[i].startswith("ITEM: TIMESTEP"):
            step, n = int(lines[i + 1]), int(lines[i + 3])
            rows = {}
            for ln in lines[i + 9:i + 9 + n]:
                w = ln.split()
                rows[int(w[0])] = w[1:]
            frames.append((step, rows))
            i += 9 + n
        else:
            i += 1
    return frames


def same_atoms(ref, got, tol):
    """None when the frames hold the same ids with the same values (numbers within tol), else what differs."""
    if len(ref) != len(got):
        return f"{len(got)} frames, LAMMPS wrote {len(ref)}"
    for (s1, a), (s2, b) in zip(ref, got):
        if s1 != s2 or sorted(a) != sorted(b):
            return f"step {s2}: ids differ from LAMMPS's step {s1} ({len(b)} atoms, LAMMPS {len(a)})"
        for i in a:
            if any(abs(float(x) - float(y)) > tol for x, y in zip(a[i], b[i])) or len(a[i]) != len(b[i]):
                return f"step {s2}: atom {i} is {b[i]}, LAMMPS {a[i]}"
    return None


def geometry():
    # Lattices (orient, spacing, origin, basis), regions, groups, set, create_atoms, delete_atoms, replicate,
    # change_box and a dynamic group give LAMMPS's atoms, ids and types on 3 ranks (each rank keeps its own
    # atoms; ids follow one-rank LAMMPS), and the vacancy and interstitial energies agree within 1e-8 eV.
    d = fresh("geometry")
    for name in GEOMETRY_CASES + ["dynamic_group"]:
        shutil.copy(os.path.join(GEOMETRY, "in." + name), d)
        rc, out, err = run(3, ["run", "in." + name, "--output", "out_" + name], d)
        if rc != 0:
            fail(f"{name} on 3 ranks: exit {rc}\n{err}")
        tol = 1e-8 if name == "sorted_compress" else 0.0
        why = same_atoms(dump_frames(os.path.join(GEOMETRY, name + ".dump")), dump_frames(os.path.join(d, name + ".dump")),
                         tol)
        if why:
            fail(f"{name} on 3 ranks: {why}")
        print(f"{name}: LAMMPS's atoms on 3 ranks")
    energies = dict(ln.split() for ln in open(os.path.join(GEOMETRY, "energies.txt")))
    for name, ref in energies.items():
        shutil.copy(os.path.join(GEOMETRY, "in." + name), d)
        rc, out, err = run(3, ["run", "in." + name, "--output", "out_" + name], d)
        if rc != 0:
            fail(f"{name} on 3 ranks: exit {rc}\n{err}")
        lines = out.splitlines()
        last = [lines[k - 1] for k, ln in enumerate(lines) if ln.startswith("Loop time")][-1]
        e = float(last.split()[1])
        if abs(e - float(ref)) > 1e-8:
            fail(f"{name} on 3 ranks: energy {e!r}, LAMMPS {ref}")
        print(f"{name}: {e!r} eV on 3 ranks, LAMMPS {ref} (difference {e - float(ref):.2e})")


# An input whose relative file names (include, read_data, a file-style variable, pair_coeff's potential) name
# other files, or none, in each rank's working directory: every rank runs on rank 0's files, as LAMMPS reads
# input files on rank 0 and broadcasts them (md/programs/root_reads.hpp).
ROOT_READS_INPUT = ("units metal\natom_style atomic\nboundary p p p\nread_data data.in\ninclude part.in\n"
                    "pair_style eam/alloy\npair_coeff * * pot.eam.alloy Cu\nvariable t file vals.txt\n"
                    "velocity all create ${t} 4928459 loop all\nfix 1 all nve\ntimestep 0.002\n"
                    "thermo_style custom step atoms temp pe etotal press\nthermo_modify format float %.15g\n"
                    "thermo 5\nrun 10\n")


def fcc_data(cells, a):
    """A LAMMPS data file of a cubic fcc crystal of cells^3 cells."""
    basis = [(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)]
    rows = [(i + bx, j + by, k + bz) for i in range(cells) for j in range(cells) for k in range(cells)
            for bx, by, bz in basis]
    L = cells * a
    text = f"fcc\n\n{len(rows)} atoms\n1 atom types\n\n0 {L} xlo xhi\n0 {L} ylo yhi\n0 {L} zlo zhi\n\nAtoms # atomic\n\n"
    return text + "".join(f"{n + 1} 1 {x * a} {y * a} {z * a}\n" for n, (x, y, z) in enumerate(rows))


def thermo_rows(out):
    lines = out.splitlines()
    start = next(k for k, ln in enumerate(lines) if ln.split()[:1] == ["Step"])
    end = next(k for k, ln in enumerate(lines) if ln.startswith("Loop time"))
    return lines[start:end]


def run_mpmd(dirs, args, timeout=120):
    """One job whose rank r runs in directory dirs[r] (MPMD: one MPI_COMM_WORLD); (exit, stdout, stderr)."""
    cmd = [MPIEXEC, "--oversubscribe", "--allow-run-as-root"]
    for k, d in enumerate(dirs):
        cmd += ([":"] if k else []) + ["-np", "1", "--wdir", d, WAFERMD] + args
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        fail(f"ranks in {[os.path.basename(d) for d in dirs]}: no end within {timeout} s (a rank waits for another)")
    return p.returncode, out, err


def root_reads():
    d = fresh("root_reads")
    script = os.path.join(d, "in.files")
    write_file(d, "in.files", ROOT_READS_INPUT)
    pots = "/usr/share/lammps/potentials"
    if not os.path.exists(os.path.join(pots, "Cu_zhou.eam.alloy")):
        skip("needs Debian's LAMMPS potentials (Cu_zhou.eam.alloy, Cu_mishin1.eam.alloy)")
    a, b, empty = (os.path.join(d, n) for n in ("a", "b", "empty"))
    for x in (a, b, empty):
        os.makedirs(x)
    # Rank 0's files (a) and other ones (b): another mass, crystal, potential and temperature.
    write_file(a, "part.in", "mass 1 63.546\n")
    write_file(a, "data.in", fcc_data(4, 3.615))
    shutil.copy(os.path.join(pots, "Cu_zhou.eam.alloy"), os.path.join(a, "pot.eam.alloy"))
    write_file(a, "vals.txt", "# initial temperature\n600.0\n")
    write_file(b, "part.in", "mass 1 10.0\n")
    write_file(b, "data.in", fcc_data(3, 3.7))
    shutil.copy(os.path.join(pots, "Cu_mishin1.eam.alloy"), os.path.join(b, "pot.eam.alloy"))
    write_file(b, "vals.txt", "1500.0\n")
    args = ["run", script, "--output", "out"]
    for layout in ([a, b], [a, b, empty], [a, empty]):
        names = ", ".join(os.path.basename(x) for x in layout)
        rc, ref_out, err = run_mpmd([a] * len(layout), args)
        if rc != 0:
            fail(f"{len(layout)} ranks in a: exit {rc}\n{err}")
        rc, out, err = run_mpmd(layout, args)
        if rc != 0:
            fail(f"ranks in {names}: exit {rc}, expected 0\n{err}")
        if thermo_rows(out) != thermo_rows(ref_out):
            fail(f"ranks in {names}: thermo differs from every rank in a:\n" + "\n".join(thermo_rows(out)) +
                 "\nexpected\n" + "\n".join(thermo_rows(ref_out)))
        print(f"ranks in {names}: rank 0's files, the thermo of every rank in a")
    if thermo_rows(ref_out)[1].split()[1] != "256":
        fail("rank 0's data file (256 atoms) was not the one read:\n" + "\n".join(thermo_rows(ref_out)))
    # Rank 0 lacks the files the others have: its error on every rank, printed once, exit 2, at once.
    for layout in ([empty, a], [empty, a, b]):
        names = ", ".join(os.path.basename(x) for x in layout)
        t0 = time.monotonic()
        rc, out, err = run_mpmd(layout, args, timeout=60)
        took = time.monotonic() - t0
        errors = [ln for ln in err.splitlines() if ln.startswith("error:")]
        # Every rank has rank 0's error, so the line is not one rank's ("error: rank 0: ...").
        if rc != 2 or len(errors) != 1 or "data file 'data.in'" not in errors[0] or "rank" in errors[0] or took > 30:
            fail(f"ranks in {names}: exit {rc} after {took:.1f} s, expected 2 and one error line naming "
                 f"data.in (every rank's):\n{err}")
        print(f"ranks in {names}: {errors[0]} (exit 2, {took:.1f} s)")
    # A read one rank makes and the other does not (an include in a branch on the rank) stops both at once.
    write_file(d, "in.branch", "variable r getenv OMPI_COMM_WORLD_RANK\nif \"${r} == 1\" then \"include part.in\"\n"
               "print done\n")
    rc, out, err = run_mpmd([a, a], ["run", os.path.join(d, "in.branch"), "--output", "out"], timeout=60)
    errors = [ln for ln in err.splitlines() if ln.startswith("error:")]
    if rc != 2 or len(errors) != 1 or "the ranks run different commands" not in errors[0]:
        fail(f"an include on rank 1 only: exit {rc}, expected 2 and one error line:\n{err}")
    print(f"an include on rank 1 only: {errors[0]}")


{"lammps_digits": lammps_digits, "lammps_digits_targets": lammps_digits_targets, "mesh_bits": mesh_bits,
 "deterministic": deterministic, "grid_mismatch": grid_mismatch, "lost_atom": lost_atom, "failures_once": failures_once, "bad_restart": bad_restart, "mesh_tiled": mesh_tiled,
 "mesh_tiled_restart": mesh_tiled_restart, "mesh_shrink_wrap": mesh_shrink_wrap, "balance": balance,
 "fix_balance": fix_balance, "minimize_empty_rank": minimize_empty_rank, "comm": comm, "ghosts": ghosts,
 "thin_subdomains": thin_subdomains, "geometry": geometry, "root_reads": root_reads,
 "rank_failure_report": rank_failure_report}[CASE]()
