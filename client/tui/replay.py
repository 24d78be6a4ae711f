"""``mundus replay RECORD``: step through a recorded game in the full-screen client.

A game record (docs/record.md) holds the options and every decision a seat made; replaying
the decisions on a new game gives the same game card for card (R2.6). :class:`Replay` is the
model: the game after any number ``k`` of the record's decisions, shown as one seat sees it or
as a spectator (public information only), with the log of what happened up to there and a
status line. It touches no terminal, so tests drive it directly. :class:`ReplayApp` is the
prompt_toolkit screen around it (keys in docs/replay.md).

Stepping stays fast on long games: the states after every :data:`CACHE_EVERY` decisions are
kept (``Game.copy()``), so the game after ``k`` decisions is the nearest kept state before
``k`` plus fewer than :data:`CACHE_EVERY` decisions, never a replay from the start. The log of
every position is a prefix of the finished game's log (the engine only appends to it), so it
is narrated once per viewer and cut at the position.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.output import ColorDepth

from mundus_net.bots.review import GameReview, ReviewError
from mundus_net.cli_args import add_deck_option
from mundus_net.client.i18n import (
    N_,
    Translator,
    add_language_argument,
    current,
    early_language,
    use,
)
from mundus_net.client.tui import render
from mundus_net.client.tui.app import ScreenControl
from mundus_net.client.tui.reviewtext import label_word, points, review_line
from mundus_net.client.tui.sentences import Narrator, seat_name
from mundus_net.engine.decisions import RuleError
from mundus_net.engine.deck import Deck, DeckError, deck_for_record, default_deck, load_deck
from mundus_net.engine.game import Game
from mundus_net.engine.notation import format_decision
from mundus_net.engine.record import GameRecord, RecordError
from mundus_net.engine.view import PlayerView, public_log

__all__ = [
    "CACHE_EVERY", "KEYS_HELP", "REPLAY_STYLE_RULES", "SECRET_WORDS", "Replay", "ReplayApp",
    "load_replay", "load_review", "parse_viewer", "register", "run", "unfinished_note"
]

CACHE_EVERY = 16  # keep the game state every this many decisions
REVIEW_LINES = 2  # lines at most for the review of a decision (mundus replay --review)

KEYS_HELP = N_("→/n next · ←/p back · PgDn/PgUp next/prev. round · Home/End · s view · q quit")

# Words for a secret decision seen by another seat (the notation would show hidden cards).
SECRET_WORDS = {
    "Offer": N_("offer (sealed)"),
    "Gift": N_("gift (a hidden card)"),
    "Store": N_("storage (hidden)"),
    "PirateDiscard": N_("pirate discard (hidden)"),
}

# Extra style classes of this screen (beside render.STYLE_RULES): colour, and without.
REPLAY_STYLE_RULES: dict[str, tuple[str, str]] = {
    "status": ("bold reverse", "bold reverse"),
    "keys": ("ansibrightblack", ""),
    "review": ("ansiyellow", ""),
}



# -- the model ----------------------------------------------------------------------------------


class Replay:
    """A recorded game at any decision ``k`` (0: before the first, ``total``: the end), as
    seen by ``seat`` (None: a spectator), worded in ``t``'s language (the process's current
    one when not given). Raises RecordError for a record that does not replay.
    """

    def __init__(self, record: GameRecord, deck: Deck | None = None, *,
                 seat: int | None = None, every: int = CACHE_EVERY,
                 t: Translator | None = None) -> None:
        self.t = t or current()
        self.record = record
        self.deck = deck or deck_for_record(record.deck_digest) or default_deck()
        self.every = max(1, every)
        self.total = len(record.decisions)
        game = record.replay(self.deck, upto=0)  # checks the deck
        self.players = game.players
        self.names = [seat_name(record.names, s, self.t) for s in range(self.players)]
        self._cache: dict[int, Game] = {}
        self.rounds: list[int] = []  # the round at each position
        self.log_lens: list[int] = []  # the length of the log at each position
        for k, rec in enumerate(record.decisions):
            if k % self.every == 0:
                self._cache[k] = game.copy()
            self.rounds.append(game.round)
            self.log_lens.append(len(game.log))
            try:
                game.apply(rec.seat, rec.decision)
            except RuleError as exc:
                raise RecordError(self.t._("decision {number} (seat {seat}) does not replay: "
                                           "{error}").format(number=k + 1, seat=rec.seat,
                                                             error=exc)) from None
        self.rounds.append(game.round)
        self.log_lens.append(len(game.log))
        self._cache[self.total] = game
        self.final = game
        self._narrated: dict[int | None, list[str | None]] = {}
        self._current: tuple[int, Game] | None = None
        self.position = 0
        self.seat = self._check_seat(seat)
        self.review: GameReview | None = None  # mundus review's JSON, shown beside each step

    def _check_seat(self, seat: int | None) -> int | None:
        if seat is not None and not 0 <= seat < self.players:
            raise ValueError(f"seat {seat} is not at this table (seats 0-{self.players - 1})")
        return seat

    # -- positions ----------------------------------------------------------------------------

    def game_at(self, k: int) -> Game:
        """The game after the first ``k`` decisions (do not change it)."""
        k = max(0, min(k, self.total))
        if k in self._cache:
            return self._cache[k]
        if self._current is not None and self._current[0] == k:
            return self._current[1]
        base = k - k % self.every
        game = self._cache[base].copy()
        for rec in self.record.decisions[base:k]:
            game.apply(rec.seat, rec.decision)
        self._current = (k, game)
        return game

    @property
    def cached(self) -> list[int]:
        """The positions kept whole (every ``every``-th, and the end): a step starts from
        the nearest one before it."""
        return list(self._cache)

    @property
    def game(self) -> Game:
        return self.game_at(self.position)

    @property
    def round(self) -> int:
        return self.rounds[self.position]

    def go(self, k: int) -> None:
        self.position = max(0, min(k, self.total))

    def next(self) -> None:
        self.go(self.position + 1)

    def previous(self) -> None:
        self.go(self.position - 1)

    def home(self) -> None:
        self.go(0)

    def end(self) -> None:
        self.go(self.total)

    def round_start(self, rnd: int) -> int:
        """The first position in round ``rnd`` (0 before the first round)."""
        return next((k for k, r in enumerate(self.rounds) if r >= rnd), self.total)

    def next_round(self) -> None:
        """To the first decision of the next round (the end in the last round)."""
        self.go(self.round_start(self.round + 1))

    def previous_round(self) -> None:
        """To the first decision of the previous round (the start in round 1)."""
        self.go(self.round_start(self.round - 1) if self.round > 1 else 0)

    # -- the viewer ---------------------------------------------------------------------------

    def set_seat(self, seat: int | None) -> None:
        self.seat = self._check_seat(seat)

    def switch_view(self) -> None:
        """Seat 0, 1, ..., the last seat, the spectator, seat 0 again."""
        if self.seat is None:
            self.seat = 0
        elif self.seat + 1 < self.players:
            self.seat += 1
        else:
            self.seat = None

    @property
    def viewer(self) -> str:
        if self.seat is None:
            return self.t._("spectator")
        return self.t._("{name} (seat {number})").format(name=self.names[self.seat],
                                                          number=self.seat)

    def view(self) -> PlayerView:
        return PlayerView(self.game, self.seat)

    def sentences(self) -> list[str]:
        """The log up to this position as the viewer reads it."""
        narrated = self._narrated.get(self.seat)
        if narrated is None:
            narrate = Narrator(self.names, self.seat, self.deck, self.t)
            narrated = [narrate(e) for e in public_log(self.final, self.seat)]
            self._narrated[self.seat] = narrated
        return [s for s in narrated[:self.log_lens[self.position]] if s]

    def last_decision(self) -> str:
        """The decision that led here, in notation, as the viewer may know it."""
        k = self.position
        if k == 0:
            return self.t._("the start of the game")
        rec = self.record.decisions[k - 1]
        who = self.names[rec.seat]
        kind = type(rec.decision).__name__
        if rec.seat != self.seat and kind in SECRET_WORDS:
            text = self.t._(SECRET_WORDS[kind])
        else:
            text = format_decision(rec.decision)
        if rec.by == "default":
            return self.t._("{seat}: {decision} (default)").format(seat=who, decision=text)
        return f"{who}: {text}"

    def set_review(self, review: GameReview) -> None:
        """Show ``review`` (of this game: RecordError otherwise) beside each decision."""
        if review.players != self.players or any(
                r.index >= self.total or r.seat != self.record.decisions[r.index].seat
                or r.played != self.record.decisions[r.index].decision
                for r in review.decisions):
            raise RecordError(self.t._("the review is of another game (mundus review this "
                                       "record --json FILE)"))
        self.review = review

    def review_text(self) -> str | None:
        """The review of the decision that led here, as the viewer may know it (None without
        a review). Another seat's secret decision (an offer, a gift...) keeps its cards: its
        label and loss only."""
        if self.review is None:
            return None
        t = self.t
        k = self.position
        r = self.review.at(k - 1) if k > 0 else None
        if r is None:
            return t._("Review: no decision reviewed here")
        who = self.names[r.seat]
        if r.seat != self.seat and type(r.played).__name__ in SECRET_WORDS:
            what = label_word(r.label) or t._("no label")
            return t._("Review: {seat}: {label} (−{points}), a secret decision (s: see it as "
                       "that seat)").format(seat=who, label=what, points=points(r.loss))
        view = PlayerView(self.game_at(k - 1), r.seat)
        return t._("Review: {seat}: {line}").format(seat=who,
                                                    line=review_line(r, view, self.names))

    def status(self) -> str:
        t = self.t
        if self.position == self.total and self.final.is_over:
            text = t._("Decision {number} of {total} (game over) · round {round} · as {viewer} · "
                       "{last}")
        else:
            text = t._("Decision {number} of {total} · round {round} · as {viewer} · {last}")
        return text.format(number=self.position, total=self.total, round=self.round,
                           viewer=self.viewer, last=self.last_decision())

    # -- the screen ---------------------------------------------------------------------------

    def draw(self, width: int, height: int) -> StyleAndTextTuples:
        """The table as the viewer sees it, the log up to here, the status and the keys."""
        bottom: StyleAndTextTuples = [
            ("class:status", render.cut(self.status(), width).ljust(width)), ("", "\n"),
            ("class:keys", render.cut(self.t._(KEYS_HELP), width))]
        review = self.review_text()
        if review is not None:  # at most REVIEW_LINES lines, the last one ending in "…"
            rows = render.wrap_line([("class:review", review)], width)
            if len(rows) > REVIEW_LINES:
                rows = rows[:REVIEW_LINES]
                last = "".join(text for _, text in rows[-1])
                rows[-1] = [("class:review", render.cut(last + " …", width))]
            bottom[:0] = [f for row in rows for f in (*row, ("", "\n"))]
        rows = render.split_rows(bottom)
        lines = len(rows)
        if height <= lines:
            shown = rows[lines - height:] if height > 0 else []
            return [f for i, row in enumerate(shown)
                    for f in (*row, *((("", "\n"),) if i < len(shown) - 1 else ()))]
        top_h = height - lines
        top = render.screen(self.view(), self.names, width, top_h, sentences=self.sentences())
        rows = render.split_rows(top)
        rows += [[("", "")]] * (top_h - len(rows))
        out: StyleAndTextTuples = []
        for row in rows:
            out.extend(row)
            out.append(("", "\n"))
        out.extend(bottom)
        return out


def _file_error(exc: OSError) -> str:
    """Why a file cannot be read, in plain words."""
    t = current()
    if isinstance(exc, FileNotFoundError):
        return t._("there is no such file")
    if isinstance(exc, IsADirectoryError):
        return t._("it is a folder, not a file")
    if isinstance(exc, PermissionError):
        return t._("you are not allowed to read it (permission denied)")
    reason = exc.strerror or str(exc)
    return t._("it cannot be read ({reason})").format(reason=f"{reason[:1].lower()}{reason[1:]}")


def load_replay(path: str | Path, deck_path: str | None = None) -> Replay:
    """Read and replay a record file; RecordError (or DeckError) says in plain words what is
    wrong with it (missing, empty, cut short, damaged, a picture or a game log...)."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise RecordError(_file_error(exc)) from None
    record = GameRecord.from_json(raw)
    deck = load_deck(deck_path) if deck_path is not None else None
    return Replay(record, deck)


