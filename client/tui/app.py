"""The full-screen terminal client (``mundus play``, ``mundus join``, ``mundus watch``).

A prompt_toolkit Application in the manner of prompt_toolkit's own full-screen examples: an
HSplit of the table screen and one input line, a completer over the legal decisions, a float for
the completion menu, and key bindings (F1 help, PageUp/PageDown log, Ctrl-C and Ctrl-D leave).
The table screen is :func:`mundus_net.client.tui.render.screen` (header, queue, market, players,
the log of sentences, hand, the pending decision) with the numbered choices and a status line
below it; it is laid out again for every size, so it fits 80x24 and uses what more the terminal
gives, and a resize redraws it.

The connection runs in its own thread (:class:`mundus_net.client.background.ConnectionThread`);
every notice comes to the UI's event loop with a snapshot of the table taken in that thread.
:class:`TableModel` holds everything the screen shows and turns typed lines into actions; it
does not touch the terminal, so tests can drive it directly.

What is typed at the prompt (docs/client.md): a number (the n-th choice shown), a decision in
the notation of docs/notation.md (``take:5@2``, ``set:5:555:q2``, ``end``), ``pass``,
``say TEXT``, ``help``, ``quit``. A decision is checked before it is sent: it must parse, be
this seat's, and be of the kind the table asks for; the host has the final word and a refusal
shows its reason with the rule ID.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.formatted_text.utils import split_lines
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    Float,
    FloatContainer,
    HSplit,
    Layout,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, UIContent, UIControl
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.utils import get_cwidth

from mundus_net.client.background import ConnectionThread
from mundus_net.client.connection import (
    Accepted,
    Closed,
    Connection,
    GameOver,
    Joined,
    Lost,
    Mismatch,
    Notice,
    PendingDecision,
    PrivateUpdate,
    Problem,
    PublicEvents,
    Refused,
    Synced,
    Welcome,
)
from mundus_net.client.tui import advisor, render
from mundus_net.client.tui.helptext import HELP, help_lines, round_summary, split_rounds
from mundus_net.client.tui.sentences import (
    PHASE_WORDS,
    Narrator,
    card_name,
    cards_text,
    dev_name,
    seat_name,
)
from mundus_net.client.wire import freeze
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
from mundus_net.engine.deck import EVENT_NAMES
from mundus_net.engine.game import RELIC_PAY, Pending, Result
from mundus_net.engine.notation import NotationError, format_decision, parse_decision
from mundus_net.engine.view import StateView

LEFT = "left"
OVER = "over"

COMMANDS_HELP = (
    "At the prompt: a number picks that choice; a decision in notation also works "
    "(take:5@2, take:5@2:9, offer:135, set:5:55R:q2, series:12345, end; docs/notation.md). "
    "Tab completes the legal decisions. pass or end: pass or end the turn. say TEXT: chat "
    "with the table. help (or F1): this help. quit, Ctrl-D or Ctrl-C: leave the table; the "
    "seat is kept and `mundus join ADDRESS` gives it back. PageUp/PageDown: scroll the log."
)

REQUEST_WORDS = {"decide": "decision", "commit": "sealed offer", "reveal": "offer's reveal",
                 "chat": "chat line"}

# Words that answer "no, nothing": passing, one fleet, storing nothing, ending the turn.
PASS_WORDS = ("pass", "none", "no", "end", "done")
QUIT_WORDS = ("quit", "exit", "leave", "bye")
HELP_WORDS = ("help", "?", "h")

# Extra style classes of this screen (beside render.STYLE_RULES): colour, and without.
TUI_STYLE_RULES: dict[str, tuple[str, str]] = {
    "number": ("bold ansigreen", "bold"),
    "notation": ("bold", "bold"),
    "status": ("ansibrightblack", ""),
    "status-error": ("bold ansired", "bold"),
    "status-ok": ("ansigreen", ""),
    "input-prompt": ("bold ansigreen", "bold"),
    "help-title": ("bold reverse", "bold reverse"),
    "completion-menu.completion": ("bg:ansiwhite ansiblack", ""),
    "completion-menu.completion.current": ("bg:ansigreen ansiblack bold", "reverse"),
    "completion-menu.meta.completion": ("bg:ansibrightblack ansiwhite", ""),
    "completion-menu.meta.completion.current": ("bg:ansigreen ansiblack", "reverse"),
}



# -- what the connection thread hands over ------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """The table as this client knows it at one moment (taken in the connection's thread)."""

    view: StateView | None  # None before the welcome
    ready: PendingDecision | None  # this seat's decision, if it waits for an answer now
    names: tuple[str, ...] = ()
    connected: tuple[bool, ...] | None = None
    bots: tuple[bool, ...] | None = None
    online: bool = False
    seat: int | None = None
    result: Result | None = None


def take_snapshot(conn: Connection) -> Snapshot:
    """Call in the connection's thread."""
    if conn.deck is None:
        return Snapshot(None, None)
    ready = conn.ready
    table = conn.state.get("table") or {}
    names = tuple(str(n) for n in table.get("names") or
                  (conn.welcome.names if conn.welcome is not None else ()))
    data = dict(conn.state)
    data.update(conn.private)
    data["seat"] = conn.seat
    raw = data.get("pending")
    if isinstance(raw, dict):
        # Show whom the table still waits for: not the seats that sealed their offer, nor
        # this one once it has answered.
        done = set(table.get("committed") or ()) if raw.get("kind") == "offer" else set()
        online = conn.connected and conn.synced
        if ready is None and (online or conn.pending is None):
            done.add(conn.seat)  # answered (offline, the question is still this seat's)
        elif conn.seat is not None:
            done.discard(conn.seat)
        data["pending"] = {**raw, "seats": [s for s in raw.get("seats") or () if s not in done]}
    pending = None
    legal: list[Decision] = []
    if ready is not None and conn.seat is not None:
        pending = Pending(ready.phase, (conn.seat,), freeze(ready.detail))
        data["phase"] = ready.phase
        legal = list(ready.legal)
    connected = table.get("connected")
    bots = table.get("bots")
    return Snapshot(StateView(data, conn.deck, legal, pending), ready, names,
                    tuple(bool(c) for c in connected) if connected is not None else None,
                    tuple(bool(b) for b in bots) if bots is not None else None,
                    conn.connected, conn.seat, conn.result)


# -- the choices --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """One numbered choice: the decisions to send in order (a merchant conversion, then the
    combination it makes possible), their notation and a few words."""

    decisions: tuple[Decision, ...]
    words: str

    @property
    def text(self) -> str:
        return ",".join(format_decision(d) for d in self.decisions)


def describe(d: Decision, view: StateView, names: Sequence[str]) -> str:
    """A decision in a few words, for the list of choices and the completion menu."""
    def who(seat: int) -> str:
        return "you" if seat == view.seat else seat_name(names, seat)

    match d:
        case ChooseEvent(event):
            return "pass" if event is None else f"pay 2 to impose {EVENT_NAMES[event]}"
        case SplitFleet(fleet):
            if not fleet:
                return "keep one fleet"
            values = "+".join(str(view.deck[c].caravel) if c in view.deck.by_id else c
                              for c in fleet)
            return f"second fleet {values}"
        case PickCards(cards):
            return cards_text(cards)
        case BuyMarket(card):
            return "pass" if card is None else f"pay 2 for {card_name(card)}"
        case PirateDiscard(cards):
            return f"lose {cards_text(cards)}"
        case Announce(n):
            return f"everyone offers {n}"
        case Offer(cards):
            return f"{cards_text(cards)} (worth {sum(cards)})" if cards else "offer nothing"
        case ChooseTradeMaster(seat):
            return f"{who(seat)} becomes Trade Master"
        case Take(seat, card, swap):
            text = f"{card_name(card)} from {who(seat)}"
            return text if swap is None else f"{text}, swapped for the market's {card_name(swap)}"
        case Gift(card):
            return f"give {card_name(card)}"
        case ChooseFirst(seat):
            return f"{who(seat)} {'play' if seat == view.seat else 'plays'} first"
        case Convert(source, value):
            return f"turn {card_name(source)} into {card_name(value)}"
        case MakeSet(value, cards, target):
            if target == TARGET_DRAW:
                where = "the pile's top card (Almagro)"
            elif target == TARGET_CASH:
                where = "sold (Vicente)"
            else:
                queue_ids = list(view.queue)
                dev = dev_name(queue_ids[target - 1], view.deck) \
                    if 0 < target <= len(queue_ids) else "?"
                where = f"queue {target}: {dev}"
            return f"set of {len(cards)} {card_name(value)} → {where}"
        case MakeSeries(cards):
            ip = view.seat is not None and view.event == "IP" and \
                advisor.affected(view, view.seat)
            return f"series of {len(cards)} for {advisor.series_pay(len(cards), ip)}"
        case MakeRelicSet(size):
            return f"relic set of {size} for {RELIC_PAY.get(size, 0)}"
        case MakePerfect():
            return "the perfect combination"
        case EndTurn():
            return "end the turn"
        case Store(cards):
            return f"keep {cards_text(cards)}" if cards else "store nothing"


def choices_for(view: StateView, pending: PendingDecision, names: Sequence[str]) -> list[Choice]:
    """The numbered choices: in the progression turn the advisor's suggestions (each set
    target its own choice) and ending the turn; otherwise every legal decision, in the
    engine's order."""
    if pending.phase != "turn":
        return [Choice((d,), describe(d, view, names)) for d in pending.legal]
    legal = set(pending.legal)
    out: list[Choice] = []
    seen: set[tuple[Decision, ...]] = set()
    for s in advisor.suggestions(view):
        if s.first and s.first[0] not in legal:
            continue
        for choice in s.choices:
            decisions = (*s.first, choice)
            if decisions in seen or (not s.first and choice not in legal):
                continue
            seen.add(decisions)
            words = describe(choice, view, names) if isinstance(choice, MakeSet) else s.text
            if s.first and isinstance(choice, MakeSet):
                words = "; ".join(describe(d, view, names) for d in decisions)
            out.append(Choice(decisions, words))
    if EndTurn() in legal:
        out.append(Choice((EndTurn(),), "end the turn"))
    return out


