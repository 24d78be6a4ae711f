"""Attack and fault harness (issue 13; docs/security.md, "Under load and attack").

Each scenario plays the same fixed-seed table (5 seats: 2 host bots, 2 honest network
players, and 1 seat played by the attacker's own bot, which plays honestly) while an
attacker on loopback does one kind of harm, and prints per scenario: messages (or bytes)
the attacker sent, the host's peak memory, the honest players' decision latency (from
sending a decision to its ``ok``, p50 and p95) against the same table unattacked in the same
run, whether the result equals the unattacked one, whether the record verifies, and
whether the host crashed. Targets: no crash, peak memory within the unattacked peak plus
``MEMORY_MARGIN_MB``, the same result, honest p95 at most 5 times the unattacked p95.

Bounded: each attack stops after ``--attack-seconds`` (and its own message budget) or at
the end of the game, and everything binds and connects to 127.0.0.1 only (the host runs with
``--bind 127.0.0.1 --no-beacon``), and every wait has a deadline: a player still silent at
the end is named, with what it was waited for, in its scenario's ``crash`` line. The last
line printed is one JSON object with every figure. Run: ``python benchmarks/attack.py``
(``--quick``: a shorter run, ``--scenario``: some scenarios only, ``--busy 2``: every
scenario, the baseline too, with two busy loops beside the host for the length of the game:
a party's laptop short of CPU).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import random
import re
import shlex
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, cast

import msgpack
import zmq

from mundus_net.bots.base import load_bot
from mundus_net.client.connection import Connection, ConnectTimeout, HostError
from mundus_net.client.core import ClientSettings
from mundus_net.client.notices import TAKEN_OVER, Accepted, Gone
from mundus_net.engine.view import PlayerView
from mundus_net.host.gamelog import mark_path, write_mark
from mundus_net.protocol.messages import PROTOCOL_VERSION
from mundus_net.protocol.security import make_client

ROOT = Path(__file__).resolve().parent.parent
MUNDUS = [sys.executable, "-m", "mundus_net"]
SEED = 2026
MEMORY_MARGIN_MB = 64.0
LATENCY_FACTOR = 5.0
WAIT = 60.0
# What the players of a table are waited for after the attack, at most (then named as
# silent): the game's end (a --quick game of 5 rounds takes 10-15 s), or the rewind (the
# rollback's players name it on the resumed host's first snapshot: WAIT).
GAME_WAIT = 300.0
QUICK_GAME_WAIT = 120.0
V = PROTOCOL_VERSION  # in the attackers' hand-made messages
BOT_PACE = 0.08  # seconds between host-bot decisions: a game of about 15 s, for attacks to hit
QUICK_BOT_PACE = 0.02
# --quick plays this many rounds (disk-full needs round 3): a scenario then takes half the
# time, the figures are the same kind. Not the rollback: its players leave at the rewind.
QUICK_ROUNDS = 5
PLAYER_ROLES = ("honest", "honest", "attacker")  # the network seats, in joining order
HELD_SUBSCRIBERS = 400  # subscriber churn: connections kept open at once (files: 1,024)
BUSY_SECONDS = 600.0  # --busy loops stop by themselves after this, whatever happens
# --table-nice: the niceness of the host and the honest players' processes (a diagnostic:
# below 0, needs root, they come before the attacker and everyone else for the CPU)
TABLE_NICE = [0]
# --decision-waits: each honest player reads the run-queue waits of its threads and the
# host's around every decision (a diagnostic: the reading itself slows the players down)
DECISION_WAITS = [False]
Message = dict[str, Any]


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _free_port() -> int:
    """A port with the next two free too (the host uses PORT, PORT+1, PORT+2)."""
    for _ in range(200):
        port = random.randrange(20000, 60000)
        try:
            for offset in range(3):
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", port + offset))
        except OSError:
            continue
        return port
    raise RuntimeError("no free ports")


ZMQ_IO = "ZMQbg/IO"  # how ZeroMQ's I/O threads are named (where CURVE runs)


def _tasks(pid: int) -> dict[str, tuple[str, float, float, int]]:
    """Each thread of process ``pid``: its name, the seconds it ran on a CPU, the seconds it
    waited in the run queue for one, and how many times it was given one
    (``/proc/PID/task/TID/schedstat``), by thread id."""
    tasks: dict[str, tuple[str, float, float, int]] = {}
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            ran, waited, slices = (task / "schedstat").read_text().split()[:3]
            name = (task / "comm").read_text().strip()
        except (OSError, ValueError):
            continue
        tasks[task.name] = (name, int(ran) / 1e9, int(waited) / 1e9, int(slices))
    return tasks


class TaskClock:
    """The CPU seconds and run-queue seconds (ready, waiting for a CPU) of every process of a
    table while it plays: the attacker (this process: the attacks run in its main thread and
    its ZeroMQ context's I/O thread), the host (its Python threads apart from ZeroMQ's I/O
    thread), the honest players (their two processes), the attacker's seat and the busy
    loops. Threads are sampled with the host's memory (every 0.5 s): a thread's last half
    second may be missed. The harness's own threads count from the table's start."""

    def __init__(self, busy: list[int]) -> None:
        self.busy = busy
        self.seen: dict[tuple[str, str], tuple[float, float, int]] = {}  # (kind, tid): last
        self.start = {tid: row[1:] for tid, row in _tasks(os.getpid()).items()}

    def sample(self, table: Table) -> None:
        pids: list[tuple[str, int]] = [("attacker", os.getpid()), ("host", table.host.pid)]
        pids += [("honest" if i < 2 else "seat", proc.pid)
                 for i, (proc, _) in enumerate(table.players) if proc.pid is not None]
        pids += [("busy", pid) for pid in self.busy]
        for kind, pid in pids:
            for tid, (name, ran, waited, slices) in _tasks(pid).items():
                label = kind
                if kind == "attacker":
                    ran0, waited0, slices0 = self.start.get(tid, (0.0, 0.0, 0))
                    ran, waited, slices = ran - ran0, waited - waited0, slices - slices0
                elif kind == "host":
                    label = "host_zmq" if name.startswith(ZMQ_IO) else "host_python"
                self.seen[(label, tid)] = (ran, waited, slices)

    def totals(self) -> dict[str, dict[str, float]]:
        """Per kind: ``cpu`` and ``runq`` seconds (run queue: ready to run, waiting for a
        CPU), and ``wait_ms``, the mean wait each time one of its threads was given a CPU."""
        out: dict[str, dict[str, float]] = {}
        for (kind, _), (ran, waited, slices) in self.seen.items():
            row = out.setdefault(kind, {"cpu": 0.0, "runq": 0.0, "slices": 0})
            row["cpu"] += ran
            row["runq"] += waited
            row["slices"] += slices
        return {k: {"cpu": round(row["cpu"], 2), "runq": round(row["runq"], 2),
                    "wait_ms": round(1000 * row["runq"] / max(1, row["slices"]), 2)}
                for k, row in sorted(out.items())}


# -- the honest side --------------------------------------------------------------------------

def _take_back(address: str, key: str, name: str, token: str, until: float
               ) -> tuple[Connection | None, int]:
    """What the owner of a seat taken over does (``mundus bot --take-over`` run again): a new
    program takes the seat over, waiting as long as the host says when it refuses
    (``rate_limited``), until ``until``. Returns the connection (None: not taken back) and
    the hellos it took."""
    tries = 0
    while time.monotonic() < until:
        tries += 1
        conn = Connection(address, ClientSettings(name, bot=True, take_over=True),
                          token=token, server_key=key)
        try:
            conn.connect(min(WAIT, max(1.0, until - time.monotonic())))
            return conn, tries
        except HostError as exc:
            said = re.search(r"in (\d+) s", exc.message)
            time.sleep(min(10.0, float(said.group(1))) if said else 0.5)
        except ConnectTimeout:
            pass
        conn.close()
    return None, tries


def _await_answer(conn: Connection, request: int, pending: int,
                  poll: Callable[[float], list[Any]], until: float) -> bool:
    """Wait for the ``ok`` to decision request ``request`` (to pending decision ``pending``):
    True when it came. False as soon as it cannot come: refused, the host moved on, the game
    over or the link closed, or the request forgotten, which a reconnect does (the client
    sends its hello again and the decision is open again: a host killed before it answered,
    or a rolled-back host, which the client names as a rewind and answers nothing after),
    or at ``until``."""
    core = conn.core
    while core.waiting_for(request) and core.result is None and not core.closed \
            and core.rewind is None and time.monotonic() < until:
        notices = poll(min(5.0, max(0.0, until - time.monotonic())))
        if any(isinstance(n, Accepted) and n.id == request for n in notices):
            return True
        if core.ready is not None and core.ready.id != pending:
            break  # refused, or the host moved on
    return False


def _runq(pid: int) -> tuple[float, float]:
    """The seconds the threads of process ``pid`` have waited in the run queue so far: its
    ZeroMQ I/O threads', the others'."""
    io = other = 0.0
    for name, _, waited, _ in _tasks(pid).values():
        if name.startswith(ZMQ_IO):
            io += waited
        else:
            other += waited
    return io, other


def _waited(before: tuple[float, float], now: tuple[float, float]) -> tuple[float, float]:
    return now[0] - before[0], now[1] - before[1]


def _honest(pipe: Any, address: str, key: str, name: str, seed: int, role: str,
            host_pid: int) -> None:
    """One network player (greedy, seeded): plays to the end, then sends back its decision
    latencies (seconds), with --decision-waits for each decision the seconds this process's
    threads and the host's (its ZeroMQ I/O thread, its other threads) waited in the run queue
    meanwhile (read before the decision is sent and after its ``ok``), and the result.
    ``role`` "attacker" is the attacker's own seat, played the same way (its token goes back
    first, for the attacks that need one); when its seat is taken over (the flip storm steals
    its token), it takes the seat back as its owner would and says how (``taken_back``)."""
    if TABLE_NICE[0] and role == "honest":
        os.nice(TABLE_NICE[0])
    conn = Connection(address, ClientSettings(name, bot=True), server_key=key)
    conn.connect(WAIT)
    token = conn.core.token
    assert token is not None
    pipe.send(("joined", token))  # the next player joins only now: seats in order
    bot = load_bot("greedy", seed)
    latencies: list[float] = []
    waits: list[tuple[float, float, float, float]] = []  # latency, mine, host I/O, host rest
    deadline = time.monotonic() + 600
    taken_back: list[int] = []  # hellos each taking back took
    taken = False  # the seat was taken over (the link's last notice said so)

    def poll(timeout: float) -> list[Any]:
        nonlocal taken
        notices = conn.poll(timeout)
        taken = taken or any(isinstance(n, Gone) and n.why == TAKEN_OVER for n in notices)
        return notices

    try:
        while conn.core.result is None and time.monotonic() < deadline:
            if conn.core.rewind is not None:  # the host went back in time: say so, and leave
                pipe.send(("rewound", latencies, conn.core.rewind.sentence))
                return
            if conn.core.closed:
                if role != "attacker" or not taken:
                    break
                taken = False
                conn.close()
                back, tries = _take_back(address, key, name, token, deadline)
                if back is None:
                    break
                conn = back
                taken_back.append(tries)
                continue
            pending = conn.core.ready
            if pending is None:
                poll(0.5)
                continue
            decision = bot.decide(cast(PlayerView, conn.core.view()), pending.legal)
            if DECISION_WAITS[0]:
                mine, host = _runq(os.getpid()), _runq(host_pid)
            start = time.perf_counter()
            request = conn.decide(decision)
            if _await_answer(conn, request, pending.id, poll, deadline):
                latencies.append(time.perf_counter() - start)
                if DECISION_WAITS[0]:
                    waits.append((latencies[-1], sum(_waited(mine, _runq(os.getpid()))),
                                  *_waited(host, _runq(host_pid))))
        result = conn.core.result
        pipe.send(("done", latencies, None if result is None else
                   {"winners": list(result.winners), "doubloons": list(result.doubloons),
                    "rounds": result.rounds}, taken_back, waits))
    finally:
        conn.close()


# -- a table ----------------------------------------------------------------------------------

@dataclass
class Outcome:
    scenario: str
    sent: int = 0  # the attacker's messages (or connections, bytes: see ``unit``)
    unit: str = "messages"
    peak_mb: float = 0.0
    latencies: list[float] = field(default_factory=list)
    result: Message | None = None
    verified: bool = False
    crashed: str | None = None
    seconds: float = 0.0
    note: str = ""
    not_played: str | None = None  # why the scenario could not be played on this machine
    rewound: int = 0  # players (the attacker's seat too) whose client named a rewind
    expect_rewind: bool = False  # the rollback: judged on the rewind being seen by all
    host_cpu: dict[str, float] = field(default_factory=dict)  # seconds: ZeroMQ I/O, the rest
    # CPU and run-queue seconds of each kind of process (TaskClock), and the machine's load
    # (1-minute average) when the scenario started: others' work shares the CPU too
    tasks: dict[str, dict[str, float]] = field(default_factory=dict)
    load: float = 0.0
    # --decision-waits: per honest decision, its latency and the run-queue waits meanwhile of
    # the player's threads, the host's ZeroMQ I/O thread and the host's other threads (s)
    waits: list[tuple[float, float, float, float]] = field(default_factory=list)
    taken_back: list[int] = field(default_factory=list)  # the owner's take-backs (hellos each)
    owner_finished: bool = False  # the attacker's own seat's process saw the end, seated

    def slow_waits(self) -> tuple[float, ...] | None:
        """The slowest tenth of the honest decisions (latency at or above p90): how many, and
        their mean latency and mean run-queue waits (ms, as in ``waits``): where the slow
        decisions' time went."""
        if not self.waits:
            return None
        cut = sorted(w[0] for w in self.waits)[int(0.9 * len(self.waits))]
        slow = [w for w in self.waits if w[0] >= cut]
        return (len(slow), *(1000 * sum(w[i] for w in slow) / len(slow) for i in range(4)))

    def p(self, q: float) -> float | None:
        if not self.latencies:
            return None
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