def load_review(path: str | Path) -> GameReview:
    """Read a review (mundus review --json); ReviewError says what is wrong with the file."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ReviewError(_file_error(exc)) from None
    return GameReview.from_json(raw)


def unfinished_note(model: Replay) -> str | None:
    """Where the game of an unfinished record stops, or None once it is over."""
    if model.final.is_over:
        return None
    return model.t._("it stops in round {round}, after decision {number}; the replay ends "
                     "there").format(round=model.final.round, number=model.total)


def parse_viewer(text: str, names: Sequence[str]) -> int | None:
    """``spectator``, a seat number (0-based, as in the notation) or a seat's name."""
    word = text.strip()
    if word.lower() in ("spectator", "none", "-"):
        return None
    if word.isdigit():
        seat = int(word)
        if seat < len(names):
            return seat
        raise ValueError(current()._("seat {number} is not at this table (seats 0-{last})").format(
            number=seat, last=len(names) - 1))
    matches = [s for s, name in enumerate(names) if name.lower() == word.lower()]
    if len(matches) == 1:
        return matches[0]
    seats = ", ".join(f"{s} {name}" for s, name in enumerate(names))
    raise ValueError(current()._("{text} is not spectator, a seat number or a player's name "
                                 "({seats})").format(text=repr(text), seats=seats))


