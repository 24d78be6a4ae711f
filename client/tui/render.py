"""The terminal client's screen regions, as prompt_toolkit formatted text.

Each function reads a view (``PlayerView`` or a ``StateView`` built from network state) and
returns a list of ``(style, text)`` fragments, lines separated by ``"\\n"``, no line wider
than the ``width`` it is given. Styles are class names (``class:rare``, ``class:you``...) so
that :func:`make_style` maps them to colours, or to plain attributes when colour is off
(``NO_COLOR``, a dumb terminal). :func:`screen` stacks the regions into a whole screen that
is usable at 80x24 and uses the room it gets beyond that; :func:`to_plain` gives the text
alone.

Nothing here touches a socket or the terminal: the client decides where the text goes.
"""

from __future__ import annotations

import os
import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples, fragment_list_to_text
from prompt_toolkit.formatted_text.utils import split_lines
from prompt_toolkit.styles import Style
from prompt_toolkit.utils import get_cwidth

from mundus_net.client.i18n import N_, Translator, current
from mundus_net.client.tui import advisor
from mundus_net.client.tui.advisor import View
from mundus_net.client.tui.helptext import RoundReport, rules_text
from mundus_net.client.tui.sentences import (
    EVENT_EFFECTS,
    PHASE_WORDS,
    POWER_NAMES,
    REASONS,
    card_name,
    cards_text,
    dev_name,
    development_effect,
    seat_name,
    words,
)
from mundus_net.engine.cards import CLASS_OF, RELIC, RESOURCE_NAMES
from mundus_net.engine.decisions import Decision, PickCards, SplitFleet, Take
from mundus_net.engine.deck import EVENT_NAMES
from mundus_net.engine.view import StateView

__all__ = [
    "CLASS_STYLES", "COMMAND_COLUMN", "MOVES_SHOWN", "SMALLEST", "STEPS", "STYLE_RULES",
    "Fragment", "Line", "card_style", "choices_text", "cut", "dev_parts", "dev_summary",
    "event_name", "fit", "fit_pieces", "fleet_cell", "fleet_text", "flow", "hand", "header",
    "line_width", "lines_of", "ljust_cells", "lobby", "log", "make_style", "market", "offer_cells",
    "options_text", "parts_in", "place_text", "players", "prompt", "queue", "queue_compact",
    "result_text", "rjust_cells", "round_end", "rows_besides_log", "screen", "seated_text",
    "short_names", "split_rows", "standings", "stored", "to_plain", "too_small", "use_color",
    "waiting_seats", "waiting_text", "wrap", "wrap_line", "wrap_text"
]

Fragment = tuple[str, str]
Line = list[Fragment]

CLASS_STYLES = {1: "class:common", 2: "class:uncommon", 3: "class:rare"}

# Class name -> (colour style, style without colour). The plain column keeps what still
# reads on a monochrome terminal: bold, reverse, underline.
STYLE_RULES: dict[str, tuple[str, str]] = {
    "title": ("bold", "bold"),
    "round": ("bold", "bold"),
    "step": ("ansicyan", ""),
    "event": ("bold ansiyellow", "bold"),
    "dim": ("ansibrightblack", ""),
    "you": ("bold ansigreen", "bold"),
    "name": ("", ""),
    "waiting": ("ansibrightblack", ""),
    "turn": ("bold ansigreen", "bold"),
    "tm": ("bold ansiyellow", "bold"),
    "money": ("ansiyellow", ""),
    "away": ("ansired", "underline"),
    "bot": ("ansibrightblack", ""),
    "common": ("ansiwhite", ""),
    "uncommon": ("ansicyan", ""),
    "rare": ("ansimagenta bold", "bold"),
    "relic": ("ansiyellow bold", "bold underline"),
    "reach": ("bold ansigreen", "bold"),
    "icon": ("ansiyellow", ""),
    "prompt": ("bold reverse", "bold reverse"),
    "choice": ("", ""),
    "rule": ("ansibrightblack", ""),
    "log": ("", ""),
    "chat": ("ansicyan", ""),
    "warning": ("bold ansired", "bold"),
    "winner": ("bold ansiyellow", "bold reverse"),
}


def use_color(environ: Mapping[str, str] | None = None) -> bool:
    """False when NO_COLOR is set (https://no-color.org) or the terminal is dumb."""
    env = os.environ if environ is None else environ
    return not env.get("NO_COLOR") and env.get("TERM", "") != "dumb"


def make_style(color: bool | None = None,
               extra: Mapping[str, tuple[str, str]] | None = None) -> Style:
    """The Style for these class names and a screen's ``extra`` ones (name -> (with colour,
    without)); ``color=None`` asks the environment."""
    colored = use_color() if color is None else color
    rules = {**STYLE_RULES, **(extra or {})}
    return Style([(name, pair[0] if colored else pair[1]) for name, pair in rules.items()])


# -- fragments and lines ------------------------------------------------------------------------


def to_plain(formatted: StyleAndTextTuples) -> str:
    """The text alone, styles dropped."""
    return fragment_list_to_text(formatted)


def lines_of(formatted: StyleAndTextTuples) -> list[str]:
    """The plain text lines of a region."""
    return to_plain(formatted).split("\n") if formatted else []


