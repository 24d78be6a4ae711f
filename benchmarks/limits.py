"""The host's limits per source on loopback (issue 27; docs/security.md, "Under load and
attack" and "Guessing the code"): three small measurements, each bounded in count and time.

* ``subscribers``: N subscriber connections, one every 5 ms, each sending 18 distinct
  subscriptions (about 1.9 KB, under the 2,048-byte allowance): how often the publisher
  asks the kernel what a connection received (``bytes_received``: dup + getsockopt), per
  subscription frame, and the time it spent doing so.
* ``keys``: one peer (from 127.0.0.2) asks the key port for the keys RATE times a second,
  or as fast as it can, for SECONDS; every half second a newcomer from an address of its own
  (127.0.1.N) asks once and waits up to 2 s: how many newcomers are answered.
* ``invites``: CONNS connections, from one address or each from its own (127.0.2.N), send
  hellos with wrong invite codes at 90 a second each for SECONDS: how many codes the table
  compared, and whether the right code is taken then from the guessing address and from a
  newcomer's.
* ``stranger_reads``: CONNS connections that never say hello each send 15 pings, ROUNDS
  times; each time, with the budget of strangers used up, the game's thread reads what
  came (``Host._read``, the host's loop not running): its CPU microseconds per ping read
  (issue 38: the read loop that a flood of pings costs the game's thread).

Linux routes all of 127.0.0.0/8 to the loopback interface, so each address is a source of
its own. The last line of stdout is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

import zmq

from mundus_net.host.server import Host
from mundus_net.host.table import Table, TableSettings
from mundus_net.protocol.messages import decode_host, encode
from mundus_net.protocol.security import make_client

CODE = "K7QF-M2XD"


def _dealer(ctx: zmq.Context[Any], source: str, target: str,
            server_key: str | None = None) -> zmq.Socket[Any]:
    sock: zmq.Socket[Any] = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.SNDHWM, 100_000)
    if server_key is not None:
        make_client(sock, server_key)
    sock.connect(f"tcp://{source}:0;{target}")  # ZeroMQ's "source;destination"
    return sock


def subscribers(count: int) -> dict[str, Any]:
    asked = [0, 0.0]
    host = Host(Table(2, seed=1), port=0, insecure=True, log=lambda text: None)
    host.start()
    publisher = host._publisher
    assert publisher is not None
    measured = publisher.received

    def counting(fd: int) -> int | None:
        start = time.perf_counter()
        try:
            return measured(fd)
        finally:
            asked[0] += 1
            asked[1] += time.perf_counter() - start

    publisher.received = counting
    ctx: zmq.Context[Any] = zmq.Context()
    socks = []
    frames = 0
    try:
        for i in range(count):
            sock: zmq.Socket[Any] = ctx.socket(zmq.XSUB)
            sock.setsockopt(zmq.LINGER, 0)
            sock.connect(f"tcp://127.0.0.1:{host.pub_port}")
            for k in range(18):
                sock.send(b"\x01" + i.to_bytes(2, "big") + k.to_bytes(2, "big") * 50)
                frames += 1
            socks.append(sock)
            time.sleep(0.005)
        time.sleep(2.0)
        closed = publisher.closed_floods
    finally:
        for sock in socks:
            sock.close()
        host.stop()
        ctx.term()
    return {"subscriber_connections": count, "subscription_frames": frames,
            "bytes_received_calls": asked[0],
            "calls_per_frame": round(asked[0] / max(1, frames), 2),
            "ms_asking": round(asked[1] * 1000, 1), "closed_as_floods": closed}


def keys(rate: float, seconds: float) -> dict[str, Any]:
    host = Host(Table(2, seed=1), port=0, log=lambda text: None)
    host.start()
    ctx: zmq.Context[Any] = zmq.Context()
    target = f"127.0.0.1:{host.key_port}"
    flooder = _dealer(ctx, "127.0.0.2", target)
    waiting: list[tuple[zmq.Socket[Any], float]] = []
    tried = answered = sent = flood_answered = 0
    start = next_flood = next_newcomer = time.monotonic()
    try:
        while True:
            now = time.monotonic()
            attacking = now - start < seconds
            if not attacking and not waiting:
                break
            if attacking and now >= next_newcomer:
                tried += 1
                newcomer = _dealer(ctx, f"127.0.1.{tried}", target)
                newcomer.send(b"keys?")
                waiting.append((newcomer, now))
                next_newcomer += 0.5
            if attacking:
                due = 50 if rate == 0 else int((now - next_flood) * rate)
                for _ in range(max(0, due)):
                    try:
                        flooder.send(b"keys?", zmq.NOBLOCK)
                    except zmq.Again:
                        break
                    sent += 1
                if rate:
                    next_flood += max(0, due) / rate
            while flooder.poll(0):
                flooder.recv()
                flood_answered += 1
            for newcomer, asked_at in list(waiting):
                if newcomer.poll(0):
                    newcomer.recv()
                    answered += 1
                elif now - asked_at <= 2.0:
                    continue
                waiting.remove((newcomer, asked_at))
                newcomer.close()
            time.sleep(0.001)
    finally:
        flooder.close()
        for newcomer, _ in waiting:
            newcomer.close()
        host.stop()
        ctx.term()
    return {"flood_rate": rate or "full speed", "seconds": seconds, "flood_requests": sent,
            "flood_answered": flood_answered, "newcomers": tried,
            "newcomers_answered": answered}


def invites(conns: int, spread: bool, seconds: float) -> dict[str, Any]:
    host = Host(Table(2, TableSettings(invite=CODE), seed=1), port=0, log=lambda text: None)
    host.start()
    ctx: zmq.Context[Any] = zmq.Context()
    assert host.public_key is not None
    target = f"127.0.0.1:{host.port}"

    def connect(source: str) -> zmq.Socket[Any]:
        return _dealer(ctx, source, target, host.public_key)

    def hello(code: str, rid: int) -> bytes:
        return encode({"t": "hello", "name": "Eve", "role": "spectator", "invite": code,
                       "id": rid})

    counts = {"compared": 0, "waiting": 0, "other": 0}

    def drain(sock: zmq.Socket[Any]) -> None:
        while sock.poll(0):
            reply = decode_host(sock.recv())
            if reply.get("code") == "bad_invite":
                counts["compared"] += 1
            elif "invite codes" in str(reply.get("message", "")):
                counts["waiting"] += 1
            else:
                counts["other"] += 1

    def once(source: str, code: str) -> str:
        sock = connect(source)
        try:
            sock.send(hello(code, 1))
            reply = decode_host(sock.recv()) if sock.poll(5000) else {"t": "no answer"}
        finally:
            sock.close()
        return str(reply.get("code") or reply["t"])

    guessing = "127.0.2.1" if spread else "127.0.0.1"
    socks = [connect(f"127.0.2.{i + 1}" if spread else "127.0.0.1") for i in range(conns)]
    sent = 0
    try:
        time.sleep(0.5)  # the CURVE handshakes
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            for sock in socks:
                sock.send(hello("AAAA-AAAA", sent))
                sent += 1
                drain(sock)
            time.sleep(1 / 90)
        time.sleep(0.5)
        for sock in socks:
            drain(sock)
        elapsed = time.monotonic() - start
        right_from_guesser, right_from_newcomer = once(guessing, CODE), once("127.0.3.1", CODE)
    finally:
        for sock in socks:
            sock.close()
        host.stop()
        ctx.term()
    return {"connections": conns, "sources": conns if spread else 1,
            "seconds": round(elapsed, 1), "wrong_codes_sent": sent,
            "compared": counts["compared"],
            "compared_per_s": round(counts["compared"] / elapsed, 1),
            "refused_uncompared": counts["waiting"], "other_replies": counts["other"],
            "right_code_from_the_guessing_address": right_from_guesser,
            "right_code_from_a_newcomer": right_from_newcomer}


def stranger_reads(conns: int, rounds: int) -> dict[str, Any]:
    host = Host(Table(2, seed=1), port=0, insecure=True, log=lambda text: None)
    host.open()  # the sockets only: this thread reads, as the game's thread would
    router = host._router
    assert router is not None
    ctx: zmq.Context[Any] = zmq.Context()
    ping = encode({"t": "ping"})
    now = [0.0]
    host.clock = lambda: now[0]  # a second a round: no connection beyond its own rate
    cpu = 0.0
    read = 0
    try:
        socks = [_dealer(ctx, "127.0.0.1", f"127.0.0.1:{host.port}") for _ in range(conns)]
        time.sleep(0.5)  # connected
        for _ in range(rounds):
            for sock in socks:
                for _ in range(15):
                    sock.send(ping)
            time.sleep(0.3)  # arrived (20 a connection at most are queued: ROUTER_RCVHWM)
            now[0] += 1.0
            host.strangers.tokens, host.strangers.updated = 0.0, now[0]  # used up: all dropped
            dropped = host.strangers_dropped
            start = time.thread_time()
            for _ in range(5):
                host._read(router)
            cpu += time.thread_time() - start
            read += host.strangers_dropped - dropped
    finally:
        ctx.destroy(linger=0)
        host._close()
    return {"connections": conns, "pings_read": read,
            "cpu_us_per_ping": round(1e6 * cpu / max(1, read), 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="a short run of each (for the test suite): 20 subscribers, "
                             "2 s of each flood, 2 rounds of pings")
    args = parser.parse_args(argv)
    seconds = 2.0 if args.quick else 12.0
    runs: list[tuple[str, Callable[[], dict[str, Any]]]] = [
        ("subscribers", lambda: subscribers(20 if args.quick else 150)),
        ("keys_100_per_s", lambda: keys(100.0, seconds)),
        ("keys_full_speed", lambda: keys(0.0, seconds)),
        ("invites_one_address", lambda: invites(4 if args.quick else 20, False,
                                                seconds / 2)),
        ("invites_many_addresses", lambda: invites(10 if args.quick else 100, True,
                                                   seconds / 2)),
        ("stranger_reads", lambda: stranger_reads(100, 2 if args.quick else 20)),
    ]
    figures = {}
    for name, run in runs:
        figures[name] = run()
        print(f"{name}: {json.dumps(figures[name])}", flush=True)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