def _pass_decision(pending: PendingDecision) -> Decision | None:
    """What pass / end means for this decision, if it is legal."""
    for d in (ChooseEvent(None), BuyMarket(None), SplitFleet(()), Store(()), EndTurn()):
        if d in pending.legal:
            return d
    return None


# -- what a typed line does ---------------------------------------------------------------------


@dataclass(frozen=True)
class Send:
    decisions: tuple[Decision, ...]
    note: str = ""


@dataclass(frozen=True)
class Chat:
    text: str


@dataclass(frozen=True)
class Say:
    """A message for the status line (nothing is sent)."""

    text: str
    error: bool = True


@dataclass(frozen=True)
class ShowHelp:
    pass


@dataclass(frozen=True)
class Leave:
    pass


Action = Send | Chat | Say | ShowHelp | Leave


# -- the model ----------------------------------------------------------------------------------


@dataclass
class Status:
    text: str = ""
    style: str = "class:status"


@dataclass
class TableModel:
    """Everything the screen shows, and what typed lines mean. No terminal, no sockets."""

    address: str = ""
    spectator: bool = False
    insecure: bool = False  # no encryption: every screen says so
    snap: Snapshot = field(default_factory=lambda: Snapshot(None, None))
    sentences: list[str] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    status: Status = field(default_factory=Status)
    sent_for: int | None = None  # the pending id answered from here, until the host moves on
    plan: list[Decision] = field(default_factory=list)  # decisions still to send, in order
    plan_after: int | None = None
    asked: int | None = None  # the pending id last shown as a question
    greeting: str | None = None  # said once the table's story so far is in the log
    help_open: bool = False
    log_back: int = 0  # sentences scrolled back
    over: bool = False
    narrator: Narrator = field(default_factory=lambda: Narrator([]))
    _choices: tuple[Snapshot, list[Choice]] | None = field(default=None, repr=False)

    # -- reading ------------------------------------------------------------------------------

    @property
    def ready(self) -> PendingDecision | None:
        """This seat's decision if it is asked now and not answered from here yet."""
        ready = self.snap.ready
        if ready is None or ready.id == self.sent_for or self.over:
            return None
        return ready

    def choices(self) -> list[Choice]:
        ready, view = self.ready, self.snap.view
        if ready is None or view is None:
            return []
        cached = self._choices
        if cached is None or cached[0] is not self.snap:  # one list per snapshot
            cached = self._choices = (self.snap, choices_for(view, ready, self.snap.names))
        return cached[1]

    def prompt_text(self) -> str:
        ready = self.ready
        if ready is not None:
            return f"{ready.phase}> "
        return "> "

    # -- notices ------------------------------------------------------------------------------

    def on_notice(self, notice: Notice, snap: Snapshot) -> list[Decision]:
        """Take in one notice; returns decisions of a plan to send now."""
        self.snap = snap
        self.narrator.names = list(snap.names)
        self.narrator.me = snap.seat
        if snap.view is not None:
            self.narrator.deck = snap.view.deck
        if self.sent_for is not None and (snap.ready is None or snap.ready.id != self.sent_for):
            self.sent_for = None  # the host moved on
        ready = self.ready
        if ready is not None and ready.id != self.asked:
            self.asked = ready.id  # a new question: what was said about the last one is old
            self.status = Status()
        if isinstance(notice, PublicEvents):
            for event in notice.events:
                self._public(event)
            if self.greeting:  # after the story so far, so that it is the latest line
                self.log(self.greeting)
                self.say(self.greeting)
                self.greeting = None
        elif isinstance(notice, PrivateUpdate):
            for event in notice.events:
                if event.get("kind") != "offer":  # the reveal shows every offer at once
                    self.log(self.narrator(event))
        elif isinstance(notice, Joined):
            self._joined(notice)
        elif isinstance(notice, Refused):
            self._refused(notice)
        elif isinstance(notice, Lost):
            self.say("Connection lost: reconnecting by itself…", error=True)
            self.log(f"Connection lost ({notice.reason}); reconnecting")
        elif isinstance(notice, Mismatch):
            self.log(f"WARNING: round {notice.round}, "
                     f"{seat_name(snap.names, notice.seat)}'s offer: {notice.reason}")
        elif isinstance(notice, Problem):
            self.log(notice.message)
        elif isinstance(notice, GameOver):
            self.over = True
            self.plan = []
            self.say("The game is over: press Enter (or Ctrl-D) to leave.", error=False)
        elif isinstance(notice, (Accepted, Synced, Closed)):
            pass
        return self._continue_plan()

    def _public(self, event: dict[str, Any]) -> None:
        self.events.append(event)
        me = self.snap.seat
        kind = event.get("kind")
        # These come again, with their cards, among this seat's private events.
        if me is not None and kind in ("gift", "store", "unstore") and \
                me in (event.get("seat"), event.get("to")):
            return
        self.log(self.narrator(event))
        if kind == "round_end":
            rounds = split_rounds(self.events)
            if rounds:
                deck = self.snap.view.deck if self.snap.view is not None else None
                lines = round_summary(rounds[-1], self.snap.names, deck)
                self.log(f"Summary of {lines[0]}")
                for line in lines[1:]:
                    self.log(f"  {line}")

    def _joined(self, notice: Joined) -> None:
        w = notice.welcome
        if notice.resumed:
            self.say("Reconnected: back at the table.", error=False)
            self.log("Reconnected to the table")
            return
        if w.seat is None:
            self.log(f'Watching "{w.name}" at {self.address} as a spectator')
        else:
            self.log(f'You sit at "{w.name}" ({self.address}) in seat {w.seat + 1}, '
                     f"as {seat_name(w.names, w.seat) if w.names else 'a player'}")

    def _refused(self, notice: Refused) -> None:
        if notice.request in ("decide", "commit", "reveal"):
            self.sent_for = None
            self.plan = []
        if notice.code == "stale":
            self.say("That answer came too late for its decision; look again.", error=True)
            return
        reason = notice.message if notice.code == "illegal" else \
            f"{notice.code}: {notice.message}"
        if notice.rule and notice.rule not in reason:
            reason = f"{notice.rule}: {reason}"
        self.say(f"Refused: {reason}", error=True)
        what = REQUEST_WORDS.get(notice.request or "", "message")
        self.log(f"The host refused your {what}: {reason}")

    def _continue_plan(self) -> list[Decision]:
        ready = self.ready
        if not self.plan or ready is None or ready.id == self.plan_after:
            return []
        nxt = self.plan.pop(0)
        if nxt not in ready.legal:
            self.plan = []
            self.say(f"{format_decision(nxt)} is no longer possible; choose again.")
            return []
        self.plan_after = ready.id
        self.sent_for = ready.id
        return [nxt]

    def log(self, sentence: str | None) -> None:
        if sentence:
            self.sentences.append(sentence)

    def say(self, text: str, error: bool = False) -> None:
        self.status = Status(text, "class:status-error" if error else "class:status-ok")

    # -- typed lines --------------------------------------------------------------------------

    def interpret(self, line: str) -> Action | None:
        """What a typed line asks for (None: nothing)."""
        text = line.strip()
        word = text.lower()
        if not text:
            return Leave() if self.over else None
        if word in HELP_WORDS:
            return ShowHelp()
        if word in QUIT_WORDS:
            return Leave()
        if word == "say" or word.startswith("say "):
            said = text[3:].strip()
            if not said:
                return Say("say what? Write: say TEXT")
            if self.spectator:
                return Say("spectators cannot chat (the protocol gives them no token)")
            return Chat(said[:200])
        ready = self.ready
        if self.over:
            return Say("The game is over: press Enter to leave.")
        if ready is None:
            if self.sent_for is not None:
                return Say("Your answer is on its way; wait for the host.")
            who, _ = render.waiting_text(self.snap.view, self.snap.names) \
                if self.snap.view is not None else ("connecting", False)
            return Say(f"Nothing to decide now ({who}).")
        choices = self.choices()
        if text.isdigit():
            n = int(text)
            if 1 <= n <= len(choices):
                return Send(choices[n - 1].decisions)
            return Say(f"Choose 1-{len(choices)}, or type a decision (Tab completes).")
        if word in PASS_WORDS:
            d = _pass_decision(ready)
            if d is None:
                return Say(f"You cannot pass now: {PHASE_WORDS.get(ready.phase, ready.phase)}.")
            return Send((d,))
        return self._typed_decision(text, ready)

    def _typed_decision(self, text: str, ready: PendingDecision) -> Action:
        try:
            seat, decision = parse_decision(text)
        except NotationError as exc:
            return Say(f"{exc} (Tab lists the legal decisions; help explains)")
        if seat is not None and seat != self.snap.seat:
            return Say(f"You are seat {self.snap.seat}: leave out the seat prefix.")
        if decision in ready.legal:
            return Send((decision,))
        if isinstance(decision, Offer):
            # A sealed offer is only checked at its reveal, where a bad one is a violation
            # and the default offer is played: offers are checked here, against the full list.
            return Say(f"{format_decision(decision)} is not an offer you can make (cards of "
                       "your hand, as many as asked; Tab lists them).")
        kinds = {type(d) for d in ready.legal}
        if type(decision) not in kinds:
            asked = PHASE_WORDS.get(ready.phase, ready.phase)
            return Say(f"{format_decision(decision)} does not answer this decision: the table "
                       f"asks you to {asked} (Tab completes).")
        # Of the right kind but not among the listed choices: the engine judges it.
        return Send((decision,), note="not among the listed choices: the host will judge it")

    def sending(self, action: Send) -> Decision:
        """Mark ``action`` as sent; returns the first decision (the rest follow one by one,
        each when the host asks again)."""
        ready = self.ready
        assert ready is not None
        first, *rest = action.decisions
        self.sent_for = ready.id
        self.plan = list(rest)
        self.plan_after = ready.id
        self.say(f"Sent {format_decision(first)}" + (f" ({action.note})" if action.note else "")
                 + ("; the rest follows" if rest else ""), error=False)
        return first

    def send_failed(self, error: BaseException) -> None:
        self.sent_for = None
        self.plan = []
        self.say(f"Not sent: {error}", error=True)

    # -- completion ---------------------------------------------------------------------------

    def completions(self, typed: str) -> list[tuple[str, str]]:
        """(completion, meta) for what is typed so far: the legal decisions in notation, the
        pass/end words that apply, and the commands."""
        typed = typed.lstrip()
        found: list[tuple[str, str]] = []
        ready = self.ready
        if ready is not None and not typed.isdigit():
            names = self.snap.names
            view = self.snap.view
            assert view is not None
            shown = {c.decisions[0] for c in self.choices() if len(c.decisions) == 1}
            ordered = [d for d in ready.legal if d in shown] + \
                [d for d in ready.legal if d not in shown]
            for d in ordered:
                text = format_decision(d)
                if text.startswith(typed):
                    found.append((text, describe(d, view, names)))
            passing = _pass_decision(ready)
            if passing is not None:
                for word in ("pass", "end"):
                    if word.startswith(typed) and word != format_decision(passing):
                        found.append((word, describe(passing, view, names)))
        for word, meta in (("help", "help for this step"), ("say ", "chat with the table"),
                           ("quit", "leave the table (the seat is kept)")):
            if typed and word.startswith(typed.lower()):
                found.append((word, meta))
        return found

    # -- the screen ---------------------------------------------------------------------------

    def help_lines(self, width: int) -> list[str]:
        view = self.snap.view
        ready = self.ready
        kind = ready.kind if ready is not None else (view.phase if view is not None else "")
        lines: list[str] = []
        if kind in HELP:
            lines += help_lines(kind, width, view)
            lines.append("")
        lines += textwrap.wrap(COMMANDS_HELP, width)
        return lines

    def draw(self, width: int, height: int) -> StyleAndTextTuples:
        """The whole screen above the input line."""
        view = self.snap.view
        status = self._status_line(width)
        if height <= 1:
            return status[-height:] if height > 0 else []
        if view is None:
            body: StyleAndTextTuples = [("class:dim", f"Connecting to {self.address}…")]
            return [*body, *[("", "\n")] * (height - 2), ("", "\n"), *status]
        if self.help_open:
            return [*self._help_screen(width, height - 1), ("", "\n"), *status]
        panel = self._choice_panel(width, height)
        top_h = height - 1 - len(panel)
        sentences = self.sentences[:len(self.sentences) - self.log_back] if self.log_back \
            else self.sentences
        ready = self.ready
        top = render.screen(view, self.snap.names, width, top_h, sentences=sentences,
                            connected=self.snap.connected, bots=self.snap.bots,
                            legal=list(ready.legal) if ready is not None else None)
        rows = render.split_rows(top)
        rows += [[("", "")]] * (top_h - len(rows))  # keep the panel at the bottom
        out: StyleAndTextTuples = []
        for row in [*rows, *panel]:
            out.extend(row)
            out.append(("", "\n"))
        out.extend(status)
        return out

    def _status_line(self, width: int) -> StyleAndTextTuples:
        text, style = self.status.text, self.status.style
        if not text:
            style = "class:status"
            if self.spectator:
                text = "Spectating · help or F1: help · Ctrl-D leaves"
            else:
                text = "Tab completes · a number picks · say TEXT chats · F1 help · Ctrl-D leaves"
        ready = self.ready
        if ready is not None and ready.deadline is not None:
            left = max(0, int(ready.deadline - time.monotonic()))
            text = f"{left} s left · {text}"
        if self.log_back:
            text = f"[log: {self.log_back} back, PageDown returns] {text}"
        if self.insecure:  # on every screen: nothing on this table is secret
            if width < 28:
                return [("class:warning", render.cut("INSECURE", width))]
            return [("class:warning", "INSECURE"), ("class:dim", " (not encrypted) · "),
                    (style, render.cut(text, width - 27))]
        return [(style, render.cut(text, width))]

    def _help_screen(self, width: int, height: int) -> StyleAndTextTuples:
        title = render.cut("Help (F1 or Esc closes)", width)
        lines = self.help_lines(max(width - 2, 20))[:max(height - 1, 0)]
        out: StyleAndTextTuples = [("class:help-title", title)]
        for line in lines:
            out += [("", "\n"), ("", " " + line)]
        out += [("", "\n")] * (height - 1 - len(lines))
        return out

    def _choice_panel(self, width: int, height: int) -> list[render.Line]:
        """The numbered choices: one a line with their words when they fit, else packed."""
        choices = self.choices()
        ready = self.ready
        if not choices or ready is None:
            return []
        room = max(1, min(12, 3 + (height - 23) // 2))
        if ready.phase == "turn":
            head = f"Suggestions ({len(choices)} of {len(ready.legal)} legal):"
        else:
            head = f"Choices ({len(choices)}):"
        if len(choices) + 1 <= room:
            text_w = max(get_cwidth(c.text) for c in choices)
            lines: list[render.Line] = [[("class:title", head)]]
            for i, c in enumerate(choices, 1):
                lines.append(render.fit([
                    ("class:number", f"{i:>3}) "), ("class:notation", c.text.ljust(text_w)),
                    ("class:dim", "  " + c.words)], width))
            return lines
        tokens = [[("class:number", f"{i})"), ("", " "), ("class:notation", c.text)]
                  for i, c in enumerate(choices, 1)]
        first: render.Line = [("class:title", head)]
        flowed = render.flow(tokens, width, first, indent=1)
        if len(flowed) > room:
            # As many as fit with a note of how many more there are.
            shown = sum(1 for line in flowed[:room] for f in line if f[0] == "class:number")
            while True:
                more: render.Line = [("class:dim", f"… +{len(choices) - shown} more (Tab)")]
                flowed = render.flow([*tokens[:shown], more], width, first, indent=1)
                if len(flowed) <= room or shown == 0:
                    break
                shown -= 1
        return [render.fit(line, width) for line in flowed]


# -- prompt_toolkit -----------------------------------------------------------------------------


class ScreenControl(UIControl):
    """Formatted text laid out for the size the window gets (a resize lays it out again).
    ``focusable``: whether keys go to it (the replay's only window) or to an input line."""

    def __init__(self, draw: Callable[[int, int], StyleAndTextTuples],
                 focusable: bool = False) -> None:
        self.draw = draw
        self.focusable = focusable

    def create_content(self, width: int, height: int | None) -> UIContent:
        lines = list(split_lines(self.draw(width, height or 24)))
        return UIContent(get_line=lambda i: lines[i], line_count=len(lines))

    def is_focusable(self) -> bool:
        return self.focusable


class _DecisionCompleter(Completer):
    def __init__(self, model: TableModel) -> None:
        self.model = model

    def get_completions(self, document: Document, complete_event: CompleteEvent
                        ) -> Any:
        typed = document.text_before_cursor
        start = -len(typed)
        for text, meta in self.model.completions(typed):
            yield Completion(text, start_position=start, display_meta=meta)


class TableApp:
    """The running client: a prompt_toolkit Application fed by a connection thread."""

    def __init__(self, conn: Connection, *, color: bool | None = None,
                 on_notice: Callable[[Notice, Connection], None] | None = None) -> None:
        self.conn = conn
        self.color = render.use_color() if color is None else color
        self.model = TableModel(address=conn.address, spectator=conn.role == "spectator",
                                insecure=conn.insecure)
        self.extra_notice = on_notice  # called in the connection's thread (token saving)
        self._inbox: queue.Queue[tuple[Notice, Snapshot]] = queue.Queue()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.runner = ConnectionThread(conn, on_notice=self._notice)
        self.app = self._build()

    # -- the connection's side (its thread) -----------------------------------------------------

    def _notice(self, notice: Notice) -> None:
        if self.extra_notice is not None:
            self.extra_notice(notice, self.conn)
        self._inbox.put((notice, take_snapshot(self.conn)))
        loop = self._loop
        if loop is not None:
            loop.call_soon_threadsafe(self._drain)

    def start(self, timeout: float = 10.0) -> Welcome:
        """Connect (raises HostError, ConnectTimeout)."""
        return self.runner.start(timeout)

    # -- the UI's side ---------------------------------------------------------------------------

    def _drain(self) -> None:
        changed = False
        while True:
            try:
                notice, snap = self._inbox.get_nowait()
            except queue.Empty:
                break
            changed = True
            for decision in self.model.on_notice(notice, snap):
                self._send(decision)
        if changed:
            self.app.invalidate()

    def _send(self, decision: Decision) -> None:
        future = self.runner.decide(decision)
        self._watch(future)

    def _watch(self, future: concurrent.futures.Future[int]) -> None:
        def done(f: concurrent.futures.Future[int]) -> None:
            error = f.exception()
            if error is not None and self._loop is not None:
                self._loop.call_soon_threadsafe(self._failed, error)
        future.add_done_callback(done)

    def _failed(self, error: BaseException) -> None:
        self.model.send_failed(error)
        self.app.invalidate()

    def _accept(self, buffer: Buffer) -> bool:
        action = self.model.interpret(buffer.text)
        if buffer.text.strip():
            self.model.help_open = False
        if isinstance(action, Send):
            self._send(self.model.sending(action))
        elif isinstance(action, Chat):
            self._watch(self.runner.chat(action.text))
            self.model.say("", error=False)
        elif isinstance(action, Say):
            self.model.say(action.text, error=action.error)
        elif isinstance(action, ShowHelp):
            self.model.help_open = True
        elif isinstance(action, Leave):
            self.app.exit(result=OVER if self.model.over else LEFT)
        self.app.invalidate()
        return False  # clear the line (it is in the history)

    def _build(self) -> Application[str]:
        model = self.model
        self.input = Buffer(multiline=False, completer=_DecisionCompleter(model),
                            complete_while_typing=False, history=InMemoryHistory(),
                            accept_handler=self._accept)
        screen = Window(ScreenControl(model.draw), wrap_lines=False)
        prompt = BeforeInput(lambda: [("class:input-prompt", model.prompt_text())])
        line = Window(BufferControl(buffer=self.input, input_processors=[prompt]), height=1)
        root = FloatContainer(
            content=HSplit([screen, line]),
            floats=[Float(xcursor=True, ycursor=True,
                          content=CompletionsMenu(max_height=10, scroll_offset=1))])
        kb = KeyBindings()

        @kb.add("c-c")
        def _(event: KeyPressEvent) -> None:
            event.app.exit(result=OVER if model.over else LEFT)

        @kb.add("c-d")
        def _(event: KeyPressEvent) -> None:
            if self.input.text:
                self.input.delete()
            else:
                event.app.exit(result=OVER if model.over else LEFT)

        @kb.add("f1")
        def _(event: KeyPressEvent) -> None:
            model.help_open = not model.help_open

        @kb.add("escape", eager=True)
        def _(event: KeyPressEvent) -> None:
            if model.help_open:
                model.help_open = False
            elif self.input.complete_state is not None:
                self.input.cancel_completion()

        @kb.add("pageup")
        def _(event: KeyPressEvent) -> None:
            model.log_back = min(model.log_back + 5, max(len(model.sentences) - 1, 0))

        @kb.add("pagedown")
        def _(event: KeyPressEvent) -> None:
            model.log_back = max(model.log_back - 5, 0)

        depth = ColorDepth.DEFAULT if self.color else ColorDepth.DEPTH_1_BIT
        return Application(layout=Layout(root, focused_element=line), key_bindings=kb,
                           style=render.make_style(self.color, TUI_STYLE_RULES), full_screen=True,
                           color_depth=depth, mouse_support=False)

    async def _tick(self) -> None:
        """Redraw once a second while a decision has a deadline (the countdown)."""
        while True:
            await asyncio.sleep(1.0)
            ready = self.model.ready
            if ready is not None and ready.deadline is not None:
                self.app.invalidate()

    def run(self) -> str:
        """Run the screen until the player leaves; returns LEFT or OVER. The connection
        must be started; it is stopped (bye) on the way out."""
        async def main() -> str:
            self._loop = asyncio.get_running_loop()
            self._drain()  # what arrived while connecting
            ticker = asyncio.ensure_future(self._tick())
            try:
                return await self.app.run_async()
            finally:
                ticker.cancel()
        try:
            return asyncio.run(main())
        finally:
            self._loop = None
            self.runner.stop()