def line_width(line: Iterable[Fragment]) -> int:
    return sum(get_cwidth(text) for _, text in line)


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, ending in "…" if it had to be cut."""
    if get_cwidth(text) <= width:
        return text
    if width <= 0:
        return ""
    out, used = [], 0
    for ch in text:
        w = get_cwidth(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"


def _break_word(word: str, room: int) -> tuple[str, str]:
    """A word wider than a whole line: as much as fits in ``room`` cells, and the rest."""
    used = 0
    for i, ch in enumerate(word):
        used += get_cwidth(ch)
        if used > room:
            return word[:max(i, 1)], word[max(i, 1):]
    return word, ""


def wrap_line(line: Sequence[Fragment], width: int, indent: int = 2) -> list[Line]:
    """A styled line in lines of at most ``width`` cells (measured in cells, not
    characters), broken between words (a word may span fragments: "1-3" and ":" stay
    together); the lines after the first start with ``indent`` spaces. Only a word wider
    than a whole line is broken inside."""
    pad = " " * min(indent, max(width - 1, 0))
    # Words (runs of fragments without blanks) and the blanks between them.
    words: list[tuple[bool, Line]] = []
    for style, text in line:
        for piece in re.findall(r"\s+|\S+", text):
            blank = piece.isspace()
            if words and not blank and not words[-1][0]:
                words[-1][1].append((style, piece))
            else:
                words.append((blank, [(style, piece)]))
    out: list[Line] = [[]]
    used = start = 0  # cells used on the last line; of them, its indent

    def new_line() -> None:
        nonlocal used, start
        while out[-1] and out[-1][-1][1].isspace():  # no blanks at a line's end
            out[-1].pop()
        out.append([("", pad)] if pad else [])
        used = start = len(pad)

    for blank, word in words:
        w = line_width(word)
        if blank:  # kept, but not at the start of a continued line
            if (used > start or len(out) == 1) and used + w <= width:
                out[-1] += word
                used += w
            continue
        if used + w > width and used > start:
            new_line()
        for style, piece in word:
            pw = get_cwidth(piece)
            while used + pw > width and piece:  # wider than a whole line: broken inside
                head, piece = _break_word(piece, max(width - used, 1))
                out[-1].append((style, head))
                new_line()
                pw = get_cwidth(piece)
            if piece:
                out[-1].append((style, piece))
                used += pw
    return out


def wrap(text: str, width: int, indent: int = 0) -> list[str]:
    """Plain ``text`` wrapped like :func:`wrap_line`."""
    return ["".join(t for _, t in line) for line in wrap_line([("", text)], width, indent)]


def wrap_text(text: str, width: int) -> list[str]:
    """``textwrap.wrap`` for text of narrow characters (as it always wrapped English);
    :func:`wrap`, which measures cells, for text with wide ones (Korean)."""
    if get_cwidth(text) == len(text):
        return textwrap.wrap(text, width)
    return [line.rstrip() for line in wrap(text, width) if line.strip()]


def fit_pieces(pieces: Sequence[str], width: int, keep: int = 1, sep: str = " · ") -> list[str]:
    """Pieces of a status joined by ``sep``: the first ``keep`` always, wrapped at their
    words if they must be; then each other piece that still fits on the last line, whole
    (a piece that does not fit is left out, never cut)."""
    lines = wrap(sep.join(pieces[:keep]), width, indent=2) if keep else [""]
    for piece in pieces[keep:]:
        joined = f"{lines[-1]}{sep}{piece}" if lines[-1].strip() else piece
        if get_cwidth(joined) <= width:
            lines[-1] = joined
    return lines


def fit(line: Line, width: int) -> Line:
    """The line cut to ``width`` cells (the last visible cell becomes "…" if cut)."""
    if line_width(line) <= width:
        return line
    out: Line = []
    used = 0
    for style, text in line:
        w = get_cwidth(text)
        if used + w <= width - 1:
            out.append((style, text))
            used += w
            continue
        out.append((style, cut(text + "…", width - used)))
        break
    return out


def _pad(line: Line, width: int) -> Line:
    line = fit(line, width)
    gap = width - line_width(line)
    return [*line, ("", " " * gap)] if gap > 0 else line


def _join(lines: Sequence[Line], width: int) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(fit(line, width))
    return out


def split_rows(formatted: StyleAndTextTuples) -> list[Line]:
    if not formatted:
        return []
    return [[(f[0], f[1]) for f in line] for line in split_lines(formatted)]


def flow(tokens: Sequence[Line], width: int, first: Line, indent: int = 2,
         sep: str = "  ") -> list[Line]:
    """Tokens laid out after ``first``, wrapping to new lines indented by ``indent``."""
    lines: list[Line] = [list(first)]
    for token in tokens:
        line = lines[-1]
        gap = sep if line_width(line) > indent and line != [("", " " * indent)] else ""
        used = line_width(line)
        if used + get_cwidth(gap) + line_width(token) > width and used > indent:
            lines.append([("", " " * indent)])
            line = lines[-1]
            gap = ""
        line.extend([("", gap), *token] if gap else token)
    return lines


def _side_by_side(left: Sequence[Line], right: Sequence[Line], left_width: int,
                  width: int, gap: int = 2) -> list[Line]:
    rows = max(len(left), len(right))
    out: list[Line] = []
    for i in range(rows):
        a = _pad(list(left[i]) if i < len(left) else [], left_width)
        b = fit(list(right[i]) if i < len(right) else [], width - left_width - gap)
        out.append([*a, ("", " " * gap), *b])
    return out


def ljust_cells(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` cells (str.ljust counts characters: a
    Korean syllable takes two cells)."""
    return text + " " * max(width - get_cwidth(text), 0)


def rjust_cells(text: str, width: int) -> str:
    """``text`` after spaces up to ``width`` cells."""
    return " " * max(width - get_cwidth(text), 0) + text


def event_name(event: str, t: Translator | None = None) -> str:
    """An event's name from its icon code, in the reader's language (an unknown code as
    it is)."""
    return (t or current()).event(event) if event in EVENT_NAMES else event


def card_style(card: int) -> str:
    return "class:relic" if card == RELIC else CLASS_STYLES.get(CLASS_OF[card], "")


def _cards(cards: Iterable[int], compact: bool = False, empty: str = "-") -> Line:
    """Cards coloured by class, by name (or by digit when ``compact``)."""
    out: Line = []
    for i, card in enumerate(sorted(cards)):
        if i:
            out.append(("", " " if compact else ", "))
        text = ("R" if card == RELIC else str(card)) if compact else card_name(card)
        out.append((card_style(card), text))
    return out or [("class:dim", empty)]


_SHORT_NAMES: dict[str, dict[int, str]] = {}


def short_names(t: Translator | None = None) -> dict[int, str]:
    """Every card's name in as few first letters as tell the cards apart in the reader's
    language, three at least (``coc`` cocoa, ``cof`` coffee, ``cor`` corn, ``cot`` cotton...
    in English), or one syllable of a wide script (Korean): the players table's "On table"
    column when the names do not fit (docs/client.md)."""
    t = t or current()
    known = _SHORT_NAMES.get(t.language)
    if known is None:
        names = {card: card_name(card, t) for card in sorted(RESOURCE_NAMES)}
        longest = max(len(name) for name in names.values())
        wide = any(get_cwidth(name) > len(name) for name in names.values())
        for letters in range(1 if wide else 3, longest + 1):
            known = {card: name[:letters].rstrip() for card, name in names.items()}
            if len(set(known.values())) == len(known):
                break
        assert known is not None
        _SHORT_NAMES[t.language] = known
    return known


def offer_cells(offers: Sequence[Sequence[int]], width: int) -> list[Line]:
    """The cards of the offers lying face up, in words, each in ``width`` cells, all in
    the same way: their names (``cocoa, cocoa, corn``), else the names counted (``cocoa ×2,
    corn``), else the short names (:func:`short_names`: ``coc coc cor``), else those counted
    (``coc×2 cor``), the first way every offer fits in; cut only when none does."""
    short = short_names()
    ways: list[list[Line]] = []
    for cards in offers:
        counted = sorted({card: list(cards).count(card) for card in cards}.items())
        ways.append([
            _cards(cards),
            _joined([(card_style(card), card_name(card) + (f" ×{n}" if n > 1 else ""))
                     for card, n in counted], ", "),
            _joined([(card_style(card), short[card]) for card in sorted(cards)], " "),
            _joined([(card_style(card), short[card] + (f"×{n}" if n > 1 else ""))
                     for card, n in counted], " ")])
    way = next((k for k in range(4) if all(line_width(each[k]) <= width for each in ways)), 3)
    return [fit(each[way], width) for each in ways]


def _joined(pieces: Sequence[Fragment], sep: str) -> Line:
    out: Line = []
    for piece in pieces:
        out += [("", sep), piece] if out else [piece]
    return out


def _who_short(names: Sequence[str], seat: int, me: int | None) -> str:
    return current()._("you") if seat == me else seat_name(names, seat)


def _names(view: View, names: Sequence[str]) -> list[str]:
    return [seat_name(names, s) for s in range(view.players)]


def _who(view: View, names: Sequence[str], seat: int) -> str:
    return _who_short(names, seat, view.seat)


# -- header -------------------------------------------------------------------------------------

STEPS = {
    "coronado": N_("Event step"),
    "split": N_("Supply step"),
    "pick": N_("Supply step: caravel picks"),
    "sergio": N_("Supply step"),
    "pirates": N_("Supply step: pirates"),
    "announce": N_("Trade step"),
    "offer": N_("Trade step: offers"),
    "commit": N_("Trade step: offers"),
    "reveal": N_("Trade step: offers"),
    "tm_tie": N_("Trade step"),
    "take": N_("Trade step: taking cards"),
    "gift": N_("Trade step: balance"),
    "first": N_("Progression step"),
    "turn": N_("Progression step"),
    "store": N_("End of the round: storage"),
    "over": N_("Game over"),
}


