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

Only public properties of :class:`~mundus_net.engine.view.PlayerView` are read (the same names a
network :class:`~mundus_net.engine.view.StateView` carries), never the live game behind the view.
"""

from __future__ import annotations

import random
from typing import Any

from mundus_net.engine.cards import RESOURCE_COUNTS, VALUES
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
    Options,
)
from mundus_net.engine.view import PlayerView


class DeterminizeError(ValueError):
    """The view is not self-consistent (it cannot come from a real game)."""


def _counts(cards: Any) -> list[int]:
    out = [0] * 11
    for c in cards:
        out[c] += 1
    return out


def unseen_resources(view: PlayerView) -> list[int]:
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


def determinize(view: PlayerView, rng: random.Random,
                game_class: type[Game] = Game) -> Game:
    """A complete game consistent with ``view`` (see the module docstring); its log is empty.

    ``game_class`` lets a search use a subclass of :class:`Game` (e.g. one that keeps no
    log). Raises :class:`DeterminizeError` if the view cannot come from a real game.
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
    g = game_class.__new__(game_class)
    g._blank(options, deck)
    g.round = view.round
    g.tm = view.trade_master
    g.event = view.event
    g.phase = phase
    if pend is not None and (phase not in SIMULTANEOUS or first_edition):
        g.active = pend.seats[0]
    else:
        g.active = view.trade_master
    active = g.active if phase == TURN else None
    g.market = list(view.market)
    g.display = list(view.display)
    g.queue = list(view.queue)
    g.doubloons = list(view.doubloons)
    for s, ids in enumerate(view.developments):
        for card_id in ids:
            g._acquire(s, card_id)  # devs, owner, caravels, merchants, capacity, shipyards
    g.faceup = [_counts(f) for f in view.faceup]
    g.fleets = [(s, tuple(f)) for s, f in view.fleets]
    g.pick_queue = [(s, tuple(f)) for s, f in view.pick_queue or ()]
    if phase == PIRATES:
        g.pirates_due = {s: k for s, k in enumerate(view.pirates_due or ()) if k}
    if phase == STORE:  # R6.9: who may store; the others' secret choices are made again
        g.store_due = {s: k for s, k in enumerate(view.store_due or ()) if k}
    g.announced = view.announced
    if phase == OFFER and view.my_offer is not None:
        g.offers = {seat: tuple(view.my_offer)}
    if phase == TM_TIE and pend is not None:
        g.tie = tuple(pend.detail["candidates"])
    g.takes = [(x, y) for x, y in view.takes]
    if phase == GIFT and pend is not None:
        g.gift_to = pend.detail["to"]
    g.turn_order = list(view.turn_order or ())
    g.turn_index = view.turn_index or 0
    if phase == TURN and pend is not None:
        detail = pend.detail
        g.turn_sets = int(detail.get("sets", 0))
        g.turn_series = bool(detail.get("series", False))
        g.turn_relics = bool(detail.get("relics", False))
        g.turn_perfect = bool(detail.get("perfect", False))
    g.converted = [(a, b) for a, b in view.converted]
    g.merchants_used = set(view.merchants_used)
    g.perfect_shown = list(view.perfect_shown or ())
    g.queue_short = bool(view.queue_short)
    g.result = view.result
    if phase == OVER:
        g.active = 0

    # Resources: our own cards as they are; the unseen ones dealt at random.
    g.hands[seat] = _counts(view.hand)
    g.stored[seat] = _counts(view.stored)
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
        hand = _counts(cards[len(cards) - size:]) if size else [0] * 11
        del cards[len(cards) - size:]
        for v in shown:
            hand[v] += 1
        g.hands[s] = hand
        k = stored_sizes[s]
        g.stored[s] = _counts(cards[len(cards) - k:]) if k else [0] * 11
        del cards[len(cards) - k:]
    if len(cards) != view.draw_size:
        raise DeterminizeError(f"{len(cards)} unseen cards left for a draw pile of "
                               f"{view.draw_size}")
    g.draw = cards
    g.discard = list(view.discard)  # its order is not shown; a reshuffle uses the new seed

    # Developments: the deck in play minus the queue and the owned cards, shuffled.
    seen = set(view.queue)
    for ids in view.developments:
        seen.update(ids)
    pile = [c.id for c in deck.for_players(n, bool(view.promo)) if c.id not in seen]
    if len(pile) != view.devpile_size:
        raise DeterminizeError(f"{len(pile)} unseen development cards for a pile of "
                               f"{view.devpile_size}")
    rng.shuffle(pile)
    g.devpile = pile
    g._legal = {}
    return g


__all__ = ["DeterminizeError", "determinize", "unseen_resources"]
