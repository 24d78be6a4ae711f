"""The progression helper: what the hand allows, so a player picks rather than computes.

From a view (own hand, queue, developments and merchants, the round's event, and the turn's
flags in ``view.pending.detail``) it lists the identical sets with the queue cards each
reaches, the series and what they pay, the relic set, the perfect combination, and the
merchant conversions that complete or extend a set or a series (R6.2-R6.5, R8.1, P04).

The engine's own enumeration (``combos.turn_options``) decides what is legal, so every
suggestion carries the exact Decision objects to send, and the advisor never disagrees with
the engine about the rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mundus_net.client.i18n import current
from mundus_net.client.tui.sentences import CLASS_WORDS, card_name, cards_text, dev_name, words
from mundus_net.engine import combos
from mundus_net.engine.cards import CLASS_OF, RELIC, to_counts
from mundus_net.engine.decisions import (
    TARGET_CASH,
    TARGET_DRAW,
    Convert,
    Decision,
    MakePerfect,
    MakeRelicSet,
    MakeSeries,
    MakeSet,
)
from mundus_net.engine.game import RELIC_PAY, SERIES_PAY, VICENTE_PAY
from mundus_net.engine.view import View

__all__ = [
    "Suggestion", "TurnContext", "View", "affected", "best_reach", "in_turn", "owns", "series_pay",
    "suggestions", "summary", "turn_context"
]


@dataclass(frozen=True)
class Suggestion:
    """One combination the hand allows.

    Send the decisions of ``first`` in order (a merchant conversion), then one of
    ``choices``: a set has one choice per development it can reach, described by ``labels``.
    """

    kind: str  # "perfect", "series", "set", "relics" or "convert"
    text: str
    choices: tuple[Decision, ...]
    labels: tuple[str, ...] = ()
    first: tuple[Decision, ...] = ()
    gain: int = 0  # doubloons paid at once (the best choice)
    reach: int = 0  # a set: the furthest queue position it reaches
    head: str = ""  # a set: the text before its labels, naming every card it uses

    @property
    def decisions(self) -> tuple[Decision, ...]:
        """The whole sequence to send, with the first choice."""
        return (*self.first, self.choices[0])


@dataclass(frozen=True)
class TurnContext:
    """Everything the combinations of one progression-turn step depend on, read off a view."""

    key: combos.TurnKey
    ip: bool  # Indigenous People acts on this seat (R3.4)
    ka: bool
    storm: bool
    queue: tuple[str, ...]


def owns(view: View, seat: int, power: str) -> bool:
    """Does ``seat`` own the character or building with this power?"""
    devs = view.developments
    if not 0 <= seat < len(devs):
        return False
    by_id = view.deck.by_id
    return any(c in by_id and by_id[c].power == power for c in devs[seat])


def affected(view: View, seat: int) -> bool:
    """R3.4: does this round's event act on ``seat``?"""
    return view.event is not None and not owns(view, seat, "cosa")


def in_turn(view: View) -> bool:
    """Is it this view's seat's progression turn now?"""
    pending = view.pending
    return (view.seat is not None and pending is not None and pending.kind == "turn"
            and view.seat in tuple(pending.seats))


def turn_context(view: View, hand: Sequence[int] | None = None) -> TurnContext | None:
    """The turn's situation for the view's seat (None for a spectator).

    In the seat's own turn the flags and conversions so far count; otherwise (or with an
    explicit ``hand``, for planning) a fresh turn with every merchant unused is assumed.
    """
    seat = view.seat
    if seat is None:
        return None
    live = hand is None and in_turn(view)
    # A snapshot may show the started table a moment before the seat's own cards arrive.
    counts = to_counts((view.hand or ()) if hand is None else hand)
    natural: tuple[int, ...] | None = None
    detail: dict[str, object] = {}
    if live:
        pending = view.pending
        assert pending is not None
        detail = dict(pending.detail)
        converted = [(int(a), int(b)) for a, b in view.converted]
        if converted:
            nat = counts[:]
            for _, dst in converted:
                nat[dst] -= 1
            natural = tuple(nat)
    used = set(view.merchants_used) if live else set()
    merchants = [0, 0, 0, 0]
    by_id = view.deck.by_id
    for card_id in view.developments[seat]:
        card = by_id.get(card_id)
        if card is not None and card.kind == "merchant" and card_id not in used:
            merchants[card.merchant_class] += 1
    hit = affected(view, seat)
    ka = hit and view.event == "KA"
    storm = hit and view.event == "ST"
    queue = tuple(view.queue)
    key = combos.TurnKey(
        hand=tuple(counts),
        natural=natural,
        merchants=tuple(merchants),
        sets=not detail.get("sets") or ka,
        series=not detail.get("series"),
        relics=not detail.get("relics"),
        perfect=not detail.get("perfect"),
        queue=min(len(queue), 1) if storm else len(queue),
        draw=owns(view, seat, "almagro") and view.devpile_size > 0,
        cash=owns(view, seat, "vicente"),
    )
    return TurnContext(key, hit and view.event == "IP", ka, storm, queue)