class Table:
    """A host process with its honest players, and what the attacker needs to know."""

    def __init__(self, work: Path, bot_pace: float = BOT_PACE,
                 state_dir: Path | None = None, rounds: int | None = None,
                 busy: list[int] | None = None) -> None:
        self.work = work
        self.tasks = TaskClock(busy or [])
        self.players: list[tuple[Any, Any]] = []
        self.port = _free_port()
        self.record = work / "record.json"
        self.state_dir = state_dir or work / "state"
        work.mkdir(parents=True, exist_ok=True)
        self.output: list[str] = []
        self.start_host(
            [*MUNDUS, "host", "--lang", "en", "--bind", "127.0.0.1", "--no-beacon", "--port",
             str(self.port),
             "--seats", "5", "--bots", "2", "--seed", str(SEED), "--fixed-seed",
             "--record", str(self.record), "--state-dir", str(self.state_dir),
             "--name", "attack table", "--bot-pace", str(bot_pace),
             *(["--round-limit", str(rounds)] if rounds is not None else [])])
        self.address = self.wait_line(r"join at (tcp://\S+)").group(1)
        self.key = self.wait_line(r"^host key: (\S{40})").group(1)
        self.sign_key = self.wait_line(r"^record signing key: ([0-9a-f]{64})").group(1)
        self.peak_kb = 0
        self._sampling = True
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()
        ctx = multiprocessing.get_context("fork")
        for index, role in enumerate(PLAYER_ROLES):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_honest, daemon=True,
                               args=(child, self.address, self.key, f"{role} {index}",
                                     SEED + index, role, self.host.pid))
            proc.start()
            self.players.append((proc, parent))
            if not parent.poll(WAIT):
                raise TimeoutError(f"{role} {index} did not join")
            self.token = str(parent.recv()[1])  # the last one is the attacker's seat

    def start_host(self, command: list[str]) -> None:
        """Start (or, after a stop, resume) the host process: its output read, its memory
        sampled."""
        self.host = subprocess.Popen(
            command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            preexec_fn=partial(os.nice, TABLE_NICE[0]) if TABLE_NICE[0] else None,
            stderr=open(self.work / "host.err", "a"), text=True,  # noqa: SIM115 (kept open)
            env={**os.environ, "XDG_STATE_HOME": str(self.work / "xdg")})
        threading.Thread(target=self._read, args=(self.host,), daemon=True).start()
        if hasattr(self, "_sampler"):  # a resumed host: sample the new process too
            self._sampler = threading.Thread(target=self._sample, daemon=True)
            self._sampler.start()

    def _read(self, host: subprocess.Popen[str]) -> None:
        assert host.stdout is not None
        for line in host.stdout:
            self.output.append(line.rstrip("\n"))

    def wait_line(self, pattern: str, since: int = 0) -> re.Match[str]:
        """The first line of the host's output from line ``since`` on that matches
        ``pattern``, waited for WAIT seconds at most."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            for line in self.output[since:]:
                found = re.search(pattern, line)
                if found:
                    return found
            if self.host.poll() is not None:
                raise RuntimeError(f"the host exited: {(self.work / 'host.err').read_text()}")
            time.sleep(0.05)
        raise TimeoutError(f"no line matching {pattern!r} in {WAIT:g} s: {self.output[since:]}")

    def _sample(self) -> None:
        host = self.host
        status = Path(f"/proc/{host.pid}/status")
        turn = 0
        while self._sampling and host.poll() is None:
            try:
                for line in status.read_text().splitlines():
                    if line.startswith(("VmHWM:", "VmRSS:")):
                        self.peak_kb = max(self.peak_kb, int(line.split()[1]))
            except (OSError, ValueError):
                return
            if turn % 10 == 0:
                self.tasks.sample(self)
            turn += 1
            time.sleep(0.05)


    @property
    def over(self) -> bool:
        return all(not proc.is_alive() or pipe.poll() for proc, pipe in self.players[:2])

    def finish(self, outcome: Outcome, seconds: float) -> Outcome:
        """Collect what each player process says (its end of the game, or the rewind it
        saw), waiting ``seconds`` at most in all: a player silent by then is named in
        ``outcome.crashed``, and killed."""
        deadline = time.monotonic() + seconds
        silent: list[str] = []
        for index, (proc, pipe) in enumerate(self.players):
            while time.monotonic() < deadline and not pipe.poll(1.0):
                if not proc.is_alive():
                    break
            if not pipe.poll(0):
                silent.append(f"{PLAYER_ROLES[index]} {index} (pid {proc.pid}, "
                              f"{'running' if proc.is_alive() else 'exited'})")
            else:
                message = pipe.recv()
                if message[0] == "rewound":
                    outcome.rewound += 1
                    outcome.note = f"every client said: {message[2]}"
                if message[0] == "done" and proc is not self.players[2][0]:
                    outcome.latencies.extend(message[1])
                    outcome.waits.extend(message[4])
                    outcome.result = outcome.result or message[2]
                elif message[0] == "done":  # the attacker's own seat: was it taken back?
                    outcome.taken_back = message[3]
                    outcome.owner_finished = message[2] is not None
            proc.join(5)
            if proc.is_alive():
                proc.kill()
        if silent:
            outcome.crashed = (f"harness: no word in {seconds:.0f} s from "
                               f"{', '.join(silent)}, waited for "
                               + ("the rewind named" if outcome.expect_rewind else
                                  "the end of the game"))
        if outcome.expect_rewind:  # the players left the rewound host: stop it ourselves
            self.host.terminate()
        try:
            code = self.host.wait(60)
        except subprocess.TimeoutExpired:
            self.host.kill()
            code = self.host.wait(10)
            outcome.crashed = "the host did not stop after the game"
        self._sampling = False
        outcome.peak_mb = self.peak_kb / 1024
        outcome.tasks = self.tasks.totals()
        # the host's CPU seconds: ZeroMQ's I/O threads (CURVE runs there), the rest (the
        # game's thread, the publisher's, the key port's)
        outcome.host_cpu = {kind: outcome.tasks.get(f"host_{name}", {}).get("cpu", 0.0)
                            for kind, name in (("zmq_io", "zmq"), ("python", "python"))}
        if outcome.expect_rewind:
            return outcome  # no result, no record: what counts is who saw the rewind
        if code not in (0, None) and outcome.crashed is None:
            outcome.crashed = f"the host exited with status {code}"
        if outcome.result is None and outcome.crashed is None:
            outcome.crashed = "the game did not end for the honest players"
        if self.record.exists():
            check = subprocess.run([*MUNDUS, "verify", str(self.record), "--host-key",
                                    self.sign_key], cwd=ROOT, capture_output=True, text=True,
                                   timeout=120)
            outcome.verified = check.returncode == 0
            if not outcome.verified:
                said = (check.stdout + check.stderr).strip().splitlines()
                # Its last line, wrapped at 80 columns (the rest indented), joined again.
                at = max((i for i, line in enumerate(said) if not line.startswith(" ")),
                         default=0)
                outcome.note = " ".join(x.strip() for x in said[at:]) or "verify failed"
        else:
            outcome.note = "no record written"
        return outcome

    def kill(self) -> None:
        self._sampling = False
        for proc, _ in self.players:
            if proc.is_alive():
                proc.kill()
        if self.host.poll() is None:
            self.host.kill()


# -- the attacks --------------------------------------------------------------------------------

Attack = Callable[[Table, float, bool], tuple[int, str]]


def _until(table: Table, seconds: float) -> Callable[[], bool]:
    """Whether the attack goes on: until its time is up or the game is over."""
    stop = time.monotonic() + seconds
    return lambda: time.monotonic() < stop and not table.over


def _curve(ctx: zmq.Context[Any], kind: int, table: Table, port: int) -> zmq.Socket[Any]:
    sock: zmq.Socket[Any] = ctx.socket(kind)
    sock.setsockopt(zmq.LINGER, 0)
    make_client(sock, table.key)
    sock.connect(f"tcp://127.0.0.1:{port}")
    return sock


def attack_none(table: Table, seconds: float, quick: bool) -> tuple[int, str]:
    return 0, "messages"


def attack_subscriptions(table: Table, seconds: float, quick: bool) -> tuple[int, str]:
    """Long distinct subscriptions to the PUB, from connection after connection."""
    budget = (4 if quick else 64) * 1024 * 1024  # bytes
    sent = 0
    going = _until(table, seconds)
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        n = 0
        while sent < budget and going():
            sock = _curve(ctx, zmq.XSUB, table, table.port + 1)
            sock.setsockopt(zmq.SNDHWM, 1000)
            for _ in range(2000):
                topic = b"\x01" + n.to_bytes(8, "big") * 50  # 401 bytes, all distinct
                n += 1
                try:
                    sock.send(topic, zmq.NOBLOCK)
                except zmq.Again:
                    break
                sent += len(topic)
            time.sleep(0.05)
            sock.close(linger=0)
    finally:
        ctx.destroy(linger=0)
    return sent, "bytes"


def attack_chat(table: Table, seconds: float, quick: bool) -> tuple[int, str]:
    """The attacker's seat token chatting from ever new connections."""
    sent = 0
    going = _until(table, seconds)
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        while going() and sent < (2_000 if quick else 60_000):
            sock = _curve(ctx, zmq.DEALER, table, table.port)
            sock.send(msgpack.packb({"v": V, "t": "hello", "name": "chatter", "role": "player",
                                     "token": table.token}))
            for i in range(100):
                sock.send(msgpack.packb({"v": V, "t": "chat", "token": table.token,
                                         "text": f"spam {i} " + "x" * 180}))
                sent += 1
            time.sleep(0.01)
            sock.close(linger=0)
    finally:
        ctx.destroy(linger=0)
    return sent, "messages"


