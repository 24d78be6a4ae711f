"""Positions for the engine's rule tests: build a game, then arrange the situation a test needs.

Every arranging helper keeps the 120 resources conserved (cards are moved between the draw
pile and the place the test wants them, never created) and hands the arranged fields back to
the game through its public :meth:`Game.set_state` (:func:`invalidate`), which rebuilds what
the developments bring (caravels, merchants, capacity, owners) and forgets the legal
decisions it had worked out.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any

import pytest

from mundus_net.bots.base import Bot
from mundus_net.bots.random_bot import RandomBot
from mundus_net.engine.cards import RELIC, RESOURCE_COUNTS, VALUES, from_counts, to_counts
from mundus_net.engine.decisions import Decision, EndTurn, RuleError
from mundus_net.engine.game import FIELDS, Game
from mundus_net.engine.notation import format_position
from mundus_net.engine.view import PlayerView

R = RELIC

# Fields that are not part of the state a refused decision must leave untouched: the log
# (checked by length instead), the legal-decision cache, and the immutable deck and options.
_NOT_STATE = {"log", "_legal", "deck", "options", "_keep_log", "_on_round_end"}


# -- state snapshots and refusals -----------------------------------------------------------------


def state_fields() -> list[str]:
    return [name for name in FIELDS if name not in _NOT_STATE]


def snapshot(g: Game) -> dict[str, Any]:
    """A deep copy of every state field of ``g`` (and the log's length); the result, frozen,
    is kept as it is (the compiled build cannot deep-copy a frozen dataclass)."""
    snap = {name: copy.deepcopy(getattr(g, name)) for name in state_fields() if name != "result"}
    snap["result"] = g.result
    snap["#log"] = len(g.log)
    return snap


def assert_refused(g: Game, seat: int, decision: Decision, rule: str) -> RuleError:
    """``decision`` by ``seat`` raises RuleError naming ``rule`` and changes nothing."""
    before = snapshot(g)
    with pytest.raises(RuleError) as info:
        g.apply(seat, decision)
    assert info.value.rule == rule, f"expected {rule}, got {info.value}"
    after = snapshot(g)
    changed = [k for k in before if before[k] != after[k]]
    assert not changed, f"a refused decision changed {changed}"
    return info.value


def invalidate(g: Game) -> None:
    """After arranging fields directly: the game takes its own state again, as a position
    (its derived caches rebuilt, its cached legal decisions forgotten)."""
    g.set_state(g.state())


# -- resources ------------------------------------------------------------------------------------


def resource_totals(g: Game) -> list[int]:
    """Count vector of every resource wherever it is (converted cards at their real value)."""
    total = to_counts(g.draw)
    for pile in (g.discard, g.market, g.display):
        for v in pile:
            total[v] += 1
    for group in (g.hands, g.stored, g.faceup):
        for counts in group:
            for v in VALUES:
                total[v] += counts[v]
    for src, dst in g.converted:
        total[dst] -= 1
        total[src] += 1
    return total


def assert_conserved(g: Game) -> None:
    """R1.1: the 120 resources, each exactly once; every development in play exactly once."""
    assert resource_totals(g)[1:] == [RESOURCE_COUNTS[v] for v in VALUES]
    for counts in (*g.hands, *g.stored, *g.faceup):
        assert min(counts) >= 0
    in_play = sorted(c.id for c in g.deck.for_players(g.players, g.options.promo))
    placed = sorted([*g.queue, *g.devpile, *(c for devs in g.devs for c in devs)])
    assert placed == in_play


def pull(g: Game, cards: Iterable[int]) -> None:
    """Take these resources out of the draw pile (else the discard pile), for the caller to
    place elsewhere."""
    for v in cards:
        if v in g.draw:
            g.draw.remove(v)
        elif v in g.discard:
            g.discard.remove(v)
        else:
            raise AssertionError(f"no {v} left in the draw or discard pile to arrange")


def _to_draw_bottom(g: Game, cards: Iterable[int]) -> None:
    for v in cards:
        g.draw.insert(0, v)


def clear_hand(g: Game, seat: int) -> None:
    _to_draw_bottom(g, from_counts(g.hands[seat]))
    g.hands[seat] = [0] * 11
    invalidate(g)


def set_hand(g: Game, seat: int, cards: Sequence[int]) -> None:
    """Give ``seat`` exactly ``cards`` (its old hand goes back under the draw pile)."""
    clear_hand(g, seat)
    pull(g, cards)
    g.hands[seat] = to_counts(cards)
    invalidate(g)


def set_stored(g: Game, seat: int, cards: Sequence[int]) -> None:
    _to_draw_bottom(g, from_counts(g.stored[seat]))
    pull(g, cards)
    g.stored[seat] = to_counts(cards)


def set_market(g: Game, cards: Sequence[int]) -> None:
    _to_draw_bottom(g, g.market)
    pull(g, cards)
    g.market = sorted(cards)
    invalidate(g)


def stack_draw(g: Game, cards: Sequence[int]) -> None:
    """Put ``cards`` on top of the draw pile so that ``cards[0]`` is drawn first."""
    pull(g, cards)
    g.draw.extend(reversed(cards))


def clear_table(g: Game) -> None:
    """Every hand, face-up offer and display card back under the draw pile."""
    for s in range(g.players):
        clear_hand(g, s)
        _to_draw_bottom(g, from_counts(g.faceup[s]))
        g.faceup[s] = [0] * 11
    _to_draw_bottom(g, g.display)
    g.display = []
    g.offers = {}
    g.converted = []
    invalidate(g)


# -- developments ---------------------------------------------------------------------------------


def give(g: Game, seat: int, *card_ids: str) -> None:
    """``seat`` acquires these developments, taken from the queue (refilled from the pile,
    so it stays at 5) or from the development pile."""
    for card_id in card_ids:
        if card_id in g.queue:
            g.queue.remove(card_id)
            if g.devpile:
                g.queue.append(g.devpile.pop())
        elif card_id in g.devpile:
            g.devpile.remove(card_id)
        else:
            raise AssertionError(f"{card_id} is not in the queue or the pile of this game")
        g.devs[seat].append(card_id)
    invalidate(g)  # owner, caravels, merchants, capacity, shipyards: from devs


def put_queue_first(g: Game, card_id: str) -> None:
    """Make ``card_id`` queue card 1 (swapping it with the card there)."""
    if card_id in g.queue:
        i = g.queue.index(card_id)
        g.queue[0], g.queue[i] = g.queue[i], g.queue[0]
    else:
        i = g.devpile.index(card_id)
        g.devpile[i], g.queue[0] = g.queue[0], g.devpile[i]


def calm(g: Game) -> None:
    """Make queue card 1 a card without an event icon (no event next round, R3.2)."""
    owned = {c for devs in g.devs for c in devs}
    put_queue_first(g, next(c for c in g.queue + g.devpile
                            if g.deck[c].icon is None and c not in owned))


# -- getting to a phase ---------------------------------------------------------------------------


def new_game(players: int = 4, seed: int = 0, **options: Any) -> Game:
    return Game.new(players, seed, **options)


def halt_at_round_end(g: Game) -> Game:
    """``g``, halting when its round ends (Game.on_round_end), with no result: a storage step
    to test whose stored cards stay stored. (A round limit no longer does: the last round
    asks no storage, docs/rules.md R6.9.)"""
    g.on_round_end = lambda _game: True
    return g


def begin_round(g: Game, number: int = 2, *, tm: int | None = None,
                hands: dict[int, Sequence[int]] | None = None,
                display: Sequence[int] | None = None) -> None:
    """Clear the table and start round ``number`` (event, supply...) from scratch.

    With ``hands`` or ``display``, the draw pile is stacked so that the deal (5 cards a seat,
    from the TM clockwise, R4.2) gives those hands (seats not named get 1, 2, 3, 4, 5) and the
    caravel display is ``display``.
    """
    clear_table(g)
    if tm is not None:
        g.tm = tm
    if hands is not None or display is not None:
        stack: list[int] = []
        for i in range(g.players):
            seat = (g.tm + i) % g.players
            cards = list((hands or {}).get(seat, (1, 2, 3, 4, 5)))
            assert len(cards) == 5, "the deal gives 5 cards"
            stack.extend(cards)
        stack.extend(display or ())
        stack_draw(g, stack)
    g.round = number - 1
    g.next_round()


def start_announce(g: Game, hands: dict[int, Sequence[int]], *, tm: int = 0) -> None:
    """The trade step about to begin: the TM ``tm`` announces; hands as given (others
    empty)."""
    clear_table(g)
    for s, cards in hands.items():
        set_hand(g, s, cards)
    g.tm = tm
    g.event = None
    g.phase = "announce"
    g.active = tm
    invalidate(g)


def start_takes(g: Game, faceup: dict[int, Sequence[int]], *, taker: int, tm: int | None = None,
                takes: Sequence[tuple[int, int]] = (),
                hands: dict[int, Sequence[int]] | None = None) -> None:
    """The take phase with these face-up offers, ``taker`` to take next."""
    clear_table(g)
    for s, cards in (hands or {}).items():
        set_hand(g, s, cards)
    for s, cards in faceup.items():
        pull(g, cards)
        g.faceup[s] = to_counts(cards)
    g.tm = taker if tm is None else tm
    g.takes = list(takes)
    g.phase = "take"
    g.active = taker
    invalidate(g)


def start_turn(g: Game, seat: int, hand: Sequence[int], *, event: str | None = None,
               last: bool = False, others: Sequence[int] | None = (R,),
               kept: dict[int, Sequence[int]] | None = None) -> None:
    """``seat``'s progression turn with ``hand``. By default the seat plays first and every
    other seat holds ``others`` (a relic: its turn then waits for a real decision instead of
    being played automatically). ``last=True`` makes it the last turn of the round (the others
    have played: their hands are empty, or hold ``kept``, what they kept after their turns
    for the storage step, R6.9)."""
    clear_table(g)
    n = g.players
    for s in range(n):
        if s != seat and others and not last:
            set_hand(g, s, others)
    for s, cards in (kept or {}).items():
        assert last and s != seat, "kept hands are those of seats that have played"
        set_hand(g, s, cards)
    set_hand(g, seat, hand)
    g.event = event
    if last:
        order, index = [(seat + 1 + i) % n for i in range(n)], n - 1
    else:
        order, index = [(seat + i) % n for i in range(n)], 0
    g.set_state(replace(g.state(), phase="turn", active=order[index], turn_order=order,
                        turn_index=index, turn_sets=0, turn_series=False, turn_relics=False,
                        turn_perfect=False, converted=[]))


def end_turns(g: Game) -> None:
    """End every progression turn still to play (EndTurn, whatever the hand), so that the
    storage step or the next round comes."""
    while g.phase == "turn":
        g.apply(g.active, EndTurn())


def stored_event_cards(g: Game, seat: int) -> tuple[int, ...]:
    """The cards of ``seat``'s last "store" event (its private part: only it sees them)."""
    e = [e for e in g.log if e.kind == "store" and e.public["seat"] == seat][-1]
    assert e.private is not None
    cards: tuple[int, ...] = e.private[seat]["cards"]
    return cards


def events(g: Game, kind: str, start: int = 0) -> list[dict[str, Any]]:
    """The public parts of the log events of ``kind``."""
    return [e.public for e in g.log[start:] if e.kind == kind]


def decisions_of(g: Game) -> list[tuple[int, Decision]]:
    """The non-automatic decisions of the log, in order, with their seats."""
    out = []
    for e in g.log:
        if e.kind != "decision" or e.public["auto"]:
            continue
        seat = e.public["seat"]
        d = e.public.get("decision")
        if d is None:
            assert e.private is not None
            d = e.private[seat]["decision"]
        out.append((seat, d))
    return out


# -- positions of bot games, and position text ----------------------------------------------

# (players, seed, promo): together these reach every phase (pirates, split, coronado, sergio...).
BOT_CONFIGS = [(2, 1, False), (3, 2, True), (4, 3, False), (4, 4, True), (5, 5, True),
               (6, 6, True), (6, 7, False), (4, 13, True)]


def bot_step(game: Game, bots: Sequence[Bot]) -> None:
    """One decision by the first waiting seat's bot (like runner.play_game)."""
    seat = game.waiting_seats()[0]
    game.apply(seat, bots[seat].decide(PlayerView(game, seat), game.legal(seat)))


def random_bots(game: Game, seed: int) -> list[RandomBot]:
    return [RandomBot(seed * 10 + s) for s in range(game.players)]


def bot_positions(players: int, seed: int, promo: bool) -> Iterator[Game]:
    """The game at every decision point of one seeded random game, its end included."""
    game = Game.new(players, seed, promo=promo, first_tm=None if seed % 2 else 0)
    bots = random_bots(game, seed)
    while not game.is_over:
        yield game
        bot_step(game, bots)
    yield game


def field_of(text: str, key: str) -> str:
    return next(t.partition("=")[2] for t in text.split() if t.startswith(key + "="))


def with_field(text: str, key: str, value: str) -> str:
    return " ".join(f"{key}={value}" if t.startswith(key + "=") else t for t in text.split())


def first_position(found: Callable[[Game], bool]) -> str:
    """The first position of the BOT_CONFIGS games for which ``found`` holds, written."""
    for config in BOT_CONFIGS:
        for game in bot_positions(*config):
            if found(game):
                return format_position(game)
    raise AssertionError("no such position in the BOT_CONFIGS games")