def series_pay(size: int, ip: bool) -> int:
    """R6.2: what a series of ``size`` cards pays (Indigenous People: 1 per card)."""
    return size if ip else SERIES_PAY.get(size, 0)


def best_reach(view: View) -> int:
    """The furthest queue position an identical set from the hand reaches now (0: none);
    merchants are not counted (the queue marks show what the hand does by itself)."""
    ctx = turn_context(view)
    if ctx is None:
        return 0
    key = ctx.key._replace(merchants=(0, 0, 0, 0))
    return max((d.target for d in combos.turn_options(key) if isinstance(d, MakeSet)),
               default=0)


# -- labels ---------------------------------------------------------------------------------------


def _target_label(view: View, target: int, value: int) -> str:
    t = current()
    if target == TARGET_DRAW:
        return t._("the pile's top card (Almagro)")
    if target == TARGET_CASH:
        return t._("{doubloons} (Vicente)").format(
            doubloons=t.doubloons(VICENTE_PAY[CLASS_OF[value]]))
    queue = view.queue
    name = dev_name(queue[target - 1], view.deck) if target <= len(queue) else "?"
    return f"{target} {name}"


def _positions(targets: Sequence[int]) -> str:
    numbered = sorted(t for t in targets if t > 0)
    if not numbered:
        return ""
    if len(numbered) == 1:
        return current()._("queue card {position}").format(position=numbered[0])
    return current()._("queue cards {first}-{last}").format(first=numbered[0],
                                                           last=numbered[-1])


def _set_words(value: int, cards: Sequence[int]) -> str:
    t = current()
    relics = sum(1 for c in cards if c == RELIC)
    own = len(cards) - relics
    if own == 0:
        return t.ngettext("set of {count} relics as {resource}",
                          "set of {count} relics as {resource}", len(cards)).format(
            count=len(cards), resource=card_name(value))
    if relics == 0:
        return t._("set of {count} {resource}").format(count=len(cards),
                                                       resource=card_name(value))
    return t.ngettext("set of {total} {resource} ({own} + {count} relic)",
                      "set of {total} {resource} ({own} + {count} relics)", relics).format(
        total=len(cards), resource=card_name(value), own=own, count=relics)


# -- the analysis -------------------------------------------------------------------------------


@dataclass
class _Options:
    """The turn's options, sorted by what they are."""

    sets: dict[tuple[int, tuple[int, ...]], list[int]]  # (value, cards) -> targets, in order
    series: list[tuple[int, ...]]
    relics: int  # the largest relic set
    perfect: bool
    converts: list[Convert]


def _sort_options(options: Sequence[Decision]) -> _Options:
    out = _Options({}, [], 0, False, [])
    for d in options:
        if isinstance(d, MakeSet):
            out.sets.setdefault((d.value, d.cards), []).append(d.target)
        elif isinstance(d, MakeSeries):
            out.series.append(d.cards)
        elif isinstance(d, MakeRelicSet):
            out.relics = max(out.relics, d.size)
        elif isinstance(d, MakePerfect):
            out.perfect = True
        elif isinstance(d, Convert):
            out.converts.append(d)
    return out


def _set_reach(targets: Sequence[int]) -> float:
    """How far a set reaches: its furthest queue card, or a half for a pile draw or a sale."""
    numbered = [t for t in targets if t > 0]
    if numbered:
        return float(max(numbered))
    return 0.5 if targets else 0.0


def _value_sets(opts: _Options, value: int) -> list[tuple[tuple[int, ...], list[int]]]:
    """The useful sets of ``value``: for each size the variant with the fewest relics, and
    only the sizes that reach further than a smaller one (a bigger set costs more cards)."""
    by_size: dict[int, tuple[tuple[int, ...], list[int]]] = {}
    for (v, cards), targets in opts.sets.items():
        if v != value:
            continue
        size = len(cards)
        relics = cards.count(RELIC)
        if size not in by_size or relics < by_size[size][0].count(RELIC):
            by_size[size] = (cards, targets)
    kept: list[tuple[tuple[int, ...], list[int]]] = []
    best = -1.0
    for size in sorted(by_size):
        cards, targets = by_size[size]
        reach = _set_reach(targets)
        if reach > best:
            kept.append((cards, targets))
            best = reach
    return kept