def attack_snapshots(table: Table, seconds: float, quick: bool) -> tuple[int, str]:
    """Spectators asking for snapshots and never reading the replies."""
    sent = 0
    going = _until(table, seconds)
    ctx: zmq.Context[Any] = zmq.Context()
    socks = []
    try:
        for _ in range(20 if quick else 60):
            sock = _curve(ctx, zmq.DEALER, table, table.port)
            sock.setsockopt(zmq.RCVHWM, 1)
            sock.setsockopt(zmq.RCVBUF, 4096)
            sock.send(msgpack.packb({"v": V, "t": "hello", "name": "watcher",
                                     "role": "spectator"}))
            socks.append(sock)
        while going():
            for sock in socks:
                for _ in range(5):
                    sock.send(msgpack.packb({"v": V, "t": "snapshot"}), zmq.NOBLOCK)
                    sent += 1
                sock.send(msgpack.packb({"v": V, "t": "ping"}), zmq.NOBLOCK)
            time.sleep(0.2)
    except zmq.Again:
        pass
    finally:
        ctx.destroy(linger=0)
    return sent, "messages"


def attack_connections(table: Table, seconds: float, quick: bool) -> tuple[int, str]:
    """Idle TCP connections that never say hello, then more as they are closed."""
    opened = 0
    going = _until(table, seconds)
    held: list[socket.socket] = []
    try:
        while going():
            while len(held) < (200 if quick else 800) and going():
                try:
                    held.append(socket.create_connection(("127.0.0.1", table.port), 5))
                except OSError:
                    break
                opened += 1
            time.sleep(0.5)
            for sock in list(held):  # closed by the host: let them go, open new ones
                sock.setblocking(False)
                try:
                    if sock.recv(1 << 16) == b"":
                        held.remove(sock)
                        sock.close()
                except BlockingIOError:
                    pass
                except OSError:
                    held.remove(sock)
                    sock.close()
    finally:
        for sock in held:
            sock.close()
    return opened, "connections"


