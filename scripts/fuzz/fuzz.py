#!/usr/bin/env python3
"""Fuzzing harness of the contactuq command line: a seeded mutator of the shipped studies, of
result files and of measurement CSVs that runs every command with a time limit and classifies
each outcome.

    python3 scripts/fuzz/fuzz.py --cli build/release/contactuq --cases 300 --seed 1 -j 2

Outcomes:
  rejected  exit code 2 with one "contactuq: error:" line (or a usage error): a clean refusal
  ran       exit code 0 (a result), 1 (ran without a result: every case failed, or aborted), or
            130: a sample, nested or optimize study stopped by its --time-limit (3/4 of the case's
            limit), its file resumable
  crash     killed by a signal, an exit code other than 0, 1, 2 and 130, or a Python traceback
  hang      still running at the time limit (--timeout seconds; four times that for plot)
  nonsense  exit code 0 although every case failed, or a NaN/inf written to a CSV result
Every crash, hang and nonsense case is kept under WORKDIR/findings/<case>/ with the command
line to reproduce it. Exit status: 1 if any outcome listed in --fail-on occurred, else 0.
Standard library only (runs on a plain python3).
"""

import argparse
import concurrent.futures
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Shipped study -> subcommand that runs it.
STUDIES = {
    "quickstart.toml": "run",
    "switch_nominal.toml": "run",
    "switch_epistemic.toml": "run",
    "pinslot_uq.toml": "run",
    "williams_bifurcated.toml": "curve",
    "williams_flexure.toml": "curve",
    "williams_experiment.toml": "curve",
    "williams_sweep_mu.toml": "curve",
    "williams_sweep_phi.toml": "curve",
    "williams_sweep_theta0.toml": "curve",
    "impact_models.toml": "impact",
    "pinslot_validation.toml": "pinslot",
    "pinslot_contact_laws.toml": "pinslot",
    "receptacle_robust_design.toml": "optimize",
    "switch_robust_design.toml": "optimize",
    "fit_williams.toml": "fit",
}
COMMANDS = ["run", "curve", "impact", "pinslot", "optimize", "fit", "synthesize"]
EXTENSION = {"run": ".h5", "curve": ".csv", "impact": ".csv", "pinslot": ".h5", "optimize": ".h5", "fit": ".h5",
             "synthesize": ".csv"}

# --time-limit of sample, nested and optimize studies: 3/4 of the case's limit (set by main()).
RUN_TIME_LIMIT = [15.0]

# Smaller work so that an unmutated study runs in about a second: key -> largest value kept.
SHRINK = {"samples": 12, "points": 30, "curve_points": 30, "bootstrap": 20, "population": 5, "generations": 2,
          "evaluations": 10, "insertions": 2}

HOSTILE_VALUES = [
    "nan", "inf", "-inf", "1e308", "-1e308", "-1", "0", "1e-320", "9223372036854775807", "-9223372036854775808",
    "1000000000", "\"\"", "\"abc\"", "\"nan in\"", "\"inf deg\"", "\"1e308 ms\"", "\"1e30 ms\"", "\"-7e12 in\"",
    "\"0.3 furlong\"", "\"0.3\"", "\"in 0.3\"", "\"1e308 mm\"", "true", "[]", "{}", "[1, 2, \"x\"]",
    "\"/dev/zero\"", "\"/\"", "\"../../../../etc/passwd\"", "\"\\u0000\"", "\"é\"", "0.5", "2", "3.0",
]


def shrink(text):
    def small(m):
        key, value = m.group(1), int(m.group(2))
        return f"{key} = {min(value, SHRINK[key])}"
    text = re.sub(r"^(%s)\s*=\s*(\d+)" % "|".join(SHRINK), small, text, flags=re.M)
    return text.replace("\"60 ms\"", "\"6 ms\"")


