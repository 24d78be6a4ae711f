"""Network benchmark: what the host and the client library add to a game, on loopback.

1. **Decision round trip.** A client (``client.Connection``) plays seat 3 of 4-seat tables
   whose other seats are host bots (random); each ``decide``/``commit``/``reveal`` is timed
   from the send to the host's reply (``ok``). Next to it, in the same run: a bare pyzmq
   DEALER/ROUTER round trip with frames of about the same sizes (no msgpack, no host), and
   the client's ``ping`` to the host (the protocol without the engine). Both servers run in
   a child process. Target: the decision round trip within 3x the bare one.
2. **A 4-bot game.** The same game (table seed, greedy bots with seeds 0-3 at seats 0-3)
   played in-process with ``mundus_net.runner.play_game``, and over loopback: a host in a
   thread of this process and four ``mundus bot`` processes, timed by the host from the
   update that starts the game to the one that ends it. Both must end with the same result.
   Target: the networked game within 3x the in-process one.

    python benchmarks/network.py                 # 2000 round trips, 3 games
    python benchmarks/network.py --round-trips 5000 --games 5 --seed 7

Progress goes to stderr; the last line of stdout is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import multiprocessing.connection
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import zmq

from client.connection import Accepted, Connection, Pong
from host.server import Host
from host.table import Table
from mundus_net.bots.base import load_bot
from mundus_net.game import Game, Result
from mundus_net.runner import play_game

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = 4
TARGET_RTT_FACTOR = 3.0
TARGET_GAME_FACTOR = 3.0
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


# -- servers in processes of their own ---------------------------------------------------------
#
# Both servers of the round-trip comparison run in a child process, as a real host does, so
# that neither shares this process's interpreter lock with the measuring client.


def _echo_server(pipe: Connection_) -> None:
    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    pipe.send(router.bind_to_random_port("tcp://127.0.0.1"))
    poller = zmq.Poller()
    poller.register(router, zmq.POLLIN)
    reply = b"r" * REPLY_BYTES
    while True:
        if poller.poll(50):  # the host polls too; a blocking recv would flatter zmq
            identity, _ = router.recv_multipart()
            router.send_multipart([identity, reply])


def _table_server(pipe: Connection_, seed: int) -> None:
    """One table after another, each with three random host bots; the address goes back
    through ``pipe``."""
    for game in itertools.count():
        table = Table(PLAYERS, seed=seed + game,
                      bots=[load_bot("random", i) for i in range(PLAYERS - 1)])
        # Rate limits are the host's defence against floods; a benchmark client is one.
        host = Host(table, port=0, rate=1e9, burst=1e9, linger_after_end=5.0, log=_stderr)
        host.start()
        pipe.send(host.address)
        host.wait()


def _child(target: Any, *args: Any) -> tuple[multiprocessing.process.BaseProcess, Any]:
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=target, args=(child, *args), daemon=True)
    proc.start()
    if not parent.poll(WAIT):
        raise TimeoutError(f"{target.__name__} did not start")
    return proc, parent


def bare_round_trips(count: int) -> list[float]:
    """DEALER -> ROUTER -> DEALER with fixed frames of about a decision's and an ok's size."""
    proc, pipe = _child(_echo_server)
    port = pipe.recv()
    ctx = zmq.Context()
    dealer = ctx.socket(zmq.DEALER)
    dealer.connect(f"tcp://127.0.0.1:{port}")
    request = b"q" * REQUEST_BYTES
    poller = zmq.Poller()
    poller.register(dealer, zmq.POLLIN)
    samples: list[float] = []
    clock = time.perf_counter
    try:
        for i in range(count + 100):
            start = clock()
            dealer.send(request)
            if not poller.poll(WAIT * 1000):
                raise TimeoutError("no echo")
            dealer.recv()
            if i >= 100:  # warm-up
                samples.append(clock() - start)
    finally:
        dealer.close(linger=0)
        ctx.term()
        proc.terminate()
    return samples


# -- round trips through the host ---------------------------------------------------------------


def host_round_trips(count: int, seed: int) -> tuple[list[float], list[float]]:
    """(decision round trips, ping round trips) of a client at tables of host bots."""
    decisions: list[float] = []
    pings: list[float] = []
    clock = time.perf_counter
    proc, pipe = _child(_table_server, seed)
    try:
        for game in itertools.count():
            if len(decisions) >= count:
                break
            if not pipe.poll(WAIT):
                raise TimeoutError("no table")
            conn = Connection(pipe.recv(), "bench", bot=True)
            conn.connect(WAIT)
            bot = load_bot("random", seed + game)
            try:
                while conn.result is None and len(decisions) < count:
                    pending = conn.ready
                    if pending is None:
                        conn.poll(1.0)
                        continue
                    decision = bot.decide(conn.view(), pending.legal)  # type: ignore[arg-type]
                    start = clock()
                    request = conn.decide(decision)
                    while True:
                        notices = conn.poll(5.0)
                        if any(isinstance(n, Accepted) and n.id == request for n in notices):
                            decisions.append(clock() - start)
                            break
                        if conn.ready is not None or conn.result is not None:
                            break  # refused (counted nowhere) or over
                    if len(pings) < len(decisions) // 4 and conn.result is None:
                        pings.append(_ping(conn))
            finally:
                conn.close()
    finally:
        proc.terminate()
    return decisions, pings


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


def in_process_game(seed: int, strategy: str, repeat: int = 5) -> tuple[float, Result, int]:
    """The fastest of ``repeat`` plays of the same game (one game is short and noisy)."""
    best = float("inf")
    for _ in range(repeat):
        bots = [load_bot(strategy, seat) for seat in range(PLAYERS)]
        start = time.perf_counter()
        game = Game.new(PLAYERS, seed)
        play_game(game, bots)
        best = min(best, time.perf_counter() - start)
    assert game.result is not None
    decisions = sum(1 for e in game.log if e.kind == "decision" and not e.public["auto"])
    return best, game.result, decisions


class TimedHost(Host):
    """A host that adds up the time it spends handling messages and publishing."""

    handling = 0.0
    flushing = 0.0

    def _message(self, frames: list[bytes]) -> None:
        start = time.perf_counter()
        super()._message(frames)
        self.handling += time.perf_counter() - start

    def _flush(self) -> None:
        start = time.perf_counter()
        super()._flush()
        self.flushing += time.perf_counter() - start


def network_game(seed: int, strategy: str) -> tuple[float, Result, TimedHost]:
    """Host in a thread here, four bot processes joined in seat order."""
    marks: dict[str, float] = {}

    def on_update(update: dict[str, Any]) -> None:
        kinds = {e["kind"] for e in update["events"]}
        if "started" in kinds:
            marks["start"] = time.perf_counter()
        if "game_over" in kinds:
            marks["end"] = time.perf_counter()

    table = Table(PLAYERS, seed=seed, heartbeat_ms=1000)
    host = TimedHost(table, port=0, on_update=on_update, log=_stderr)
    host.start()
    procs: list[subprocess.Popen[str]] = []
    try:
        for seat in range(PLAYERS):
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "mundus_net.cli", "bot", "--connect", host.address,
                 "--strategy", strategy, "--seed", str(seat), "--name", f"bench{seat}",
                 "--json"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True))
            deadline = time.monotonic() + WAIT
            while host.call(lambda t: t.free_seats()) > PLAYERS - seat - 1:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"bot {seat} did not join")
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
    result = table.game.result
    assert result is not None
    return marks["end"] - marks["start"], result, host


# -- main ---------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--round-trips", type=int, default=2000,
                        help="decision round trips to time (default 2000)")
    parser.add_argument("--games", type=int, default=3, help="4-bot games (default 3)")
    parser.add_argument("--strategy", default="greedy", help="the 4 bots' strategy")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first table")
    args = parser.parse_args(argv)
    us = 1e6

    _stderr("bare pyzmq round trips...")
    bare = bare_round_trips(args.round_trips)
    _stderr("round trips through the host...")
    decisions, pings = host_round_trips(args.round_trips, args.seed)
    bare50, bare99 = percentile(bare, 50), percentile(bare, 99)
    dec50, dec99 = percentile(decisions, 50), percentile(decisions, 99)
    ping50 = percentile(pings, 50)
    rtt_ratio = dec50 / bare50
    print(f"round trip, bare pyzmq DEALER/ROUTER: p50 {bare50 * us:.0f} us, "
          f"p99 {bare99 * us:.0f} us ({len(bare)} samples)")
    print(f"round trip, decision through the host: p50 {dec50 * us:.0f} us, "
          f"p99 {dec99 * us:.0f} us ({len(decisions)} samples); ping p50 {ping50 * us:.0f} us")
    print(f"decision / bare: {rtt_ratio:.2f}x at p50 (target {TARGET_RTT_FACTOR:g}x)")

    local: list[float] = []
    remote: list[float] = []
    same = True
    decisions_per_game: list[int] = []
    host_busy: list[float] = []  # seconds per decision the host spent handling + publishing
    host_flush: list[float] = []
    for i in range(args.games):
        seed = args.seed + i
        _stderr(f"game {i + 1}/{args.games} (seed {seed})...")
        local_s, local_result, count = in_process_game(seed, args.strategy)
        remote_s, remote_result, host = network_game(seed, args.strategy)
        host_busy.append((host.handling + host.flushing) / count)
        host_flush.append(host.flushing / count)
        same = same and local_result == remote_result
        local.append(local_s)
        remote.append(remote_s)
        decisions_per_game.append(count)
        print(f"game seed {seed}: in-process {local_s * 1000:.1f} ms, over loopback "
              f"{remote_s * 1000:.1f} ms ({count} decisions; same result: "
              f"{local_result == remote_result})")
    local_ms = statistics.median(local) * 1000
    remote_ms = statistics.median(remote) * 1000
    game_ratio = remote_ms / local_ms
    print(f"4 {args.strategy} bots: in-process {local_ms:.1f} ms, over loopback "
          f"{remote_ms:.1f} ms (medians): {game_ratio:.2f}x (target {TARGET_GAME_FACTOR:g}x)")
    per_decision = remote_ms * 1000 / statistics.mean(decisions_per_game)
    busy_us = statistics.median(host_busy) * us
    flush_us = statistics.median(host_flush) * us
    print(f"per decision over loopback: {per_decision:.0f} us, of which the host's own work "
          f"{busy_us:.0f} us (handling {busy_us - flush_us:.0f}, publishing {flush_us:.0f}); "
          f"in-process {local_ms * 1000 / statistics.mean(decisions_per_game):.0f} us")
    figures = {
        "bare_rtt_p50_us": round(bare50 * us, 1), "bare_rtt_p99_us": round(bare99 * us, 1),
        "decision_rtt_p50_us": round(dec50 * us, 1),
        "decision_rtt_p99_us": round(dec99 * us, 1),
        "ping_rtt_p50_us": round(ping50 * us, 1),
        "rtt_ratio_p50": round(rtt_ratio, 2), "rtt_target_met": rtt_ratio <= TARGET_RTT_FACTOR,
        "games": args.games, "strategy": args.strategy,
        "decisions_per_game": round(statistics.mean(decisions_per_game), 1),
        "in_process_game_ms": round(local_ms, 1), "network_game_ms": round(remote_ms, 1),
        "network_us_per_decision": round(per_decision, 1),
        "host_busy_us_per_decision": round(busy_us, 1),
        "host_publish_us_per_decision": round(flush_us, 1),
        "game_ratio": round(game_ratio, 2), "game_target_met": game_ratio <= TARGET_GAME_FACTOR,
        "same_results": same,
    }
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
