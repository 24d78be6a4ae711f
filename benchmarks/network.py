"""Network benchmark: what the host and the client library add to a game, on loopback.

1. **Decision round trip.** A client (``client.Connection``) plays seat 3 of 4-seat tables
   whose other seats are host bots (random); each ``decide``/``commit`` is timed from the
   send to the host's reply (``ok``). The bare comparison is a pyzmq DEALER/ROUTER round trip
   with frames of about the same sizes (no msgpack, no host) and the same security as the
   host (CURVE, or none with ``--insecure``), measured twice: back to back (the echo server
   never idles: the fastest it gets), and interleaved with the decisions, one right before
   each, so that both see the machine in the same state (the host and the echo server both
   wake from idle for each message). Also the client's ``ping`` to the host after every 4th
   decision (the protocol without the engine, sent while the host bots play). Both servers
   run in child processes. Target: the decision round trip within 3x the bare one (medians),
   against the stricter of the two bare figures (back to back).
2. **A 4-bot game.** The same game (table seed, greedy bots with seeds 0-3 at seats 0-3)
   played in-process with ``mundus_net.tools.runner.play_game``, and over loopback: a host in a
   thread of this process and four ``mundus bot`` processes, one per seat, as they would be
   deployed (here they share this machine's cores with the host), timed by the host from the
   update that starts the game to the one that ends it; then again with the four seats played
   by one ``mundus bot --seats 4`` process (four connections, each with its own sockets,
   CURVE session, token and protocol traffic, driven by one thread). Both layouts are
   reported, each labelled; every play must end with the in-process result. Each game is
   played ``--repeat`` times each way and the fastest plays are compared (one game is short
   and noisy); the ratio is of the medians over the seeds. Target: the networked game within
   3x the in-process one. Besides the whole machine's CPU (which counts whatever else runs
   on it), the CPU of our own processes (the host's and the bots') per decision, from /proc
   (Linux only). Each layout is played twice: with the host **as shipped** (`mundus host`'s
   default: a durable game log, every answer committed with fsync before it is
   acknowledged, in a temporary folder on the same disk as the state folder) and without a
   log (``--no-log``).
3. **The floors.** The same in-process game once more, each bot decision followed by one bare
   round trip to the echo server (``RoundTripBot``): what a networked game would take if
   the host and the clients cost nothing, since each decision needs one round trip. And the
   **durable floor**: the same with one fsync'd write of a few bytes per decision too (what
   a host that keeps every answer through a power cut cannot do without), the floor of the
   host as shipped. Goals (issue 29): against its floor, a host without a log within 1.5x
   with one bot process for the four seats and within 2x with four bot processes; the host
   as shipped within 1.5x of the durable floor.
4. **The fan-out floors** (issue 34). A networked decision also publishes one update that every
   bot process receives. The same in-process game, each decision making one DEALER/ROUTER
   round trip to a server that publishes one update (``UPDATE_BYTES``) on PUB before it
   answers, received by as many subscriber processes as the layout has bot processes (4, or
   1 for ``--seats 4``), CURVE on both sockets; the durable variant syncs one small write per
   answer before answering. A play ends once every subscriber has received every update.
   Goals: a host without a log within 1.5x of its fan-out floor with one bot process, 2x
   with four; the host as shipped within 1.5x of the durable fan-out floor; the host
   thread's own work (handling and publishing) at most 300 us per decision.

    python benchmarks/network.py                 # 2000 round trips, 3 games, 3 plays each
    python benchmarks/network.py --round-trips 5000 --games 5 --repeat 5 --seed 7
    python benchmarks/network.py --insecure      # host, clients and bare sockets without CURVE

Progress goes to stderr; the last line of stdout is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import cProfile
import itertools
import json
import multiprocessing
import multiprocessing.connection
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, cast

import zmq

from mundus_net.bots.base import Bot, load_bot
from mundus_net.client.connection import Connection
from mundus_net.client.core import ClientSettings
from mundus_net.client.notices import Accepted, Pong
from mundus_net.compiled import describe
from mundus_net.engine.decisions import Decision
from mundus_net.engine.game import Game, Result
from mundus_net.engine.view import PlayerView
from mundus_net.host.gamelog import GameLog
from mundus_net.host.server import Host
from mundus_net.host.table import Table, TableSettings
from mundus_net.protocol.security import make_client, make_server, new_client_keypair
from mundus_net.tools.runner import play_game

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = 4
TARGET_RTT_FACTOR = 3.0
TARGET_GAME_FACTOR = 3.0
# Issue 29's goals against the floors (one process for four seats / a process per seat).
FLOOR_GOALS = {"one_process": 1.5, "processes": 2.0}
DURABLE_FLOOR_GOAL = 1.5
# Issue 34's goals against the fan-out floors, and the host thread's own work per decision.
FANOUT_GOALS = {"one_process": 1.5, "processes": 2.0}
DURABLE_FANOUT_GOAL = 1.5
HOST_BUSY_GOAL_US = 300.0
REQUEST_BYTES = 120  # about a decide message
REPLY_BYTES = 20  # about an ok
WAIT = 60.0
Connection_ = multiprocessing.connection.Connection


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def percentile(samples: Sequence[float], p: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


def process_cpu(pids: Sequence[int]) -> float | None:
    """CPU seconds used so far by every thread of these processes (ours: the host's process
    and the bots', not the rest of the machine), from /proc/PID/task/*/schedstat (Linux
    only; None elsewhere)."""
    total = 0
    for pid in pids:
        tasks = Path(f"/proc/{pid}/task")
        try:
            threads = list(tasks.iterdir())
        except OSError:
            return None
        for task in threads:
            try:
                total += int((task / "schedstat").read_text(encoding="ascii").split()[0])
            except (OSError, ValueError, IndexError):
                continue  # a thread that just ended
    return total / 1e9


def machine_counters() -> tuple[float, int] | None:
    """(CPU seconds used by every process, context switches) so far, from /proc/stat (Linux
    only; None elsewhere)."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            lines = stat.read().splitlines()
    except OSError:
        return None
    ticks = [int(v) for v in lines[0].split()[1:9]]
    busy = sum(ticks) - ticks[3] - ticks[4]  # everything but idle and iowait
    switches = next(int(line.split()[1]) for line in lines if line.startswith("ctxt "))
    return busy / os.sysconf("SC_CLK_TCK"), switches


