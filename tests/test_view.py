"""What a seat may see (PlayerView, public_log): never another seat's hidden cards."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from support.positions import (
    R,
    end_turns,
    give,
    halt_at_round_end,
    invalidate,
    new_game,
    start_turn,
)

from mundus_net.bots.random_bot import RandomBot
from mundus_net.engine.cards import from_counts, submultisets, to_counts
from mundus_net.engine.decisions import EndTurn, Store
from mundus_net.engine.deck import default_deck
from mundus_net.engine.game import Game
from mundus_net.engine.view import PlayerView, StateView, known_hands, public_log


def played_states(players: int, seed: int, every: int = 7) -> Iterator[Game]:
    """A random game, yielded every few decisions (the live game: do not keep it)."""
    g = Game.new(players, seed, promo=seed % 2 == 0)
    bots = [RandomBot(seed * 31 + s) for s in range(players)]
    step = 0
    while not g.is_over:
        if step % every == 0:
            yield g
        seat = g.waiting_seats()[0]
        g.apply(seat, bots[seat].decide(PlayerView(g, seat), g.legal(seat)))
        step += 1
    yield g


def perturbed(g: Game, hidden_seat: int, rng: random.Random) -> Game:
    """A copy of ``g`` that differs only in what ``hidden_seat`` hides (its hand, stored
    cards, and unrevealed offer) and in the order of the face-down piles."""
    c = g.copy()
    c.log = list(g.log)
    converted = {dst for _, dst in c.converted} if c.active == hidden_seat else set()
    for group in (c.hands, c.stored):
        counts = group[hidden_seat][:]
        group[hidden_seat] = counts
        offered = list(c.offers.get(hidden_seat, ())) if group is c.hands else []
        for v in range(1, 11):
            if not counts[v] or v in converted:
                continue
            if counts[v] <= offered.count(v):
                continue
            others = [i for i, w in enumerate(c.draw) if w != v]
            if not others:
                continue
            i = rng.choice(others)
            w = c.draw[i]
            c.draw[i] = v
            counts[v] -= 1
            counts[w] += 1
            break
    if hidden_seat in c.offers:
        sizes = len(c.offers[hidden_seat])
        options = submultisets(c.hands[hidden_seat], sizes)
        c.offers[hidden_seat] = rng.choice(options)
    rng.shuffle(c.draw)
    rng.shuffle(c.devpile)
    invalidate(c)
    return c


def visible(g: Game, seat: int | None) -> dict[str, Any]:
    return PlayerView(g, seat).to_dict()


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_view_never_depends_on_another_seats_hidden_cards(players: int) -> None:
    """A seat's view (and a spectator's) is the same whatever another seat holds, stores or
    offers face down, and whatever the order of the draw piles."""
    rng = random.Random(players)
    checked = 0
    for seed in range(3):
        for g in played_states(players, seed):
            for hidden in range(players):
                other = perturbed(g, hidden, rng)
                for seat in [None, *range(players)]:
                    if seat == hidden:
                        continue
                    assert visible(g, seat) == visible(other, seat), (seat, hidden, g.phase)
                    checked += 1
    assert checked > 100


@pytest.mark.parametrize("players", [2, 4, 6])
def test_view_shows_the_seats_own_hand_stored_and_offer(players: int) -> None:
    """A seat sees its own hand, stored cards and (while hidden) its own offer."""
    for seed in range(2):
        for g in played_states(players, seed, every=3):
            for seat in range(players):
                data = PlayerView(g, seat).to_dict()
                assert data["hand"] == from_counts(g.hands[seat])
                assert data["stored"] == from_counts(g.stored[seat])
                assert data["my_offer"] == g.offers.get(seat)
                assert data["hand_sizes"] == tuple(sum(h) for h in g.hands)


def test_view_to_dict_is_json_ready() -> None:
    """to_dict() is plain data (tuples, ints, str, None, dicts)."""
    for g in played_states(4, 1, every=11):
        for seat in (None, 0, 3):
            json.dumps(PlayerView(g, seat).to_dict())


def test_spectator_view_has_no_hand() -> None:
    """A spectator (seat None) sees public state only: no hand, no stored cards, no offer,
    no legal decisions."""
    for g in played_states(3, 2, every=5):
        view = PlayerView(g, None)
        data = view.to_dict()
        assert "hand" not in data and "stored" not in data and "my_offer" not in data
        assert view.hand == () and view.stored == () and view.my_offer is None
        assert view.legal == []


def test_view_refuses_a_seat_not_at_the_table() -> None:
    """Only seats 0..n-1 (or None) have a view."""
    g = new_game(3)
    with pytest.raises(ValueError):
        PlayerView(g, 3)


def private_keys(g: Game) -> set[str]:
    return {k for e in g.log if e.private for part in e.private.values() for k in part}


@pytest.mark.parametrize("players", [2, 3, 5, 6])
def test_public_log_never_contains_another_seats_private_parts(players: int) -> None:
    """public_log(seat) adds only the private parts addressed to that seat; a spectator's
    log has none. The private parts' keys never appear in an event's public part."""
    for seed in range(2):
        g = Game.new(players, seed, promo=True)
        bots = [RandomBot(seed + s) for s in range(players)]
        while not g.is_over:
            seat = g.waiting_seats()[0]
            g.apply(seat, bots[seat].decide(PlayerView(g, seat), g.legal(seat)))
        for e in g.log:
            if e.private:
                for part in e.private.values():
                    assert not set(part) & set(e.public), e
        for seat in [None, *range(players)]:
            log = public_log(g, seat)
            assert len(log) == len(g.log)
            for entry, e in zip(log, g.log, strict=True):
                expected = {"kind": e.kind, **e.public}
                if seat is not None and e.private and seat in e.private:
                    expected.update(e.private[seat])
                assert entry == expected
        assert private_keys(g) >= {"cards", "decision"}


def test_public_log_hides_offers_gifts_deals_and_secret_decisions_from_others() -> None:
    """R5.3/R5.9/R4.2/R6.9: the cards of a face-down offer, a gift, a deal, a storage and a
    secret decision are seen only by the seats they concern."""
    g = Game.new(3, 5)
    bots = [RandomBot(s) for s in range(3)]
    while not g.is_over and g.round < 4:
        mover = g.waiting_seats()[0]
        g.apply(mover, bots[mover].decide(PlayerView(g, mover), g.legal(mover)))
    seen = set()
    for seat in (None, 0, 1, 2):
        for e, entry in zip(g.log, public_log(g, seat), strict=True):
            owner = e.public.get("seat")
            if e.kind in ("offer", "store") and owner != seat:
                assert "cards" not in entry
                seen.add(e.kind)
            if e.kind == "gift" and seat not in (owner, e.public["to"]):
                assert "card" not in entry
                seen.add(e.kind)
            if e.kind == "deal":
                assert ("cards" in entry) == (seat is not None)
                if seat is not None:
                    assert e.private is not None
                    assert entry["cards"] == e.private[seat]["cards"]
            if e.kind == "decision" and e.private and owner != seat:
                assert "decision" not in entry
                seen.add(e.public["type"])
    assert {"offer", "Offer"} <= seen


def test_R6_9_stored_cards_stay_hidden_in_the_view() -> None:
    """R6.9: stored cards are hidden from opponents but counted."""
    g = halt_at_round_end(new_game(3, seed=1))  # stored stays
    give(g, 0, "D22")
    start_turn(g, 0, [R, 9, 1])
    g.apply(0, EndTurn())
    end_turns(g)  # the storage step comes after every turn (R6.9)
    g.apply(0, Store((9, R)))
    for seat in (1, 2, None):
        data = PlayerView(g, seat).to_dict()
        assert data["stored_sizes"][0] == 2
        assert data.get("stored", ()) == ()
    assert PlayerView(g, 0).stored == (9, R)


def test_R2_6_the_seed_never_appears_in_the_public_log() -> None:
    """R2.6: the seed fixes every pile's order, so no seat or spectator may read it."""
    g = Game.new(3, 987654321)
    for entry in public_log(g, None) + public_log(g, 0):
        assert "seed" not in entry
        assert 987654321 not in entry.values()


