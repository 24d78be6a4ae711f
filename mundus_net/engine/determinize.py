"""Determinization: a complete :class:`Game` consistent with what one seat's view shows.

A seat does not see the other seats' hands and stored cards, the order of the resource draw
pile, or the order of the development draw pile. :func:`determinize` fills these in at random,
consistently with everything the view exposes, so that a search can play the game on from the
seat's point of view:

* the resources nobody can see are the 120 (R1.1) minus those the seat knows where they are:
  its own hand and stored cards, the market, the caravel display, the face-up discard pile,
  the revealed offers on the table, the cards publicly seen going into another seat's hand
  this round (``known_hands``: caravel picks, takes, offers returned) and, in another seat's
  progression turn, the cards that seat converted, which are shown. These unseen cards are
  shuffled and dealt to the other seats' hands (besides their known cards) and warehouses,
  by the sizes the view shows, and the rest form the draw pile;
* the development draw pile is the deck in play (R2.3) minus the queue and every owned
  development, shuffled;
* secret decisions already fixed by other seats in a simultaneous step (offers, pirate
  discards, storage) are not visible, so they are dropped: those seats decide again in the
  determinized game. The seat's own fixed offer is kept; its own fixed pirate discard or
  storage is not shown by the view, so it too is made again (a seat asked to decide has
  fixed nothing yet, so the games a search plays from its decisions are exact);
* the game's seed, which fixes later reshuffles of the discard pile, is drawn at random.

A caller that knows more than the view (a model of how another seat decides) may pass
``accept``: a test of each other seat's dealt hand; a hand it refuses is dealt again from the
same unseen cards, up to ``tries`` times, after which the last hand drawn is kept.

Only public properties of :class:`~mundus_net.engine.view.PlayerView` are read (the same names a
network :class:`~mundus_net.engine.view.StateView` carries), never the live game behind the view.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from mundus_net.engine.cards import RESOURCE_COUNTS, VALUES
from mundus_net.engine.errors import MundusError
from mundus_net.engine.game import (
    GIFT,
    OFFER,
    OVER,
    PIRATES,
    RULES_EDITION,
    SIMULTANEOUS,
    STORE,
    TM_TIE,
    TURN,
    Game,
    GameState,
    Options,
)
from mundus_net.engine.view import View


class DeterminizeError(MundusError, ValueError):
    """The view is not self-consistent (it cannot come from a real game)."""


def _counts(cards: Any) -> list[int]:
    out = [0] * 11
    for c in cards:
        out[c] += 1
    return out


def unseen_resources(view: View) -> list[int]:
    """Counts (index 1-10) of the resources whose place ``view``'s seat does not know: in
    other seats' hands and warehouses, or in the draw pile."""
    seat = view.seat
    if seat is None:
        raise DeterminizeError("a spectator has no seat to determinize for")
    known = [0] * 11
    for pile in (view.market, view.display, view.discard, view.hand, view.stored):
        for c in pile:
            known[c] += 1
    for offer in view.faceup:
        for c in offer:
            known[c] += 1
    pend = view.pending
    # Converted cards exist only in a progression turn (storage comes after every turn).
    active = pend.seats[0] if pend is not None and pend.kind == TURN else None
    for src, dst in view.converted:
        known[src] += 1  # the real card: in the active seat's hand, shown as ``dst``
        if active == seat:
            known[dst] -= 1  # our hand shows it as ``dst``: count it once, as ``src``
    pool = [0] * 11
    for v in VALUES:
        pool[v] = RESOURCE_COUNTS[v] - known[v]
        if pool[v] < 0:
            raise DeterminizeError(f"the view shows {known[v]} cards of value {v}, the game "
                                   f"has {RESOURCE_COUNTS[v]}")
    return pool


# A test of a hand dealt to another seat: (seat, counts per value, index 1-10) -> plausible.
HandTest = Callable[[int, list[int]], bool]