# -- prompt_toolkit -----------------------------------------------------------------------------


class ReplayApp:
    """The full-screen replay: one window, keys to move and to switch the view."""

    def __init__(self, model: Replay, *, color: bool | None = None) -> None:
        self.model = model
        self.color = render.use_color() if color is None else color
        self.app = self._build()

    def _build(self) -> Application[int]:
        model = self.model
        kb = KeyBindings()
        moves: dict[tuple[str, ...], Callable[[], None]] = {
            ("right",): model.next, ("n",): model.next,
            ("left",): model.previous, ("p",): model.previous,
            ("pagedown",): model.next_round, ("pageup",): model.previous_round,
            ("home",): model.home, ("end",): model.end,
            ("s",): model.switch_view,
        }
        for keys, move in moves.items():
            def handler(event: KeyPressEvent, move: Callable[[], None] = move) -> None:
                move()
            kb.add(*keys)(handler)

        @kb.add("q")
        @kb.add("c-c")
        @kb.add("c-d")
        def _(event: KeyPressEvent) -> None:
            event.app.exit(result=0)

        window = Window(ScreenControl(model.draw, focusable=True), wrap_lines=False)
        depth = ColorDepth.DEFAULT if self.color else ColorDepth.DEPTH_1_BIT
        return Application(layout=Layout(HSplit([window]), focused_element=window),
                           key_bindings=kb, full_screen=True,
                           style=render.make_style(self.color, REPLAY_STYLE_RULES),
                           color_depth=depth, mouse_support=False)

    def run(self) -> int:
        return self.app.run()


