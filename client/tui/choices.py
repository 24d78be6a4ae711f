"""The numbered choices of a pending decision, in words, grouped the way a player thinks.

Every choice is a few words ("keep it", "swap it for the market's cocoa (1)", "set of 3
sugar cane → queue 2: Warehouse for 1") and, where choices belong together, a group ("sugar
cane (6) from greedy 1"). The notation (docs/notation.md) stays typeable and Tab-completable,
and a number still picks, but no list on screen is made of codes alone.

:func:`choices_for` makes the list; :func:`panel` lays it out in a given width and number of
rows, a page at a time when it does not fit. No terminal here: tests read the lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from prompt_toolkit.utils import get_cwidth

from mundus_net.client.i18n import current
from mundus_net.client.tui import advisor
from mundus_net.client.tui.render import line_width, ljust_cells, wrap_line
from mundus_net.client.tui.sentences import card_name, cards_text, dev_name, seat_name
from mundus_net.engine.cards import RELIC
from mundus_net.engine.decisions import (
    TARGET_CASH,
    TARGET_DRAW,
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
    SplitFleet,
    Store,
    Take,
)
from mundus_net.engine.game import ORELLANA_GAIN, RELIC_PAY, Pending
from mundus_net.engine.notation import format_decision
from mundus_net.engine.view import StateView

__all__ = [
    "END_NUMBER", "Choice", "Fragment", "Line", "Numbered", "Panel", "by_number", "changes",
    "choices_for", "describe", "keep_numbers", "number_list", "numbered", "panel", "pass_decision",
    "valued"
]

Fragment = tuple[str, str]
Line = list[Fragment]

# "end the turn" keeps this number in every question of a progression turn, whatever the
# combinations left (docs/client.md).
END_NUMBER = 0


@dataclass(frozen=True)
class Choice:
    """One numbered choice: the decisions to send in order (a merchant conversion, then the
    combination it makes possible), a few words, and the group it is listed under."""

    decisions: tuple[Decision, ...]
    words: str  # the whole choice in words (the completion menu, a choice without a group)
    label: str = ""  # within its group, the part that differs ("keep it")
    group: str | None = None
    lead: str = ""  # words before its number in the group's line ("swap for")
    number: int | None = None  # a number of its own (else its place among the others)

    @property
    def text(self) -> str:
        return ",".join(format_decision(d) for d in self.decisions)

    @property
    def short(self) -> str:
        return self.label if self.group is not None and self.label else self.words


def valued(card: int) -> str:
    """A resource with its value: ``cocoa (1)``, ``relic (10)``."""
    return current()._("{resource} ({value})").format(resource=card_name(card), value=card)


def _who(view: StateView, names: Sequence[str], seat: int) -> str:
    return current()._("you") if seat == view.seat else seat_name(names, seat)


def _fleet(view: StateView, ids: Sequence[str]) -> str:
    return "+".join(str(view.deck[c].caravel) if c in view.deck.by_id else c for c in ids)


def _queue_target(view: StateView, target: int) -> str:
    t = current()
    if target == TARGET_DRAW:
        return t._("the pile's top card (Almagro)")
    if target == TARGET_CASH:
        return t._("sold (Vicente)")
    queue_ids = list(view.queue)
    dev = dev_name(queue_ids[target - 1], view.deck) if 0 < target <= len(queue_ids) else "?"
    return t._("queue {position}: {development}").format(position=target, development=dev)


def describe(d: Decision, view: StateView, names: Sequence[str]) -> str:
    """A decision in a few words, for the list of choices and the completion menu."""
    t = current()
    match d:
        case ChooseEvent(event):
            return t._("pass") if event is None else t._("pay 2 to impose {event}").format(
                event=t.event(event))
        case SplitFleet(fleet):
            return t._("keep one fleet") if not fleet else t._("second fleet {caravels}").format(
                caravels=_fleet(view, fleet))
        case PickCards(cards):
            return cards_text(cards)
        case BuyMarket(card):
            return t._("pass") if card is None else t._("pay 2 for {resource}").format(
                resource=valued(card))
        case PirateDiscard(cards):
            return t._("lose {cards}").format(cards=cards_text(cards))
        case Announce(n):
            return t._("everyone offers {count}").format(count=n)
        case Offer(cards):
            if not cards:
                return t._("offer nothing")
            return t._("{cards} (worth {value})").format(
                cards=" + ".join(card_name(c) for c in cards), value=sum(cards))
        case ChooseTradeMaster(seat):
            if seat == view.seat:
                return t._("you become Trade Master")
            return t._("{seat} becomes Trade Master").format(seat=seat_name(names, seat))
        case Take(seat, card, swap):
            if seat == view.seat:
                text = t._("{resource} from you").format(resource=valued(card))
            else:
                text = t._("{resource} from {seat}").format(resource=valued(card),
                                                            seat=seat_name(names, seat))
            return text if swap is None else t._("{take}, swapped for the market's "
                                                 "{resource}").format(take=text,
                                                                      resource=valued(swap))
        case Gift(card):
            return t._("give {resource}").format(resource=valued(card))
        case ChooseFirst(seat):
            if seat == view.seat:
                return t._("you play first")
            return t._("{seat} plays first").format(seat=seat_name(names, seat))
        case Convert(source, value):
            return t._("turn {resource} into {other}").format(resource=card_name(source),
                                                              other=card_name(value))
        case MakeSet(value, cards, target):
            return t._("set of {count} {resource} → {target}").format(
                count=len(cards), resource=card_name(value),
                target=_queue_target(view, target))
        case MakeSeries(cards):
            ip = view.seat is not None and view.event == "IP" and \
                advisor.affected(view, view.seat)
            values = "-".join(str(c) for c in cards)
            return t._("series {values}: {doubloons}").format(
                values=values, doubloons=t.doubloons(advisor.series_pay(len(cards), ip)))
        case MakeRelicSet(size):
            return t.ngettext("relic set of {count}: {doubloons}",
                              "relic set of {count}: {doubloons}", size).format(
                count=size, doubloons=t.doubloons(RELIC_PAY.get(size, 0)))
        case MakePerfect():
            return t._("the perfect combination")
        case EndTurn():
            return t._("end the turn")
        case Store(cards):
            return t._("keep {cards} in your warehouses").format(cards=cards_text(cards)) \
                if cards else t._("store nothing")


# -- the take step ------------------------------------------------------------------------------


def _orellana_pays(market: Sequence[int]) -> bool:
    """R5.10: three identical resources (three relics count) or three consecutive values."""
    if len(market) != 3:
        return False
    a, b, c = sorted(market)
    if a == b == c:
        return True
    return c != RELIC and b == a + 1 and c == b + 1


def _swap_gain(view: StateView, card: int, swap: int) -> int:
    if view.seat is None or not advisor.owns(view, view.seat, "orellana"):
        return 0
    market = list(view.market)
    if swap not in market:
        return 0
    market.remove(swap)
    market.append(card)
    return ORELLANA_GAIN if _orellana_pays(market) else 0


def _take_choices(view: StateView, names: Sequence[str],
                  legal: Sequence[Decision]) -> list[Choice]:
    """Grouped by the card taken; a swap is listed only where it can make a difference to
    this player: swapping a card for the market's card of the same value changes nothing,
    unless it pays Orellana."""
    out: list[Choice] = []
    groups: dict[tuple[int, int], list[Take]] = {}
    for d in legal:
        if isinstance(d, Take):
            groups.setdefault((d.seat, d.card), []).append(d)
    t = current()
    for (seat, card), takes in groups.items():
        if seat == view.seat:
            group = t._("{resource} from you").format(resource=card_name(card))
        else:
            group = t._("{resource} from {seat}").format(resource=card_name(card),
                                                         seat=seat_name(names, seat))
        lead = t._("swap for")
        for d in takes:
            if d.swap is None:
                keep = t._("keep it")
                out.append(Choice((d,), f"{group}: {keep}", keep, group))
                continue
            gain = _swap_gain(view, card, d.swap)
            if d.swap == card and not gain:
                continue
            bonus = t._(" (+{doubloons}, Orellana)").format(doubloons=gain) if gain else ""
            swap = t._("swap it for the market's {resource}").format(resource=valued(d.swap))
            out.append(Choice((d,), f"{group}: {swap}{bonus}",
                              card_name(d.swap) + bonus, group, lead))
            lead = ""
    return out


# -- the progression turn -----------------------------------------------------------------------


def _turn_choices(view: StateView, names: Sequence[str],
                  legal: Sequence[Decision]) -> list[Choice]:
    """The advisor's combinations; a set is a group with one choice per development it
    reaches."""
    allowed = set(legal)
    out: list[Choice] = []
    seen: set[tuple[Decision, ...]] = set()
    for s in advisor.suggestions(view):
        if s.first and s.first[0] not in allowed:
            continue
        group = s.head if s.labels else None
        for index, choice in enumerate(s.choices):
            decisions = (*s.first, choice)
            if decisions in seen or (not s.first and choice not in allowed):
                continue
            seen.add(decisions)
            if group is not None and index < len(s.labels):
                label = _set_label(s.labels[index])
                out.append(Choice(decisions, f"{group}: {label}", label, group))
            else:
                out.append(Choice(decisions, s.text))
    if EndTurn() in allowed:
        out.append(Choice((EndTurn(),), current()._("end the turn"), number=END_NUMBER))
    return out


def _set_label(label: str) -> str:
    """advisor's "2 Warehouse for 1" as "queue 2: Warehouse for 1"."""
    head, _, rest = label.partition(" ")
    return current()._("queue {position}: {development}").format(
        position=head, development=rest) if head.isdigit() else label