def _longest(series: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    return max(series, key=lambda c: (len(c), c), default=())


def _set_suggestion(view: View, value: int, cards: tuple[int, ...], targets: Sequence[int],
                    first: tuple[Decision, ...] = (), lead: str = "",
                    kind: str = "set") -> Suggestion:
    """``lead``: the words before the set, with ``{set}`` where the set goes ("Convert ...:
    completes a {set}")."""
    tr = current()
    labels = tuple(_target_label(view, t, value) for t in targets)
    where = _positions(targets)
    named = _set_words(value, cards)
    text = lead.format(set=named) if lead else named[0].upper() + named[1:]
    if where:
        text = tr._("{set}, reaching {positions}").format(set=text, positions=where)
    gain = VICENTE_PAY[CLASS_OF[value]] if TARGET_CASH in targets else 0
    return Suggestion(kind, text + ": " + tr._(", ").join(labels),
                      tuple(MakeSet(value, cards, t) for t in targets), labels,
                      first, gain if targets == [TARGET_CASH] else 0,
                      max((t for t in targets if t > 0), default=0), head=text)


def suggestions(view: View, hand: Sequence[int] | None = None) -> list[Suggestion]:
    """Every combination worth showing for the view's seat, best kinds first: the perfect
    combination, series, identical sets, the relic set, then merchant conversions."""
    t = current()
    ctx = turn_context(view, hand)
    if ctx is None:
        return []
    opts = _sort_options(combos.turn_options(ctx.key))
    out: list[Suggestion] = []
    if opts.perfect:
        out.append(Suggestion("perfect", t._("The perfect combination (values 1-9 and a "
                                             "relic): you win at the end of the round (R8.1)"),
                              (MakePerfect(),)))
    ranked: list[tuple[tuple[int, int, int, int], Suggestion]] = []
    for value in range(1, 10):
        for cards, targets in _value_sets(opts, value):
            if cards.count(RELIC) == len(cards) and value != 9:
                continue  # relics alone: one declared value (vanilla, rare) says it all
            s = _set_suggestion(view, value, cards, targets)
            ranked.append(((-s.reach, len(cards), cards.count(RELIC), value), s))
    sets = [s for _, s in sorted(ranked, key=lambda item: item[0])]
    longest = _longest(opts.series)
    if longest:
        pay = series_pay(len(longest), ctx.ip)
        text = t._("Series of {count} ({cards}) for {doubloons}").format(
            count=len(longest), cards=cards_text(longest), doubloons=pay)
        if ctx.ip:
            text += t._(" ({event}: 1 per card)").format(event=t.event("IP"))
        out.append(Suggestion("series", text, (MakeSeries(longest),), gain=pay))
        keep = _series_keeping_set(opts, longest, sets, ctx)
        if keep is not None:
            out.append(keep)
    out += sets
    if opts.relics:
        k = opts.relics
        out.append(Suggestion("relics", t.ngettext(
            "Relic set of {count} for {doubloons}", "Relic set of {count} for {doubloons}",
            k).format(count=k, doubloons=RELIC_PAY[k]),
                              (MakeRelicSet(k),), gain=RELIC_PAY[k]))
    out += _conversions(view, ctx, opts)
    return out


def _series_keeping_set(opts: _Options, longest: tuple[int, ...], sets: list[Suggestion],
                        ctx: TurnContext) -> Suggestion | None:
    """If the longest series eats a card the best set needs, the longest series without it."""
    if not sets:
        return None
    best = sets[0].choices[0]
    assert isinstance(best, MakeSet)
    own = sum(1 for c in best.cards if c == best.value)
    if own == 0 or best.value not in longest or ctx.key.hand[best.value] > own:
        return None
    others = [s for s in opts.series if best.value not in s]
    alt = _longest(others)
    if not alt:
        return None
    pay = series_pay(len(alt), ctx.ip)
    return Suggestion("series", current()._("Series of {count} ({cards}) for {doubloons}, "
                                            "keeping your {resource} for the set").format(
                          count=len(alt), cards=cards_text(alt), doubloons=pay,
                          resource=card_name(best.value)),
                      (MakeSeries(alt),), gain=pay)


def _conversions(view: View, ctx: TurnContext, opts: _Options) -> list[Suggestion]:
    """R6.5: conversions that complete or extend a series or a set, or complete the perfect
    combination; for each result, the source card that costs the least."""
    key = ctx.key
    before_series = len(_longest(opts.series))
    # One set per turn (R6.2): a conversion set must beat the best set without one, unless
    # King's Aid allows several.
    floor = 0.0 if ctx.ka else max((_set_reach(t) for t in opts.sets.values()), default=0.0)
    best: dict[tuple[str, int], tuple[tuple[float, ...], Suggestion]] = {}
    for conv in opts.converts:
        src, dst = conv.source, conv.value
        hand = list(key.hand)
        hand[src] -= 1
        hand[dst] += 1
        natural = list(key.natural or key.hand)
        natural[src] -= 1
        merchants = list(key.merchants)
        merchants[CLASS_OF[dst]] -= 1
        after = _sort_options(combos.turn_options(key._replace(
            hand=tuple(hand), natural=tuple(natural), merchants=tuple(merchants))))
        longest = _longest(after.series)
        others = max((_set_reach(t) for (v, _), t in after.sets.items() if v != dst),
                     default=0.0)
        # What the rest of the hand still does decides which source is cheapest.
        cost = (-len(longest), -others, src == RELIC, -key.hand[src], src)
        t = current()
        lead = t._("Convert {resource} → {other} ({kind} merchant): ").format(
            resource=card_name(src), other=card_name(dst),
            kind=words(CLASS_WORDS[CLASS_OF[dst]], t))
        found: list[tuple[str, Suggestion]] = []
        if after.perfect and not opts.perfect:
            found.append(("perfect", Suggestion(
                "convert", lead + t._("completes the perfect combination"), (MakePerfect(),),
                first=(conv,))))
        if len(longest) > before_series and len(longest) >= 4:
            pay = series_pay(len(longest), ctx.ip)
            series = (t._("extends your series to {count} ({cards}) for {doubloons}")
                      if before_series >= 4 else
                      t._("completes a series of {count} ({cards}) for {doubloons}"))
            found.append(("series", Suggestion(
                "convert", lead + series.format(count=len(longest), cards=cards_text(longest),
                                                doubloons=pay),
                (MakeSeries(longest),), first=(conv,), gain=pay)))
        new_sets = _value_sets(after, dst)
        old_reach = max((_set_reach(t) for _, t in _value_sets(opts, dst)), default=0.0)
        if new_sets:
            cards, targets = new_sets[-1]
            if _set_reach(targets) > max(old_reach, floor):
                verb = t._("completes a {set}") if old_reach == 0 \
                    else t._("enlarges to a {set}")
                found.append(("set", _set_suggestion(view, dst, cards, targets, (conv,),
                                                     lead.replace("{", "{{").replace("}", "}}")
                                                     + verb, "convert")))
        for what, suggestion in found:
            slot = (what, dst)
            if slot not in best or cost < best[slot][0]:
                best[slot] = (cost, suggestion)
    ranked = sorted(best.items(), key=lambda item: (
        ("perfect", "series", "set").index(item[0][0]), -item[1][1].gain, -item[1][1].reach,
        item[0][1]))
    return [s for _, (_, s) in ranked]


def summary(view: View) -> str:
    """One short line: what the hand allows now ("series of 6 for 10 · set reaching 1-3")."""
    t = current()
    found = suggestions(view)
    if not found:
        return t._("no combination")
    parts: list[str] = []
    said: set[str] = set()  # the kinds named (the first series and set are the best)
    for s in found:
        if s.kind == "perfect":
            parts.append(t._("PERFECT combination"))
        elif s.kind == "series" and "series" not in said:
            parts.append(t._("series for {doubloons}").format(doubloons=s.gain))
        elif s.kind == "set" and "set" not in said:
            parts.append(t._("set to card {position}").format(position=s.reach) if s.reach
                         else t._("set"))
        elif s.kind == "relics":
            parts.append(t._("relics for {doubloons}").format(doubloons=s.gain))
        said.add(s.kind)
    converts = sum(1 for s in found if s.kind == "convert")
    if converts:
        parts.append(t.ngettext("{count} conversion idea", "{count} conversion ideas",
                                converts).format(count=converts))
    return " · ".join(parts) if parts else t._("no combination")