def attack_key_port(table: Table, seconds: float, quick: bool) -> tuple[int, str]:
    """The key port asked as fast as it goes, from many connections."""
    sent = 0
    going = _until(table, seconds)
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        socks = []
        for _ in range(50):
            sock: zmq.Socket[Any] = ctx.socket(zmq.DEALER)
            sock.setsockopt(zmq.LINGER, 0)
            sock.connect(f"tcp://127.0.0.1:{table.port + 2}")
            socks.append(sock)
        while going() and sent < (20_000 if quick else 400_000):
            for sock in socks:
                try:
                    sock.send(b"keys?", zmq.NOBLOCK)
                    sent += 1
                except zmq.Again:
                    pass
            time.sleep(0.001)
    finally:
        ctx.destroy(linger=0)
    return sent, "messages"


def attack_garbage(table: Table, seconds: float, quick: bool) -> tuple[int, str]:
    """Malformed frames: random bytes, truncated msgpack, deep nesting, oversized frames,
    wrong types, from ever new connections."""
    rng = random.Random(7)
    sent = 0
    going = _until(table, seconds)
    ctx: zmq.Context[Any] = zmq.Context()
    frames: list[Callable[[], bytes]] = [
        lambda: rng.randbytes(rng.randrange(1, 200)),
        lambda: msgpack.packb({"v": V, "t": "decide", "token": table.token})[:-3],
        lambda: b"\x91" * 5000,
        lambda: bytes(20_000),
        lambda: msgpack.packb({"v": V, "t": "hello", "name": 7, "role": []}),
        lambda: msgpack.packb({"v": V, "t": "decide", "token": table.token, "pending": -1,
                               "decision": {"kind": "take", "seat": 9}}),
    ]
    try:
        while going() and sent < (5_000 if quick else 100_000):
            sock = _curve(ctx, zmq.DEALER, table, table.port)
            for _ in range(50):
                sock.send(rng.choice(frames)())
                sent += 1
            time.sleep(0.005)
            sock.close(linger=0)
    finally:
        ctx.destroy(linger=0)
    return sent, "messages"