def choices_for(view: StateView, pending: Pending | None, legal: Sequence[Decision],
                names: Sequence[str]) -> list[Choice]:
    """The numbered choices of this seat's decision."""
    kind = pending.kind if pending is not None else ""
    if kind == "turn":
        return _turn_choices(view, names, legal)
    if kind == "take":
        return _take_choices(view, names, legal)
    return [Choice((d,), describe(d, view, names)) for d in legal]


def changes(before: Sequence[Choice], after: Sequence[Choice]) -> str:
    """How the list of choices changed between two questions of one turn, in a sentence
    ("" when every choice kept its number)."""
    old = {c.words: n for n, c in numbered(before)}
    new = {c.words: n for n, c in numbered(after)}
    if old == new:
        return ""
    gone = [n for words, n in old.items() if words not in new and n != END_NUMBER]
    added = sorted(n for words, n in new.items() if words not in old)
    kept = [n for words, n in new.items() if words in old and n != END_NUMBER]
    moved = any(old[words] != n for words, n in new.items() if words in old)
    t = current()
    parts = []
    if gone:
        parts.append(t._("{numbers} no longer possible").format(
            numbers=number_list(sorted(gone))))
    if added:
        parts.append(t._("new: {numbers}").format(numbers=number_list(added)))
    if kept:
        parts.append(t._("the others renumbered") if moved
                     else t._("the others keep their numbers"))
    if any(c.number == END_NUMBER for c in after):
        parts.append(t._("{number} still ends the turn").format(number=END_NUMBER))
    return t._("The choices changed after your move: {changes}.").format(
        changes="; ".join(parts))