def waiting_text(view: View, names: Sequence[str]) -> tuple[str, bool]:
    """Who the game waits for, in words, and whether it is this view's seat."""
    t = current()
    if isinstance(view, StateView):  # a network table whose game has not started yet
        table = view.to_dict().get("table")
        if isinstance(table, Mapping) and table.get("started") is False:
            seats = table.get("names")
            taken = [str(n) for n in seats] if isinstance(seats, list) else list(names)
            return t._("the game has not started: {seated}").format(
                seated=seated_text(taken, view.players or len(taken))), False
    pending = view.pending
    if pending is None:
        return (t._("the game is over") if view.result is not None else t._("waiting")), False
    what = words(PHASE_WORDS.get(pending.kind, pending.kind), t)
    seats = [int(s) for s in pending.seats]
    if view.seat is not None and view.seat in seats:
        others = len(seats) - 1
        if others:
            return t.ngettext("your move: {what} (and {count} other)",
                              "your move: {what} (and {count} others)",
                              others).format(what=what, count=others), True
        return t._("your move: {what}").format(what=what), True
    if pending.kind == "turn" and seats:
        return t._("{seat}'s turn").format(seat=seat_name(names, seats[0])), False
    if not seats:  # every answer is in: the host is moving on
        return t._("every answer is in: {what}").format(what=what), False
    who = t._(", ").join(seat_name(names, s) for s in seats)
    return t._("waiting for {seats}: {what}").format(seats=who, what=what), False


def header(view: View, names: Sequence[str], width: int) -> StyleAndTextTuples:
    """Two lines: round, step and whose move it is; the round's event and its effect."""
    t = current()
    pending = view.pending
    phase = pending.kind if pending is not None else view.phase
    who, mine = waiting_text(view, names)
    step = words(STEPS.get(phase, phase or ""), t)
    first: Line = [("class:round", t._("Round {number}").format(number=view.round)),
                   ("class:dim", " · "),
                   ("class:step", step), ("class:dim", " · "),
                   ("class:you" if mine else "class:waiting", who)]
    tm = seat_name(names, view.trade_master)
    # TRANSLATORS: TM is the Trade Master, in a few letters (the header's corner).
    tm_text = t._("TM: {seat}").format(seat=tm) if view.trade_master != view.seat \
        else t._("TM: you")
    if line_width(first) + 2 + get_cwidth(tm_text) <= width:
        gap = width - line_width(first) - get_cwidth(tm_text)
        first += [("", " " * gap), ("class:tm", tm_text)]
    event = view.event
    if event is None:
        second: Line = [("class:dim", t._("No event this round") if view.round >= 2
                         else t._("No event in round 1 (R3.1)"))]
    else:
        second = [("class:event", event_name(event, t)),
                  ("", f" — {words(EVENT_EFFECTS.get(event, ''), t)}")]
        if view.seat is not None and not advisor.affected(view, view.seat):
            second.append(("class:dim", t._(" (not you: {character})").format(
                character=t.pgettext("card", "Juan de la Cosa"))))
    lines = [*wrap_line(first, width), *wrap_line(second, width)]
    if view.announced and phase in ("offer", "commit", "reveal", "tm_tie", "take", "gift"):
        offers: Line = [("", t._("offers of {count}").format(count=view.announced))]
        # (on a line of its own if need be)
        if line_width(lines[-1]) + 3 + line_width(offers) <= width:
            lines[-1] = [*lines[-1], ("class:dim", " · "), *offers]
        else:
            lines.append([("", "  "), *offers])
    return _join(lines, width)


# -- queue, market ------------------------------------------------------------------------------


def queue(view: View, width: int) -> StyleAndTextTuples:
    """The 5 queue cards: position, name, effect, event icon; ``*`` on those the seat's best
    identical set reaches now (R6.3)."""
    t = current()
    reach = advisor.best_reach(view)
    deck = view.deck
    ids = list(view.queue)
    wide = width >= 100
    name_w = max((get_cwidth(dev_name(c, deck)) for c in ids), default=4)
    icon_w = 19 if wide else 4
    # The default deck's longest English name (26) beside its longest effect; a longer name
    # (another language's) takes room from the effects rather than being cut.
    name_w = min(name_w, max(26, width - 2 - 1 - 2 - icon_w - 1 - 30))
    lines: list[Line] = []
    for pos in range(1, 6):
        mark = ("class:reach", "*") if pos <= reach and pos <= len(ids) else ("", " ")
        if pos > len(ids):
            lines.append([mark, ("class:dim", t._("{position} (empty: the pile ran out)")
                                 .format(position=pos))])
            continue
        card = deck.by_id.get(ids[pos - 1])
        name = dev_name(ids[pos - 1], deck)
        icon: Line = []
        if card is not None and card.icon:
            label = event_name(card.icon, t) if wide else card.icon
            icon = [("class:icon", f"[{label}]")]
        effect = development_effect(card) if card is not None else ""
        # 44 cells hold English's longest effect; another language's longer one takes the
        # room there is, and wraps below itself when even that is too little.
        room = width - 2 - 1 - name_w - 2 - icon_w - 1
        effect_w = min(room, max(44, get_cwidth(effect)))
        longer = get_cwidth(effect) > 44 or name_w > 26  # than English's (kept as it was)
        parts = wrap_text(effect, effect_w) if longer and 10 <= effect_w < get_cwidth(effect) \
            else [effect]
        line: Line = [mark, ("class:title", f"{pos} "), *_pad([("", name)], name_w),
                      ("", "  "), *_pad([("class:dim", parts[0])], max(effect_w, 0)),
                      ("", " "), *icon]
        lines.append(line)
        lines += [[("", " " * (3 + name_w + 2)), ("class:dim", part)] for part in parts[1:]]
    return _join(lines, width)


def queue_compact(view: View, width: int) -> StyleAndTextTuples:
    """The queue in as few lines as the names need (a tight screen): ``1 Caravel 8 [ST] · 2
    ...``, with ``*`` on the cards the seat's best set reaches and each card's event icon in
    brackets, as the wider queue shows it."""
    t = current()
    reach = advisor.best_reach(view)
    ids = list(view.queue)
    tokens: list[Line] = []
    for pos, card_id in enumerate(ids, 1):
        mark = ("class:reach", "*") if pos <= reach else ("", "")
        token: Line = [mark, ("class:title", f"{pos} "), ("", dev_name(card_id, view.deck))]
        card = view.deck.by_id.get(card_id)
        if card is not None and card.icon:  # card 1's is next round's event (R3.2, R6.9)
            token.append(("class:icon", f" [{card.icon}]"))
        tokens.append(token)
    if not tokens:
        return _join([[("class:title", t._("Queue: ")), ("class:dim", t._("empty"))]], width)
    first: Line = [("class:title", t._("Queue: ")), *tokens[0]]
    pending = view.pending
    if (pending.kind if pending is not None else view.phase) == "store":
        # Storage is chosen knowing next round's event, card 1's icon (R3.2, R6.9).
        card = view.deck.by_id.get(ids[0])
        icon = card.icon if card is not None else None
        coming = event_name(icon, t) if icon else t._("no event")
        first = [("class:title", t._("Queue ")),
                 ("class:icon", t._("(next round: {event})").format(event=coming)),
                 ("class:title", ": "), *tokens[0]]
    return _join(flow(tokens[1:], width, first, indent=2, sep=" · "), width)