def attack_seats(table: Table, seconds: float, quick: bool) -> tuple[int, str]:
    """Hellos for seats (the table is full), and decisions with made-up tokens."""
    sent = 0
    going = _until(table, seconds)
    ctx: zmq.Context[Any] = zmq.Context()
    rng = random.Random(3)
    try:
        while going() and sent < (5_000 if quick else 50_000):
            sock = _curve(ctx, zmq.DEALER, table, table.port)
            sock.send(msgpack.packb({"v": V, "t": "hello", "name": "\u202egrab\u0085",
                                     "role": "player"}))
            for _ in range(40):
                token = f"{rng.getrandbits(128):032x}"
                sock.send(msgpack.packb({"v": V, "t": "decide", "token": token,
                                         "pending": rng.randrange(1, 500),
                                         "decision": {"kind": "end_turn"}}))
                sent += 1
            time.sleep(0.01)
            sock.close(linger=0)
    finally:
        ctx.destroy(linger=0)
    return sent, "messages"


def _spin(until: float) -> None:
    """A busy loop (in a process of its own) until the monotonic clock reaches ``until``."""
    while time.monotonic() < until:
        pass


class BusyLoops:
    """``count`` processes that each keep one core busy, for ``seconds`` at most (bounded:
    they stop by themselves, and :meth:`stop` ends them sooner)."""

    def __init__(self, count: int, seconds: float) -> None:
        ctx = multiprocessing.get_context("fork")
        until = time.monotonic() + seconds
        self.procs = [ctx.Process(target=_spin, args=(until,), daemon=True)
                      for _ in range(count)]
        for proc in self.procs:
            proc.start()

    def stop(self) -> None:
        for proc in self.procs:
            if proc.is_alive():
                proc.kill()
            proc.join(5)


def attack_cpu_starved(table: Table, seconds: float, quick: bool) -> tuple[int, str]:
    """No message at all: two busy loops beside the host (one per core of this machine) for
    the attack's time, so that the host, its players and the loops share the CPU."""
    loops = BusyLoops(2, seconds)
    going = _until(table, seconds)
    try:
        while going():
            time.sleep(0.05)
    finally:
        loops.stop()
    return 2, "loops"


def attack_curve_churn(table: Table, seconds: float, quick: bool) -> tuple[int, str]:
    """Encrypted connections one after another, as fast as they go: each a CURVE handshake
    (the host's CPU), a spectator's hello, then closed without a goodbye."""
    opened = 0
    going = _until(table, seconds)
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        while going() and opened < (500 if quick else 20_000):
            sock = _curve(ctx, zmq.DEALER, table, table.port)
            sock.send(msgpack.packb({"v": V, "t": "hello", "name": "churn",
                                     "role": "spectator"}))
            sock.poll(200)  # the handshake done and the hello answered, or given up on
            sock.close(linger=0)
            opened += 1
    finally:
        ctx.destroy(linger=0)
    return opened, "connections"


def attack_subscriber_churn(table: Table, seconds: float, quick: bool) -> tuple[int, str]:
    """A new subscriber connection every 5 ms, each sending 2,000 bytes of subscriptions
    (under the host's allowance per connection), the last HELD_SUBSCRIBERS kept open: the
    flood that changed results on a loaded machine (issue 27, item 2)."""
    opened = 0
    going = _until(table, seconds)
    ctx: zmq.Context[Any] = zmq.Context()
    held: list[zmq.Socket[Any]] = []
    try:
        while going() and opened < (400 if quick else 4_000):
            sock = _curve(ctx, zmq.XSUB, table, table.port + 1)
            for n in range(5):  # 5 x 400 bytes
                with contextlib.suppress(zmq.Again):
                    sock.send(b"\x01" + (opened * 5 + n).to_bytes(8, "big") * 50, zmq.NOBLOCK)
            held.append(sock)
            if len(held) > HELD_SUBSCRIBERS:  # the attacker's own files are limited too
                held.pop(0).close(linger=0)
            opened += 1
            time.sleep(0.005)
    finally:
        ctx.destroy(linger=0)
    return opened, "connections"


