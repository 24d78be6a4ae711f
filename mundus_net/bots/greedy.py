"""``greedy``: a one-step heuristic player that sees only its seat's :class:`PlayerView`.

Every decision scores each legal choice with a hand evaluation in doubloon-equivalents and
takes the best (ties are broken by the bot's own seeded generator). The evaluation:

* a *turn planner* finds the best use of a hand in one progression turn: the perfect
  combination, one identical set (several under King's Aid) aimed at the most valuable queue
  card it reaches, the longest series, a relic set, and which leftover cards to keep in the
  warehouses; merchant conversions are tried one at a time and made when they raise the plan;
* *development values* estimate what a card brings over the rounds the game probably has
  left: printed income, extra supply cards for caravels, conversions for merchants, stored
  cards for warehouses, shipyard income, and a per-round worth for each character power;
* before the progression step (caravel picks, pirates, offers, takes, the gift) the same
  planner is used with all merchants free, plus a small bonus for near-combinations
  (pairs, three distinct values) because the hand will still change;
* the storage step comes once every player has had his turn (R6.9), when the queue is final:
  kept cards are valued for next round's event, the icon of queue card 1 (R3.2; King's Aid
  raises pairs and relics, Indigenous People lowers singles, Storm lowers pairs), and a pair
  by the best queue card a set of its class would reach (``STORE_NEXT``, ``STORE_QUEUE``).

Card definitions come from ``view.deck`` when the view offers one, else the default deck;
an unknown development id is valued as an average card. See docs/sim.md.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence
from typing import Any, Final, Self

from mypy_extensions import mypyc_attr

from mundus_net.bots.base import question_seed
from mundus_net.engine.cards import CLASS_OF, RELIC, VALUES_OF_CLASS
from mundus_net.engine.combos import reach
from mundus_net.engine.decisions import (
    END_TURN,
    TARGET_CASH,
    TARGET_DRAW,
    Announce,
    BuyMarket,
    ChooseEvent,
    ChooseFirst,
    ChooseTradeMaster,
    Convert,
    Decision,
    Gift,
    MakePerfect,
    MakeRelicSet,
    MakeSeries,
    MakeSet,
    Offer,
    PickCards,
    PirateDiscard,
    SplitFleet,
    Store,
    Take,
)
from mundus_net.engine.deck import CardDef, Deck, default_deck
from mundus_net.engine.game import (
    ORELLANA_GAIN,
    RELIC_PAY,
    SERGIO_COST,
    SERIES_PAY,
    VICENTE_PAY,
    WIN_DOUBLOONS,
)
from mundus_net.engine.view import View

__all__ = [
    "CARD_WORTH", "CASAS_CARD", "DENIAL", "EPS", "MERCHANT_FIRST", "MERCHANT_MORE",
    "PAIR_POTENTIAL", "PERFECT_VALUE", "POWER_RATE", "RELIC_PAYS", "SERIES_PAYS", "SHIPYARD_RATE",
    "STORE_NEXT", "STORE_PAIR", "STORE_QUEUE", "STORE_RELIC", "STORE_SINGLE", "THREE_DISTINCT",
    "TM_WORTH", "VICENTE_PAYS", "WAREHOUSE_SLOT", "Choice", "Counts", "GreedyBot", "TurnFlags",
    "context_key", "store_worths", "turn_flags",
]

# The engine's rule tables (R6.2, P04) as tuples indexed by size or class: looked up in
# the evaluation's inner loops.
SERIES_PAYS: Final = tuple(SERIES_PAY.get(size, 0) for size in range(max(SERIES_PAY) + 1))
RELIC_PAYS: Final = tuple(RELIC_PAY.get(size, 0) for size in range(max(RELIC_PAY) + 1))
VICENTE_PAYS: Final = tuple(VICENTE_PAY.get(cls, 0) for cls in range(max(VICENTE_PAY) + 1))

# Heuristic weights, in doubloons.
PERFECT_VALUE: Final = 500.0  # the perfect combination wins the game (R8.1)
CARD_WORTH: Final = 1.3  # one more resource card in a round (a caravel's yield)
STORE_RELIC: Final = 3.5  # a relic kept in a warehouse for the next round
STORE_PAIR: Final = 1.6  # each card of a kept pair (or more) of one value
STORE_SINGLE: Final = 0.7  # a kept single card (plus a little per value)
# Storage comes after every progression turn (R6.9), so the queue is final and next round's
# event is the icon of queue card 1 (R3.2): factors on (pair, single, relic) stored for it.
STORE_NEXT: Final[dict[str | None, tuple[float, float, float]]] = {
    "KA": (1.5, 1.0, 1.2),  # King's Aid: any number of identical sets
    "IP": (1.0, 0.3, 1.0),  # Indigenous People: a series pays 1 a card
    "ST": (0.6, 1.0, 1.0),  # Storm: a set reaches queue card 1 only
}
# The share of a stored pair's worth that follows the queue card its set reaches.
STORE_QUEUE: Final = 1.0
MERCHANT_FIRST: Final = 1.8  # per round, a merchant of a class the bot has none of
MERCHANT_MORE: Final = 0.6  # per round, another merchant of a class it already has
WAREHOUSE_SLOT: Final = (0.9, 0.7, 0.4, 0.25)  # per round, the 1st, 2nd, ... warehouse slot
SHIPYARD_RATE: Final = 0.9  # per round, per opponent with more caravels
DENIAL: Final = 0.5  # a development taken is one an opponent does not get
# Per-round worth of a character power beyond its printed income.
POWER_RATE: Final = {
    "almagro": 0.5, "cosa": 0.6, "casas": 0.4, "pizarro": 0.3, "valdivia": 0.5,
    "orellana": 0.5, "cortes": 0.0, "ponce": 0.2, "coronado": 0.1, "sergio": 0.8,
    "estefano": 1.2, "vicente": 0.6,
}
PAIR_POTENTIAL: Final = 0.2  # share of a 3-card set's target value credited to a pair in trade
THREE_DISTINCT: Final = 1.2  # a hand one card short of a series, in trade
CASAS_CARD: Final = 0.8  # expected gain of each card Casas' owner puts in the trade
TM_WORTH: Final = 0.06  # per point of offer score, when the queue holds a prize worth racing for
EPS: Final = 1e-6

# VALUES_OF_CLASS as a tuple indexed by class (0: none): iterated in the evaluation's loops.
_CLASS_VALUES: Final = tuple(VALUES_OF_CLASS.get(cls, ()) for cls in range(4))
# The best relic set of at most k relics (k = 0-5), in doubloons (R6.2).
_RELIC_BEST: Final = tuple(float(max(RELIC_PAYS[:k + 1])) for k in range(len(RELIC_PAYS)))
# R6.3: _REACH[class][size] -> furthest queue position, for the sets of 3 to 5 cards (0: no
# such set); indexed, not keyed by a (class, size) tuple made at every look-up.
_REACH: Final = tuple(tuple(reach(cls, size) if cls and size >= 3 else 0 for size in range(6))
                      for cls in range(4))


def store_worths(next_event: str | None,
                 table: dict[str | None, tuple[float, float, float]] | None = None
                 ) -> tuple[float, float, float]:
    """What a stored (pair card, single card, relic) is worth for a next round with this
    event (None: no event, or the seat is not affected), in doubloons."""
    pair, single, relic = (STORE_NEXT if table is None else table).get(
        next_event, (1.0, 1.0, 1.0))
    return STORE_PAIR * pair, STORE_SINGLE * single, STORE_RELIC * relic


Counts = tuple[int, ...]
TurnFlags = tuple[Any, Any, Any, Any]  # turn_flags(view)
# _Context.plan_key -> the memos of contexts with that key: (core, plans, tail, evaluations by
# the free merchants).
MemoPool = dict[tuple[Any, ...], tuple[dict[tuple[tuple[int, ...], tuple[float, ...], int, bool],
                                             tuple[float, Any]],
                                        dict[tuple[int, ...], tuple[float, Any]],
                                        dict[tuple[int, ...], tuple[float, int]],
                                        dict[tuple[int, ...], dict[tuple[int, ...], float]]]]
# Positions in a context_key of what _Context reads from it.
_KEY_TURN: Final = 2
_KEY_FLAGS: Final = 4
_KEY_DEVS: Final = 7
Choice = tuple[Any, ...] | None  # ("perfect",) or ("set", value, own, wild, target)


def _counts(cards: Sequence[int]) -> list[int]:
    out = [0] * 11
    for c in cards:
        out[c] += 1
    return out


def _among(decision: Decision, legal: Sequence[Decision]) -> bool:
    """``decision in legal``, comparing fields only with the decisions of its own kind: a
    decision's ``==`` is a Python function (engine/decisions.py), called by ``in`` for every
    decision before a match, and a progression turn lists dozens of conversions and sets."""
    kind = type(decision)
    fields: tuple[Any, ...] = tuple(decision)
    if not fields:  # EndTurn, MakePerfect: any of the kind
        return any(type(d) is kind for d in legal)
    first = fields[0]  # compared before the whole (a tuple made of each)
    found = False
    for d in legal:
        if type(d) is kind:
            row: tuple[Any, ...] = d
            if d is decision or (row[0] == first and tuple(row) == fields):
                found = True
                break
    return found


def _unknown_card() -> CardDef:
    return CardDef(id="?", kind="building", name="?", players=2, icon=None, income=1)


# serializable, and __new__ written out: compiled, copy.copy(context) works (without_storage).
@mypyc_attr(serializable=True)
class _Context:
    """Everything the evaluation of one seat's hands depends on at one moment, with memos.

    Built from the view only; rebuilt when any of its inputs change.
    """

    def __new__(cls, *args: object, **kwargs: object) -> Self:
        return super().__new__(cls)

    def __init__(self, view: View, deck: Deck, turn: bool,
                 store_next: dict[str | None, tuple[float, float, float]] | None = None,
                 store_queue: float = 0.0, flags: TurnFlags | None = None,
                 devs: tuple[tuple[str, ...], ...] | None = None) -> None:
        # flags, devs: the view's turn_flags and developments, when the caller has them.
        seat = view.seat
        assert seat is not None
        self.seat = seat
        self.deck = deck
        if devs is None:
            devs = view.developments
        self.devs = devs
        mine = [self.card(c) for c in devs[seat]]
        self.powers: set[str] = set()
        self.capacity = 0
        self.merchant_count = [0, 0, 0, 0]
        for card in mine:
            if card.power:
                self.powers.add(card.power)
            kind = card.kind
            if kind == "warehouse":
                self.capacity += card.capacity
            elif kind == "merchant":
                self.merchant_count[card.merchant_class] += 1
        self.caravels = [0] * len(devs)
        for s, d in enumerate(devs):
            for cid in d:
                if self.card(cid).kind == "caravel":
                    self.caravels[s] += 1
        used = set(view.merchants_used)
        self.free_merchants = [0, 0, 0, 0]
        for cid in devs[seat]:
            card = self.card(cid)
            if card.kind == "merchant" and (not turn or cid not in used):
                self.free_merchants[card.merchant_class] += 1
        event = view.event
        affected = event is not None and "cosa" not in self.powers
        self.ka = affected and event == "KA"
        self.ip = affected and event == "IP"
        self.storm = affected and event == "ST"
        self.fire = affected and event == "FI"
        self.vicente = "vicente" in self.powers
        self.players = view.players
        self.devpile = view.devpile_size
        doubloons = view.doubloons
        self.doubloons = doubloons
        self.rounds_left = self._rounds_left(view.round, doubloons)
        self.queue = view.queue
        self._unknown: float | None = None
        self.draw_value = (self.unknown if "almagro" in self.powers and self.devpile
                           else None)
        self.qv = tuple([self.dev_value(self.card(c)) for c in self.queue])
        if turn:
            sets, series, relics, perfect = turn_flags(view) if flags is None else flags
            self.sets_left = 3 if self.ka else (0 if sets else 1)
            self.series_ok = not series
            self.relics_ok = not relics
            self.perfect_ok = not perfect
        else:
            self.sets_left = 3 if self.ka else 1
            self.series_ok = self.relics_ok = self.perfect_ok = True
        self.store_ok = self.capacity > 0 and not self.fire
        # In the storage step the queue is final: next round's event is its card 1's icon
        # (R3.2; Juan de la Cosa's owner is not affected, R3.4).
        foresight = view.phase == "store" and store_next is not None
        self.next_event = (self.card(self.queue[0]).icon
                           if foresight and self.queue and "cosa" not in self.powers else None)
        pair, self.store_single, self.store_relic = store_worths(self.next_event,
                                                                 store_next or {})
        self.store_pair = [pair] * 4  # per class of the pair's value
        if foresight and store_queue and self.qv:
            top = max(self.qv)
            if top > 0:
                for cls in (1, 2, 3):
                    reach = 1 if self.next_event == "ST" else _REACH[cls][3]
                    share = max(max(self.qv[:reach]), 0.0) / top
                    self.store_pair[cls] *= 1.0 - store_queue + store_queue * share
        self._shadow: _Context | None = None
        self._pool: MemoPool | None = None
        self._fresh_memos()

    def _fresh_memos(self) -> None:
        self._core: dict[tuple[Counts, tuple[float, ...], int, bool], tuple[float, Choice]] = {}
        self._plans: dict[Counts, tuple[float, Choice]] = {}  # plan(): no queue in the key
        self._tail: dict[Counts, tuple[float, int]] = {}
        self._eval: dict[Counts, float] = {}
        if self._pool is not None:
            self._share_memos(self._pool)

    def share_memos(self, pool: MemoPool) -> None:
        """Take the memos of the hand evaluation from ``pool`` (by :meth:`plan_key`: a
        context of another position that plans hands the same way, as one step of a
        progression turn after a conversion, or another seat's doubloons), or put this
        context's there; so does :meth:`without_storage`'s context. The memos are of pure
        functions of the hand and the plan key (and of the free merchants, for
        :meth:`evaluate`'s), so a shared one answers as a fresh one would."""
        self._pool = pool
        self._share_memos(pool)

    def _share_memos(self, pool: MemoPool) -> None:
        key = self.plan_key()
        if key is None:
            return
        found = pool.get(key)
        merchants = tuple(self.free_merchants)
        if found is None:
            pool[key] = (self._core, self._plans, self._tail, {merchants: self._eval})
            return
        self._core, self._plans, self._tail, evals = found
        evaluated = evals.get(merchants)
        if evaluated is None:
            evals[merchants] = self._eval
        else:
            self._eval = evaluated

    def plan_key(self) -> tuple[Any, ...] | None:
        """Everything :meth:`plan`, :meth:`core` and :meth:`tail` read besides the hand
        (:meth:`evaluate` reads the free merchants too); None when several sets may be made
        and a card is drawn after each (R6.4): the mean of the unseen cards then counts, which
        is made only when needed."""
        if self.sets_left > 1 and self.devpile:
            return None
        store = ((self.capacity, tuple(self.store_pair), self.store_single, self.store_relic)
                 if self.store_ok else None)
        return (self.qv, self.sets_left, self.perfect_ok, self.series_ok, self.relics_ok,
                self.ip, self.storm, self.vicente, self.draw_value, self.devpile > 0, store)

    # -- developments -----------------------------------------------------------------------

    def card(self, card_id: str) -> CardDef:
        try:
            return self.deck[card_id]
        except KeyError:
            return _unknown_card()

    def _rounds_left(self, rnd: int, doubloons: Sequence[int]) -> float:
        """How many more income payments (this round's included) the game probably has."""
        leader = max(doubloons)
        done = max(rnd - 1, 0)
        pace = max((leader + 25.0) / (done + 5.0), 2.5)
        left = (WIN_DOUBLOONS - leader) / pace
        by_queue = self.devpile / max(self.players * 0.6, 1.0) + 1.0
        return max(1.0, min(left, by_queue, 14.0))

    @property
    def unknown(self) -> float:
        """The mean value of the development cards not in sight (the draw pile's)."""
        if self._unknown is None:
            seen = set(self.queue)
            for d in self.devs:
                seen.update(d)
            values = [self.dev_value(c) for c in self.deck.for_players(self.players, False)
                      if c.id not in seen]
            self._unknown = sum(values) / len(values) if values else 5.0
        return self._unknown

    def dev_value(self, card: CardDef) -> float:
        """What owning ``card`` from now on is worth to this seat, in doubloons."""
        r = self.rounds_left
        later = max(r - 1.0, 0.0)
        value = card.income * r + DENIAL
        kind = card.kind
        if kind == "caravel":
            value += CARD_WORTH * later - 0.03 * card.caravel * later
        elif kind == "merchant":
            have = self.merchant_count[card.merchant_class]
            value += (MERCHANT_FIRST if have == 0 else MERCHANT_MORE / have) * r
        elif kind == "warehouse":
            start = self.capacity
            slots = WAREHOUSE_SLOT
            gain = sum(slots[min(i, len(slots) - 1)]
                       for i in range(start, start + card.capacity))
            value += gain * later
        elif kind == "shipyard":
            mine = self.caravels[self.seat]
            richer = sum(1 for s, n in enumerate(self.caravels) if s != self.seat and n > mine)
            value += max(richer, 0.5) * SHIPYARD_RATE * r
        else:
            power = card.power
            if power == "buron":
                chars = sum(1 for c in self.devs[self.seat] if self.card(c).is_character)
                value += (chars + 1.5) * r
            elif power == "tradingpost":
                owned = [self.card(c).kind for c in self.devs[self.seat]]
                value += (owned.count("merchant") + owned.count("warehouse") + 1.0) * r
            elif power == "pizarro" or power == "ponce":
                if self.caravels[self.seat]:
                    value += POWER_RATE[power] * r
            else:
                value += POWER_RATE.get(power, 0.3) * r
        return value

    # -- the turn planner -------------------------------------------------------------------

    def best_reach(self, qv: tuple[float, ...], reach: int) -> tuple[float, int]:
        """The most valuable of the first ``reach`` queue cards: (value, position 1-5).
        (At most five comparisons: cheaper than a memo's key, a tuple of floats to hash.)"""
        best, pos = -1.0, 0
        for i in range(min(reach, len(qv))):
            if qv[i] > best:
                best, pos = qv[i], i + 1
        return best, pos

    def store_value(self, numbered: list[int], relics: int) -> float:
        """The best cards to keep from these leftovers (counts of 1-9 and relics)."""
        if not self.store_ok:
            return 0.0
        return self._kept(self._worths(tuple(numbered), 0), relics)

    def _worths(self, numbered: Counts, less: int) -> list[float]:
        """What each leftover card of 1-9 is worth stored, best first (``less``: one card of
        each value present already used, by a series)."""
        worths: list[float] = []
        pair, single = self.store_pair, self.store_single
        for v in range(1, 10):
            n = numbered[v]
            if n and less:
                n -= less
            if n >= 2:
                worths.extend([pair[CLASS_OF[v]]] * min(n, 3))
            elif n == 1:
                worths.append(single + 0.03 * v)
        if worths:
            worths.sort(reverse=True)
        return worths

    def _kept(self, worths: list[float], relics: int) -> float:
        """The best of these worths (:meth:`_worths`) and relics the warehouses keep."""
        room = self.capacity
        total = 0.0
        take = min(room, relics)
        total += take * self.store_relic
        room -= take
        if room <= 0:
            return total
        if worths:
            total += sum(worths[:room])
        return total

    def tail(self, c: Counts) -> tuple[float, int]:
        """Series, relic set and storage for a hand after its sets: (value, relic set size)."""
        found = self._tail.get(c)
        if found is not None:
            return found
        distinct = 0
        for v in range(1, 10):
            if c[v]:
                distinct += 1
        pay = 0.0
        series = self.series_ok and distinct >= 4
        if series:
            pay = float(distinct if self.ip else SERIES_PAYS[distinct])
        relics = c[RELIC]
        best, best_k = -1.0, 0
        top = min(relics, 5) if self.relics_ok else 0
        # The leftovers are the same whatever the relic set: their worths are listed once.
        worths = self._worths(c, 1 if series else 0) if self.store_ok else None
        for k in range(top + 1):
            stored = self._kept(worths, relics - k) if worths is not None else 0.0
            val = RELIC_PAYS[k] + stored
            if val > best:
                best, best_k = val, k
        found = (pay + best, best_k)
        self._tail[c] = found
        return found

    def tail_value(self, c: Counts) -> float:
        """:meth:`tail`'s value. Without storage (no warehouse, a fire, or
        :meth:`without_storage`'s judge of conversions) it is worked out at once: a few
        comparisons, cheaper than the memo's key (a tuple of 11 counts hashed)."""
        if self.store_ok:
            return self.tail(c)[0]
        distinct = 0
        for v in range(1, 10):
            if c[v]:
                distinct += 1
        return self._bare_tail(distinct, c[RELIC])

    def _bare_tail(self, distinct: int, relics: int) -> float:
        """:meth:`tail`'s value without storage, for a hand of ``distinct`` values of 1-9 and
        ``relics`` relics: the series, and the best relic set."""
        pay = 0.0
        if self.series_ok and distinct >= 4:
            pay = float(distinct if self.ip else SERIES_PAYS[distinct])
        return pay + _RELIC_BEST[min(relics, 5) if self.relics_ok else 0]

    def core(self, c: Counts, qv: tuple[float, ...], sets_left: int,
             perfect: bool) -> tuple[float, Choice]:
        """The best value of hand ``c`` this turn and the first combination of that plan."""
        key = (c, qv, sets_left, perfect)
        found = self._core.get(key)
        if found is None:
            found = self._core[key] = self._search(c, qv, sets_left, perfect)
        return found

    def _search(self, c: Counts, qv: tuple[float, ...], sets_left: int,
                perfect: bool) -> tuple[float, Choice]:
        """:meth:`core` without its memo."""
        relics = c[RELIC]
        # Without storage and with one set left, the rest of the hand after a set is valued
        # from its number of distinct values and relics (_bare_tail): no tuple of it is made.
        bare = not self.store_ok
        distinct = 0
        if bare:
            for v in range(1, 10):
                if c[v]:
                    distinct += 1
            best = self._bare_tail(distinct, relics)
        else:
            best = self.tail(c)[0]
        bare = bare and sets_left == 1
        choice: Choice = None
        if perfect and relics and all(c[1:10]):
            rest = (0, *(n - 1 for n in c[1:]))
            val = PERFECT_VALUE + self.core(rest, qv, sets_left, False)[0]
            if val > best:
                best, choice = val, ("perfect",)
        if sets_left > 0 and (qv or self.draw_value is not None):
            for v in range(1, 10):
                n = c[v]
                if n == 0 and (v != 9 or relics < 3):
                    continue
                if n + relics < 3:
                    continue
                cls = CLASS_OF[v]
                for own in range(min(n, 5), -1, -1):
                    if own == 0 and v != 9:
                        break
                    lo = max(0, 3 - own)
                    hi = min(relics, 5 - own)
                    for wild in range(lo, hi + 1):
                        size = own + wild
                        reach = 1 if self.storm else _REACH[cls][size]
                        rest = c
                        if bare:
                            gone = 1 if n > 0 and own == n else 0  # v's last card used
                            then = self._bare_tail(distinct - gone, relics - wild)
                        else:
                            rest_l = list(c)
                            rest_l[v] -= own
                            rest_l[RELIC] -= wild
                            rest = tuple(rest_l)
                            then = self.tail(rest)[0] if sets_left == 1 else 0.0
                        # Aimed at the queue card it reaches, else drawn, else cashed (R6.3):
                        # in that order, the first of equal values kept.
                        if qv:
                            dv, pos = self.best_reach(qv, reach)
                            if sets_left > 1:  # the queue after this card is taken (R6.4)
                                nq = qv[:pos - 1] + qv[pos:]
                                if self.devpile:
                                    nq = (*nq, self.unknown)
                                val = dv + self.core(rest, nq, sets_left - 1, perfect)[0]
                            else:
                                val = dv + then
                            if val > best + EPS:
                                best, choice = val, ("set", v, own, wild, pos)
                        draw = self.draw_value
                        cash = self.vicente and size == 3
                        if draw is not None or cash:
                            if sets_left > 1:  # the queue stays as it is
                                then = self.core(rest, qv, sets_left - 1, perfect)[0]
                            if draw is not None:
                                val = draw + then
                                if val > best + EPS:
                                    best, choice = val, ("set", v, own, wild, TARGET_DRAW)
                            if cash:
                                val = float(VICENTE_PAYS[cls]) + then
                                if val > best + EPS:
                                    best, choice = val, ("set", v, own, wild, TARGET_CASH)
        return best, choice

    def plan(self, c: Counts) -> tuple[float, Choice]:
        """:meth:`core` for the whole turn, memoized by the hand alone (the other arguments
        are the context's: a key of the hand is cheaper to hash than one with the queue)."""
        found = self._plans.get(c)
        if found is None:
            found = self._plans[c] = self._search(c, self.qv, self.sets_left, self.perfect_ok)
        return found

    def without_storage(self) -> _Context:
        """This context with storage worth nothing: converted cards go back to their own
        value before storing (R6.5, R6.9), so conversions are judged on combinations only."""
        if not self.store_ok:
            return self
        if self._shadow is None:
            shadow = copy.copy(self)
            shadow.store_ok = False
            shadow._fresh_memos()
            self._shadow = shadow
        return self._shadow

    # -- hands before the progression step ----------------------------------------------------

    def evaluate(self, c: Counts) -> float:
        """A hand's worth before the progression step: its best plan, what the merchants add,
        and a little for near-combinations."""
        found = self._eval.get(c)
        if found is not None:
            return found
        value = self.plan(c)[0]
        relics = c[RELIC]
        distinct = 0
        spare = relics > 0
        for v in range(1, 10):
            n = c[v]
            if n:
                distinct += 1
                if n >= 2:
                    spare = True
        for cls in (1, 2, 3):
            if not self.free_merchants[cls]:
                continue
            gain = 0.0
            for dst in _CLASS_VALUES[cls]:
                if c[dst] == 0 and spare and distinct >= 3:
                    if self.ip:
                        g = float(distinct + 1) if distinct >= 3 else 0.0
                    else:
                        g = float(SERIES_PAYS[distinct + 1] - SERIES_PAYS[distinct])
                    gain = max(gain, g)
                if c[dst] and c[dst] + relics == 2 and self.qv:
                    gain = max(gain, 0.7 * self.best_reach(self.qv, _REACH[cls][3])[0])
            value += 0.8 * gain
        if distinct == 3:
            value += THREE_DISTINCT
        if self.qv:
            # The two best pairs (without relics), the better first, as a sum of sorted values.
            pairs = 0
            first = second = 0.0
            if relics == 0:
                for v in range(1, 10):
                    if c[v] == 2:
                        p = self.best_reach(self.qv, _REACH[CLASS_OF[v]][3])[0]
                        if pairs == 0 or p > first:
                            first, second = p, first
                        elif pairs == 1 or p > second:
                            second = p
                        pairs += 1
            both = 0.0
            if pairs:
                both += first
                if pairs > 1:
                    both += second
            value += PAIR_POTENTIAL * both
        self._eval[c] = value
        return value


def turn_flags(view: View) -> TurnFlags:
    """What a progression turn has made so far (R6.2: sets, series, relics, perfect), from
    the pending decision's detail (built afresh at each read: read once per decision)."""
    pend = view.pending
    if pend is None:
        return None, None, None, None
    detail = pend.detail
    return detail.get("sets"), detail.get("series"), detail.get("relics"), detail.get("perfect")


def context_key(view: View, flags: TurnFlags | None = None) -> tuple[Any, ...]:
    """The seat and everything public an evaluation context depends on: views with equal
    keys share one (a bot asked for several seats, as tests do, keeps them apart).
    ``flags``: the view's :func:`turn_flags` in the turn step, when the caller has them."""
    phase = view.phase
    turn = phase == "turn"
    if turn and flags is None:
        flags = turn_flags(view)
    return (view.seat, view.round, turn, phase == "store", flags if turn else None,
            view.event, view.queue, view.developments, view.doubloons,
            view.merchants_used if turn else (), view.devpile_size)


# Bots of your own may build on it (docs/bots.md), also when it is compiled.
@mypyc_attr(allow_interpreted_subclasses=True)
class GreedyBot:
    """The greedy heuristic player (see the module docstring)."""

    # How the storage step values kept cards: by next round's event (None: as any round).
    store_next: dict[str | None, tuple[float, float, float]] | None = STORE_NEXT
    store_queue = STORE_QUEUE
    # Draw each question's chances from the seed and the question (question_seed); a rollout
    # player inside a search keeps one running generator instead (seeded per rollout).
    reseed_per_question = True

    def __init__(self, seed: int = 0, deck: Deck | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)  # reseeded for each question (question_seed)
        self._question: tuple[View, Sequence[Decision]] | None = None
        self.deck = deck
        self._ctx_key: tuple[Any, ...] | None = None
        self._ctx: _Context | None = None

    # -- plumbing -----------------------------------------------------------------------------

    def _deck(self, view: View) -> Deck:
        found = getattr(view, "deck", None)
        if isinstance(found, Deck):
            return found
        return self.deck or default_deck()

    def context(self, view: View) -> _Context:
        flags = turn_flags(view) if view.phase == "turn" else None
        key = context_key(view, flags)
        if key != self._ctx_key or self._ctx is None:
            self._ctx = self._new_context(view, key)
            self._ctx_key = key
        return self._ctx

    def _new_context(self, view: View, key: tuple[Any, ...] | None = None) -> _Context:
        """The evaluation context of ``view``; ``key``: its context_key, when made already
        (the context reads the turn's flags and the developments from it)."""
        if key is None:
            return _Context(view, self._deck(view), view.phase == "turn", self.store_next,
                            self.store_queue)
        return _Context(view, self._deck(view), key[_KEY_TURN], self.store_next,
                        self.store_queue, key[_KEY_FLAGS], key[_KEY_DEVS])

    def _best(self, legal: Sequence[Decision], score: Callable[[Decision], float]) -> Decision:
        best = -1e18
        tied: list[Decision] = []
        for d in legal:
            s = score(d)
            if s > best + EPS:
                best, tied = s, [d]
            elif s > best - EPS:
                tied.append(d)
        return tied[0] if len(tied) == 1 else tied[self.chance(len(tied))]

    def chance(self, n: int) -> int:
        """A draw in range(n). Ties are broken by chances drawn from the seed and the question
        only (seeded at the first draw of a question: most questions have no tie), so asked
        again (a resumed host), the bot answers the same."""
        question = self._question
        if question is not None:
            self._question = None
            self.rng.seed(question_seed(self.seed, *question))
        return self.rng.randrange(n)

    def decide(self, view: View, legal: Sequence[Decision]) -> Decision:
        if len(legal) == 1:
            return legal[0]
        self._question = (view, legal) if self.reseed_per_question else None
        handler = _PHASES.get(view.phase)
        if handler is None:
            return legal[self.chance(len(legal))]
        return handler(self, view, legal)

    # -- phases ---------------------------------------------------------------------------------

    def _coronado(self, view: View, legal: Sequence[Decision]) -> Decision:
        return ChooseEvent(None) if ChooseEvent(None) in legal else legal[0]

    def _split(self, view: View, legal: Sequence[Decision]) -> Decision:
        return SplitFleet(()) if SplitFleet(()) in legal else legal[0]

    def _hand_scores(self, view: View, legal: Sequence[Decision],
                     cards_of: Callable[[Decision], Sequence[int]], sign: int,
                     extra: Callable[[Decision], float] | None = None) -> Decision:
        ctx = self.context(view)
        hand = list(view.hand_counts)

        def score(d: Decision) -> float:
            c = hand[:]
            for v in cards_of(d):
                c[v] += sign
            s = ctx.evaluate(tuple(c))
            return s + extra(d) if extra is not None else s

        return self._best(legal, score)

    def _pick(self, view: View, legal: Sequence[Decision]) -> Decision:
        return self._hand_scores(view, legal, lambda d: d.cards if isinstance(d, PickCards)
                                 else (), +1)

    def _sergio(self, view: View, legal: Sequence[Decision]) -> Decision:
        return self._hand_scores(
            view, legal, lambda d: (d.card,) if isinstance(d, BuyMarket) and d.card else (),
            +1, lambda d: -SERGIO_COST - 0.5 if isinstance(d, BuyMarket) and d.card else 0.0)

    def _pirates(self, view: View, legal: Sequence[Decision]) -> Decision:
        return self._hand_scores(view, legal, lambda d: d.cards if isinstance(d, PirateDiscard)
                                 else (), -1)

    def _gift(self, view: View, legal: Sequence[Decision]) -> Decision:
        # Keep what helps this hand most; among equals give the lowest card.
        return self._hand_scores(
            view, legal, lambda d: (d.card,) if isinstance(d, Gift) else (), -1,
            lambda d: -0.01 * d.card if isinstance(d, Gift) else 0.0)

    def _announce(self, view: View, legal: Sequence[Decision]) -> Decision:
        ctx = self.context(view)
        hand = list(view.hand_counts)
        whole = ctx.evaluate(tuple(hand))
        junk = 0
        for v in range(1, 11):
            if hand[v]:
                c = hand[:]
                c[v] -= 1
                if whole - ctx.evaluate(tuple(c)) < 0.5:
                    junk += hand[v]
        n = max(2, min(4, junk))
        return Announce(n) if Announce(n) in legal else legal[0]

    def _offer(self, view: View, legal: Sequence[Decision]) -> Decision:
        ctx = self.context(view)
        prize = 0.0
        if ctx.qv:
            ranked = sorted(ctx.qv, reverse=True)
            prize = ranked[0] - (ranked[1] if len(ranked) > 1 else 0.0)
        tm_weight = TM_WORTH * min(prize, 10.0) / 10.0
        seat = view.seat

        def extra(d: Decision) -> float:
            if not isinstance(d, Offer):
                return 0.0
            casas = CASAS_CARD * len(d.cards)
            if seat == view.trade_master:
                return casas
            return casas + tm_weight * sum(d.cards)

        return self._hand_scores(view, legal, lambda d: d.cards if isinstance(d, Offer)
                                 else (), -1, extra)

    def _tm_tie(self, view: View, legal: Sequence[Decision]) -> Decision:
        seats = [d.seat for d in legal if isinstance(d, ChooseTradeMaster)]
        if view.seat in seats:
            return ChooseTradeMaster(view.seat)
        money = view.doubloons
        poorest = min(money[s] for s in seats)
        return ChooseTradeMaster(next(s for s in seats if money[s] == poorest))

    def _take(self, view: View, legal: Sequence[Decision]) -> Decision:
        ctx = self.context(view)
        hand = list(view.hand_counts)
        orellana = "orellana" in ctx.powers
        market = list(view.market)
        cache: dict[int, float] = {}

        def gain(v: int) -> float:
            found = cache.get(v)
            if found is None:
                c = hand[:]
                c[v] += 1
                found = cache[v] = ctx.evaluate(tuple(c))
            return found

        def score(d: Decision) -> float:
            if not isinstance(d, Take):
                return -1e9
            if d.swap is None:
                return gain(d.card)
            s = gain(d.swap)
            if orellana:
                after = market[:]
                after.remove(d.swap)
                after.append(d.card)
                a, b, c3 = sorted(after)
                if a == b == c3 or (c3 != RELIC and a + 1 == b and b + 1 == c3):
                    s += ORELLANA_GAIN
            return s - 0.001  # keep rather than swap when it makes no difference

        return self._best(legal, score)

    def _first(self, view: View, legal: Sequence[Decision]) -> Decision:
        me = ChooseFirst(view.seat if view.seat is not None else 0)
        return me if me in legal else legal[0]

    def _turn(self, view: View, legal: Sequence[Decision]) -> Decision:
        ctx = self.context(view)
        hand = list(view.hand_counts)
        c = tuple(hand)
        value, choice = ctx.plan(c)
        # Merchant conversions (R6.5), one at a time, when they raise the plan's combinations.
        if any(ctx.free_merchants):
            judge = ctx.without_storage()
            value = judge.plan(c)[0]
            natural = hand[:]
            for _, dst in view.converted:
                natural[dst] -= 1
            best_conv: Convert | None = None
            best = value + 0.01
            for cls in (1, 2, 3):
                if not ctx.free_merchants[cls]:
                    continue
                for src in range(1, 11):
                    if not natural[src]:
                        continue
                    for dst in _CLASS_VALUES[cls]:
                        if dst == src:
                            continue
                        c2 = hand[:]
                        c2[src] -= 1
                        c2[dst] += 1
                        val = judge.plan(tuple(c2))[0]
                        if val > best:
                            best, best_conv = val, Convert(src, dst)
            if best_conv is not None and _among(best_conv, legal):
                return best_conv
        decision = self._next_step(ctx, c, choice)
        if _among(decision, legal):
            return decision
        return END_TURN if _among(END_TURN, legal) else legal[0]

    def _next_step(self, ctx: _Context, c: Counts, choice: Choice) -> Decision:
        if choice is not None:
            if choice[0] == "perfect":
                return MakePerfect()
            _, v, own, wild, target = choice
            return MakeSet(v, (v,) * own + (RELIC,) * wild, target)
        distinct = tuple(v for v in range(1, 10) if c[v])
        if ctx.series_ok and len(distinct) >= 4:
            return MakeSeries(distinct)
        k = ctx.tail(c)[1]
        if k:
            return MakeRelicSet(k)
        return END_TURN

    def _store(self, view: View, legal: Sequence[Decision]) -> Decision:
        ctx = self.context(view)
        ok = ctx.store_ok
        ctx.store_ok = True  # the engine only asks when storing is allowed

        def score(d: Decision) -> float:
            if not isinstance(d, Store):
                return -1e9
            kept = _counts(d.cards)
            return ctx.store_value(kept[:10], kept[RELIC])

        try:
            return self._best(legal, score)
        finally:
            ctx.store_ok = ok


_PHASES: Final[dict[str, Callable[[GreedyBot, View, Sequence[Decision]], Decision]]] = {
    "coronado": GreedyBot._coronado,
    "split": GreedyBot._split,
    "pick": GreedyBot._pick,
    "sergio": GreedyBot._sergio,
    "pirates": GreedyBot._pirates,
    "announce": GreedyBot._announce,
    "offer": GreedyBot._offer,
    "tm_tie": GreedyBot._tm_tie,
    "take": GreedyBot._take,
    "gift": GreedyBot._gift,
    "first": GreedyBot._first,
    "turn": GreedyBot._turn,
    "store": GreedyBot._store,
}