def market(view: View, width: int) -> StyleAndTextTuples:
    """Market, caravel display, and the pile sizes."""
    t = current()
    compact = width < 100
    piles = t._("  draw {draw} · discard {discard} · dev pile {developments}").format(
        draw=view.draw_size, discard=len(view.discard), developments=view.devpile_size)
    # The market by name; by value (its digits, coloured by class) when the names would push
    # the pile sizes off the line (long names: Italian's canna da zucchero, granturco).
    for by_value in (False, True):
        line: Line = [("class:title", t._("Market ")), *_cards(view.market, compact=by_value),
                      ("class:title", t._("  Display ")),
                      *_cards(view.display, compact=compact)]
        if line_width(line) + get_cwidth(piles) <= width:
            line.append(("class:dim", piles))
            break
    return _join([line], width)


# -- players ------------------------------------------------------------------------------------


def fleet_text(view: View, seat: int) -> str:
    """Caravel values and fleet value (R4.5, Pizarro's top caravel at 0; R4.4 split shown)."""
    deck = view.deck
    own = sorted(deck[c].caravel for c in view.developments[seat]
                  if c in deck.by_id and deck[c].kind == "caravel")
    if not own:
        return "-"
    pizarro = advisor.owns(view, seat, "pizarro")
    total = sum(own) - (own[-1] if pizarro else 0)
    parts = [str(v) for v in own]
    if pizarro:
        parts[-1] = f"({parts[-1]})"
    fleets = [tuple(f) for s, f in view.fleets if s == seat]
    if len(fleets) == 2:
        split = "|".join("+".join(str(deck[c].caravel) for c in f) for f in fleets)
        return f"{split}={total}"
    return f"{'+'.join(parts)}={total}" if len(own) > 1 else f"{parts[0]}"


def fleet_cell(view: View, seat: int, width: int) -> str:
    """:func:`fleet_text`, or when it is wider than the players table's column, the fleet's
    value and its number of caravels, ``20 (4)`` (F3 lists the caravels)."""
    text = fleet_text(view, seat)
    if get_cwidth(text) <= width:
        return text
    caravels = sum(1 for c in view.developments[seat]
                   if c in view.deck.by_id and view.deck[c].kind == "caravel")
    return f"{text.rsplit('=', 1)[-1]} ({caravels})"


def dev_summary(view: View, seat: int, wide: bool = False) -> str:
    """Merchants, warehouse capacity, shipyards, characters and income, in a few words."""
    return " · ".join(text for text, _ in dev_parts(view, seat, wide)) or "-"


def dev_parts(view: View, seat: int, wide: bool = False) -> list[tuple[str, int]]:
    """The parts of :func:`dev_summary`, each with the number of developments it stands for
    (``merch c,u``: 2; the income: none). Caravels are the fleet's column."""
    t = current()
    deck = view.deck
    merchants: list[str] = []
    capacity = warehouses = shipyards = income = 0
    people: list[str] = []
    for card_id in view.developments[seat]:
        card = deck.by_id.get(card_id)
        if card is None:
            people.append(card_id)
            continue
        income += card.income
        if card.kind == "merchant":
            word = {1: t._("common"), 2: t._("uncommon"), 3: t._("rare")}[card.merchant_class]
            # TRANSLATORS: the merchants' classes in one letter each (the players table).
            short = {1: t._("c"), 2: t._("u"), 3: t._("r")}[card.merchant_class]
            merchants.append(word if wide else short)
        elif card.kind == "warehouse":
            capacity += card.capacity
            warehouses += 1
        elif card.kind == "shipyard":
            shipyards += 1
        elif card.kind != "caravel":
            people.append(words(POWER_NAMES[card.power], t) if card.power in POWER_NAMES
                          else t.card(card))
    parts: list[tuple[str, int]] = []
    if merchants:
        kinds = ",".join(sorted(merchants))
        parts.append((t._("merchants {kinds}").format(kinds=kinds) if wide
                      # TRANSLATORS: merchants, in short (the players table at 80 columns).
                      else t._("merch {kinds}").format(kinds=kinds), len(merchants)))
    if capacity:
        parts.append((t._("warehouses {capacity}").format(capacity=capacity) if wide
                      # TRANSLATORS: warehouse room, in short (the players table).
                      else t._("store {capacity}").format(capacity=capacity), warehouses))
    if shipyards:
        parts.append((t._("shipyards {count}").format(count=shipyards) if wide
                      # TRANSLATORS: shipyards, in short (the players table).
                      else t._("yard {count}").format(count=shipyards), shipyards))
    parts += [(person, 1) for person in people]
    if income:
        parts.append((t._("+{income}/round").format(income=income), 0))
    return parts


def parts_in(parts: Sequence[tuple[str, int]], width: int, sep: str = " · ") -> str:
    """As many whole parts (:func:`dev_parts`) as fit in ``width`` cells, then "and N more"
    for the developments the others stand for ("N more (F3)" when none fits; F3 lists them
    all): never a part cut inside. Left out with no development behind it (the income
    alone), the text ends in " (F3)"."""
    t = current()
    for shown in range(len(parts), -1, -1):
        hidden = parts[shown:]
        rest = sum(count for _, count in hidden)
        text = sep.join(part for part, _ in parts[:shown])
        if rest:
            text += t._(" and {count} more").format(count=rest) if shown \
                else t._("{count} more (F3)").format(count=rest)
        elif hidden:
            text = f"{text} (F3)" if text else "(F3)"
        if get_cwidth(text) <= width:
            return text or "-"
        if shown == 0:  # not even that: the count alone
            return f"+{rest}" if rest else "-"
    return "-"


def waiting_seats(view: View) -> set[int]:
    """Every seat the table waits for. A network client's view carries its own pending
    decision, so the public state's list (the other seats of an offer step) is added."""
    pending = view.pending
    seats = {int(s) for s in pending.seats} if pending is not None else set()
    if isinstance(view, StateView):
        raw = view.to_dict().get("pending")
        if isinstance(raw, Mapping):
            seats |= {int(s) for s in raw.get("seats") or ()}
    return seats


