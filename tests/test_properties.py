"""Properties of whole random games (hypothesis over seeds and player counts, random bots).

Every step: cards conserved (R1.1, R2.3), doubloons never negative (R1.4), no view shows
another seat's hidden cards; every game ends (R8); replaying the logged decisions reproduces
the game (R2.6); an illegal decision never changes the state (every refusal names a rule).
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.positions import assert_conserved, decisions_of, snapshot

from mundus_net.bots.random_bot import RandomBot
from mundus_net.engine.cards import RELIC
from mundus_net.engine.decisions import (
    DECISION_TYPES,
    Announce,
    BuyMarket,
    ChooseEvent,
    ChooseFirst,
    ChooseTradeMaster,
    Convert,
    Decision,
    EndTurn,
    Gift,
    MakePerfect,
    MakeRelicSet,
    MakeSeries,
    MakeSet,
    Offer,
    PickCards,
    PirateDiscard,
    RuleError,
    SplitFleet,
    Store,
    Take,
)
from mundus_net.engine.game import Game
from mundus_net.engine.view import PlayerView

SAFETY_ROUNDS = 200  # far above any real game: only there so a broken engine cannot hang
PROPS = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow])

games = st.tuples(st.integers(min_value=0, max_value=2**32 - 1), st.integers(2, 6),
                  st.booleans())


def new(seed: int, players: int, promo: bool) -> Game:
    return Game.new(players, seed, promo=promo, first_tm=None)


def play(g: Game, seed: int, each_step: Any = None) -> Game:
    """Play ``g`` with random bots to its end, calling ``each_step(g)`` before each decision."""
    bots = [RandomBot(seed + 7 * s) for s in range(g.players)]
    while not g.is_over:
        assert g.round <= SAFETY_ROUNDS, "the game does not end"
        if each_step is not None:
            each_step(g)
        seat = g.waiting_seats()[0]
        g.apply(seat, bots[seat].decide(PlayerView(g, seat), g.legal(seat)))
    return g


@PROPS
@given(games)
def test_R1_1_cards_conserved_and_R1_4_doubloons_never_negative_at_every_step(
        params: tuple[int, int, bool]) -> None:
    """R1.1/R2.3/R1.4: the 120 resources and the developments in play are each somewhere
    exactly once, and no one's doubloons go below 0, before every decision and at the end."""
    seed, players, promo = params

    def check(g: Game) -> None:
        assert_conserved(g)
        assert min(g.doubloons) >= 0

    g = play(new(seed, players, promo), seed, check)
    check(g)


@PROPS
@given(games)
def test_R8_every_game_ends_by_itself(params: tuple[int, int, bool]) -> None:
    """R8: without a round limit every game ends by R8.1, R8.2 or R8.3, with a result that
    lists everyone's doubloons and places (R8.4)."""
    seed, players, promo = params
    g = play(new(seed, players, promo), seed)
    r = g.result
    assert r is not None and g.pending is None
    assert r.reason in ("perfect", "doubloons", "queue")
    assert r.doubloons == tuple(g.doubloons) and r.rounds == g.round
    assert r.winners and all(r.places[w] == 1 for w in r.winners)
    assert sorted(r.places)[0] == 1 and len(r.places) == players
    if r.reason == "doubloons":
        assert max(r.doubloons) >= 75
    if r.reason != "perfect":
        assert set(r.winners) == {s for s in range(players) if g.doubloons[s] == max(g.doubloons)}


@PROPS
@given(games)
def test_R2_6_replaying_the_logged_decisions_reproduces_the_game(
        params: tuple[int, int, bool]) -> None:
    """R2.6: the non-automatic decisions of the log (private ones from their seat's private
    part), replayed on a fresh game with the same options, give the same game."""
    seed, players, promo = params
    g = play(new(seed, players, promo), seed)
    replay = Game(g.options)
    for seat, decision in decisions_of(g):
        replay.apply(seat, decision)
    assert replay.is_over
    assert replay.result == g.result
    assert snapshot(replay) == snapshot(g)
    assert replay.log == g.log


@PROPS
@given(games)
def test_R7_pending_decisions_are_real_choices_of_the_waiting_seats(
        params: tuple[int, int, bool]) -> None:
    """R7: at every step the pending decision's seats are the waiting seats, each has at
    least two legal choices (a single choice is applied by the engine), and no other seat
    has anything to decide."""
    seed, players, promo = params

    def check(g: Game) -> None:
        pending = g.pending
        assert pending is not None and pending.kind == g.phase
        waiting = g.waiting_seats()
        assert pending.seats == waiting and waiting
        for seat in range(players):
            if seat in waiting:
                assert len(g.legal(seat)) >= 2
            else:
                assert g.legal(seat) == []

    play(new(seed, players, promo), seed, check)


@settings(PROPS, max_examples=15)
@given(games)
def test_views_never_contain_another_seats_hidden_cards(params: tuple[int, int, bool]) -> None:
    """A seat's view changes not when another seat's hidden cards are swapped for others;
    a spectator's view has no hand (R4.2, R5.3, R6.9)."""
    seed, players, promo = params
    rng = random.Random(seed)

    def check(g: Game) -> None:
        hidden = rng.randrange(players)
        c = g.copy()
        counts = c.hands[hidden]
        held = [v for v in range(1, 11) if counts[v] > 0
                and v not in {d for _, d in c.converted}
                and counts[v] > list(c.offers.get(hidden, ())).count(v)]
        if held and c.draw:
            v, i = rng.choice(held), rng.randrange(len(c.draw))
            w = c.draw[i]
            c.draw[i] = v
            counts[v] -= 1
            counts[w] += 1
        rng.shuffle(c.draw)
        for seat in [None, *range(players)]:
            if seat == hidden:
                continue
            assert PlayerView(g, seat).to_dict() == PlayerView(c, seat).to_dict()
        spectator = PlayerView(g, None).to_dict()
        assert "hand" not in spectator and "stored" not in spectator

    play(new(seed, players, promo), seed, check)