def number_list(numbers: Sequence[int]) -> str:
    """Sorted numbers in short: ``1-3, 6``."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in runs)


def keep_numbers(before: Sequence[Choice], after: Sequence[Choice]) -> list[Choice]:
    """The next question of a turn: a choice listed before (the same words) keeps its
    number, a new one takes the next number after the highest before; in number order."""
    old = {c.words: n for n, c in numbered(before)}
    following = max(old.values(), default=0) + 1
    out: list[Choice] = []
    for choice in after:
        if choice.number is None:
            number = old.get(choice.words, following)
            following += number == following
            choice = replace(choice, number=number)
        out.append(choice)
    return sorted(out, key=lambda c: (c.number == END_NUMBER, c.number))


def pass_decision(legal: Sequence[Decision]) -> Decision | None:
    """What pass / end means for this decision, if it is legal."""
    for d in (ChooseEvent(None), BuyMarket(None), SplitFleet(()), Store(()), EndTurn()):
        if d in legal:
            return d
    return None


# -- the layout ---------------------------------------------------------------------------------


def numbered(choices: Sequence[Choice]) -> list[tuple[int, Choice]]:
    """Each choice with the number that picks it: its fixed number ("end the turn" is 0 in
    every question of a turn), else its place among the others, from 1."""
    out: list[tuple[int, Choice]] = []
    n = 0
    for choice in choices:
        if choice.number is None:
            n += 1
        out.append((n if choice.number is None else choice.number, choice))
    return out


def by_number(choices: Sequence[Choice], n: int) -> Choice | None:
    """The choice the number ``n`` picks, if any."""
    return next((c for number, c in numbered(choices) if number == n), None)


@dataclass(frozen=True)
class Panel:
    lines: list[Line]
    page: int  # shown, from 0
    pages: int


Numbered = Sequence[tuple[int, Choice]]


def _rows(items: Numbered, width: int, number_w: int) -> list[Line]:
    """The lines of some numbered choices: a group with its choices, ungrouped choices one
    a line, or in columns (read down, then across) when they are short."""
    lines: list[Line] = []
    i = 0
    while i < len(items):
        c = items[i][1]
        j = i
        while j < len(items) and items[j][1].group == c.group:
            j += 1
        if c.group is None:
            lines += _columns(items[i:j], number_w, width)
        else:
            head: Line = [("", " "), ("class:choice-group", c.group), ("", ":")]
            tokens = [[*([("class:dim", choice.lead + " ")] if choice.lead else []),
                       ("class:number", f"{n})"), ("", " "), ("", choice.label)]
                      for n, choice in items[i:j]]
            lines += _flow(tokens, width, head, indent=4)
        i = j
    return lines


def _columns(items: Numbered, number_w: int, width: int) -> list[Line]:
    cells = [(f"{n})".rjust(number_w + 1), c.words) for n, c in items]
    cell_w = max(len(num) + 1 + get_cwidth(words) for num, words in cells) + 2
    cols = max(1, min(4, width // cell_w)) if len(cells) > 4 else 1
    rows = -(-len(cells) // cols)
    out: list[Line] = []
    for r in range(rows):
        line: Line = []
        for col in range(cols):
            k = col * rows + r
            if k >= len(cells):
                break
            num, words = cells[k]
            if cols == 1:  # a long choice wraps under its own words
                text = [("class:number", num), ("", " "), ("", words)]
                out += wrap_line(text, width, indent=len(num) + 1)
                break
            line += [("class:number", num), ("", " "),
                     ("", ljust_cells(words, cell_w - len(num) - 1))]
        if line:
            out.append(line)
    return out


def _flow(tokens: Sequence[Line], width: int, head: Line, indent: int) -> list[Line]:
    """A group's title, wrapped, then its numbered choices side by side, wrapping; a choice
    wider than a line wraps under itself."""
    lines = wrap_line(head, width, indent)
    used = line_width(lines[-1])
    for token in tokens:
        w = line_width(token)
        if used + 2 + w > width and used > indent:
            lines.append([("", " " * indent)])
            used = indent
        else:
            lines[-1].append(("", "  "))
            used += 2
        if used + w > width:  # too long for a line of its own: wrapped at its words
            parts = wrap_line(token, width - used, indent=0)
            lines[-1].extend(parts[0])
            lines += [[("", " " * (indent + 2)), *part] for part in parts[1:]]
            used = line_width(lines[-1])
            continue
        lines[-1].extend(token)
        used += w
    return lines


def _units(items: Numbered) -> list[list[tuple[int, Choice]]]:
    """What a page may not split: a group with its choices, or one ungrouped choice."""
    units: list[list[tuple[int, Choice]]] = []
    for item in items:
        group = item[1].group
        if group is not None and units and units[-1][0][1].group == group:
            units[-1].append(item)
        else:
            units.append([item])
    return units


def _parts(unit: list[tuple[int, Choice]], width: int, number_w: int,
           room: int) -> list[list[tuple[int, Choice]]]:
    """A unit of :func:`_units` in parts of as many choices as fit in ``room`` lines with
    the group's title (a group shown on two pages has its title on both): the unit whole
    when it fits."""
    parts: list[list[tuple[int, Choice]]] = []
    rest = unit
    while len(_rows(rest, width, number_w)) > room and len(rest) > 1:
        count = 1
        while count + 1 < len(rest) and len(_rows(rest[:count + 1], width, number_w)) <= room:
            count += 1
        parts.append(rest[:count])
        rest = rest[count:]
    return [*parts, rest]


def panel(choices: Sequence[Choice], head: str, width: int, room: int, page: int = 0,
          notice: str = "") -> Panel:
    """The choices in at most ``room`` lines: a title line, the ``notice`` (wrapped), then
    whole groups; when they do not fit, a page of them and how to see the others. Pages hold
    the choices in number order: each page is laid out by itself (its columns read down,
    then across); a choice with a number of its own ("0) end the turn") ends every page."""
    items = numbered(choices)
    number_w = max((len(str(n)) for n, _ in items), default=1) + 1
    # "0) end the turn" closes every page.
    pinned = _rows([item for item in items if item[0] == END_NUMBER], width, number_w)
    units = _units([item for item in items if item[0] != END_NUMBER])
    said = wrap_line([("class:status-ok", notice)], width) if notice else []
    body_room = max(1, room - 1 - len(said) - len(pinned))

    def layout(count: int, start: int) -> list[Line]:
        return _rows([item for unit in units[start:start + count] for item in unit],
                     width, number_w)

    # A group taller than a page: in parts, each under the group's title.
    units = [part for unit in units for part in _parts(unit, width, number_w, body_room)]

    pages: list[list[Line]] = []
    start = 0
    while start < len(units):
        # The most units that fit (a page's height grows with every unit it holds).
        low, high = 1, len(units) - start
        while low < high:
            mid = (low + high + 1) // 2
            if len(layout(mid, start)) <= body_room:
                low = mid
            else:
                high = mid - 1
        laid = layout(low, start)
        pages += [laid[k:k + body_room] for k in range(0, len(laid), body_room)]
        start += low
    pages = pages or [[]]
    page = max(0, min(page, len(pages) - 1))
    title = head
    if len(pages) > 1:
        t = current()
        more = "  " + t._("page {page} of {pages}").format(page=page + 1, pages=len(pages))
        keys = " · " + t._("PgDn/PgUp: more choices")
        title += more + keys if get_cwidth(head + more + keys) <= width else more
    lines: list[Line] = [*wrap_line([("class:title", title)], width), *said, *pages[page],
                         *pinned]
    return Panel(lines, page, len(pages))