# -- servers in processes of their own ---------------------------------------------------------
#
# Both servers of the round-trip comparison run in a child process, as a real host does, so
# that neither shares this process's interpreter lock with the measuring client.


def _echo_server(pipe: Connection_, secure: bool) -> None:
    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    public = None
    if secure:
        public, secret = new_client_keypair()
        make_server(router, public, secret)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    pipe.send((port, None if public is None else public.decode("ascii")))
    poller = zmq.Poller()
    poller.register(router, zmq.POLLIN)
    reply = b"r" * REPLY_BYTES
    while True:
        if poller.poll(50):  # the host polls too; a blocking recv would flatter zmq
            identity, _ = router.recv_multipart()
            router.send_multipart([identity, reply])


def _table_server(pipe: Connection_, seed: int, secure: bool) -> None:
    """One table after another, each with three random host bots; the address and the
    host's public key go back through ``pipe``."""
    for game in itertools.count():
        table = Table(PLAYERS, TableSettings(fixed_seed=True), seed=seed + game,
                      bots=[load_bot("random", i) for i in range(PLAYERS - 1)])
        # Rate limits are the host's defence against floods; a benchmark client is one.
        host = Host(table, port=0, rate=1e9, burst=1e9, linger_after_end=5.0, log=_stderr,
                    insecure=not secure)
        host.start()
        pipe.send((host.address, host.public_key))
        host.wait()


def _child(target: Any, *args: Any) -> tuple[multiprocessing.process.BaseProcess, Any]:
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=target, args=(child, *args), daemon=True)
    proc.start()
    if not parent.poll(WAIT):
        raise TimeoutError(f"{target.__name__} did not start")
    return proc, parent


class _Dealer:
    """A DEALER to a server in a child process on 127.0.0.1, CURVE with ``key`` (None:
    plain), and the request frame of about a decision's size."""

    def _connect(self, port: int, key: str | None) -> None:
        self.ctx: zmq.Context[Any] = zmq.Context()
        self.dealer = self.ctx.socket(zmq.DEALER)
        if key is not None:
            make_client(self.dealer, key)
        self.dealer.connect(f"tcp://127.0.0.1:{port}")
        self.poller = zmq.Poller()
        self.poller.register(self.dealer, zmq.POLLIN)
        self.request = b"q" * REQUEST_BYTES


class BareEcho(_Dealer):
    """DEALER -> ROUTER -> DEALER with fixed frames of about a decision's and an ok's size,
    to an echo server in a child process."""

    def __init__(self, secure: bool) -> None:
        self.proc, pipe = _child(_echo_server, secure)
        port, key = pipe.recv()
        self._connect(port, key)
        for _ in range(100):  # warm-up (and the CURVE handshake)
            self.round_trip()

    def round_trip(self) -> float:
        start = time.perf_counter()
        self.dealer.send(self.request)
        if not self.poller.poll(int(WAIT * 1000)):
            raise TimeoutError("no echo")
        self.dealer.recv()
        return time.perf_counter() - start

    def close(self) -> None:
        self.dealer.close(linger=0)
        self.ctx.term()
        self.proc.terminate()


# -- the fan-out floor ---------------------------------------------------------------------------
#
# A networked decision is more than one round trip: the host also publishes one update that
# every bot process receives (four processes wake per decision). The fan-out floor is the
# in-process game with, per decision, one DEALER/ROUTER round trip to a server that publishes
# one update of a typical size on PUB before it answers, received by each subscriber process
# (CURVE on both sockets, as the host's); its durable variant also syncs one small write to
# the disk per answer before it answers, as the host commits its game log. A play ends when
# every subscriber has received every update.

UPDATE_BYTES = 400  # about one update of a 4-player game (an event or two and the state's seq)
_HELLO, _END_PLAY = b"hello", b"end"


def _fanout_server(pipe: Connection_, secure: bool, sync_path: str | None) -> None:
    ctx = zmq.Context()
    router, pub = ctx.socket(zmq.ROUTER), ctx.socket(zmq.PUB)
    public = None
    if secure:
        public, secret = new_client_keypair()
        make_server(router, public, secret)
        make_server(pub, public, secret)
    ports = (router.bind_to_random_port("tcp://127.0.0.1"),
             pub.bind_to_random_port("tcp://127.0.0.1"))
    pipe.send((ports, None if public is None else public.decode("ascii")))
    fd = None if sync_path is None else os.open(sync_path, os.O_WRONLY | os.O_CREAT, 0o600)
    poller = zmq.Poller()
    poller.register(router, zmq.POLLIN)
    update, reply = b"u" * UPDATE_BYTES, b"r" * REPLY_BYTES
    while True:
        if poller.poll(50):  # as the host polls
            identity, request = router.recv_multipart()
            if request in (_HELLO, _END_PLAY):
                pub.send(request)
            else:
                if fd is not None:
                    os.pwrite(fd, b"0123456789abcdef", 0)
                    os.fsync(fd)
                pub.send(update)
            router.send_multipart([identity, reply])