def mutate_text(text, rng):
    """One to three mutations of a TOML study, as text."""
    lines = text.split("\n")
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        kind = rng.randrange(10)
        value_lines = [i for i, l in enumerate(lines) if re.match(r"^\s*[\w\"]+\s*=", l)]
        if kind <= 3 and value_lines:  # a hostile value
            i = rng.choice(value_lines)
            key = lines[i].split("=", 1)[0]
            lines[i] = f"{key}= {rng.choice(HOSTILE_VALUES)}"
        elif kind == 4 and lines:  # a line deleted
            del lines[rng.randrange(len(lines))]
        elif kind == 5 and lines:  # a line or table header duplicated
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
        elif kind == 6 and value_lines:  # an unknown key
            i = rng.choice(value_lines)
            lines[i] = "zz_" + lines[i].lstrip()
        elif kind == 7 and value_lines:  # a number scaled
            i = rng.choice(value_lines)
            lines[i] = re.sub(r"(\d+(\.\d+)?)", lambda m: repr(float(m.group(1)) * rng.choice([-1, 0, 1e3, 1e-9])),
                              lines[i], count=1)
        elif kind == 8:  # truncated
            joined = "\n".join(lines)
            lines = joined[: rng.randrange(len(joined) + 1)].split("\n")
        else:  # random bytes
            joined = "\n".join(lines)
            at = rng.randrange(len(joined) + 1)
            junk = "".join(chr(rng.randrange(1, 256)) for _ in range(rng.randrange(1, 8)))
            lines = (joined[:at] + junk + joined[at:]).split("\n")
    return "\n".join(lines)