def attack_one_subscriber(table: Table, seconds: float, quick: bool) -> tuple[int, str]:
    """One subscriber connection alone, with the host's key (the key port gives it to
    anyone) and no hello, sending distinct 400-byte subscriptions as fast as ZeroMQ takes
    them (issue 38, item 1: the host grew to 812 MB). Its XSUB sends every subscription it
    made again when it reconnects after being closed: the same connection, again and again."""
    budget = (16 if quick else 256) * 1024 * 1024  # bytes
    sent = 0
    going = _until(table, seconds)
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        sock = _curve(ctx, zmq.XSUB, table, table.port + 1)
        sock.setsockopt(zmq.SNDHWM, 100_000)
        n = 0
        while sent < budget and going():
            topic = b"\x01" + n.to_bytes(8, "big") * 50  # 401 bytes, all distinct
            try:
                sock.send(topic, zmq.NOBLOCK)
            except zmq.Again:
                time.sleep(0.001)
                continue
            n += 1
            sent += len(topic)
    finally:
        ctx.destroy(linger=0)
    return sent, "bytes"


FLIPPERS = 2  # the flip storm's programs, each with the stolen token


def attack_flip_storm(table: Table, seconds: float, quick: bool) -> tuple[int, str]:
    """Two programs with the attacker seat's stolen token take the seat over from each other
    as fast as their connections go, saying bot true and false in turn, and never answer
    (issue 38, items 2 and 3). The seat's owner (its own bot process) takes it back as a
    person would (``_take_back``). Judged on the game ending (no question lost its deadline),
    the record verifying and the owner back in its seat: the attacked seat's own decisions
    time out meanwhile, so the result may differ."""
    going = _until(table, seconds)
    ctx: zmq.Context[Any] = zmq.Context()
    try:
        socks = [_curve(ctx, zmq.DEALER, table, table.port) for _ in range(FLIPPERS)]
        for sock in socks:
            sock.setsockopt(zmq.SNDHWM, 10)
        # ~250 hellos a second each (under the per-connection limit), bot true and false
        sent = _pound(socks, lambda n, k: msgpack.packb({
            "v": V, "t": "hello", "name": f"thief {k}", "role": "player", "token": table.token,
            "take_over": True, "bot": n // FLIPPERS % 2 == 0, "client": f"thief-{k}"}),
            going, 20_000 if quick else 200_000, 0.004)
    finally:
        ctx.destroy(linger=0)
    return sent, "messages"


def _pound(socks: list[zmq.Socket[Any]], frame: Callable[[int, int], bytes],
           going: Callable[[], bool], budget: int, pause: float) -> int:
    """Send ``frame(n, k)`` (``n`` counts what was sent, ``k`` is the socket's place) on
    each socket in turn, reading (and dropping) its replies, then wait ``pause``; until
    ``going`` says no or ``budget`` frames were sent. Returns how many were."""
    sent = 0
    while going() and sent < budget:
        for k, sock in enumerate(socks):
            with contextlib.suppress(zmq.Again):
                sock.send(frame(sent, k), zmq.NOBLOCK)
                sent += 1
            with contextlib.suppress(zmq.Again):
                while True:
                    sock.recv(zmq.NOBLOCK)  # the replies: read, never answered
        time.sleep(pause)
    return sent


IDLE_CURVE = 1500  # idle encrypted connections held at once (the host keeps ~110 per socket)


def attack_idle_curve(table: Table, seconds: float, quick: bool) -> tuple[int, str]:
    """IDLE_CURVE encrypted DEALER connections to the host's port that never say hello, held
    for the attack's time: the host closes what is beyond its cap and the unjoined after 10 s,
    and ZeroMQ connects them again (a CURVE handshake each time)."""
    going = _until(table, seconds)
    ctx: zmq.Context[Any] = zmq.Context()
    ctx.set(zmq.MAX_SOCKETS, IDLE_CURVE + 64)
    socks = []
    try:
        for _ in range(IDLE_CURVE // (4 if quick else 1)):
            if not going():
                break
            socks.append(_curve(ctx, zmq.DEALER, table, table.port))
        while going():
            time.sleep(0.05)
    finally:
        ctx.destroy(linger=0)
    return len(socks), "connections"


def _deep(depth: int) -> bytes:
    """A msgpack value nested ``depth`` maps deep (each one key), within the frame limit."""
    return b"\x81\xa1k" * depth + b"\xc0"


def attack_deep_msgpack(table: Table, seconds: float, quick: bool) -> tuple[int, str]:
    """Deeply nested msgpack messages (maps in maps, up to the 8 KiB frame limit) from 20
    encrypted connections, each at the host's per-connection rate (100 a second)."""
    going = _until(table, seconds)
    ctx: zmq.Context[Any] = zmq.Context()
    frames = [_deep(2700), b"\x91" * 8000 + b"\xc0",
              msgpack.packb({"v": V, "t": "chat", "token": table.token, "text": "x"})[:-1]
              + _deep(2000)]
    try:
        socks = [_curve(ctx, zmq.DEALER, table, table.port) for _ in range(20)]
        sent = _pound(socks, lambda n, _: frames[n % len(frames)], going,
                      20_000 if quick else 400_000, 0.01)
    finally:
        ctx.destroy(linger=0)
    return sent, "messages"


PINGERS = 200


def attack_pingers(table: Table, seconds: float, quick: bool) -> tuple[int, str]:
    """PINGERS encrypted connections each sending a ping every 20 ms (50 a second: under the
    per-connection limit) and reading the pongs."""
    going = _until(table, seconds)
    ctx: zmq.Context[Any] = zmq.Context()
    ping = msgpack.packb({"v": V, "t": "ping"})
    try:
        socks = [_curve(ctx, zmq.DEALER, table, table.port) for _ in range(PINGERS)]
        sent = _pound(socks, lambda n, _: ping, going, 100_000 if quick else 2_000_000, 0.02)
    finally:
        ctx.destroy(linger=0)
    return sent, "messages"


SMALL_DISK = "size=3500k,mode=0700"  # room for a game, not for the WAL room (4 MiB) too


def small_disk(where: Path) -> str | None:
    """Mount a small tmpfs (SMALL_DISK) at ``where`` for the disk-full scenario: None, or
    why it cannot be (it needs root on Linux)."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return "a small filesystem of its own needs root on Linux (mount -t tmpfs)"
    where.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", SMALL_DISK, "tmpfs", str(where)],
                             capture_output=True, text=True, check=False, timeout=WAIT)
    return None if mounted.returncode == 0 else mounted.stderr.strip() or "mount failed"


def _fill(where: Path) -> Path:
    """Fill the filesystem of ``where`` to the last byte (the file that does it)."""
    filler = where / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (4096, 512, 64, 1):
            with contextlib.suppress(OSError):  # ENOSPC: full at this size
                while True:
                    os.write(fd, bytes(size))
    finally:
        os.close(fd)
    return filler


def attack_disk_full(table: Table, seconds: float, quick: bool) -> tuple[int, str]:
    """The disk of the host's game log fills in round 3: the host must stop, lose nothing it
    answered, and the --resume command it prints must finish the same game once there is
    room again (the players reconnect by themselves). Not an attacker's doing, a fault."""
    table.wait_line(r"^round 3$")
    filler = _fill(table.state_dir)
    try:
        code = table.host.wait(WAIT)
    except subprocess.TimeoutExpired:
        raise RuntimeError("the host did not stop on a full disk") from None
    said = (table.work / "host.err").read_text(encoding="utf-8", errors="replace")
    found = re.search(r"resume it with: (.+)", said)
    if code != 1 or found is None:
        raise RuntimeError(f"the host stopped with status {code}, no --resume command")
    filler.unlink()  # room again
    table.start_host(shlex.split(found.group(1)))
    return 1, "disk full"


ROLLED_BACK_ROWS = 40  # the rollback scenario's cut (issue 27, item 3)


def roll_back(path: Path, rows: int) -> None:
    """What a host's owner (or a restored backup) does to go back in time: the last ``rows``
    rows of the game log deleted, its head and its mark pointed at the last kept row (three
    SQL statements and a 40-byte file, no checksum to compute)."""
    db = sqlite3.connect(path)
    try:
        keep = db.execute("SELECT max(seq) FROM log").fetchone()[0] - rows
        digest = db.execute("SELECT hash FROM log WHERE seq = ?", (keep,)).fetchone()[0]
        db.execute("DELETE FROM log WHERE seq > ?", (keep,))
        db.execute("UPDATE head SET seq = ?, hash = ?", (keep, digest))
        db.commit()
    finally:
        db.close()
    mark_path(path).unlink()
    write_mark(path, keep, digest)


def attack_rollback(table: Table, seconds: float, quick: bool) -> tuple[int, str]:
    """The host itself cheats: killed in round 4, its game log rolled back by
    ROLLED_BACK_ROWS rows, resumed with --resume. Every player's client must name the
    rewind (judged on that alone: the game goes on without them)."""
    table.wait_line(r"^round 4$")
    game = table.wait_line(r", game ([0-9a-f]{16})$").group(1)
    table.host.kill()
    table.host.wait(WAIT)
    roll_back(table.state_dir / f"{game}.sqlite3", ROLLED_BACK_ROWS)
    said = len(table.output)
    table.start_host([*MUNDUS, "host", "--lang", "en", "--resume", game, "--state-dir",
                      str(table.state_dir)])
    table.wait_line(r"^join at ", since=said)  # the resumed host is up (or this says why not)
    return ROLLED_BACK_ROWS, "rows"


SCENARIOS: dict[str, Attack] = {
    "baseline": attack_none,
    "pub-subscribe-flood": attack_subscriptions,
    "chat-flood": attack_chat,
    "snapshot-amplification": attack_snapshots,
    "connection-flood": attack_connections,
    "key-port-flood": attack_key_port,
    "garbage-frames": attack_garbage,
    "seat-grab": attack_seats,
    "cpu-starved": attack_cpu_starved,
    "curve-churn": attack_curve_churn,
    "subscriber-churn": attack_subscriber_churn,
    "one-subscriber-flood": attack_one_subscriber,
    "flip-storm": attack_flip_storm,
    "idle-curve": attack_idle_curve,
    "deep-msgpack": attack_deep_msgpack,
    "pingers": attack_pingers,
    "disk-full": attack_disk_full,
    "rollback": attack_rollback,
}


def run(name: str, seconds: float, quick: bool, work: Path, busy: int = 0) -> Outcome:
    outcome = Outcome(name, load=os.getloadavg()[0])
    started = time.monotonic()
    # --busy: the loops from before the host starts to the end of the game (bounded)
    loops = BusyLoops(busy, BUSY_SECONDS) if busy else None
    state_dir = None
    if name == "disk-full":  # its game log on a small filesystem of its own
        state_dir = work / name / "small"
        why = small_disk(state_dir)
        if why is not None:
            outcome.not_played = why
            return outcome
    table = Table(work / name, QUICK_BOT_PACE if quick else BOT_PACE, state_dir,
                  QUICK_ROUNDS if quick and name != "rollback" else None,
                  [] if loops is None else [p.pid for p in loops.procs if p.pid is not None])
    outcome.expect_rewind = name == "rollback"
    try:
        outcome.sent, outcome.unit = SCENARIOS[name](table, seconds, quick)
        table.finish(outcome, WAIT if outcome.expect_rewind else
                     QUICK_GAME_WAIT if quick else GAME_WAIT)
    except Exception as exc:  # the harness reports; it does not stop the run
        outcome.crashed = outcome.crashed or f"harness: {type(exc).__name__}: {exc}"
        table.kill()
    finally:
        table.kill()
        if loops is not None:
            loops.stop()
        if state_dir is not None:
            subprocess.run(["umount", "-l", str(state_dir)], check=False, timeout=WAIT)
    outcome.seconds = time.monotonic() - started
    return outcome


def _fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", action="append", choices=sorted(SCENARIOS),
                        help="run this scenario (repeatable; default all); the baseline "
                             "always runs first")
    parser.add_argument("--attack-seconds", type=float, default=20.0,
                        help="how long each attack lasts at most (default 20)")
    parser.add_argument("--quick", action="store_true",
                        help="small budgets, 5-second attacks and 5-round games, the rollback's "
                             "excepted (for tests)")
    parser.add_argument("--busy", type=int, default=0, metavar="N",
                        help="N busy loops beside the host during every scenario, the "
                             "baseline too (default 0; 2 starves a 2-core machine)")
    parser.add_argument("--table-nice", type=int, default=0, metavar="N",
                        help="run the host and the honest players at niceness N (a "
                             "diagnostic: below 0 needs root; shows what the attacker's CPU, "
                             "on this machine, costs them)")
    parser.add_argument("--decision-waits", action="store_true",
                        help="each honest player reads, around every decision, how long its "
                             "threads and the host's waited for a CPU meanwhile, and the "
                             "slowest tenth's figures are printed (a diagnostic: the reading "
                             "slows the players down)")
    args = parser.parse_args(argv)
    TABLE_NICE[0] = args.table_nice
    DECISION_WAITS[0] = args.decision_waits
    seconds = 5.0 if args.quick else args.attack_seconds
    names = ["baseline"] + [n for n in (args.scenario or SCENARIOS) if n != "baseline"]
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="mundus-attack-") as tmp:
        for i, name in enumerate(names, 1):
            _stderr(f"[{i}/{len(names)}] {name} ...")
            outcome = run(name, seconds, args.quick, Path(tmp), args.busy)
            _stderr(f"[{i}/{len(names)}] {name}: {outcome.seconds:.0f} s, "
                    f"{outcome.sent} {outcome.unit}, peak {outcome.peak_mb:.0f} MB")
            outcomes.append(outcome)
    base = outcomes[0]
    bound = base.peak_mb + MEMORY_MARGIN_MB
    base_p95 = base.p(0.95)
    rows: list[dict[str, Any]] = []
    print(f"Memory bound: the unattacked host's peak ({base.peak_mb:.0f} MB) + "
          f"{MEMORY_MARGIN_MB:.0f} MB = {bound:.0f} MB; latency bound: "
          f"{LATENCY_FACTOR:g} x the unattacked p95 ({_fmt(base_p95)} ms)")
    header = (f"{'scenario':24} {'sent':>16} {'peak MB':>8} {'p50 ms':>7} {'p95 ms':>7} "
              f"{'x p95':>6} {'same':>5} {'verif':>5} {'crash':>5} {'ok':>3}")
    print(header)
    for o in outcomes:
        if o.not_played is not None:
            print(f"{o.scenario:24} not played: {o.not_played}")
            rows.append({"scenario": o.scenario, "not_played": o.not_played})
            continue
        if o.expect_rewind:  # the rollback: every player's client must name the rewind
            seen = o.crashed is None and o.rewound == len(PLAYER_ROLES)
            print(f"{o.scenario:24} {o.sent:>9} {o.unit[:6]:>6} {o.peak_mb:8.0f}  rewind named "
                  f"by {o.rewound} of {len(PLAYER_ROLES)} players {'yes' if seen else 'NO':>21}")
            for said in (o.crashed, o.note):
                if said:
                    print(f"  {o.scenario}: {said}")
            rows.append({"scenario": o.scenario, "sent": o.sent, "unit": o.unit,
                         "peak_mb": round(o.peak_mb, 1), "rewind_named_by": o.rewound,
                         "players": len(PLAYER_ROLES), "crashed": o.crashed,
                         "targets_met": seen, "note": o.note, "seconds": round(o.seconds, 1)})
            continue
        p95 = o.p(0.95)
        ratio = None if p95 is None or not base_p95 else p95 / base_p95
        # The flip storm times the stolen seat's questions out: its result may differ; it
        # is judged on the game ending and the owner finishing it in its seat.
        storm = o.scenario == "flip-storm"
        if storm:
            o.note = (f"the owner took its seat back {len(o.taken_back)} time(s) (hellos each: "
                      f"{o.taken_back}) and {'finished' if o.owner_finished else 'did NOT finish'}"
                      " the game seated" + (f"; {o.note}" if o.note else ""))
        result_ok = o.result == base.result or (storm and o.result is not None)
        met = (o.crashed is None and o.peak_mb <= bound and result_ok
               and o.verified and ratio is not None and ratio <= LATENCY_FACTOR
               and (not storm or o.owner_finished))
        print(f"{o.scenario:24} {o.sent:>9} {o.unit[:6]:>6} {o.peak_mb:8.0f} "
              f"{_fmt(o.p(0.5)):>7} {_fmt(o.p(0.95)):>7} {_fmt(ratio, 2):>6} "
              f"{'yes' if o.result == base.result else 'NO':>5} "
              f"{'yes' if o.verified else 'NO':>5} {'NO' if o.crashed is None else 'YES':>5} "
              f"{'yes' if met else 'NO':>3}")
        if o.crashed:
            print(f"  {o.scenario}: {o.crashed}")
        if o.note:
            print(f"  {o.scenario}: {o.note}")
        if o.host_cpu:
            print(f"  {o.scenario}: host CPU {o.host_cpu['python']:.1f} s in Python's threads, "
                  f"{o.host_cpu['zmq_io']:.1f} s in ZeroMQ's I/O thread (CURVE)")
        if o.tasks:
            print(f"  {o.scenario}: CPU s (run queue s, ms a wait) in {o.seconds:.0f} s, load "
                  f"{o.load:.1f}: " + ", ".join(
                      f"{kind} {row['cpu']:.1f} ({row['runq']:.1f}, {row['wait_ms']:.1f})"
                      for kind, row in o.tasks.items()))
        slow = o.slow_waits()
        if slow is not None:
            print(f"  {o.scenario}: the slowest {slow[0]:.0f} decisions: {slow[1]:.1f} ms on "
                  f"average, meanwhile waiting for a CPU: the player's threads {slow[2]:.1f} ms, "
                  f"the host's I/O thread {slow[3]:.1f} ms, its other threads {slow[4]:.1f} ms")
        rows.append({"scenario": o.scenario, "sent": o.sent, "unit": o.unit,
                     "peak_mb": round(o.peak_mb, 1), "p50_ms": o.p(0.5), "p95_ms": o.p(0.95),
                     "p95_ratio": None if ratio is None else round(ratio, 2),
                     "decisions": len(o.latencies), "same_result": o.result == base.result,
                     "host_cpu_s": o.host_cpu, "tasks_s": o.tasks, "load": round(o.load, 2),
                     "slow_decisions_ms": o.slow_waits(),
                     "verified": o.verified, "crashed": o.crashed, "targets_met": met,
                     "note": o.note,
                     **({"taken_back": o.taken_back, "owner_finished": o.owner_finished}
                        if storm else {}),
                     "seconds": round(o.seconds, 1)})
    print(json.dumps({"memory_bound_mb": round(bound, 1), "latency_factor": LATENCY_FACTOR,
                      "cores": os.cpu_count(), "busy_loops": args.busy, "scenarios": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