def _fanout_subscriber(pipe: Connection_, port: int, key: str | None) -> None:
    """Counts the updates it receives; says "ready" at its first hello, and the count at each
    end of a play."""
    ctx = zmq.Context()
    sub = ctx.socket(zmq.SUB)
    if key is not None:
        make_client(sub, key)
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    sub.connect(f"tcp://127.0.0.1:{port}")
    poller = zmq.Poller()
    poller.register(sub, zmq.POLLIN)
    ready, count = False, 0
    while True:
        if poller.poll(50):  # as a bot polls its sockets
            message = sub.recv()
            if message == _HELLO:
                if not ready:
                    ready = True
                    pipe.send("ready")
            elif message == _END_PLAY:
                pipe.send(count)
                count = 0
            else:
                count += 1


class FanOut(_Dealer):
    """The fan-out floor's sockets: a DEALER to the server, ``subscribers`` processes with a
    SUB each; with ``sync_dir``, the server syncs a write per answer (the durable variant)."""

    def __init__(self, secure: bool, subscribers: int, sync_dir: Path | None = None) -> None:
        sync_path = None if sync_dir is None else str(sync_dir / f"fanout-{subscribers}")
        self.server, pipe = _child(_fanout_server, secure, sync_path)
        (router_port, pub_port), key = pipe.recv()
        ctx = multiprocessing.get_context("spawn")
        self.subscribers: list[tuple[multiprocessing.process.BaseProcess, Connection_]] = []
        for _ in range(subscribers):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_fanout_subscriber, args=(child, pub_port, key),
                               daemon=True)
            proc.start()
            self.subscribers.append((proc, parent))
        self._connect(router_port, key)
        self.sent = 0
        deadline = time.monotonic() + WAIT
        waiting = [pipe for _, pipe in self.subscribers]
        while waiting:  # hellos until every subscriber hears them (PUB drops until then)
            if time.monotonic() > deadline:
                raise TimeoutError("a fan-out subscriber did not start")
            self._send(_HELLO)
            waiting = [pipe for pipe in waiting if not (pipe.poll(0.02) and pipe.recv())]
        for _ in range(100):  # warm-up, as BareEcho's
            self.round_trip()
        self.end()

    def _send(self, request: bytes) -> None:
        self.dealer.send(request)
        if not self.poller.poll(int(WAIT * 1000)):
            raise TimeoutError("no answer from the fan-out server")
        self.dealer.recv()

    def round_trip(self) -> float:
        start = time.perf_counter()
        self._send(self.request)
        self.sent += 1
        return time.perf_counter() - start

    def begin(self) -> None:
        self.sent = 0

    def end(self) -> None:
        """Waits until every subscriber has received every update since ``begin``."""
        self._send(_END_PLAY)
        for _, pipe in self.subscribers:
            if not pipe.poll(WAIT):
                raise TimeoutError("a fan-out subscriber did not report")
            received = pipe.recv()
            if received != self.sent:
                raise RuntimeError(f"a subscriber received {received} of {self.sent} updates")
        self.sent = 0

    def close(self) -> None:
        self.dealer.close(linger=0)
        self.ctx.term()
        for proc, _ in self.subscribers:
            proc.terminate()
        self.server.terminate()


# -- round trips through the host ---------------------------------------------------------------


def round_trips(count: int, seed: int, secure: bool, echo: BareEcho
                ) -> tuple[list[float], list[float], list[float]]:
    """(bare round trips, decision round trips, ping round trips): a client at tables of host
    bots, with a bare round trip to ``echo`` right before each decision."""
    bare: list[float] = []
    decisions: list[float] = []
    pings: list[float] = []
    clock = time.perf_counter
    proc, pipe = _child(_table_server, seed, secure)
    try:
        for game in itertools.count():
            if len(decisions) >= count:
                break
            if not pipe.poll(WAIT):
                raise TimeoutError("no table")
            address, key = pipe.recv()
            conn = Connection(address, ClientSettings("bench", bot=True), server_key=key,
                              insecure=not secure)
            conn.connect(WAIT)
            bot = load_bot("random", seed + game)
            try:
                while conn.core.result is None and len(decisions) < count:
                    pending = conn.core.ready
                    if pending is None:
                        conn.poll(1.0)
                        continue
                    # A StateView has PlayerView's reading API (as in mundus_net.client.bot).
                    decision = bot.decide(cast(PlayerView, conn.core.view()), pending.legal)
                    sample = echo.round_trip()
                    start = clock()
                    request = conn.decide(decision)
                    while True:
                        notices = conn.poll(5.0)
                        if any(isinstance(n, Accepted) and n.id == request for n in notices):
                            decisions.append(clock() - start)
                            bare.append(sample)
                            break
                        if conn.core.ready is not None or conn.core.result is not None:
                            break  # refused (counted nowhere) or over
                    if len(pings) < len(decisions) // 4 and conn.core.result is None:
                        pings.append(_ping(conn))
            finally:
                conn.close()
    finally:
        proc.terminate()
    return bare, decisions, pings


def _ping(conn: Connection) -> float:
    """One ping -> pong through the host."""
    request = conn.ping()
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        for notice in conn.poll(1.0):
            if isinstance(notice, Pong) and notice.id == request:
                return notice.seconds
    raise TimeoutError("no pong")


# -- a 4-bot game -------------------------------------------------------------------------------


class RoundTripper(Protocol):
    def round_trip(self) -> float: ...