def players(view: View, names: Sequence[str], width: int,
            connected: Sequence[bool] | None = None,
            bots: Sequence[bool] | None = None) -> StyleAndTextTuples:
    """One row per seat: whose move (>), name, TM, doubloons, hand, stored, fleet, the offer on
    the table in the trade step, developments; away seats marked."""
    t = current()
    wide = width >= 110
    waiting = waiting_seats(view)
    labels = _names(view, names)
    away_w = max(7, get_cwidth(t._(" (away)")))  # room for the tag after a name
    name_w = min(max([get_cwidth(n) for n in labels] + [6]) + (away_w if connected else 0),
                 22 if wide else 18)
    name_w = max(name_w, get_cwidth(t._("Player")))  # a longer title than English's
    faceup = list(view.faceup)
    offered = set(view.offered)
    trading = any(faceup) or bool(offered)
    table_w = (24 if wide else 18) if trading else 0
    # The columns: at least as wide as their English titles, wider for a longer title.
    # TRANSLATORS: the players table's column titles, kept short (80 columns hold them all).
    tm_head, money_head, hand_head, stored_head = (
        t._("TM"), t._("$"), t._("Hand"), t._("Sto"))
    tm_w = max(4, get_cwidth(tm_head) + 2)
    money_w = max(5, get_cwidth(money_head) + 1)
    hand_w = max(5, get_cwidth(hand_head) + 1)
    stored_w = max(4, get_cwidth(stored_head) + 1)
    fleet_w = max(9, get_cwidth(t._("Fleet")))
    if trading:
        table_w = max(table_w, get_cwidth(t._("On table")))
    head: Line = [("class:title", "  " + ljust_cells(t._("Player"), name_w)
                   + rjust_cells(tm_head, tm_w) + rjust_cells(money_head, money_w)
                   + rjust_cells(hand_head, hand_w) + rjust_cells(stored_head, stored_w) + " "
                   + ljust_cells(t._("Fleet"), fleet_w))]
    if trading:
        head.append(("class:title", " " + ljust_cells(t._("On table"), table_w)))
    head.append(("class:title", " " + t._("Developments")))
    lines: list[Line] = [head]
    # The offers in words, a blank at least before the next column.
    cells = offer_cells([faceup[s] if s < len(faceup) else () for s in range(view.players)],
                        table_w - 1) if trading else []
    for seat in range(view.players):
        mine = seat == view.seat
        away = connected is not None and seat < len(connected) and not connected[seat]
        name_style = "class:you" if mine else ("class:away" if away else "class:name")
        tag = t._(" (away)") if away else (t._(" [bot]") if bots is not None
                                            and seat < len(bots) and bots[seat] else "")
        name = cut(labels[seat], name_w - get_cwidth(tag)) + tag if tag else labels[seat]
        row: Line = [("class:turn", "> " if seat in waiting else "  "),
                     *_pad([(name_style, name)], name_w),
                     ("class:tm", rjust_cells(tm_head, tm_w) if seat == view.trade_master
                      else " " * tm_w),
                     ("class:money", str(view.doubloons[seat]).rjust(money_w)),
                     ("", str(view.hand_sizes[seat]).rjust(hand_w)
                      + str(view.stored_sizes[seat]).rjust(stored_w) + " "),
                     *_pad([("", fleet_cell(view, seat, fleet_w))], fleet_w)]
        if trading:
            cards = faceup[seat] if seat < len(faceup) else ()
            cell: Line = [("class:dim", t._("sealed") if seat in offered else "")]
            if cards:
                cell = cells[seat]
            row += [("", " "), *_pad(cell, table_w)]
        devs = parts_in(dev_parts(view, seat, wide), width - line_width(row) - 1)
        row += [("", " "), ("class:dim" if away else "", devs)]
        lines.append(row)
    return _join(lines, width)


def round_end(report: RoundReport, names: Sequence[str], width: int,
              me: int | None = None) -> StyleAndTextTuples:
    """The round that just ended, one row per seat (more only where a row must wrap: what the
    doubloons came from goes on a row of its own rather than be left out): doubloons gained
    and from what, doubloons now, the developments taken; the round's event and Trade Master
    in the title."""
    t = current()
    event = event_name(report.event, t) if report.event else t._("no event")
    title: Line = [("class:title", t._("Round {number} is over").format(number=report.round)
                    if report.round else t._("The round is over")),
                   ("class:dim", f" · {event}")]
    if report.tm is not None:
        title.append(("class:dim", " · " + t._("TM {seat}").format(
            seat=_who_short(names, report.tm, me))))
    hint = " · " + t._("F3 shows it again")
    if line_width(title) + get_cwidth(hint) <= width:
        title.append(("class:dim", hint))
    labels = [_who_short(names, row.seat, me) for row in report.seats]
    name_w = min(max([get_cwidth(label) for label in labels] + [3]), 18)
    lines: list[Line] = [title]
    for row, label in zip(report.seats, labels, strict=True):
        now = "  " + t._("now {doubloons}").format(doubloons=f"{row.now:>3}") \
            if row.now is not None else ""
        first: Line = [("", "  "), *_pad([("class:you" if row.seat == me else "class:name",
                                           cut(label, name_w))], name_w),
                       ("class:money", f"{row.gained:>+4d}" if row.gained else "   0"),
                       ("", now)]
        took = t._("took {developments}").format(developments=t._(", ").join(row.took)) \
            if row.took else ""
        rest = "; ".join(filter(None, (took, *row.notes)))
        indent = line_width(first) + 2
        room = max(width - indent, 20)
        parts = wrap_text(rest, room) if rest else []
        if row.sources:  # after the rest when they fit there, else on rows of their own
            sources = f"({row.sources})"
            if parts and get_cwidth(parts[-1]) + 2 + get_cwidth(sources) <= room:
                parts[-1] = f"{parts[-1]}  {sources}"
            else:
                parts += wrap_text(sources, room)
        if not parts:
            lines.append(first)
            continue
        lines.append([*first, ("", "  "), ("", parts[0])])
        lines += [[("", " " * indent), ("", part)] for part in parts[1:]]
    return _join(lines, width)


# -- your cards ---------------------------------------------------------------------------------


def hand(view: View, width: int) -> StyleAndTextTuples:
    """Your hand grouped by value, coloured by class, relics apart; wraps if it must."""
    t = current()
    if view.seat is None:
        return _join([[("class:dim", t._("Spectating: no hand"))]], width)
    cards = list(view.hand or ())  # (None for a moment: the table started, the hand not in)
    tokens: list[Line] = []
    for value in range(1, 10):
        count = cards.count(value)
        if count:
            text = f"{value} {card_name(value)}" + (f" ×{count}" if count > 1 else "")
            tokens.append([(card_style(value), text)])
    relics = cards.count(RELIC)
    if relics:
        tokens.append([("class:dim", "|")])
        tokens.append([("class:relic", t.resource(RELIC)
                        + (f" ×{relics}" if relics > 1 else ""))])
    if advisor.in_turn(view) and view.converted:
        turned = t._(", ").join(f"{card_name(a)}→{card_name(b)}" for a, b in view.converted)
        tokens.append([("class:dim", t._("(converted: {cards})").format(cards=turned))])
    if not cards:
        tokens.append([("class:dim", t._("empty"))])
    first: Line = [("class:title", t._("Hand {count}:").format(count=len(cards)))]
    lines = flow(tokens, width, first)
    offer = view.my_offer
    if offer:
        lines.append([("class:title", t._("Your offer: ")), *_cards(offer)])
    return _join(lines, width)


def stored(view: View, width: int, brief: bool = False) -> StyleAndTextTuples:
    """Your stored cards and warehouse room; nothing when you have neither (``brief``: when
    nothing is stored)."""
    if view.seat is None:
        return []
    cards = list(view.stored or ())
    capacity = sum(view.deck[c].capacity for c in view.developments[view.seat]
                   if c in view.deck.by_id)
    if not cards and (brief or not capacity):
        return []
    t = current()
    line: Line = [("class:title", t._("Stored: ")), *_cards(cards, empty=t._("nothing")),
                  ("class:dim", t._("  (warehouses hold {capacity})").format(capacity=capacity))]
    return _join([line], width)


# -- the pending decision -----------------------------------------------------------------------


def _legal(view: View, legal: Sequence[Decision] | None) -> list[Decision]:
    return list(view.legal if legal is None else legal)


def _fleet_values(view: View, ids: Iterable[str]) -> str:
    deck = view.deck
    return "+".join(str(deck[c].caravel) if c in deck.by_id else c for c in ids) or "-"