@pytest.mark.parametrize("seed", [3, 4])
def test_known_hands_kept_by_a_view_equal_a_fresh_reading_of_the_round(seed: int) -> None:
    """A view folds in only the new events at each read; a fresh reading starts at the last
    round event: both must always agree (rounds, gifts and pirate discards included)."""
    kept: dict[int, PlayerView] = {}
    for g in played_states(4, seed, every=1):
        view = kept.setdefault(id(g), PlayerView(g, None))
        assert view.known_hands == known_hands(g)


@pytest.mark.parametrize("seed", [5, 6])
def test_views_for_every_seat_share_known_hands_and_count_vectors_match_the_tuples(
        seed: int) -> None:
    """PlayerView.for_seats follows the public log once for every seat; each view's count
    vectors are its card tuples counted, and a StateView over its snapshot says the same."""
    deck = default_deck()
    views: list[PlayerView] = []
    for g in played_states(4, seed, every=3):
        views = views or PlayerView.for_seats(g)  # the live game: kept views read on
        for view in views:
            assert view.known_hands == known_hands(g)
            assert view.known_counts == tuple(tuple(to_counts(h)) for h in view.known_hands)
            assert view.hand_counts == tuple(to_counts(view.hand))
            assert view.stored_counts == tuple(to_counts(view.stored))
            assert view.faceup_counts == tuple(tuple(to_counts(f)) for f in view.faceup)
            wire = StateView(view.to_dict(), deck)
            for name in ("hand_counts", "stored_counts", "faceup_counts", "known_counts"):
                assert getattr(wire, name) == getattr(view, name), name


def test_state_views_sharing_a_cache_convert_an_unchanged_wire_list_once() -> None:
    deck = default_deck()
    frozen: dict[str, tuple[Any, Any]] = {}
    hand, market = [1, 2, 2], [[3, 4], [5]]
    first = StateView({"seat": 0, "hand": hand, "market": market}, deck, frozen=frozen)
    assert first.hand == (1, 2, 2) and first.market == ((3, 4), (5,))
    second = StateView({"seat": 0, "hand": hand, "market": [[3, 4]]}, deck, frozen=frozen)
    assert second.hand is first.hand  # the same wire list: not converted again
    assert second.market == ((3, 4),)  # a new list: converted
    assert second.round is None and StateView({}, deck).hand is None