def determinize(view: View, rng: random.Random, accept: HandTest | None = None,
                tries: int = 16) -> Game:
    """A complete game consistent with ``view`` (see the module docstring); its log is empty.
    ``accept``: a test of each other seat's hand, which is dealt again from the unseen cards
    while the test refuses it, at most ``tries`` times in all (the last one is kept).

    Built with :meth:`Game.from_state`; a search that wants a look-ahead game sets its
    :attr:`~Game.keep_log` and :attr:`~Game.on_round_end`. Raises
    :class:`DeterminizeError` if the view cannot come from a real game.
    """
    seat = view.seat
    if seat is None:
        raise DeterminizeError("a spectator has no seat to determinize for")
    n = view.players
    deck = view.deck
    pend = view.pending
    phase = view.phase
    # A storage step without ``store_due`` comes from a first-edition game (each player
    # stored at the end of his own turn): only then is the storing seat the active one.
    first_edition = phase == STORE and pend is not None and not view.store_due
    options = Options(players=n, seed=rng.getrandbits(63), promo=bool(view.promo), first_tm=0,
                      round_limit=view.round_limit,
                      rules=1 if first_edition else RULES_EDITION)
    if phase == OVER:
        active = 0
    elif pend is not None and (phase not in SIMULTANEOUS or first_edition):
        active = pend.seats[0]
    else:
        active = view.trade_master
    hands, stored, draw = _deal_unseen(view, seat, active if phase == TURN else None, rng,
                                       accept, tries)
    return Game.from_state(GameState(
        options=options,
        round=view.round,
        tm=view.trade_master,
        event=view.event,
        phase=phase,
        active=active,
        market=list(view.market),
        display=list(view.display),
        queue=list(view.queue),
        doubloons=list(view.doubloons),
        hands=hands,
        stored=stored,
        devs=view.developments,  # owner, caravels, merchants, capacity: rebuilt by the game
        faceup=[_counts(f) for f in view.faceup],
        fleets=[(s, tuple(f)) for s, f in view.fleets],
        pick_queue=[(s, tuple(f)) for s, f in view.pick_queue or ()],
        pirates_due=({s: k for s, k in enumerate(view.pirates_due or ()) if k}
                     if phase == PIRATES else {}),
        # R6.9: who may store; the others' secret choices are made again
        store_due=({s: k for s, k in enumerate(view.store_due or ()) if k}
                   if phase == STORE else {}),
        announced=view.announced,
        offers=({seat: tuple(view.my_offer)}
                if phase == OFFER and view.my_offer is not None else {}),
        tie=(tuple(pend.detail["candidates"]) if phase == TM_TIE and pend is not None
             else ()),
        takes=[(x, y) for x, y in view.takes],
        gift_to=pend.detail["to"] if phase == GIFT and pend is not None else None,
        turn_order=list(view.turn_order or ()),
        turn_index=view.turn_index or 0,
        **_turn_flags(phase, pend.detail if pend is not None else None),
        converted=[(a, b) for a, b in view.converted],
        merchants_used=set(view.merchants_used),
        perfect_shown=list(view.perfect_shown or ()),
        queue_short=bool(view.queue_short),
        result=view.result,
        draw=draw,
        discard=list(view.discard),  # its order is not shown; a reshuffle uses the new seed
        devpile=_unseen_developments(view, rng),
    ), deck)


def _turn_flags(phase: str, detail: dict[str, Any] | None) -> dict[str, Any]:
    """The combinations made so far in the progression turn the view shows (R6.2)."""
    if phase != TURN or detail is None:
        return {}
    return {"turn_sets": int(detail.get("sets", 0)),
            "turn_series": bool(detail.get("series", False)),
            "turn_relics": bool(detail.get("relics", False)),
            "turn_perfect": bool(detail.get("perfect", False))}


def _deal_unseen(view: View, seat: int, active: int | None, rng: random.Random,
                 accept: HandTest | None = None, tries: int = 16
                 ) -> tuple[list[list[int]], list[list[int]], list[int]]:
    """Hands and warehouses (counts per seat) and the draw pile: ``seat``'s own cards as
    they are, the unseen ones dealt at random to the other seats by the sizes the view
    shows (besides the cards known to be in their hands and, for ``active``, the seat in
    its progression turn, the cards it converted), the rest the draw pile. A hand that
    ``accept`` refuses is dealt again from the cards left, at most ``tries`` times in all."""
    n = view.players
    hands = [[0] * 11 for _ in range(n)]
    stored = [[0] * 11 for _ in range(n)]
    hands[seat] = _counts(view.hand)
    stored[seat] = _counts(view.stored)
    pool = unseen_resources(view)
    known = view.known_hands or ((),) * n
    for s in range(n):
        if s != seat:
            for v in known[s]:
                pool[v] -= 1
                if pool[v] < 0:
                    raise DeterminizeError(f"seat {s} is known to hold more cards of value "
                                           f"{v} than are unseen")
    cards = [v for v in VALUES for _ in range(pool[v])]
    rng.shuffle(cards)
    hand_sizes = view.hand_sizes
    stored_sizes = view.stored_sizes
    for s in range(n):
        if s == seat:
            continue
        size = hand_sizes[s]
        shown = list(known[s])
        if s == active:
            shown += [dst for _, dst in view.converted]
        size -= len(shown)
        if size < 0 or size + stored_sizes[s] > len(cards):
            raise DeterminizeError(f"seat {s}'s hand and warehouse sizes do not fit the "
                                   "unseen cards")
        hand = _deal_hand(cards, size, shown)
        if accept is not None and size:
            for _ in range(tries - 1):
                if accept(s, hand):
                    break
                rng.shuffle(cards)
                hand = _deal_hand(cards, size, shown)
        del cards[len(cards) - size:]
        hands[s] = hand
        k = stored_sizes[s]
        stored[s] = _counts(cards[len(cards) - k:]) if k else [0] * 11
        del cards[len(cards) - k:]
    if len(cards) != view.draw_size:
        raise DeterminizeError(f"{len(cards)} unseen cards left for a draw pile of "
                               f"{view.draw_size}")
    return hands, stored, cards


def _deal_hand(cards: list[int], size: int, shown: list[int]) -> list[int]:
    """The counts of the last ``size`` of ``cards`` and the ``shown`` ones."""
    hand = _counts(cards[len(cards) - size:]) if size else [0] * 11
    for v in shown:
        hand[v] += 1
    return hand


def _unseen_developments(view: View, rng: random.Random) -> list[str]:
    """The development pile: the deck in play minus the queue and the owned cards,
    shuffled."""
    seen = set(view.queue)
    for ids in view.developments:
        seen.update(ids)
    pile = [c.id for c in view.deck.for_players(view.players, bool(view.promo))
            if c.id not in seen]
    if len(pile) != view.devpile_size:
        raise DeterminizeError(f"{len(pile)} unseen development cards for a pile of "
                               f"{view.devpile_size}")
    rng.shuffle(pile)
    return pile


__all__ = ["DeterminizeError", "HandTest", "determinize", "unseen_resources"]