def choices_text(view: View, names: Sequence[str],
                 legal: Sequence[Decision] | None = None) -> str:
    """The legal choices of the pending decision, summarised in words."""
    t = current()
    pending = view.pending
    if pending is None:
        return result_text(view, names)
    kind = pending.kind
    detail: Mapping[str, Any] = pending.detail or {}
    options = _legal(view, legal)
    me = view.seat
    if kind == "coronado":
        return t._("Pass, or pay 2 doubloons to impose: {events}").format(
            events=t._(", ").join(t.event(code) for code in EVENT_NAMES))
    if kind == "split":
        own = [c for c in view.developments[me or 0] if view.deck.by_id.get(c) is not None
               and view.deck[c].kind == "caravel"] if me is not None else []
        splits = []
        for d in options:
            if isinstance(d, SplitFleet):
                second = list(d.fleet)
                if not second:
                    splits.append(t._("one fleet ({caravels})").format(
                        caravels=_fleet_values(view, own)))
                else:
                    rest = [c for c in own if c not in second]
                    splits.append(f"{_fleet_values(view, rest)} | "
                                  f"{_fleet_values(view, second)}")
        return t._("Fleets: {choices}").format(choices=" · ".join(splits))
    if kind == "pick":
        count = detail.get("count", 1)
        fleet = _fleet_values(view, detail.get("fleet") or ())
        picks = {d.cards for d in options if isinstance(d, PickCards)}
        return t.ngettext("Pick {count} card for the fleet {fleet} from the display "
                          "({cards}); {choices}",
                          "Pick {count} cards for the fleet {fleet} from the display "
                          "({cards}); {choices}", int(count)).format(
            count=count, fleet=fleet, cards=cards_text(view.display),
            choices=t.ngettext("{count} choice", "{count} choices", len(picks)).format(
                count=len(picks)))
    if kind == "sergio":
        return t._("Pass, or pay 2 doubloons for one market card: {cards}").format(
            cards=cards_text(set(view.market)))
    if kind == "pirates":
        counts = {int(k): v for k, v in dict(detail.get("counts") or {}).items()}
        due = counts.get(me, 1) if me is not None else 1
        return t.ngettext("Discard {count} card of your choice to the pirates",
                          "Discard {count} cards of your choice to the pirates",
                          int(due)).format(count=due)
    if kind == "announce":
        return t._("Announce 2, 3 or 4: how many cards everyone offers")
    if kind in ("offer", "commit"):
        least, most = _offer_range(detail, me)
        if least == most:
            return t.ngettext("Choose exactly {count} card of your hand to offer, face down "
                              "(trade value counts)",
                              "Choose exactly {count} cards of your hand to offer, face down "
                              "(trade value counts)", most).format(count=most)
        return t.ngettext("Choose {least} to {count} card of your hand to offer, face down "
                          "(trade value counts)",
                          "Choose {least} to {count} cards of your hand to offer, face down "
                          "(trade value counts)", most).format(least=least, count=most)
    if kind == "reveal":
        return t._("Every offer is sealed: your offer is being revealed")
    if kind == "tm_tie":
        cands = [_who(view, names, int(s)) for s in detail.get("candidates") or ()]
        return t._("Tied highest offers: choose the new Trade Master among {seats}").format(
            seats=t._(", ").join(cands))
    if kind == "take":
        return _take_choices(view, names, options)
    if kind == "gift":
        to = detail.get("to")
        if to is not None and int(to) == view.seat:
            return t._("You are one card short: give one card of your hand")
        who = seat_name(names, int(to)) if to is not None else t._("the last taker")
        return t._("{seat} is one card short: give one card of your hand").format(seat=who)
    if kind == "first":
        return t._("Choose who plays first; the others follow in seat order")
    if kind == "turn":
        if me is None or not advisor.in_turn(view):
            return t._("Playing combinations")
        return t._("You can make: {combinations}").format(combinations=advisor.summary(view))
    if kind == "store":
        caps = {int(k): v for k, v in dict(detail.get("capacity") or {}).items()}
        cap = caps.get(me, 0) if me is not None else 0
        return t.ngettext("Store up to {count} card in your warehouses (secret); every "
                          "other card is discarded",
                          "Store up to {count} cards in your warehouses (secret); every "
                          "other card is discarded", int(cap)).format(count=cap)
    return words(PHASE_WORDS.get(kind, kind), t)


def _offer_range(detail: Mapping[str, Any], me: int | None) -> tuple[int, int]:
    if "least" in detail and "most" in detail:
        return int(detail["least"]), int(detail["most"])
    sizes = {int(k): v for k, v in dict(detail.get("sizes") or {}).items()}
    if me is not None and me in sizes:
        least, most = sizes[me]
        return int(least), int(most)
    n = int(detail.get("n") or 0)
    return n, n


def _take_choices(view: View, names: Sequence[str], options: Sequence[Decision]) -> str:
    """One line: the choices themselves are listed, grouped by card, below."""
    t = current()
    swaps = any(isinstance(d, Take) and d.swap is not None for d in options)
    if not swaps:
        return t._("Take another player's face-up card")
    return t._("Take another player's face-up card: keep it, or swap it for a market card")


def result_text(view: View, names: Sequence[str]) -> str:
    t = current()
    result = view.result
    if result is None:
        return t._("Waiting for the game")
    you = t._("you")
    winners = [you if s == view.seat else seat_name(names, s) for s in result.winners]
    money = result.doubloons[result.winners[0]] if result.winners else 0
    over = t.ngettext("Game over after {count} round ({reason})",
                      "Game over after {count} rounds ({reason})", result.rounds).format(
        count=result.rounds, reason=words(REASONS.get(result.reason, result.reason), t))
    if len(winners) > 1:
        who = t._(" and ").join(winners)
        if winners[0] == you:  # names keep their own case
            who = who[:1].upper() + who[1:]
        return t._("{game_over}: {seats} share the victory with {doubloons}").format(
            game_over=over, seats=who, doubloons=t.doubloons(money))
    if winners == [you]:
        return t._("{game_over}: You win with {doubloons}").format(
            game_over=over, doubloons=t.doubloons(money))
    return t._("{game_over}: {seat} wins with {doubloons}").format(
        game_over=over, seat=winners[0] if winners else "", doubloons=t.doubloons(money))


def prompt(view: View, names: Sequence[str], width: int, legal: Sequence[Decision] | None = None,
           rules: str | None = None, brief: bool = False) -> StyleAndTextTuples:
    """The pending decision: a title line (yours, or who the table waits for, with the rules
    that apply) and the legal choices in words, wrapped to at most two more lines (``brief``:
    the title alone, the choices being listed below it)."""
    who, mine = waiting_text(view, names)
    if rules is None and view.pending is not None:
        rules = rules_text(view.pending.kind)
    title: Line = [("class:prompt" if mine else "class:waiting",
                    (who[0].upper() + who[1:]) if who else "")]
    if rules:
        title.append(("class:rule", f"  ({rules})"))
    if view.pending is None:
        over = wrap_line([("class:winner", result_text(view, names))], width)
        return _join([*over, *standings(view, names, width)], width)
    if not mine or brief:
        return _join(wrap_line(title, width), width)
    text = choices_text(view, names, legal)
    body = wrap(text, max(width - 2, 10))
    return _join([*wrap_line(title, width), *[[("", "  "), ("class:choice", b)] for b in body]],
                 width)


def place_text(place: int, places: Sequence[int]) -> str:
    """``2``, or ``1 (tie)`` for a place shared with others (R8.4)."""
    if list(places).count(place) > 1:
        return current()._("{place} (tie)").format(place=place)
    return str(place)