# -- the command --------------------------------------------------------------------------------


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "replay",
        description="Show a game record (mundus host --record, mundus sim/tournament "
                    "--records) in the full-screen client and step through it: Right/n next "
                    "decision, Left/p back, PageDown/PageUp next/previous round, Home/End, "
                    "s switches the view (each seat, then the spectator), q quits "
                    "(docs/replay.md).")
    p.add_argument("record", metavar="RECORD", help="a game record file (JSON)")
    p.add_argument("--as", dest="viewer", default="spectator", metavar="SEAT|spectator",
                   help="whose view: a seat number (0-based, as in the notation), a player's "
                        "name, or spectator (public information only; the default)")
    p.add_argument("--at", type=int, default=0, metavar="K",
                   help="start after the first K decisions (default 0; negative counts from "
                        "the end)")
    p.add_argument("--review", metavar="FILE", nargs="?", const="", default=None,
                   help="show this review of the game (mundus review RECORD --json FILE) "
                        "beside each decision; without FILE, review the game first (seed 0, "
                        "some seconds of CPU: docs/review.md)")
    add_deck_option(p, recorded=True)
    add_language_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    t = use(early_language(args.lang, os.environ))
    try:
        model = load_replay(args.record, args.deck)
    except RecordError as exc:
        print(f"mundus replay: {args.record}: {exc}", file=sys.stderr)
        return 2
    except DeckError as exc:
        print(f"mundus replay: --deck: {exc}", file=sys.stderr)
        return 2
    if args.review:
        try:
            model.set_review(load_review(args.review))
        except (ReviewError, RecordError) as exc:
            print(f"mundus replay: --review {args.review}: {exc}", file=sys.stderr)
            return 2
    try:
        model.set_seat(parse_viewer(args.viewer, model.names))
    except ValueError as exc:
        print(f"mundus replay: --as: {exc}", file=sys.stderr)
        return 2
    model.go(args.at if args.at >= 0 else model.total + 1 + args.at)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(t._("mundus replay: the replay screen needs a terminal (standard input and "
                  "output)"), file=sys.stderr)
        return 2
    if args.review == "":  # after the check above: some seconds not spent for nothing
        print(t._("mundus replay: reviewing the game first (docs/review.md) …"), flush=True)
        review = GameReview.of_record(model.record, model.deck)
        review.names = list(model.names)
        model.set_review(review)
    note = unfinished_note(model)
    if note is not None:  # stays on the terminal after the screen closes
        print(t._("mundus replay: the game in {record} did not finish ({note})").format(
            record=args.record, note=note), file=sys.stderr)
    return ReplayApp(model).run()