# -- illegal decisions ----------------------------------------------------------------------------


PHASE_KINDS: dict[str, tuple[type, ...]] = {
    "coronado": (ChooseEvent,), "split": (SplitFleet,), "pick": (PickCards,),
    "sergio": (BuyMarket,), "pirates": (PirateDiscard,), "announce": (Announce,),
    "offer": (Offer,), "tm_tie": (ChooseTradeMaster,), "take": (Take,), "gift": (Gift,),
    "first": (ChooseFirst,), "store": (Store,),
    "turn": (Convert, MakeSet, MakeSeries, MakeRelicSet, MakePerfect, EndTurn),
}


def random_cards(rng: random.Random, g: Game, seat: int, most: int = 6) -> tuple[int, ...]:
    """Often a part of the seat's hand (plausible), else any values (often impossible)."""
    if 0 <= seat < g.players and rng.random() < 0.6:
        hand = [v for v in range(1, RELIC + 1) for _ in range(g.hands[seat][v])]
        if g.phase == "pick":
            hand = list(g.display)
        cards = rng.sample(hand, rng.randint(0, min(most, len(hand))))
        if cards and rng.random() < 0.3:
            cards[0] = rng.randint(0, RELIC + 1)
        return tuple(sorted(cards))
    return tuple(sorted(rng.randint(0, RELIC + 1) for _ in range(rng.randint(0, most))))


def random_decision(rng: random.Random, g: Game, seat: int) -> Decision:
    """A decision (usually of the pending kind) with random, often wrong, fields."""
    if rng.random() < 0.85 and g.phase in PHASE_KINDS:
        kind = rng.choice(PHASE_KINDS[g.phase])
    else:
        kind = rng.choice(DECISION_TYPES)
    small = rng.randint(-1, 11)
    other = rng.randint(-1, g.players)
    if kind is ChooseEvent:
        return ChooseEvent(rng.choice([None, "KA", "IP", "ST", "FI", "PI", "XX"]))
    if kind is SplitFleet:
        own = [c for devs in g.devs for c in devs] + ["D01", "ZZ"]
        return SplitFleet(tuple(rng.sample(own, rng.randint(0, min(3, len(own))))))
    if kind in (PickCards, PirateDiscard, Offer, Store):
        return kind(random_cards(rng, g, seat))
    if kind is BuyMarket:
        return BuyMarket(rng.choice([None, small]))
    if kind is Announce:
        return Announce(small)
    if kind is ChooseTradeMaster:
        return ChooseTradeMaster(other)
    if kind is Take:
        return Take(other, small, rng.choice([None, small, rng.randint(1, RELIC)]))
    if kind is Gift:
        return Gift(small)
    if kind is ChooseFirst:
        return ChooseFirst(other)
    if kind is Convert:
        return Convert(small, rng.randint(0, RELIC))
    if kind is MakeSet:
        v = rng.randint(0, 10)
        size = rng.randint(2, 6)
        cards = tuple(sorted(rng.choice([v, v, RELIC]) for _ in range(size)))
        return MakeSet(v, cards, rng.randint(-2, 6))
    if kind is MakeSeries:
        return MakeSeries(tuple(sorted(rng.sample(range(1, 11), rng.randint(3, 10)))))
    if kind is MakeRelicSet:
        return MakeRelicSet(rng.randint(0, 6))
    if kind is MakePerfect:
        return MakePerfect()
    return EndTurn()


def normal(d: Decision) -> Decision:
    """The canonical form of a decision (sorted card tuples), as ``legal`` lists it."""
    if isinstance(d, (PickCards, PirateDiscard, Offer, Store, MakeSeries)):
        return type(d)(tuple(sorted(d.cards)))
    if isinstance(d, MakeSet):
        return MakeSet(d.value, tuple(sorted(d.cards)), d.target)
    return d


@settings(PROPS, max_examples=20)
@given(games)
def test_an_illegal_decision_never_changes_the_state(params: tuple[int, int, bool]) -> None:
    """Random decisions at random points of random games: a refused one raises RuleError with
    a rule ID and leaves every field untouched; an accepted one is one of the legal
    decisions; every legal decision is accepted."""
    seed, players, promo = params
    rng = random.Random(seed)
    refused: set[str] = set()

    def check(g: Game) -> None:
        if rng.random() < 0.6:  # a sample of the steps keeps the test quick
            return
        waiting = g.waiting_seats()
        for _ in range(3):
            seat = rng.choice(waiting) if rng.random() < 0.8 else rng.randrange(players)
            d = random_decision(rng, g, seat)
            c = g.copy()
            before = snapshot(c)
            try:
                c.apply(seat, d)
            except RuleError as err:
                assert err.rule.startswith(("R", "P"))
                refused.add(err.rule)
                assert snapshot(c) == before, (d, err)
                assert normal(d) not in g.legal(seat), (d, err)
            else:
                assert normal(d) in g.legal(seat) or isinstance(d, SplitFleet), d
        seat = waiting[rng.randrange(len(waiting))]
        legal = g.legal(seat)
        c = g.copy()
        c.apply(seat, legal[rng.randrange(len(legal))])

    play(new(seed, players, promo), seed, check)
    assert "R7" in refused
