"""Start-up cost of the ``mundus`` command: CPU time of a fresh interpreter for each command.

Measures, interleaved in one run so that the ratios compare like with like:

- ``python -c "import mundus_net"`` (the engine alone: the floor a command cannot go under);
- ``mundus --help`` and ``mundus rules new --players 4 --seed 7`` (the lazy command table);
- ``mundus sim --help`` and ``mundus host --help`` (for contrast: a command module loaded).

Each figure is the median of the child's user + system CPU time (``resource.getrusage`` of
the children), which drifts less than wall time on a shared machine. The last line is JSON.

    python benchmarks/startup.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys

PYTHON = [sys.executable, "-P"]
CASES = {
    "import mundus_net": [*PYTHON, "-c", "import mundus_net"],
    "mundus --help": [*PYTHON, "-m", "mundus_net", "--help"],
    "mundus rules new": [*PYTHON, "-m", "mundus_net", "rules", "new", "--players", "4",
                         "--seed", "7"],
    "mundus sim --help": [*PYTHON, "-m", "mundus_net", "sim", "--help"],
    "mundus host --help": [*PYTHON, "-m", "mundus_net", "host", "--help"],
}
HEAVY = ("zmq", "prompt_toolkit", "cryptography", "sqlite3")


def cpu_of(command: list[str]) -> float:
    """CPU seconds (user + system) one run of ``command`` used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def heavy_modules(command: list[str]) -> list[str]:
    """Which of the heavy modules the command's interpreter had loaded at exit."""
    probe = ("import atexit, sys\n"
             f"atexit.register(lambda: print(sorted(m for m in {HEAVY!r} if m in sys.modules),"
             " file=sys.stderr))\n"
             f"sys.argv = {['mundus', *command[4:]]!r}\n"
             "import runpy; runpy.run_module('mundus_net', run_name='__main__')\n")
    if command[2] == "-c":
        probe = ("import sys\n" + command[3] + "\n"
                 f"print(sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)\n")
    run = subprocess.run([*PYTHON, "-c", probe], capture_output=True, text=True, timeout=60)
    return list(json.loads(run.stderr.strip().splitlines()[-1].replace("'", '"')))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="runs of each command")
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for i in range(args.repeat):
        for name, command in CASES.items():
            times[name].append(cpu_of(command))
        print(f"\rround {i + 1}/{args.repeat}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    floor = statistics.median(times["import mundus_net"])
    result: dict[str, object] = {"repeat": args.repeat}
    print(f"{'command':<22} {'CPU ms (median)':>16} {'x import':>9}  heavy modules loaded")
    for name, command in CASES.items():
        median = statistics.median(times[name])
        loaded = heavy_modules(command)
        print(f"{name:<22} {median * 1000:>16.1f} {median / floor:>9.2f}  "
              f"{', '.join(loaded) or '-'}")
        result[name] = {"cpu_ms": round(median * 1000, 1), "ratio": round(median / floor, 2),
                        "heavy": loaded}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
