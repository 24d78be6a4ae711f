"""Seeded games to count instructions of, under callgrind: a measure the machine's load does
not change, where the rates of ``engine.py`` vary with what else runs (benchmarks/README.md,
"The engine pass").

Plays ``GAMES`` seeded 4-player games, ours (random bots through the referee, as ``engine.py``
plays them) or catanatron's (4 random players, as ``engine.py`` plays them), and prints every
step and the steps with a choice, counted as ``engine.py`` counts them; ``none`` imports the
same and plays nothing, so that the imports can be subtracted. ``greedy`` plays four greedy
bots (as ``tournament.py --bots greedy,greedy,greedy,greedy``), ``search`` one search bot
against three greedy ones (as ``strength.py --bots search:budget=plain``, with other seeds:
the plain build's search in both builds, so that the two builds' counts compare the same
games)::

    valgrind --tool=callgrind --callgrind-out-file=cg.out python benchmarks/instructions.py ours 20
    valgrind --tool=callgrind --callgrind-out-file=cg.out python benchmarks/instructions.py none 0

Instructions a step: (the first ``Collected`` - the second) / the steps printed.
"""

from __future__ import annotations

import sys

from engine import catanatron_game, counted_steps

from mundus_net.bots.base import load_bot
from mundus_net.bots.random_bot import RandomBot
from mundus_net.engine.game import Game
from mundus_net.tools.runner import play_game

KINDS = ("ours", "catanatron", "none", "greedy", "search")


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in KINDS or not argv[1].isdigit():
        print(f"usage: instructions.py {{{','.join(KINDS)}}} GAMES", file=sys.stderr)
        return 2
    kind, games = argv[0], int(argv[1])
    reference = catanatron_game()
    if kind == "catanatron" and reference is None:
        print("catanatron is not installed (pip install -e '.[bench]')", file=sys.stderr)
        return 2
    steps = choices = 0
    for seed in range(games if kind != "none" else 0):
        if kind == "ours":
            game = play_game(Game.new(4, seed), [RandomBot(seed * 4 + s) for s in range(4)])
            every, chosen = counted_steps(game)
        elif kind in ("greedy", "search"):
            first = "search:budget=plain" if kind == "search" else kind
            specs = (first, "greedy", "greedy", "greedy")
            bots = [load_bot(spec, seed * 4 + s) for s, spec in enumerate(specs)]
            every, chosen = counted_steps(play_game(Game.new(4, seed), bots))
        else:
            assert reference is not None
            every, chosen = reference(seed)
        steps += every
        choices += chosen
    print(f"{kind}: {games} games, {steps} steps, {choices} with a choice")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
