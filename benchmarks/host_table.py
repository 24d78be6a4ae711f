"""Host table benchmark: the host's own Python work per decision, without sockets.

Four program seats play whole games through ``mundus_net.host.table.Table`` exactly as the
server drives it: each answer is encoded and decoded by ``protocol`` (``decode_client``),
handled (``Table.handle``: decide, or commit then reveal for offers), then the table advances
and drains, and every public update and private message is encoded. Answers are drawn at random
from the legal list each seat was sent. What is left out is ZeroMQ (sockets, CURVE, I/O threads)
and the bots' own thinking, so the figure is what the host costs on top of the engine, the part
``benchmarks/network.py`` calls the host's own work.

    python benchmarks/host_table.py                 # 30 games
    python benchmarks/host_table.py --games 10 --profile

The last line of stdout is one JSON object with the figures (CPU time of this process).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import sys
import time
from collections.abc import Sequence
from typing import Any

from mundus_net.host.table import Table, TableSettings
from mundus_net.protocol.commitment import commit, new_nonce
from mundus_net.protocol.messages import decode_client, encode

PLAYERS = 4
Message = dict[str, Any]


def play(seed: int) -> tuple[int, int]:
    """One game at a table of four program seats; returns (answers sent, engine decisions
    that were not automatic)."""
    rng = random.Random(seed)
    table = Table(PLAYERS, TableSettings(fixed_seed=True), seed=seed)
    conns = [f"conn-{i}".encode() for i in range(PLAYERS)]
    tokens = []
    for conn in conns:
        reply = table.handle(conn, decode_client(encode(
            {"t": "hello", "name": conn.decode(), "role": "player", "bot": True})))
        tokens.append(reply["token"])
    table.advance()
    sealed: dict[int, tuple[tuple[int, ...], bytes]] = {}
    answers = 0
    while not table.over:
        for seat in range(PLAYERS):
            pending = table.output.private_state(seat)["pending"]
            if pending is not None:
                break
        else:
            table.advance()
            table.drain()
            continue
        message: Message = {"token": tokens[seat], "pending": pending["id"]}
        if pending["kind"] == "commit":
            cards = tuple(sorted(rng.choice(pending["legal"])["cards"]))
            nonce = new_nonce()
            sealed[seat] = (cards, nonce)
            message.update(t="commit", commitment=commit(
                table.game_id, pending["detail"]["round"], seat, cards, nonce))
        elif pending["kind"] == "reveal":
            cards, nonce = sealed.pop(seat)
            message.update(t="reveal", offer=list(cards), nonce=nonce)
        else:
            message.update(t="decide", decision=rng.choice(pending["legal"]))
        reply = table.handle(conns[seat], decode_client(encode(message)))
        if reply["t"] != "ok":
            raise RuntimeError(f"the table refused a listed answer: {reply}")
        answers += 1
        table.advance()
        updates, privates = table.drain()
        for update in updates:
            encode(update)
        for _, private in privates:
            encode(private)
    decisions = sum(1 for e in table.game.log if e.kind == "decision" and not e.public["auto"])
    return answers, decisions


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=30, help="games to play (default 30)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game")
    parser.add_argument("--profile", action="store_true",
                        help="print a cProfile of the games (own time) instead")
    args = parser.parse_args(argv)
    seeds = range(args.seed, args.seed + args.games)
    if args.profile:
        profiler = cProfile.Profile()
        for seed in seeds:
            profiler.runcall(play, seed)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return 0
    answers = decisions = 0
    start = time.process_time()
    for number, seed in enumerate(seeds, 1):
        a, d = play(seed)
        answers += a
        decisions += d
        print(f"  {number}/{args.games} games", file=sys.stderr, end="\r", flush=True)
    seconds = time.process_time() - start
    print(file=sys.stderr)
    per_answer = 1e6 * seconds / answers
    print(f"{args.games} games at a 4-seat table, {answers} answers ({decisions} engine "
          f"decisions): {per_answer:.0f} us of CPU per answer, protocol and engine included")
    print(json.dumps({"games": args.games, "answers": answers, "decisions": decisions,
                      "cpu_seconds": round(seconds, 3),
                      "cpu_us_per_answer": round(per_answer, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