def standings(view: View, names: Sequence[str], width: int) -> list[Line]:
    """The final standings: place (shared places marked), player, doubloons, and the number
    of developments with what they are, as much as fits; nothing before the game is over."""
    t = current()
    result = view.result
    if result is None:
        return []
    seats = sorted(range(len(result.doubloons)), key=lambda s: (result.places[s], s))
    labels = {s: seat_name(names, s) + (t._(" (you)") if s == view.seat else "")
              for s in seats}
    place_head, player_head = t._("Place"), t._("Player")
    money_head = t._("Doubloons")
    name_w = max([get_cwidth(n) for n in labels.values()] + [6, get_cwidth(player_head)])
    place_w = max([get_cwidth(place_text(result.places[s], result.places)) for s in seats]
                  + [5, get_cwidth(place_head)])
    money_w = max(9, get_cwidth(money_head))
    developments_head = t._("Developments")
    head = (f"{ljust_cells(place_head, place_w)}  {ljust_cells(player_head, name_w)}  "
            f"{ljust_cells(money_head, money_w)}  {developments_head}")
    lines: list[Line] = [[("class:title", t._("Final standings"))], [("class:title", head)]]
    for seat in seats:
        devs = list(view.developments[seat]) if seat < len(view.developments) else []
        row: Line = [("", ljust_cells(place_text(result.places[seat], result.places),
                                      place_w)),
                     ("", "  "),
                     ("class:you" if seat == view.seat else "class:name",
                      labels[seat] + " " * (name_w - get_cwidth(labels[seat]))),
                     ("class:money", "  " + str(result.doubloons[seat]).rjust(money_w)),
                     ("", f"  {len(devs)}")]
        what = dev_parts(view, seat, wide=width >= 110)
        room = width - line_width(row) - 2
        if what and room >= 8:
            row += [("", ": "), ("class:dim", parts_in(what, room))]
        lines.append(row)
    return lines


# -- the lobby: before the game starts -------------------------------------------------------------


def seated_text(names: Sequence[str], players: int) -> str:
    """``2 of 4 seated``: how many seats are taken (a taken seat has a name)."""
    return current()._("{seated} of {players} seated").format(
        seated=sum(1 for n in names[:players] if n), players=players)


def options_text(options: Mapping[str, Any] | None, players: int,
                 names: Sequence[str] = ()) -> str:
    """The table's options in words (the welcome's ``options``, docs/protocol.md §4)."""
    t = current()
    opts = options or {}
    parts = [t.ngettext("{count} player", "{count} players", players).format(count=players)]
    if opts.get("rules") is not None:
        parts.append(t._("rules edition {edition}").format(edition=opts["rules"]))
    parts.append(t._("promo cards in play") if opts.get("promo") else t._("no promo cards"))
    limit = opts.get("round_limit")
    parts.append(t.ngettext("at most {count} round", "at most {count} rounds",
                            int(limit)).format(count=limit) if limit
                 else t._("no round limit"))
    seconds = opts.get("decision_seconds")
    parts.append(t._("{seconds} s a decision").format(seconds=f"{seconds:g}")
                 if isinstance(seconds, (int, float)) else t._("no time limit"))
    if "first_tm" in opts:
        first = opts.get("first_tm")
        if isinstance(first, int) and 0 <= first < players:
            who = names[first] if first < len(names) and names[first] \
                else t._("seat {number}").format(number=first)
            parts.append(t._("first Trade Master: {seat}").format(seat=who))
        else:
            parts.append(t._("first Trade Master drawn at random"))
    return " · ".join(parts)


def lobby(table: str, names: Sequence[str], width: int, height: int, *,
          players: int | None = None, me: int | None = None,
          connected: Sequence[bool] | None = None, bots: Sequence[bool] | None = None,
          options: Mapping[str, Any] | None = None, join: str = "", watch: str = "",
          sentences: Sequence[str] = ()) -> StyleAndTextTuples:
    """The waiting screen of a table whose game has not started: its name and options, one
    line per seat (``Ann (you)``, ``greedy bot 0 [bot]``, ``(empty)`` for a free seat,
    ``(away)`` after a taken seat whose player is disconnected), ``2 of 4 seated``, the
    commands that join and watch the table (``join``, ``watch``: whole command lines, shown
    whole, on rows of their own when the label leaves too little room) and that the game
    starts when every seat is taken; the log (joins, chat) gets the rows left over. ``me`` is
    this client's seat (None: a spectator). Fits ``width`` x ``height`` from 80x24 down; what
    matters most stays on a short screen."""
    t = current()
    count = players if players is not None else len(names)
    title: Line = [("class:title", t._("“{table}”").format(table=table) if table
                    else t._("This table")),
                   ("class:dim", " · "), ("class:waiting", t._("waiting for players"))]
    if me is None:
        title.append(("class:dim", " · " + t._("you watch")))
    about = [[("class:dim", line)] for line in
             wrap_text(options_text(options, count, names), max(width, 10))]
    head: Line = [("class:title", t._("Seats")), ("class:dim", " · "),
                  ("class:you", seated_text(names, count))]
    seats: list[Line] = []
    for seat in range(count):
        name = names[seat] if seat < len(names) else ""
        row: Line = [("class:dim", f"  {seat}  ")]
        if not name:
            row.append(("class:dim", t._("(empty)")))
        else:
            away = connected is not None and seat < len(connected) and not connected[seat]
            style = "class:you" if seat == me else ("class:away" if away else "class:name")
            row.append((style, name))
            if seat == me:
                row.append(("class:you", t._(" (you)")))
            if bots is not None and seat < len(bots) and bots[seat]:
                row.append(("class:bot", t._(" [bot]")))
            if away:
                row.append(("class:away", t._(" (away)")))
        seats.append(row)
    free = sum(1 for seat in range(count) if not (seat < len(names) and names[seat]))
    starts: Line = [("", t.ngettext("The game starts when every seat is taken: {count} seat "
                                    "to go.",
                                    "The game starts when every seat is taken: {count} seats "
                                    "to go.", free).format(count=free) if free
                     else t._("The game starts when every seat is taken."))]
    # Each block of lines with its weight: a short screen drops the lightest first (the last
    # of equals), a block whole (a command is never shown in part).
    blank: Line = []
    weighed: list[tuple[int, list[Line]]] = [
        (5, [title]), *[(2, [line]) for line in about], (1, [blank]), (9, [head]),
        *[(8, [line]) for line in seats], (1, [blank]), (6, [starts])]
    if join:
        label = t._("Others join with:") if me is not None else t._("Players join with:")
        weighed.append((4, _command_rows(label, join, "", "class:title", width)))
    if watch:
        weighed.append((3, _command_rows(t._("Watch with:"), watch, "class:dim", "class:dim",
                                         width)))
    while sum(len(block) for _, block in weighed) > max(height, 0):
        lightest = min(w for w, _ in weighed)
        drop = max(i for i, (w, _) in enumerate(weighed) if w == lightest)
        del weighed[drop]
    rows = [line for _, block in weighed for line in block]
    room = height - len(rows) - 2  # a blank line and a title, then the log
    if room >= 1 and sentences:
        news: Line = [("class:rule", "── "), ("class:title", t._("News and chat")),
                      ("class:dim", t._(" (say TEXT to chat)") if me is not None else "")]
        news.append(("class:rule", " " + "─" * max(0, width - line_width(news) - 1)))
        rows += [blank, news]
        rows += split_rows(log(sentences, width, room))
    return _join(rows[:max(height, 0)], width)


COMMAND_COLUMN = 19  # where the lobby's commands start after their labels