def mutate_bytes(data, rng):
    """Damage of a binary result file: flipped bytes (in the superblock, a global heap or
    anywhere), a truncation or a zeroed range."""
    data = bytearray(data)
    kind = rng.randrange(5)
    if kind == 0:
        at = rng.randrange(min(len(data), 48))
        data[at] ^= 1 << rng.randrange(8)
    elif kind == 1:
        heaps = [m.start() for m in re.finditer(b"GCOL\x01\x00\x00\x00", data)]
        if heaps:
            at = rng.choice(heaps) + 16 + 8 + 24 * rng.randrange(4)
            if at < len(data):
                data[at] ^= 1 << rng.randrange(8)
    elif kind == 2:
        for _ in range(rng.randrange(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    elif kind == 3:
        del data[rng.randrange(len(data)):]
    else:
        at = rng.randrange(len(data))
        data[at:at + rng.randrange(1, 4096)] = bytes(min(len(data) - at, 4096))
    return bytes(data)


def mutate_csv(text, rng):
    kind = rng.randrange(8)
    if kind == 0:
        return text.replace("\n", "\r")  # CR-only line endings
    if kind == 1:
        return "\ufeff" + text  # UTF-8 byte order mark
    if kind == 2:
        return text.replace("\n", "\r\n")
    if kind == 3:
        return text[: rng.randrange(len(text) + 1)]
    if kind == 4:
        at = rng.randrange(len(text))
        return text[:at] + "".join(chr(rng.randrange(0, 256)) for _ in range(8)) + text[at:]
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    fields = lines[i].split(",")
    fields[rng.randrange(len(fields))] = rng.choice(["nan", "inf", "", "x", "1e308", "-0", "3,4", "\"q\""])
    lines[i] = ",".join(fields)
    return "\n".join(lines)


class Case:
    def __init__(self, index, rng, base):
        self.index = index
        self.rng = rng
        self.base = base
        self.files = {}  # name -> bytes
        self.args = []
        self.command = ""
        self.output = None  # file whose contents are checked for NaN/inf


def make_case(index, seed, base, results):
    rng = random.Random(f"{seed}-{index}")
    case = Case(index, rng, base)
    roll = rng.random()
    if roll < 0.62 or not results:  # a mutated study
        name = rng.choice(sorted(STUDIES))
        command = STUDIES[name]
        text = shrink(open(os.path.join(ROOT, "studies", name), encoding="utf-8").read())
        # Data files are found relative to the study: keep them where the shipped one points.
        text = text.replace("../data/", os.path.join(ROOT, "data") + "/")
        if rng.random() < 0.05:
            command = rng.choice(COMMANDS)  # sent to the wrong subcommand
        case.files["study.toml"] = mutate_text(text, rng).encode("utf-8", "surrogateescape")
        case.command = command
        out = "out" + EXTENSION[command]
        case.args = [command, "study.toml", "-o", out]
        if command in ("run", "optimize"):
            case.args += ["-j", "1"]
            if command == STUDIES[name]:  # a sampling or optimize study stops itself inside the case's limit
                case.args += ["--time-limit", f"{RUN_TIME_LIMIT[0]:g}"]
        if command == "run" and rng.random() < 0.1:
            case.args += ["--resume"]
        case.output = out
    elif roll < 0.70:  # a synthesize spec
        text = open(os.path.join(ROOT, "data", "insertion", "williams_synthetic.toml"), encoding="utf-8").read()
        text = re.sub(r"points = \d+", "points = 20", text)
        case.files["spec.toml"] = mutate_text(text, rng).encode("utf-8", "surrogateescape")
        case.command = "synthesize"
        case.args = ["synthesize", "spec.toml", "-o", "out.csv"]
        case.output = "out.csv"
    elif roll < 0.80:  # a measurement CSV for fit
        csv = open(os.path.join(ROOT, "data", "insertion", "williams_synthetic.csv"), encoding="utf-8").read()
        study = shrink(open(os.path.join(ROOT, "studies", "fit_williams.toml"), encoding="utf-8").read())
        study = re.sub(r"files = \[[^\]]*\]", "files = [\"data.csv\"]", study)
        case.files["study.toml"] = study.encode("utf-8")
        case.files["data.csv"] = mutate_csv(csv, rng).encode("utf-8", "surrogateescape")
        case.command = "fit"
        case.args = ["fit", "study.toml", "-o", "out.h5"]
    else:  # a damaged result file
        name, study_text = rng.choice(results)
        case.files["result.h5"] = mutate_bytes(open(name, "rb").read(), rng)
        which = rng.random()
        if which < 0.4:
            case.command, case.args = "summarize", ["summarize", "result.h5"]
        elif which < 0.65:
            case.command, case.args = "summarize", ["summarize", "result.h5", "--json"]
        elif which < 0.9 and study_text is not None:
            case.files["study.toml"] = study_text
            case.command, case.args = "run --resume", ["run", "study.toml", "-o", "result.h5", "--resume", "-j", "1"]
        else:
            case.command, case.args = "plot", ["plot", "result.h5", "-o", "plots"]
    return case


NONFINITE = re.compile(r"(?<![\w.])[-+]?(nan|inf|infinity)(?![\w])", re.I)


def classify(case, rc, text, workdir, timed_out):
    if timed_out:
        return "hang"
    if rc < 0 or rc not in (0, 1, 2, 130) or "Traceback (most recent call last)" in text or \
            "AddressSanitizer" in text or "runtime error:" in text:
        return "crash"
    if rc == 2:
        return "rejected"
    if rc == 0:
        m = re.search(r"failed samples: (\d+) of (\d+)", text)
        if m and m.group(1) == m.group(2) and int(m.group(2)) > 0:
            return "nonsense"
        if re.search(r"status: 0 ok", text):
            return "nonsense"
        if case.output and case.output.endswith(".csv"):
            path = os.path.join(workdir, case.output)
            if os.path.isfile(path):
                with open(path, encoding="utf-8", errors="replace") as f:
                    body = "\n".join(l for l in f.read().split("\n") if not l.startswith("#"))
                if NONFINITE.search(body):
                    return "nonsense"
    return "ran"


def run_case(case, cli, timeout, root_dir, keep_all):
    workdir = os.path.join(root_dir, f"case{case.index:06d}")
    os.makedirs(workdir, exist_ok=True)
    for name, data in case.files.items():
        with open(os.path.join(workdir, name), "wb") as f:
            f.write(data)
    env = dict(os.environ, OMP_NUM_THREADS="1", MPLBACKEND="Agg")
    started = time.monotonic()
    timed_out = False
    proc = subprocess.Popen([cli] + case.args, cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env=env, start_new_session=True)
    try:
        # Drawing a figure per output in matplotlib takes seconds: plot gets a longer limit.
        out, _ = proc.communicate(timeout=timeout * (4 if case.command == "plot" else 1))
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    seconds = time.monotonic() - started
    text = out.decode("utf-8", "replace")
    outcome = classify(case, proc.returncode, text, workdir, timed_out)
    if outcome in ("crash", "hang", "nonsense"):
        findings = os.path.join(root_dir, "findings", f"case{case.index:06d}-{outcome}")
        shutil.rmtree(findings, ignore_errors=True)
        shutil.copytree(workdir, findings)
        with open(os.path.join(findings, "README.txt"), "w", encoding="utf-8") as f:
            f.write(f"{outcome} (exit {proc.returncode}, {seconds:.1f} s)\ncd {findings} && {cli} "
                    f"{' '.join(case.args)}\n\n{text[-4000:]}")
    if not keep_all:
        shutil.rmtree(workdir, ignore_errors=True)
    first_line = text.strip().split("\n")[-1][:160] if text.strip() else ""
    return outcome, proc.returncode, seconds, first_line


def make_results(cli, root_dir):
    """Small finished and interrupted result files to damage: (path, study text or None)."""
    results = []
    base = os.path.join(root_dir, "results")
    os.makedirs(base, exist_ok=True)
    for name in ("quickstart.toml", "switch_nominal.toml"):
        text = shrink(open(os.path.join(ROOT, "studies", name), encoding="utf-8").read())
        study = os.path.join(base, name)
        with open(study, "w", encoding="utf-8") as f:
            f.write(text)
        out = os.path.join(base, name.replace(".toml", ".h5"))
        if subprocess.run([cli, "run", study, "-o", out, "-q", "-j", "1", "--force"], capture_output=True,
                          timeout=120).returncode == 0:
            results.append((out, text.encode("utf-8")))
    for name in ("pinslot_validation.toml",):
        text = shrink(open(os.path.join(ROOT, "studies", name), encoding="utf-8").read())
        study = os.path.join(base, name)
        with open(study, "w", encoding="utf-8") as f:
            f.write(text)
        out = os.path.join(base, name.replace(".toml", ".h5"))
        if os.path.exists(out):
            os.remove(out)
        if subprocess.run([cli, "pinslot", study, "-o", out], capture_output=True, timeout=120).returncode == 0:
            results.append((out, None))
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "release", "contactuq"))
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per case")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--workdir", help="where cases run and findings are kept (default: a temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep every case's folder")
    parser.add_argument("--fail-on", default="crash,hang,nonsense",
                        help="outcomes that make the exit status 1 (comma-separated, or 'none')")
    parser.add_argument("--only", help="only cases of this command (e.g. run, summarize, plot)")
    args = parser.parse_args(argv)

    cli = os.path.abspath(args.cli)
    RUN_TIME_LIMIT[0] = 0.75 * args.timeout
    root_dir = args.workdir or tempfile.mkdtemp(prefix="contactuq-fuzz-")
    os.makedirs(root_dir, exist_ok=True)
    started = time.monotonic()
    results = make_results(cli, root_dir)
    cases = [make_case(i, args.seed, root_dir, results) for i in range(args.cases)]
    if args.only:
        cases = [c for c in cases if c.command == args.only]
    table = {}
    outcomes = {}
    slowest = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_case, c, cli, args.timeout, root_dir, args.keep): c for c in cases}
        for future in concurrent.futures.as_completed(futures):
            case = futures[future]
            outcome, rc, seconds, last = future.result()
            row = table.setdefault(case.command, {})
            row[outcome] = row.get(outcome, 0) + 1
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            slowest.append((seconds, case.index, case.command))
            if outcome in ("crash", "hang", "nonsense"):
                print(f"case {case.index} {case.command}: {outcome} (exit {rc}, {seconds:.1f} s): {last}", flush=True)

    kinds = ["rejected", "ran", "crash", "hang", "nonsense"]
    print(f"\n{len(cases)} cases, seed {args.seed}, {time.monotonic() - started:.0f} s, limit {args.timeout:g} s per "
          f"case, in {root_dir}")
    print(f"{'command':<14}" + "".join(f"{k:>10}" for k in kinds))
    for command in sorted(table):
        print(f"{command:<14}" + "".join(f"{table[command].get(k, 0):>10}" for k in kinds))
    print(f"{'total':<14}" + "".join(f"{outcomes.get(k, 0):>10}" for k in kinds))
    slowest.sort(reverse=True)
    print("slowest: " + ", ".join(f"case {i} {c} {s:.1f} s" for s, i, c in slowest[:5]))
    fail_on = set() if args.fail_on == "none" else set(args.fail_on.split(","))
    bad = sum(outcomes.get(k, 0) for k in fail_on)
    if not args.workdir and not args.keep and bad == 0:
        shutil.rmtree(root_dir, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
