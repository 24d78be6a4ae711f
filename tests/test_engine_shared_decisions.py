"""The engine's shared decision objects (issue 29): every legal list built from the shared
tables equals the list built afresh, decision by decision, on many seeded games (R3.3
Coronado, R4.4 fleet splits, R4.7 pirate discards, R5.4 choosing the trade master)."""

from __future__ import annotations

import random

from mundus_net.engine.cards import submultisets
from mundus_net.engine.decisions import (
    ChooseEvent,
    ChooseTradeMaster,
    Decision,
    PirateDiscard,
    SplitFleet,
)
from mundus_net.engine.deck import EVENTS
from mundus_net.engine.game import CORONADO, OVER, PIRATES, SIMULTANEOUS, SPLIT, TM_TIE, Game


def _fresh_legal(game: Game, seat: int) -> list[Decision] | None:
    """The legal list of the shared kinds as the engine built it before sharing (None for
    the other kinds)."""
    phase = game.phase
    if phase == CORONADO:
        return [ChooseEvent(e) for e in (None, *EVENTS)]
    if phase == TM_TIE:
        return [ChooseTradeMaster(s) for s in game.tie]
    if phase == SPLIT:
        rest = game.caravels[seat][1:]
        return [SplitFleet(()), *(SplitFleet(tuple(c for i, c in enumerate(rest) if mask >> i & 1))
                                  for mask in range(1, 1 << len(rest)))]
    if phase == PIRATES:
        if seat not in game.pirates_due or seat in game.pirates_chosen:
            return []
        return [PirateDiscard(c)
                for c in submultisets(game.hands[seat], game.pirates_due[seat])]
    return None


def test_shared_decisions_equal_fresh_ones_on_many_seeded_games() -> None:
    compared = {CORONADO: 0, TM_TIE: 0, SPLIT: 0, PIRATES: 0}
    for seed in range(120):
        game = Game.new(2 + seed % 5, seed)
        rng = random.Random(seed)
        while game.phase != OVER:
            seat = game.waiting_seats()[0] if game.phase in SIMULTANEOUS else game.active
            legal = game.legal(seat)
            fresh = _fresh_legal(game, seat)
            if fresh is not None:
                assert legal == fresh
                assert [type(d) for d in legal] == [type(d) for d in fresh]
                compared[game.phase] += 1
            game.apply(seat, legal[rng.randrange(len(legal))])
    assert all(compared.values()), compared  # every shared kind was met


def test_a_shared_decision_is_the_same_object_each_time_it_is_listed() -> None:
    first = Game.new(4, 3)
    second = Game.new(4, 3)
    rng = random.Random(3)
    while first.phase != OVER:
        seat = first.waiting_seats()[0] if first.phase in SIMULTANEOUS else first.active
        legal, again = first.legal(seat), second.legal(seat)
        if first.phase in (CORONADO, TM_TIE, SPLIT, PIRATES):
            assert all(a is b for a, b in zip(legal, again, strict=True))
        choice = rng.randrange(len(legal))
        first.apply(seat, legal[choice])
        second.apply(seat, again[choice])