def _command_rows(label: str, command: str, label_style: str, style: str,
                  width: int) -> list[Line]:
    """A command to copy, whole: after its label on one row when both fit, else the label
    on a row and the command on the rows below, broken only between words (only a word
    wider than the screen is cut)."""
    column = max(COMMAND_COLUMN, get_cwidth(label) + 1)
    if column + len(command) <= width:
        return [[(label_style, ljust_cells(label, column)), (style, command)]]
    rows: list[Line] = [[(label_style, label)]]
    for part in textwrap.wrap(command, max(width, 10), break_long_words=False,
                              break_on_hyphens=False):
        rows.append([(style, part)])
    return rows


# -- the log and the whole screen ---------------------------------------------------------------


def log(sentences: Sequence[str], width: int, height: int) -> StyleAndTextTuples:
    """The last ``height`` lines of the log, each sentence wrapped to ``width``."""
    if height <= 0:
        return []
    lines: list[Line] = []
    for text in reversed(sentences[-height:]):  # whole sentences, newest last
        style = "class:chat" if text.startswith("<") else "class:log"
        parts = wrap_text(text, max(width - 2, 10)) or [""]
        wrapped: list[Line] = [[(style, p if i == 0 else "  " + p)] for i, p in enumerate(parts)]
        if len(lines) + len(wrapped) > height:
            if not lines:  # one sentence longer than the room: its end
                lines = wrapped[-height:]
            break
        lines = wrapped + lines
    return _join(lines, width)


MOVES_SHOWN = 3  # log rows kept for the latest moves (below a round's summary, above choices)
# The smallest terminal the table screen is laid out for (columns, rows, the input line's
# row among them); below it the screen says so instead of drawing a broken table.
SMALLEST = (80, 24)


def too_small(width: int, height: int) -> StyleAndTextTuples:
    """What a terminal of ``width`` x ``height`` smaller than :data:`SMALLEST` shows in
    place of the table: its size and the size to make it, wrapped to ``width``, in at most
    ``height`` lines."""
    t = current()
    cols, rows = SMALLEST
    text = t._("This terminal is {width}x{height}: make the terminal at least {cols}x{rows} "
               "to see the table.").format(width=width, height=height, cols=cols, rows=rows)
    lines = [[("class:warning", part)] for part in wrap_text(text, max(width, 10))]
    return _join(lines[:max(height, 0)], width)


def _over_screen(view: View, names: Sequence[str], width: int, height: int, top: list[Line],
                 sentences: Sequence[str], summary: StyleAndTextTuples | None
                 ) -> StyleAndTextTuples:
    """:func:`screen` once the game is over: the summary while :data:`MOVES_SHOWN` log rows
    still fit below it."""
    ask = split_rows(prompt(view, names, width))
    shown = split_rows(summary) if summary else []
    room = height - len(top) - len(ask)
    if room - len(shown) < MOVES_SHOWN:
        shown = []
    room -= len(shown)
    body = split_rows(log(sentences, width, room)) if room > 0 else []
    rows = [*top, *shown, *body, *ask]
    return _join(rows[-height:] if height > 0 else [], width)


def rows_besides_log(view: View, names: Sequence[str], width: int,
                     connected: Sequence[bool] | None = None,
                     bots: Sequence[bool] | None = None, legal: Sequence[Decision] | None = None,
                     rules: str | None = None, brief: bool = False) -> int:
    """The rows :func:`screen` gives everything but the log on a tight screen (the queue in a
    line or two): what a panel below it may take and leave :data:`MOVES_SHOWN` log rows."""
    regions = (header(view, names, width), queue_compact(view, width), market(view, width),
               players(view, names, width, connected, bots), hand(view, width),
               stored(view, width, brief), prompt(view, names, width, legal, rules, brief))
    return sum(len(split_rows(region)) for region in regions)


def screen(view: View, names: Sequence[str], width: int, height: int,
           sentences: Sequence[str] = (), connected: Sequence[bool] | None = None,
           bots: Sequence[bool] | None = None, legal: Sequence[Decision] | None = None,
           rules: str | None = None,
           summary: StyleAndTextTuples | None = None,
           brief: bool = False) -> StyleAndTextTuples:
    """Every region stacked into one screen of ``width`` x ``height``; the log gets the rows
    left over. From 150 columns the queue and the players table sit side by side.
    ``brief``: the question's title without its summary of the choices, and no stored line
    while nothing is stored (a list of choices below takes the room).

    ``summary`` (:func:`round_end`) goes above the log when :data:`MOVES_SHOWN` log rows
    still fit below it; else in the players table's place while no offer lies face up (the
    take step needs the table); else it waits.

    Once the game is over (no decision pending) the screen is the header, the last round's
    summary, the log and the final standings: the queue, the market, the players table (the
    standings list the players; F3 shows their tables) and the hand serve no move any more,
    and the log's last lines (mundus play's review command) get their rows."""
    top = split_rows(header(view, names, width))
    if view.pending is None:
        return _over_screen(view, names, width, height, top, sentences, summary)
    table = split_rows(players(view, names, width, connected, bots))
    shown = split_rows(summary) if summary else []
    replace = bool(shown) and not any(view.faceup)

    def stack(queue_rows: list[Line], table: list[Line]) -> list[Line]:
        if width >= 150:
            left_w = min(64, width // 2 - 2)
            left = queue_rows + split_rows(market(view, left_w))
            return _side_by_side(left, table, left_w, width)
        return queue_rows + split_rows(market(view, width)) + table

    def full_queue() -> list[Line]:
        return split_rows(queue(view, min(64, width // 2 - 2) if width >= 150 else width))

    middle = stack(full_queue(), table)
    cards = split_rows(hand(view, width)) + split_rows(stored(view, width, brief))
    ask = split_rows(prompt(view, names, width, legal, rules, brief))
    room = height - len(top) - len(middle) - len(cards) - len(ask)
    if shown and room - len(shown) < MOVES_SHOWN and width >= 150 and replace:
        middle = stack(full_queue(), shown)  # beside the queue, in the table's place
        shown = []
        room = height - len(top) - len(middle) - len(cards) - len(ask)
    if room - len(shown) < 3 and width < 150:  # tight: the queue's names in a line or two
        middle = stack(split_rows(queue_compact(view, width)), table)
        room = height - len(top) - len(middle) - len(cards) - len(ask)
    if shown and room - len(shown) < MOVES_SHOWN:
        if replace and width < 150:
            middle = stack(split_rows(queue_compact(view, width)), shown)
            room = height - len(top) - len(middle) - len(cards) - len(ask)
        shown = []  # in the table's place, or waiting for room
    room -= len(shown)
    rest = " ".join("".join(t for _, t in line).strip() for line in ask[1:])
    if room < 2 and len(ask) > 2 and get_cwidth("  " + rest) <= width and \
            view.pending is not None:  # a tight screen: the choices in one line
        ask = [ask[0], [("class:choice", "  " + rest)]]
        room = height - len(top) - len(middle) - len(cards) - len(ask)
    if room < 2 and len(cards) > 2:
        cards = cards[:2]
        room = height - len(top) - len(middle) - len(cards) - len(ask)
    body = split_rows(log(sentences, width, room)) if room > 0 else []
    # Too short a screen: the decision and the hand matter most, the queue's tail least.
    excess = len(top) + len(middle) + len(body) + len(cards) + len(ask) - height
    for part in (middle, top, cards, ask):
        while excess > 0 and len(part) > 1:
            part.pop(0 if part is not top else -1)
            excess -= 1
    rows = [*top, *middle, *shown, *body, *cards, *ask]
    return _join(rows[-height:] if height > 0 else [], width)