class RoundTripBot:
    """A strategy whose every decision also makes one bare pyzmq round trip: the in-process
    game played this way is the floor of any networked one (no host, no protocol, no state
    to send: only the one round trip each decision needs). With a ``FanOut`` as ``echo``,
    each round trip also publishes one update that every subscriber process receives."""

    def __init__(self, bot: Bot, echo: RoundTripper) -> None:
        self.bot = bot
        self.echo = echo

    def decide(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        decision = self.bot.decide(view, legal)
        self.echo.round_trip()
        return decision


class DurableRoundTripBot(RoundTripBot):
    """RoundTripBot plus one fsync'd write of a few bytes per decision (as
    ``benchmarks/gamelog.py``'s durable floor): the floor of a host that keeps every answer
    through a power cut."""

    def __init__(self, bot: Bot, echo: RoundTripper, fd: int) -> None:
        super().__init__(bot, echo)
        self.fd = fd

    def decide(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        decision = super().decide(view, legal)
        os.pwrite(self.fd, b"0123456789abcdef", 0)
        os.fsync(self.fd)
        return decision


def in_process_game(seed: int, strategy: str, repeat: int = 3,
                    echo: RoundTripper | None = None, sync_dir: Path | None = None
                    ) -> tuple[float, Result, int]:
    """The fastest of ``repeat`` plays of the same game (one game is short and noisy); with
    ``echo``, each decision also makes one bare round trip to it (RoundTripBot), and with
    ``sync_dir`` one fsync'd write to a file there too (DurableRoundTripBot). With a
    ``FanOut`` as ``echo``, a play ends when every subscriber process has received every
    update."""
    best = float("inf")
    for _ in range(repeat):
        if isinstance(echo, FanOut):
            echo.begin()
        bots: list[Bot] = [load_bot(strategy, seat) for seat in range(PLAYERS)]
        fd = None
        if echo is not None and sync_dir is not None:
            fd = os.open(sync_dir / f"floor-{seed}", os.O_WRONLY | os.O_CREAT, 0o600)
            bots = [DurableRoundTripBot(bot, echo, fd) for bot in bots]
        elif echo is not None:
            bots = [RoundTripBot(bot, echo) for bot in bots]
        start = time.perf_counter()
        game = Game.new(PLAYERS, seed)
        try:
            play_game(game, bots)
            if isinstance(echo, FanOut):
                echo.end()
        finally:
            if fd is not None:
                os.close(fd)
        best = min(best, time.perf_counter() - start)
    assert game.result is not None
    decisions = sum(1 for e in game.log if e.kind == "decision" and not e.public["auto"])
    return best, game.result, decisions


class TimedHost(Host):
    """A host that adds up the time it spends handling messages and publishing: on the wall
    clock (which counts the time another process held the core), and the CPU its thread
    spent meanwhile (``time.thread_time``: the host's own work whatever else runs)."""

    handling = 0.0
    flushing = 0.0
    cpu = 0.0
    commits: CountingLog | None = None  # with a game log

    def _message(self, frames: list[bytes]) -> None:
        start, cpu = time.perf_counter(), time.thread_time()
        super()._message(frames)
        self.handling += time.perf_counter() - start
        self.cpu += time.thread_time() - cpu

    def _flush(self) -> None:
        start, cpu = time.perf_counter(), time.thread_time()
        super()._flush()
        self.flushing += time.perf_counter() - start
        self.cpu += time.thread_time() - cpu


class NetworkGame:
    """One game over loopback: its time, result, the host's own time, what the whole machine
    spent meanwhile (CPU seconds and context switches, None if unknown) and what our
    processes spent (the host's and the bots': CPU seconds, None if unknown)."""

    def __init__(self, seconds: float, result: Result, host: TimedHost,
                 machine: tuple[float, int] | None, ours: float | None) -> None:
        self.seconds = seconds
        self.result = result
        self.host = host
        self.machine = machine
        self.ours = ours


# How the four bots are deployed: a process per seat (`mundus bot`, as players would run
# them), or one process playing the four seats (`mundus bot --seats 4`: four connections,
# each with its own sockets, CURVE session, token and protocol traffic, driven by one
# thread).
LAYOUTS = {"processes": "4 processes, one per seat",
           "one_process": "1 process x 4 connections (mundus bot --seats 4)"}
# The fan-out floor of each layout: one subscriber process per bot process.
FANOUT_SUBSCRIBERS = {"processes": 4, "one_process": 1}


# The host as `mundus host` runs it by default (a durable game log), and with --no-log.
HOST_LOGS = {"shipped": "as shipped (durable game log)", "no_log": "without a game log"}


class ProfiledHost(TimedHost):
    """A TimedHost whose thread runs under cProfile (``--profile``)."""

    profile: cProfile.Profile | None = None

    def _serve(self) -> None:
        # The thread's CPU clock: what the host itself spends, whatever else holds the cores.
        self.profile = cProfile.Profile(time.thread_time)
        self.profile.runcall(super()._serve)


class CountingLog:
    """Counts a game log's commit calls, and those that wrote (a commit with rows or a new
    head: one SQLite transaction and one mark write, each synced)."""

    def __init__(self, log: GameLog) -> None:
        self.log = log
        self.calls = 0
        self.writes = 0
        commit = log.commit

        def counted(table: Table) -> None:
            self.calls += 1
            before = (log.committed, log._shown)
            commit(table)
            if (log.committed, log._shown) != before:
                self.writes += 1
        log.commit = counted  # type: ignore[method-assign]


def network_game(seed: int, strategy: str, secure: bool = True, layout: str = "processes",
                 log_dir: Path | None = None, profile_dir: Path | None = None) -> NetworkGame:
    """Host in a thread here, the bots joined in seat order (see LAYOUTS); with ``log_dir``,
    the host keeps its game log there, durable, as `mundus host` does by default. With
    ``profile_dir``, the host thread and each bot process run under cProfile, and their
    statistics are written there (host.prof, bot0.prof, ...)."""
    marks: dict[str, float] = {}
    counters: dict[str, tuple[float, int] | None] = {}
    ours: dict[str, float | None] = {}
    procs: list[subprocess.Popen[str]] = []

    def our_cpu() -> float | None:
        return process_cpu([os.getpid(), *(proc.pid for proc in procs)])

    def on_update(update: dict[str, Any]) -> None:
        kinds = {e["kind"] for e in update["events"]}
        if "started" in kinds:
            marks["start"] = time.perf_counter()
            counters["start"] = machine_counters()
            ours["start"] = our_cpu()
        if "game_over" in kinds:
            marks["end"] = time.perf_counter()
            counters["end"] = machine_counters()
            ours["end"] = our_cpu()

    # fixed_seed: the game of this seed, to compare with the in-process one.
    table = Table(PLAYERS, TableSettings(heartbeat_ms=1000, fixed_seed=True), seed=seed)
    host_class = TimedHost if profile_dir is None else ProfiledHost
    host = host_class(table, port=0, on_update=on_update, log=_stderr, insecure=not secure)
    game_log = None
    if log_dir is not None:  # as host/cli.py's _serve: made before anyone can join
        host.open()
        game_log = GameLog.create(log_dir, table, durable=True, host={
            "bind": "127.0.0.1", "port": host.port, "insecure": not secure, "durable": True})
        host.commits = CountingLog(game_log)
    host.start()
    python = [sys.executable]
    security = [f"--host-key={host.public_key}"] if secure else ["--insecure"]
    # One process per seat, seed = seat; or one process whose seats get seeds 0, 1, 2, 3.
    runs = [(seat, 1) for seat in range(PLAYERS)] if layout == "processes" else [(0, PLAYERS)]
    try:
        for first, seats in runs:
            if profile_dir is not None:
                python = [sys.executable, "-m", "cProfile", "-o",
                          str(profile_dir / f"bot{first}.prof")]
            procs.append(subprocess.Popen(
                [*python, "-m", "mundus_net.cli", "bot", "--connect", host.address,
                 "--strategy", strategy, "--seed", str(first), "--name", f"bench{first}",
                 "--seats", str(seats), "--json", "--timeout", str(WAIT), *security],
                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True))
            deadline = time.monotonic() + WAIT
            while host.call(lambda t: t.free_seats()) > PLAYERS - first - seats:
                if procs[-1].poll() is not None:
                    raise RuntimeError(f"bot {first} exited {procs[-1].returncode} before "
                                       "it joined")
                if time.monotonic() > deadline:
                    raise TimeoutError(f"bot {first} did not join")
                time.sleep(0.01)
        for proc in procs:
            proc.communicate(timeout=WAIT)
            if proc.returncode != 0:
                raise RuntimeError(f"a bot process exited {proc.returncode}")
        host.wait(WAIT)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
        host.stop()
        if game_log is not None:
            game_log.close()
        if isinstance(host, ProfiledHost) and host.profile is not None:
            assert profile_dir is not None
            host.profile.dump_stats(profile_dir / "host.prof")
    result = table.game.result
    assert result is not None
    start, end = counters.get("start"), counters.get("end")
    machine = None
    if start is not None and end is not None:
        machine = (end[0] - start[0], end[1] - start[1])
    cpu_start, cpu_end = ours.get("start"), ours.get("end")
    spent = None if cpu_start is None or cpu_end is None else cpu_end - cpu_start
    return NetworkGame(marks["end"] - marks["start"], result, host, machine, spent)


def play_games(args: argparse.Namespace, echo: BareEcho) -> dict[str, dict[str, Any]]:
    """Every seed's game in-process, on each floor (in-process with a round trip to ``echo``
    per decision, and with an fsync'd write too) and over loopback in each layout (LAYOUTS)
    with each host (HOST_LOGS); per layout and host, the medians over the seeds (and whether
    every play ended as in-process). Keys: ``LAYOUT`` (the host as shipped) and
    ``LAYOUT/no_log``."""
    variants = [(layout, log) for layout in LAYOUTS for log in HOST_LOGS]
    figures: dict[tuple[str, str], list[dict[str, Any]]] = {v: [] for v in variants}
    secure = not args.insecure
    with tempfile.TemporaryDirectory(prefix="mundus-bench-") as tmp:
        folder = Path(tmp)
        # the fan-out floors: as many subscriber processes as the layout has bot processes
        fanouts = {(layout, durable): FanOut(secure, FANOUT_SUBSCRIBERS[layout],
                                             folder if durable else None)
                   for layout in LAYOUTS for durable in (False, True)}
        try:
            _play_seeds(args, echo, fanouts, folder, variants, figures)
        finally:
            for fanout in fanouts.values():
                fanout.close()
    return _game_figures(figures)


def _play_seeds(args: argparse.Namespace, echo: BareEcho,
                fanouts: dict[tuple[str, bool], FanOut], folder: Path,
                variants: list[tuple[str, str]],
                figures: dict[tuple[str, str], list[dict[str, Any]]]) -> None:
    secure = not args.insecure
    for i in range(args.games):
        seed = args.seed + i
        _stderr(f"game {i + 1}/{args.games} (seed {seed}), {args.repeat} plays each way...")
        local_s, local_result, count = in_process_game(seed, args.strategy, args.repeat)
        floor_s, floor_result, _ = in_process_game(seed, args.strategy, args.repeat, echo)
        durable_s, durable_result, _ = in_process_game(seed, args.strategy, args.repeat,
                                                       echo, folder)
        fanout_s: dict[tuple[str, bool], float] = {}
        for key, fanout in fanouts.items():
            fanout_s[key], fanout_result, _ = in_process_game(
                seed, args.strategy, args.repeat, fanout)
            assert fanout_result == local_result
        assert floor_result == local_result == durable_result
        print(f"game seed {seed}, in-process with one bare round trip per decision (the "
              f"floor): {floor_s * 1000:.1f} ms, {floor_s / local_s:.2f}x in-process; with "
              f"an fsync'd write too (the durable floor): {durable_s * 1000:.1f} ms, "
              f"{durable_s / local_s:.2f}x")
        for layout in LAYOUTS:
            plain, synced = fanout_s[layout, False], fanout_s[layout, True]
            print(f"game seed {seed}, fan-out floor with {FANOUT_SUBSCRIBERS[layout]} "
                  f"subscriber process(es): {plain * 1000:.1f} ms, {plain / local_s:.2f}x "
                  f"in-process; durable {synced * 1000:.1f} ms, {synced / local_s:.2f}x")
        plays: dict[tuple[str, str], list[NetworkGame]] = {v: [] for v in variants}
        for play in range(args.repeat):  # interleaved: a change of load falls on all
            for layout, log in variants:
                log_dir = None
                if log == "shipped":
                    log_dir = folder / f"{layout}-{seed}-{play}"
                plays[layout, log].append(
                    network_game(seed, args.strategy, secure, layout, log_dir))
        for (layout, log), played in plays.items():
            best = min(played, key=lambda game: game.seconds)
            host = best.host
            agree = all(game.result == local_result for game in played)
            figures[layout, log].append({
                "local": local_s, "remote": best.seconds, "count": count, "same": agree,
                "floor": floor_s, "durable_floor": durable_s,
                "fanout_floor": fanout_s[layout, False],
                "durable_fanout_floor": fanout_s[layout, True],
                "busy": (host.handling + host.flushing) / count,
                "busy_cpu": host.cpu / count,
                "flush": host.flushing / count,
                "cpu": None if best.machine is None else best.machine[0] / count,
                "switches": None if best.machine is None else best.machine[1] / count,
                "ours": None if best.ours is None else best.ours / count,
                "commits": None if host.commits is None else host.commits.calls / count,
                "commit_writes": None if host.commits is None else
                host.commits.writes / count})
            print(f"game seed {seed}, {LAYOUTS[layout]}, host {HOST_LOGS[log]}: in-process "
                  f"{local_s * 1000:.1f} ms, over loopback {best.seconds * 1000:.1f} ms "
                  f"(fastest of {args.repeat} each; {count} decisions; same result: "
                  f"{agree})")


def _game_figures(figures: dict[tuple[str, str], list[dict[str, Any]]]
                  ) -> dict[str, dict[str, Any]]:
    us = 1e6

    def median(rows: list[dict[str, Any]], key: str) -> float | None:
        values = [row[key] for row in rows if row[key] is not None]
        return statistics.median(values) if values else None

    out: dict[str, dict[str, Any]] = {}
    for (layout, log), rows in figures.items():
        local_ms = statistics.median(row["local"] for row in rows) * 1000
        remote_ms = statistics.median(row["remote"] for row in rows) * 1000
        floor_ms = statistics.median(row["floor"] for row in rows) * 1000
        durable_ms = statistics.median(row["durable_floor"] for row in rows) * 1000
        fanout_ms = statistics.median(row["fanout_floor"] for row in rows) * 1000
        durable_fanout_ms = statistics.median(row["durable_fanout_floor"] for row in rows) * 1000
        decisions = statistics.mean(row["count"] for row in rows)
        cpu, switches, ours = median(rows, "cpu"), median(rows, "switches"), median(rows, "ours")
        key = layout if log == "shipped" else f"{layout}/{log}"
        out[key] = {
            "host": HOST_LOGS[log], "bots": LAYOUTS[layout],
            "decisions_per_game": round(decisions, 1),
            "in_process_game_ms": round(local_ms, 1), "network_game_ms": round(remote_ms, 1),
            "local_ms": round(local_ms, 1), "remote_ms": round(remote_ms, 1),
            "ratio": round(remote_ms / local_ms, 2),
            "floor_game_ms": round(floor_ms, 1), "floor_ratio": round(floor_ms / local_ms, 2),
            "durable_floor_game_ms": round(durable_ms, 1),
            "vs_floor": round(remote_ms / floor_ms, 2),
            "vs_durable_floor": round(remote_ms / durable_ms, 2),
            "fanout_subscribers": FANOUT_SUBSCRIBERS[layout],
            "fanout_floor_game_ms": round(fanout_ms, 1),
            "durable_fanout_floor_game_ms": round(durable_fanout_ms, 1),
            "vs_fanout_floor": round(remote_ms / fanout_ms, 2),
            "vs_durable_fanout_floor": round(remote_ms / durable_fanout_ms, 2),
            "per_decision_us": round(remote_ms * 1000 / decisions, 1),
            "local_per_decision_us": round(local_ms * 1000 / decisions, 1),
            "busy_us": round(statistics.median(row["busy"] for row in rows) * us, 1),
            "flush_us": round(statistics.median(row["flush"] for row in rows) * us, 1),
            "busy_cpu_us": round(statistics.median(row["busy_cpu"] for row in rows) * us, 1),
            "ours_us": None if ours is None else round(ours * us, 1),
            "cpu_us": None if cpu is None else round(cpu * us, 1),
            "switches": None if switches is None else round(switches, 1),
            # the game log's commit calls, and those that wrote (synced), per decision
            "log_commit_calls": _rounded(median(rows, "commits"), 2),
            "log_commit_writes": _rounded(median(rows, "commit_writes"), 2),
            "same": all(row["same"] for row in rows)}
    return out


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def profile_games(args: argparse.Namespace, folder: Path) -> None:
    """``--profile DIR``: one play of the first seed's game in each layout, with each host,
    the host thread and every bot process under cProfile; their statistics go to DIR
    (LAYOUT-LOG/host.prof, bot0.prof...), and the top functions by own time are printed."""
    secure = not args.insecure
    with tempfile.TemporaryDirectory(prefix="mundus-bench-") as tmp:
        for layout in LAYOUTS:
            for log in HOST_LOGS:
                where = folder / f"{layout}-{log}"
                where.mkdir(parents=True, exist_ok=True)
                log_dir = Path(tmp) / f"{layout}-{log}" if log == "shipped" else None
                game = network_game(args.seed, args.strategy, secure, layout, log_dir, where)
                _, _, count = in_process_game(args.seed, args.strategy, 1)
                print(f"== {LAYOUTS[layout]}, host {HOST_LOGS[log]}: {game.seconds * 1000:.1f} "
                      f"ms, {count} decisions, {game.seconds * 1e6 / count:.0f} us a decision "
                      f"(profiled); statistics in {where}")
                for name in sorted(path.name for path in where.glob("*.prof")):
                    print(f"-- {name}: own time per decision, top 12")
                    stats = pstats.Stats(str(where / name))
                    rows = sorted(stats.stats.items(),  # type: ignore[attr-defined]
                                  key=lambda item: -item[1][2])[:12]
                    for (file, line, function), (_, calls, own, _, _) in rows:
                        print(f"   {own * 1e6 / count:8.1f} us {calls / count:6.2f} calls  "
                              f"{Path(file).name}:{line}({function})")


def goals(games: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Issue 29's network rows: each ratio, its goal and whether it is met."""
    rows: dict[str, dict[str, Any]] = {}
    for layout, goal in FLOOR_GOALS.items():
        ratio = games[f"{layout}/no_log"]["vs_floor"]
        rows[f"{layout}_no_log_vs_floor"] = {"ratio": ratio, "goal": goal, "met": ratio <= goal}
        ratio = games[layout]["vs_durable_floor"]
        rows[f"{layout}_shipped_vs_durable_floor"] = {
            "ratio": ratio, "goal": DURABLE_FLOOR_GOAL, "met": ratio <= DURABLE_FLOOR_GOAL}
        ratio = round(games[layout]["remote_ms"] / games[f"{layout}/no_log"]["remote_ms"], 2)
        rows[f"{layout}_shipped_vs_no_log"] = {"ratio": ratio, "goal": None, "met": None}
    # issue 34's rows: against the fan-out floors (every bot process receives every update)
    for layout, goal in FANOUT_GOALS.items():
        ratio = games[f"{layout}/no_log"]["vs_fanout_floor"]
        rows[f"{layout}_no_log_vs_fanout_floor"] = {"ratio": ratio, "goal": goal,
                                                    "met": ratio <= goal}
        ratio = games[layout]["vs_durable_fanout_floor"]
        rows[f"{layout}_shipped_vs_durable_fanout_floor"] = {
            "ratio": ratio, "goal": DURABLE_FANOUT_GOAL, "met": ratio <= DURABLE_FANOUT_GOAL}
    for name in ("busy_us", "busy_cpu_us"):
        busy = games["processes"][name]
        rows[f"processes_host_{name}"] = {"ratio": busy, "goal": HOST_BUSY_GOAL_US,
                                          "met": busy <= HOST_BUSY_GOAL_US}
    return rows


# -- main ---------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--round-trips", type=int, default=2000,
                        help="decision round trips to time (default 2000)")
    parser.add_argument("--games", type=int, default=3, help="4-bot games (default 3)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="plays of each game, each way; the fastest counts (default 3)")
    parser.add_argument("--strategy", default="greedy", help="the 4 bots' strategy")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first table")
    parser.add_argument("--insecure", action="store_true",
                        help="no CURVE encryption (host, clients and the bare sockets)")
    parser.add_argument("--profile", type=Path, default=None, metavar="DIR",
                        help="only profile one play of each layout and host (cProfile: the "
                             "host thread and the bot processes), statistics to DIR")
    args = parser.parse_args(argv)
    print(f"build: {describe()}", flush=True)  # plain Python, or which modules compiled
    us = 1e6
    secure = not args.insecure
    if args.profile is not None:
        profile_games(args, args.profile)
        return 0

    _stderr("bare pyzmq round trips, back to back...")
    echo = BareEcho(secure)  # one echo server for the whole run
    try:
        steady = [echo.round_trip() for _ in range(args.round_trips)]
        _stderr("round trips: bare pyzmq and through the host, interleaved...")
        bare, decisions, pings = round_trips(args.round_trips, args.seed, secure, echo)
        steady50 = percentile(steady, 50)
        bare50, bare99 = percentile(bare, 50), percentile(bare, 99)
        dec50, dec99 = percentile(decisions, 50), percentile(decisions, 99)
        ping50 = percentile(pings, 50)
        rtt_ratio = dec50 / steady50
        rtt_ratio_interleaved = dec50 / bare50
        mode = "CURVE" if secure else "plain"
        print(f"round trip, bare pyzmq DEALER/ROUTER ({mode}): back to back p50 "
              f"{steady50 * us:.0f} us; interleaved with the decisions p50 {bare50 * us:.0f} us, "
              f"p99 {bare99 * us:.0f} us ({len(bare)} samples)")
        print(f"round trip, decision through the host ({mode}): p50 {dec50 * us:.0f} us, "
              f"p99 {dec99 * us:.0f} us ({len(decisions)} samples); ping p50 {ping50 * us:.0f} us")
        print(f"decision / bare: {rtt_ratio:.2f}x at p50 against back to back, "
              f"{rtt_ratio_interleaved:.2f}x against interleaved (target {TARGET_RTT_FACTOR:g}x)")
        games = play_games(args, echo)
    finally:
        echo.close()

    main_layout = games["processes"]
    for g in games.values():
        print(f"4 {args.strategy} bots, {g['bots']}, host {g['host']}: in-process "
              f"{g['local_ms']:.1f} ms, over loopback {g['remote_ms']:.1f} ms (medians): "
              f"{g['ratio']:.2f}x (target {TARGET_GAME_FACTOR:g}x); {g['vs_floor']:.2f}x the "
              f"floor, {g['vs_durable_floor']:.2f}x the durable floor; {g['vs_fanout_floor']:.2f}x "
              f"the fan-out floor ({g['fanout_floor_game_ms']:.1f} ms, "
              f"{g['fanout_subscribers']} subscriber process(es)), "
              f"{g['vs_durable_fanout_floor']:.2f}x the durable fan-out floor "
              f"({g['durable_fanout_floor_game_ms']:.1f} ms)")
        print(f"  per decision over loopback: {g['per_decision_us']:.0f} us, of which the "
              f"host's own work {g['busy_us']:.0f} us (handling "
              f"{g['busy_us'] - g['flush_us']:.0f}, publishing {g['flush_us']:.0f}; the host "
              f"thread's CPU in them {g['busy_cpu_us']:.0f} us); "
              f"in-process {g['local_per_decision_us']:.0f} us")
        if g["log_commit_calls"] is not None:
            print(f"  game log: {g['log_commit_calls']:.2f} commit calls per decision, "
                  f"{g['log_commit_writes']:.2f} of them writing (one synced SQLite "
                  f"transaction and one synced mark each)")
        if g["ours_us"] is not None:
            print(f"  CPU per decision of the host's process and the bot process(es): "
                  f"{g['ours_us']:.0f} us")
        if g["cpu_us"] is not None:
            print(f"  the whole machine per decision over loopback: {g['cpu_us']:.0f} us of "
                  f"CPU, {g['switches']} context switches ({os.cpu_count()} cores, shared "
                  f"with whatever else runs)")
    # Every decision waits for at least one round trip (the decider's message in, the next
    # question out), so even a host and clients that cost nothing would be this far behind.
    local_us = main_layout["local_per_decision_us"]
    floor_ratio = main_layout["floor_ratio"]
    floor_us = main_layout["floor_game_ms"] * 1000 / main_layout["decisions_per_game"]
    room_us = TARGET_GAME_FACTOR * local_us - floor_us
    print(f"floor: the in-process game with one bare round trip per decision (no host, no "
          f"protocol) takes {main_layout['floor_game_ms']:.1f} ms (median), {floor_ratio:.2f}x "
          f"in-process; {TARGET_GAME_FACTOR:g}x leaves {room_us:.0f} us per decision for all "
          f"host and client work; with an fsync'd write per decision too (the durable floor) "
          f"{main_layout['durable_floor_game_ms']:.1f} ms")
    table = goals(games)
    for name, row in table.items():
        unit = " us" if name.endswith("_us") else "x"
        goal = "" if row["goal"] is None else (
            f" (goal {row['goal']:g}{unit}: {'met' if row['met'] else 'not met'})")
        print(f"{name.replace('_', ' ')}: {row['ratio']:.2f}{unit}{goal}")
    figures = {
        "security": mode,
        "bare_rtt_p50_us": round(steady50 * us, 1),
        "bare_interleaved_rtt_p50_us": round(bare50 * us, 1),
        "bare_interleaved_rtt_p99_us": round(bare99 * us, 1),
        "decision_rtt_p50_us": round(dec50 * us, 1),
        "decision_rtt_p99_us": round(dec99 * us, 1),
        "ping_rtt_p50_us": round(ping50 * us, 1),
        "rtt_ratio_p50": round(rtt_ratio, 2),
        "rtt_ratio_interleaved_p50": round(rtt_ratio_interleaved, 2),
        "rtt_target_met": rtt_ratio <= TARGET_RTT_FACTOR,
        "games": args.games, "repeat": args.repeat, "strategy": args.strategy,
        "bots": "processes", "cores": os.cpu_count(),
        "decisions_per_game": main_layout["decisions_per_game"],
        "in_process_game_ms": main_layout["local_ms"],
        "network_game_ms": main_layout["remote_ms"],
        "network_us_per_decision": main_layout["per_decision_us"],
        "host_busy_us_per_decision": main_layout["busy_us"],
        "host_busy_cpu_us_per_decision": main_layout["busy_cpu_us"],
        "host_publish_us_per_decision": main_layout["flush_us"],
        "our_cpu_us_per_decision": main_layout["ours_us"],
        "machine_cpu_us_per_decision": main_layout["cpu_us"],
        "context_switches_per_decision": main_layout["switches"],
        "game_ratio": main_layout["ratio"],
        "floor_game_ms": main_layout["floor_game_ms"],
        "floor_ratio": floor_ratio,
        "room_us_per_decision": round(room_us, 1),
        "game_target_met": main_layout["ratio"] <= TARGET_GAME_FACTOR,
        "host": main_layout["host"],
        "durable_floor_game_ms": main_layout["durable_floor_game_ms"],
        "vs_floor": main_layout["vs_floor"],
        "vs_durable_floor": main_layout["vs_durable_floor"],
        "same_results": all(g["same"] for g in games.values()),
        # issue 29's network rows: every ratio with its goal
        "goals": table,
        # the same games with the four seats played by one bot process (mundus bot --seats 4),
        # and both layouts with a host without a game log
        **{key.replace("/", "_"): {k: v for k, v in g.items() if k != "same"} | {
            "game_target_met": g["ratio"] <= TARGET_GAME_FACTOR, "same_results": g["same"]}
           for key, g in games.items() if key != "processes"},
    }
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
