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
import contextlib
import queue
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
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

from mundus_net.cli_args import join_command
from mundus_net.client.background import ConnectionThread, record_crash
from mundus_net.client.connection import Connection
from mundus_net.client.core import ClientCore
from mundus_net.client.i18n import DEFAULT_LANGUAGE, N_, Translator, current, use
from mundus_net.client.notices import (
    REPLACED,
    STOPPED,
    TAKEN_OVER,
    Accepted,
    Closed,
    GameOver,
    Gone,
    Joined,
    Lost,
    Mismatch,
    Notice,
    PendingDecision,
    PrivateUpdate,
    Problem,
    PublicEvents,
    Refused,
    Rewound,
    Synced,
    Welcome,
    problem_sentence,
    rewind_sentence,
)
from mundus_net.client.tui import render
from mundus_net.client.tui.choices import (
    Choice,
    by_number,
    changes,
    choices_for,
    describe,
    keep_numbers,
    number_list,
    numbered,
    pass_decision,
)
from mundus_net.client.tui.choices import panel as choice_panel
from mundus_net.client.tui.helptext import (
    HELP,
    RoundReport,
    help_lines,
    round_report,
    round_summary,
    split_rounds,
)
from mundus_net.client.tui.refusals import refusal_reason
from mundus_net.client.tui.sentences import (
    PHASE_WORDS,
    Narrator,
    development_effect,
    seat_name,
    words,
)
from mundus_net.engine.decisions import (
    Decision,
    Offer,
)
from mundus_net.engine.deck import EVENT_NAMES
from mundus_net.engine.game import Result
from mundus_net.engine.notation import (
    DECISION_KINDS,
    NotationError,
    format_decision,
    parse_decision,
)
from mundus_net.engine.view import StateView

__all__ = [
    "COMMANDS_HELP", "CRASHED", "HELP_WORDS", "LEFT", "LOG_WORDS", "OVER", "PASS_WORDS",
    "PLAYERS_WORDS", "PROMPTS", "QUIT_WORDS", "REJOIN", "REQUEST_WORDS", "SAY_WORD", "SCREEN_HELP",
    "TUI_STYLE_RULES", "TYPED_WORDS", "Action", "Chat", "Leave", "Say", "ScreenControl", "Send",
    "ShowHelp", "Snapshot", "Status", "TableApp", "TableModel", "in_player_terms",
    "rewind_sentence", "take_snapshot", "typed_words"
]

LEFT = "left"
OVER = "over"
REJOIN = "rejoin"  # J after the table is gone: session.sit joins (or watches) the address again
CRASHED = "crashed"  # an unexpected error: its traceback is in TableApp.crash_log

COMMANDS_HELP = N_(
    "At the prompt: a number picks that choice (0 ends the progression turn); a decision in "
    "notation also works "
    "(take:5@2 takes cotton from seat 2, take:5@2:9 swaps it for the market's vanilla, "
    "offer:135, set:5:55R:q2, series:12345, end; docs/notation.md). Seats are counted from 0, "
    "as in the bots' names at `mundus play`. Tab completes the legal decisions. pass or end: "
    "pass or end the turn. say TEXT: chat with the table. log (F2): the whole log. players "
    "(F3): the last round's summary and everyone's developments. help (F1): this help. quit, "
    "Ctrl-D or Ctrl-C: leave the table; the seat is kept. PgUp/PgDn: more choices when "
    "they need several pages, else the log."
)

SCREEN_HELP = N_(
    "On the screen: * marks the queue cards your best identical set reaches now; "
    "{icons} mark a card's event icon. Queue card 1's icon is next round's event (R3.2); at the "
    "storage step the queue line names it (R6.9). When a round ends, its summary (doubloons "
    "gained and from what, doubloons now, developments taken) shows on the main screen until "
    "you type a key or answer; F3 shows it again."
)

REQUEST_WORDS = {"decide": N_("The host refused your decision: {reason}"),
                 "commit": N_("The host refused your sealed offer: {reason}"),
                 "reveal": N_("The host refused your offer's reveal: {reason}"),
                 "chat": N_("The host refused your chat line: {reason}")}

# Words that answer "no, nothing": passing, one fleet, storing nothing, ending the turn.
PASS_WORDS = ("pass", "none", "no", "end", "done")
QUIT_WORDS = ("quit", "exit", "leave", "bye")
HELP_WORDS = ("help", "?", "h")
LOG_WORDS = ("log", "history")
PLAYERS_WORDS = ("players", "table", "developments", "devs")
SAY_WORD = "say"
# The same words in the reader's language (the English ones work in every language): a
# message each, its words separated by "|" (docs/client.md, "Languages").
TYPED_WORDS = {
    # TRANSLATORS: words a player types to pass, separated by |, the first shown in the
    # completions (lower case).
    "pass": N_("pass|none|no|end|done"),
    # TRANSLATORS: words a player types to leave the table, separated by |.
    "quit": N_("quit|exit|leave|bye"),
    # TRANSLATORS: words a player types for help, separated by |.
    "help": N_("help|h"),
    # TRANSLATORS: words a player types to see the whole log, separated by |.
    "log": N_("log|history"),
    # TRANSLATORS: words a player types to see every player's table, separated by |.
    "players": N_("players|table|developments|devs"),
    # TRANSLATORS: the word before a chat line ("say hello"), one word.
    "say": N_("say"),
}


# The input line's prompt at each decision: the step's word (the notation's, in English).
PROMPTS = {
    "coronado": N_("coronado> "), "split": N_("split> "), "pick": N_("pick> "),
    "sergio": N_("sergio> "), "pirates": N_("pirates> "), "announce": N_("announce> "),
    "offer": N_("offer> "), "commit": N_("commit> "), "reveal": N_("reveal> "),
    "tm_tie": N_("tm_tie> "), "take": N_("take> "), "gift": N_("gift> "),
    "first": N_("first> "), "turn": N_("turn> "), "store": N_("store> "),
}


def typed_words(key: str, t: Translator | None = None) -> tuple[str, ...]:
    """The words of :data:`TYPED_WORDS` ``key`` in the reader's language, lower case."""
    text = (t or current())._(TYPED_WORDS[key])
    return tuple(w.strip().lower() for w in text.split("|") if w.strip())

# Extra style classes of this screen (beside render.STYLE_RULES): colour, and without.
TUI_STYLE_RULES: dict[str, tuple[str, str]] = {
    "number": ("bold ansigreen", "bold"),
    "choice-group": ("bold", "bold"),
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
    # prompt_toolkit's own scroll bar is drawn in 256-colour greys: the 16 basic colours here.
    "completion-menu": ("bg:ansiwhite ansiblack", ""),
    "scrollbar.background": ("bg:ansibrightblack ansiblack", ""),
    "scrollbar.button": ("bg:ansiwhite ansiblack", "reverse"),
    "scrollbar.arrow": ("ansiblack", ""),
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
    # Whether the game has begun (the public state's table.started): until then the screen
    # is the lobby (render.lobby), since nothing is dealt yet (docs/protocol.md, "Before the
    # game starts").
    started: bool = True
    table_name: str = ""
    options: dict[str, Any] | None = None  # the welcome's options (docs/protocol.md §4)
    # What this client witnessed of the public history: (events, digest hex), as the
    # record's chain says it (docs/security.md, "A host that goes back in time").
    witnessed: tuple[int, str] | None = None


def take_snapshot(core: ClientCore) -> Snapshot:
    """Call in the connection's thread: the core's view as a screen shows it
    (``ClientCore.view(for_screen=True)``) and what the screen says around it."""
    if core.deck is None:
        return Snapshot(None, None)
    table = core.state.get("table") or {}
    welcome = core.welcome
    names = tuple(str(n) for n in table.get("names") or
                  (welcome.names if welcome is not None else ()))
    connected = table.get("connected")
    bots = table.get("bots")
    options = table.get("options")
    if not isinstance(options, dict):
        options = dict(welcome.options) if welcome is not None else None
    return Snapshot(core.view(for_screen=True), core.ready, names,
                    tuple(bool(c) for c in connected) if connected is not None else None,
                    tuple(bool(b) for b in bots) if bots is not None else None,
                    core.connected, core.seat, core.result,
                    started=bool(table.get("started")),
                    table_name=str(table.get("name") or (welcome.name if welcome else "")),
                    options=options,
                    witnessed=None if core.witness is None else
                    (core.witness.count, core.witness.digest.hex()))


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
    """Open a full-screen page: "help", "log" or "players"."""

    page: str = "help"


@dataclass(frozen=True)
class Leave:
    pass


Action = Send | Chat | Say | ShowHelp | Leave


_BARE_WORDS = ("end", "pass", "perfect")
_ABOUT_YOU = re.compile(r"\b(?:you|your)\b")
_SEAT_WORDS = re.compile(r"\b(?:[Ss]eat) (\d+)('s)?")


def in_player_terms(text: str, names: Sequence[str], me: int | None) -> str:
    """A message of the engine or the host with its seat numbers put as players' names
    ("seat 0 has no such card on the table" -> "greedy 1 has no such card on the table")."""
    def name(m: re.Match[str]) -> str:
        seat = int(m.group(1))
        possessive = bool(m.group(2))
        if seat == me:
            return "yours" if possessive and m.end() == len(m.string) else \
                ("your" if possessive else "you")
        if not 0 <= seat < len(names) or not names[seat]:
            return m.group(0)
        return names[seat] + ("'s" if possessive else "")
    return _SEAT_WORDS.sub(name, text)


# -- the model ----------------------------------------------------------------------------------


@dataclass
class Status:
    text: str = ""
    style: str = "class:status"


@dataclass
class TableModel:
    """Everything the screen shows, and what typed lines mean. No terminal, no sockets."""

    address: str = ""
    invite: str | None = None  # the table's invite code, when this client knows it
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
    after_game: str | None = None  # logged when the game is over (mundus play: the review)
    help_open: bool = False
    overlay: str | None = None  # a full-screen page over the table: "log" or "players"
    overlay_page: int = 0  # pages back from the newest (log), or down from the top
    screen_rows: int = 24  # the height last drawn (a page of the overlays)
    last_summary: list[str] = field(default_factory=list)  # the last round's, for F3
    # The round that just ended, on the main screen until the player moves on (a key, an
    # answer); its lines in the log (from, to) are left out of the main screen meanwhile.
    round_end: RoundReport | None = None
    round_end_lines: tuple[int, int] = (0, 0)
    choice_page: int = 0  # the page of choices shown (PgDn/PgUp), when they need several
    choice_pages: int = 0
    over: bool = False
    ended: bool = False  # the game-over lines are in the log (once)
    gone: str | None = None  # the table is gone: Gone.why (REPLACED, STOPPED, OVER, TAKEN_OVER)
    # The host went back in time (docs/security.md): nothing is decided until the player
    # goes on (G) or leaves (Ctrl-D).
    rewound: Rewound | None = None
    narrator: Narrator = field(default_factory=lambda: Narrator([]))
    # The list of the question shown (its id, phase and round): a number keeps its meaning
    # while the question stands.
    _choices: tuple[int, str, int, list[Choice]] | None = field(default=None, repr=False)
    changed: str = ""  # how the list changed since the last question of this turn
    # The lobby's commands, worked out once (cli_args looks for the program on PATH).
    _commands: dict[tuple[str, str | None, bool], str] = field(default_factory=dict,
                                                               repr=False)

    # -- reading ------------------------------------------------------------------------------

    @property
    def ready(self) -> PendingDecision | None:
        """This seat's decision if it is asked now and not answered from here yet."""
        ready = self.snap.ready
        if ready is None or ready.id == self.sent_for or self.over:
            return None
        return ready

    def choices(self) -> list[Choice]:
        """The numbered choices of the question asked now: made once per question, so that a
        number picks the same thing until the question is answered."""
        ready, view = self.ready, self.snap.view
        if ready is None or view is None:
            return []
        cached = self._choices
        if cached is not None and cached[0] == ready.id:
            return cached[3]
        listed = choices_for(view, view.pending, ready.legal, self.snap.names)
        if view.hand is None:  # the seat's own cards are not in yet: no list to keep
            return listed
        same_turn = cached is not None and ready.phase == cached[1] == "turn" and \
            view.round == cached[2]
        self.changed = ""
        if cached is not None and same_turn:  # numbers keep their meaning across the turn
            listed = keep_numbers(cached[3], listed)
            self.changed = changes(cached[3], listed)
        self._choices = (ready.id, ready.phase, view.round, listed)
        return listed

    def prompt_text(self) -> str:
        ready = self.ready
        if ready is not None:
            return current()._(PROMPTS[ready.phase]) if ready.phase in PROMPTS \
                else f"{ready.phase}> "
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
        if self.round_end is not None and snap.view is not None and any(snap.view.faceup):
            self.move_on()  # the take step needs the players table (render.screen)
        ready = self.ready
        if ready is not None and ready.id != self.asked:
            self.asked = ready.id  # a new question: what was said about the last one is old
            self.status = Status()
            self.choice_page = 0
        over = False  # the game's end among this notice's public events
        if isinstance(notice, PublicEvents):
            for event, mine in notice.as_seen():
                over = over or event.get("kind") == "game_over"
                self._public(event)
                if mine is not None:  # this seat's own version, in its place
                    self._private(mine)
            if self.greeting:  # after the story so far, so that it is the latest line
                self.log(self.greeting)
                self.say(self.greeting)
                self.greeting = None
        elif isinstance(notice, PrivateUpdate):
            for event in notice.events:
                self._private(event)
        elif isinstance(notice, Joined):
            self._joined(notice)
        elif isinstance(notice, Refused):
            self._refused(notice)
        elif isinstance(notice, Lost):
            self.say(current()._("Connection lost: reconnecting by itself…"), error=True)
            self.log(current()._("Connection lost ({reason}); reconnecting").format(
                reason=notice.reason))
        elif isinstance(notice, Gone):
            self._gone(notice)
        elif isinstance(notice, Rewound):
            self._rewound(notice)
        elif isinstance(notice, Mismatch):
            self.log(current()._("WARNING: round {number}, {seat}'s offer: {reason}").format(
                number=notice.round, seat=seat_name(snap.names, notice.seat),
                reason=notice.reason))
        elif isinstance(notice, Problem):  # core marks its fixed sentences N_: worded here
            self.log(problem_sentence(notice))
        elif isinstance(notice, (Accepted, Synced, Closed)):
            pass
        if not self.ended and (over or isinstance(notice, GameOver)):
            # With the events that end the game (their snapshot holds the final standings):
            # drawn with them, not a frame before the GameOver notice that follows.
            self._game_over(snap)
        return self._continue_plan()

    def _game_over(self, snap: Snapshot) -> None:
        """The game is over: said once, the witnessed chain and then ``after_game`` the log's
        last lines (render.screen gives the log the rows the table had)."""
        self.ended = self.over = True
        self.plan = []
        self.say(current()._("The game is over: press Enter (or Ctrl-D) to leave."),
                 error=False)
        if snap.witnessed is not None:
            count, digest = snap.witnessed
            self.log(current()._(
                "Your client saw {count} public events of this game, chain digest "
                "{digest}: `mundus verify` on the game's record shows the host's, which "
                "must be the same.").format(count=count, digest=digest[:16]))
        if self.after_game:  # the last line of the log: mundus play's review command
            self.log(self.after_game)

    def _public(self, event: dict[str, Any]) -> None:
        self.events.append(event)
        me = self.snap.seat
        kind = event.get("kind")
        # These come again, with their cards, among this seat's private events.
        if me is not None and kind in ("gift", "store", "unstore") and \
                me in (event.get("seat"), event.get("to")):
            return
        if kind == "game_over":
            return  # the result is the screen's last line (one game-over line, not two)
        self.log(self.narrator(event))
        if kind == "round_end":
            rounds = split_rounds(self.events)
            if rounds:
                deck = self.snap.view.deck if self.snap.view is not None else None
                lines = round_summary(rounds[-1], self.snap.names, deck)
                self.last_summary = lines
                start = len(self.sentences)
                self.log(current()._("Summary of {round} (F3 shows it again)").format(
                    round=lines[0]))
                for line in lines[1:]:
                    self.log(f"  {line}")
                players = self.snap.view.players if self.snap.view is not None else 0
                self.round_end = round_report(rounds[-1], players or len(self.snap.names),
                                              deck)
                self.round_end_lines = (start, len(self.sentences))

    def _private(self, event: dict[str, Any]) -> None:
        if event.get("kind") != "offer":  # the reveal shows every offer at once
            self.log(self.narrator(event))

    def join_command(self, watch: bool = False) -> str:
        """The command that joins (or watches) this table, as the lobby shows it: runnable
        as shown, with the invite code when this client knows it (cli_args.join_command);
        the join command ends in ``--name NAME``, a placeholder the person replaces, so that
        a second player at this computer does not come back as whoever sat last."""
        key = (self.address, self.invite, watch)
        if key not in self._commands:
            name = None if watch else current()._("NAME")  # what the person types instead
            self._commands[key] = join_command(self.address, self.invite, watch=watch,
                                               name=name, insecure=self.insecure) \
                if self.address else ""
        return self._commands[key]

    def _joined(self, notice: Joined) -> None:
        t = current()
        w = notice.welcome
        if w.invite is not None:
            self.invite = w.invite  # the host tells it to a seated player
        if notice.resumed:
            self.say(t._("Reconnected: back at the table."), error=False)
            self.log(t._("Reconnected to the table"))
            return
        if w.seat is None:
            self.log(t._('Watching "{table}" at {address} as a spectator').format(
                table=w.name, address=self.address))
        elif w.names:
            self.log(t._('You sit at "{table}" ({address}) in seat {number}, as {name}').format(
                table=w.name, address=self.address, number=w.seat,
                name=seat_name(w.names, w.seat)))
        else:
            self.log(t._('You sit at "{table}" ({address}) in seat {number}, as a player')
                     .format(table=w.name, address=self.address, number=w.seat))

    def _gone(self, notice: Gone) -> None:
        """The table is gone for good: say what happened and what can be done (J, below)."""
        t = current()
        self.gone = notice.why
        self.plan = []
        self.sent_for = None
        if notice.why == REPLACED:
            if self.spectator:
                self.log(t._("The host at {address} now runs a new game: the game you watched "
                             "is gone. Press J to watch the new game, or Ctrl-D to leave.")
                         .format(address=self.address))
                self.say(t._("A new game runs here: J to watch it · Ctrl-D leaves"), error=True)
            else:
                self.log(t._("The host at {address} now runs a new game: your seat in the old "
                             "one is gone. Press J to join the new table, or Ctrl-D to leave.")
                         .format(address=self.address))
                self.say(t._("A new game runs here: J to join it · Ctrl-D leaves"), error=True)
        elif notice.why == TAKEN_OVER:
            self.log(t._("Your seat was taken over: another terminal or computer sits in it now "
                         "with your seat's token, and this one has stopped. Press Ctrl-D to "
                         "leave; the way to take it back, or to watch, is printed then."))
            self.say(t._("Your seat was taken over from elsewhere · Ctrl-D leaves"), error=True)
        elif notice.why == STOPPED:
            self.log(t._("The host at {address} stopped and did not come back ({detail}): the "
                         "table is gone. Press J to try again, or Ctrl-D to leave.").format(
                address=self.address, detail=notice.detail))
            self.say(t._("The table is gone: J tries again · Ctrl-D leaves"), error=True)
        else:
            self.over = True
            self.log(t._("The game is over and its host has stopped."))
            self.say(t._("The game is over: press Enter (or Ctrl-D) to leave."), error=False)

    def _rewound(self, notice: Rewound) -> None:
        """The host came back at an earlier point than this client saw (or with another
        history): said plainly, with the choice."""
        self.rewound = notice
        self.plan = []
        self.sent_for = None
        t = current()
        if self.spectator:
            advice = t._("Press G to go on with the host's game, or Ctrl-D to leave.")
        else:
            advice = t._("Press G to go on with the host's game (your client says so at the "
                         "table), or Ctrl-D to leave.")
        self.log(t._("WARNING: {what}. The host may have lost part of the game, or may be "
                     "cheating: it may have seen offers revealed after that point. {advice}")
                 .format(what=rewind_sentence(notice), advice=advice))
        self.say(t._("The host went back in time: G goes on (said at the table) · Ctrl-D "
                     "leaves"), error=True)

    def went_on(self) -> None:
        """The player chose to go on after a rewind."""
        self.rewound = None
        self.log(current()._("You go on with the host's game; your client told the table what "
                             "it saw."))
        self.say("", error=False)

    def _refused(self, notice: Refused) -> None:
        if notice.request in ("decide", "commit", "reveal"):
            self.sent_for = None
            self.plan = []
        t = current()
        if notice.code == "stale":
            self.say(t._("That answer came too late for its decision; look again."), error=True)
            return
        # Worded here from the code and rule ID (the host's message is English, for its log).
        reason = refusal_reason(notice.code, notice.rule, notice.message, in_player_terms(
            notice.message, self.snap.names, self.snap.seat), t, notice.request)
        self.say(t._("Refused: {reason}").format(reason=reason), error=True)
        what = REQUEST_WORDS.get(notice.request or "",
                                 N_("The host refused your message: {reason}"))
        self.log(t._(what).format(reason=reason))

    def _continue_plan(self) -> list[Decision]:
        ready = self.ready
        if not self.plan or ready is None or ready.id == self.plan_after:
            return []
        nxt = self.plan.pop(0)
        if nxt not in ready.legal:
            self.plan = []
            self.say(current()._("{decision} is no longer possible; choose again.").format(
                decision=format_decision(nxt)))
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
        t = current()
        text = line.strip()
        word = text.lower()
        if not text:
            return Leave() if self.over else None
        if word in HELP_WORDS or word in typed_words("help", t):
            return ShowHelp()
        if word in LOG_WORDS or word in typed_words("log", t):
            return ShowHelp("log")
        if word in PLAYERS_WORDS or word in typed_words("players", t):
            return ShowHelp("players")
        if word in QUIT_WORDS or word in typed_words("quit", t):
            return Leave()
        for say in dict.fromkeys((SAY_WORD, *typed_words("say", t))):
            if word == say or word.startswith(say + " "):
                said = text[len(say):].strip()
                if not said:
                    return Say(t._("say what? Write: say TEXT"))
                if self.spectator:
                    return Say(t._("spectators cannot chat (the protocol gives them no token)"))
                return Chat(said[:200])
        ready = self.ready
        if self.over:
            return Say(t._("The game is over: press Enter to leave."))
        if ready is None:
            if self.sent_for is not None:
                return Say(t._("Your answer is on its way; wait for the host."))
            who, _ = render.waiting_text(self.snap.view, self.snap.names) \
                if self.snap.view is not None else (t._("connecting"), False)
            return Say(t._("Nothing to decide now ({situation}).").format(situation=who))
        choices = self.choices()
        if text.isdigit():
            chosen = by_number(choices, int(text))
            if chosen is not None:
                return Send(chosen.decisions)
            return Say(t._("Choose {numbers}, or type a decision (Tab completes).").format(
                numbers=self._numbers(choices)))
        if word in PASS_WORDS or word in typed_words("pass", t):
            d = pass_decision(ready.legal)
            if d is None:
                return Say(t._("You cannot pass now: {what}.").format(
                    what=words(PHASE_WORDS.get(ready.phase, ready.phase), t)))
            return Send((d,))
        named = self._named_choice(text, choices)
        if named is not None:
            return Send(named.decisions)
        return self._typed_decision(text, ready)

    @staticmethod
    def _named_choice(text: str, choices: Sequence[Choice]) -> Choice | None:
        """The one choice whose words (in the reader's language) are ``text``, ignoring
        case: a choice picked by its words ("keep it" needs its group: "cotton from Bo:
        keep it")."""
        wanted = text.casefold()
        found = [c for c in choices if c.words.casefold() == wanted]
        return found[0] if len(found) == 1 else None

    @staticmethod
    def _numbers(choices: Sequence[Choice]) -> str:
        """The numbers that pick: "1-7", "0-7", or "0, 4, 6-8" later in a turn."""
        return number_list(sorted(n for n, _ in numbered(choices))) or "1"

    def _typed_decision(self, text: str, ready: PendingDecision) -> Action:
        try:
            seat, decision = parse_decision(text)
        except NotationError as exc:
            t = current()
            kind = text.split(":", 1)[0].split(".")[-1].strip().lower()
            if kind not in DECISION_KINDS and kind not in _BARE_WORDS:
                shown = self._numbers(self.choices())
                help_word = typed_words("help", t)[0]
                if pass_decision(ready.legal) is None:  # the hint names what is accepted
                    return Say(t._("“{typed}” is not something you can do here: type a "
                                   "number {numbers}, {help_word}, or press Tab for every "
                                   "legal move.").format(
                        typed=text[:30], numbers=shown, help_word=help_word))
                return Say(t._("“{typed}” is not something you can do here: type a number "
                               "{numbers}, {pass_word}, {help_word}, or press Tab for every "
                               "legal move.").format(
                    typed=text[:30], numbers=shown, pass_word=typed_words("pass", t)[0],
                    help_word=help_word))
            # The notation's own message is English: another language says what was typed.
            problem = in_player_terms(str(exc), self.snap.names, self.snap.seat) \
                if t.language == "en" else \
                t._("“{typed}” cannot be read as a decision in the notation").format(
                    typed=text[:30])
            return Say(t._("{problem} (Tab lists the legal moves; help explains)").format(
                problem=problem))
        t = current()
        if seat is not None and seat != self.snap.seat:
            return Say(t._("You are seat {number} ({name} is seat {other}): leave out the seat "
                           "prefix.").format(number=self.snap.seat,
                                             name=seat_name(self.snap.names, seat), other=seat))
        if decision in ready.legal:
            return Send((decision,))
        if isinstance(decision, Offer):
            # A sealed offer is only checked at its reveal, where a bad one is a violation
            # and the default offer is played: offers are checked here, against the full list.
            return Say(t._("{decision} is not an offer you can make (cards of your hand, as "
                           "many as asked; Tab lists them).").format(
                decision=format_decision(decision)))
        kinds = {type(d) for d in ready.legal}
        if type(decision) not in kinds:
            asked = words(PHASE_WORDS.get(ready.phase, ready.phase), t)
            return Say(t._("{decision} does not answer this decision: the table asks you to "
                           "{what} (Tab completes).").format(decision=format_decision(decision),
                                                             what=asked))
        # Of the right kind but not among the listed choices: the engine judges it.
        return Send((decision,),
                    note=t._("not among the listed choices: the host will judge it"))

    def sending(self, action: Send) -> Decision:
        """Mark ``action`` as sent; returns the first decision (the rest follow one by one,
        each when the host asks again)."""
        ready = self.ready
        assert ready is not None
        first, *rest = action.decisions
        self.move_on()
        self.sent_for = ready.id
        self.plan = list(rest)
        self.plan_after = ready.id
        t = current()
        sent = format_decision(first)
        if action.note:
            text = t._("Sent {decision} ({note})").format(decision=sent, note=action.note)
        else:
            text = t._("Sent {decision}").format(decision=sent)
        if rest:
            text = t._("{sent}; the rest follows").format(sent=text)
        self.say(text, error=False)
        return first

    def move_on(self) -> None:
        """The player moved on (a key, an answer): the round's summary leaves the main
        screen (F3 shows it again) and the players table comes back."""
        self.round_end = None

    def send_failed(self, error: BaseException) -> None:
        self.sent_for = None
        self.plan = []
        self.say(current()._("Not sent: {error}").format(error=error), error=True)

    # -- completion ---------------------------------------------------------------------------

    def completions(self, typed: str) -> list[tuple[str, str]]:
        """(completion, meta) for what is typed so far: the legal decisions in notation, the
        pass/end words that apply, and the commands."""
        t = current()
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
            passing = pass_decision(ready.legal)
            if passing is not None:
                offered = {text for text, _ in found}
                for word in dict.fromkeys(("pass", "end", typed_words("pass", t)[0])):
                    if word.startswith(typed.lower()) and word not in offered:
                        offered.add(word)
                        found.append((word, describe(passing, view, names)))
            if typed and not found:  # a choice by its words: a card's name, "keep it"
                wanted = typed.casefold()
                for choice in self.choices():
                    if choice.words.casefold().startswith(wanted):
                        found.append((choice.words, choice.text))
        commands: tuple[tuple[str, str], ...] = (
            ("help", t._("help for this step")), ("say ", t._("chat with the table")),
            ("quit", t._("leave the table (the seat is kept)")))
        if t.language != DEFAULT_LANGUAGE:
            commands += ((typed_words("help", t)[0], t._("help for this step")),
                         (typed_words("say", t)[0] + " ", t._("chat with the table")),
                         (typed_words("quit", t)[0], t._("leave the table (the seat is kept)")))
        for word, meta in dict.fromkeys(commands):
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
        t = current()
        lines += render.wrap_text(t._(COMMANDS_HELP), width)
        lines.append("")
        icons = t._(", ").join(f"[{code}] {t.event(code)}" for code in EVENT_NAMES)
        lines += render.wrap_text(t._(SCREEN_HELP).format(icons=icons), width)
        return lines

    def draw(self, width: int, height: int) -> StyleAndTextTuples:
        """The whole screen above the input line."""
        view = self.snap.view
        status = self.status_line(width)
        status_rows = list(split_lines(status))
        status_h = len(status_rows)
        if height <= status_h:  # only room for the newest lines of the status
            status = []
            for shown in status_rows[max(len(status_rows) - height, 0):] if height > 0 else []:
                status += [("", "\n"), *shown] if status else shown
            return status
        if view is None:
            body: StyleAndTextTuples = [("class:dim", current()._("Connecting to {address}…")
                                         .format(address=self.address))]
            return [*body, *[("", "\n")] * (height - 2), ("", "\n"), *status]
        self.screen_rows = height
        lobby = not self.snap.started  # nothing is dealt yet: the seats, and how to join
        if self.help_open or (self.overlay and not (lobby and self.overlay == "players")):
            return [*self._overlay_screen(width, height - status_h), ("", "\n"), *status]
        if lobby:
            if not self.status.text:
                t = current()
                hint = t._("Spectating · F1 help · F2 log · Ctrl-D leaves") if self.spectator \
                    else t._("say TEXT chats · F1 help · F2 log · Ctrl-D leaves")
                status = [("class:status", render.cut(hint, width))]
                if self.insecure:  # on every screen: nothing on this table is secret
                    insecure = t._("INSECURE")
                    status = [("class:warning", render.cut(insecure, width))]
                    if width >= 28:
                        status += [("class:dim", t._(" (not encrypted) · ")),
                                   ("class:status", render.cut(
                                       hint, width - sum(get_cwidth(f[1]) for f in status)))]
            snap = self.snap
            shown = render.lobby(snap.table_name, snap.names, width, height - 1,
                                 players=view.players or len(snap.names), me=snap.seat,
                                 connected=snap.connected, bots=snap.bots,
                                 options=snap.options, join=self.join_command(),
                                 watch=self.join_command(watch=True), sentences=self.sentences)
            lines = render.split_rows(shown)
            lines += [[("", "")]] * (height - 1 - len(lines))
            waiting: StyleAndTextTuples = []
            for line in lines:
                waiting.extend(line)
                waiting.append(("", "\n"))
            return [*waiting, *status]
        if width < render.SMALLEST[0] or height + 1 < render.SMALLEST[1]:
            # (the input line takes the terminal's last row): no table cut to pieces
            rows = render.split_rows(render.too_small(width, height + 1))[:height - status_h]
            rows += [[("", "")]] * (height - status_h - len(rows))
            small: StyleAndTextTuples = []
            for line in rows:
                small += [*line, ("", "\n")]
            return [*small, *status]
        panel, brief = self._choice_panel(width, height)
        top_h = height - status_h - len(panel)
        ready = self.ready
        sentences: Sequence[str] = self.sentences
        summary = None
        if self.round_end is not None:
            summary = render.round_end(self.round_end, self.snap.names, width, self.snap.seat)
            start, end = self.round_end_lines
            sentences = [*self.sentences[:start], *self.sentences[end:]]
        top = render.screen(view, self.snap.names, width, top_h, sentences=sentences,
                            connected=self.snap.connected, bots=self.snap.bots,
                            legal=list(ready.legal) if ready is not None else None,
                            summary=summary, brief=brief)
        rows = render.split_rows(top)
        rows += [[("", "")]] * (top_h - len(rows))  # keep the panel at the bottom
        out: StyleAndTextTuples = []
        for row in [*rows, *panel]:
            out.extend(row)
            out.append(("", "\n"))
        out.extend(status)
        return out

    def status_line(self, width: int) -> StyleAndTextTuples:
        """The status: a message in full (wrapped when long), else news and key hints, as
        many whole ones as fit in a line (nothing cut inside)."""
        t = current()
        text, style = self.status.text, self.status.style
        ready = self.ready
        pieces = [text] if text else []
        keep = len(pieces)  # how many pieces are always shown (wrapped if they must)
        if not text:
            style = "class:status"
            news = self.news_items() if ready is not None else []
            if news:
                style = "class:status-ok"
                pieces = [*news, t._("F1 help"), t._("F2 log"), t._("F3 players")]
                keep = 1  # the newest news
            elif self.spectator:
                pieces = [t._("Spectating"), t._("help or F1: help"), t._("F2 log"),
                          t._("F3 players"), t._("Ctrl-D leaves")]
            else:
                pieces = [t._("Tab completes"), t._("a number picks"), t._("say TEXT chats"),
                          t._("F1 help"), t._("Ctrl-D leaves")]
        if ready is not None and ready.deadline is not None:
            left = max(0, int(ready.deadline - time.monotonic()))
            pieces.insert(0, t._("{seconds} s left").format(seconds=left))
            keep += 1
        insecure, not_encrypted = t._("INSECURE"), t._(" (not encrypted)")
        if self.insecure:  # on every screen: nothing on this table is secret
            if width < 28:
                return [("class:warning", render.cut(insecure, width))]
            pieces.insert(0, insecure + not_encrypted)
            keep += 1
        out: StyleAndTextTuples = []
        for i, line in enumerate(render.fit_pieces(pieces, width, keep)):
            if i:
                out.append(("", "\n"))
            if self.insecure and i == 0 and line.startswith(insecure + not_encrypted):
                head = len(insecure) + len(not_encrypted) + 3  # and the " · " after it
                out += [("class:warning", insecure),
                        ("class:dim", line[len(insecure):head])]
                line = line[head:]
            out.append((style, line))
        return out

    def news_items(self) -> list[str]:
        """What others did to this seat since its own last move ("greedy 1 took relic from
        you"), newest first, so that it stays readable however fast the log moves."""
        news: list[str] = []
        for text in reversed(self.sentences[-40:]):
            if text.startswith(self._own_starts()):
                break
            if self._about_you(text) and not text.startswith("<"):
                news.append(text)
        return news[:2]

    @staticmethod
    def _about_you(text: str) -> bool:
        """Does a sentence of the log speak of the reader ("took relic from you")?"""
        if _ABOUT_YOU.search(text):
            return True
        t = current()
        if t.language == DEFAULT_LANGUAGE:
            return False
        # TRANSLATORS: the words that show a sentence of the log speaks of the reader
        # ("from you"), separated by |, as they appear inside the log's sentences.
        found = t._("you|your")
        return any(word and word in text for word in found.split("|"))

    @staticmethod
    def _own_starts() -> tuple[str, ...]:
        """How the log's sentences about this seat's own moves, a round's summary and a
        round's start begin (the news stop there), in English and the reader's language."""
        t = current()
        starts = ("You ", "Summary of ", "Round ")
        # TRANSLATORS: how the log's sentences about the reader's own moves begin ("You
        # took ..."), then a round's summary and a round's start, separated by |.
        own = t._("You |Summary of |Round ")
        return tuple(dict.fromkeys((*starts, *(s for s in own.split("|") if s))))

    def open_overlay(self, name: str | None) -> None:
        """Show "help", "log" or "players" over the table (None, or the same again: close)."""
        current = "help" if self.help_open else self.overlay
        name = None if name == current else name
        self.help_open = name == "help"
        self.overlay = name if name in ("log", "players") else None
        self.overlay_page = 0

    def page(self, step: int) -> None:
        """PgDn (+1) / PgUp (-1): the open page, else the choices when they need several
        pages, else the whole log (PgUp opens it)."""
        if self.help_open or self.overlay:
            self.overlay_page += -step if self.overlay == "log" else step
            self.overlay_page = max(0, self.overlay_page)
        elif self.choice_pages > 1:
            self.choice_page = max(0, min(self.choice_page + step, self.choice_pages - 1))
        elif step < 0:
            self.open_overlay("log")

    def overlay_lines(self, width: int) -> tuple[str, list[render.Line]]:
        """The title and every line of the open page."""
        if self.overlay == "log":
            lines: list[render.Line] = []
            for text in self.sentences:
                style = "class:chat" if text.startswith("<") else "class:log"
                for i, part in enumerate(render.wrap_text(text, width - 2) or [""]):
                    lines.append([(style, part if i == 0 else "  " + part)])
            return current()._("The whole log, newest last (F2 or Esc closes)"), lines
        if self.overlay == "players":
            return (current()._("Every player's table (F3 or Esc closes)"),
                    self._players_lines(width))
        return current()._("Help (F1 or Esc closes)"), [[("", line)]
                                                        for line in self.help_lines(width)]

    def _players_lines(self, width: int) -> list[render.Line]:
        view = self.snap.view
        if view is None:
            return []
        t = current()
        names = self.snap.names
        lines: list[render.Line] = []
        if self.last_summary:  # wrapped, each line under its first words
            lines += render.wrap_line([("class:title", t._("Summary of {round}").format(
                round=self.last_summary[0]))], width, indent=2)
            for line in self.last_summary[1:]:
                lines += render.wrap_line([("", "  " + line)], width, indent=4)
            lines.append([])
        for seat in range(view.players):
            who = seat_name(names, seat) + (t._(" (you)") if seat == view.seat else "")
            facts = [t.ngettext("{count} doubloon", "{count} doubloons",
                                view.doubloons[seat]).format(count=view.doubloons[seat]),
                     t.ngettext("{count} card in hand", "{count} cards in hand",
                                view.hand_sizes[seat]).format(count=view.hand_sizes[seat])]
            if view.stored_sizes[seat]:
                facts.append(t._("{count} stored").format(count=view.stored_sizes[seat]))
            fleet = render.fleet_text(view, seat)
            if fleet and fleet != "-":
                facts.append(t._("fleet {caravels}").format(caravels=fleet))
            if seat == view.trade_master:
                facts.append(t.term("Trade Master"))
            lines += render.wrap_line([("class:title", who),
                                       ("", ": " + t._(", ").join(facts))],
                                      width, indent=4)
            devs = list(view.developments[seat])
            if not devs:
                lines.append([("class:dim", "    " + t._("no developments yet"))])
            for card_id in devs:
                card = view.deck.by_id.get(card_id)
                name = t.card(card) if card is not None else card_id
                effect = development_effect(card) if card is not None else ""
                lines += render.wrap_line([("", "    " + name),
                                           ("class:dim", f"  {effect}" if effect else "")],
                                          width, indent=6)
        return lines

    def _overlay_screen(self, width: int, height: int) -> StyleAndTextTuples:
        title, lines = self.overlay_lines(max(width - 2, 20))
        room = max(height - 2, 1)
        pages = max(1, -(-len(lines) // room))
        self.overlay_page = min(self.overlay_page, pages - 1)
        if self.overlay == "log":  # page 0 is the newest
            end = len(lines) - self.overlay_page * room
            shown = lines[max(0, end - room):end]
        else:
            shown = lines[self.overlay_page * room:(self.overlay_page + 1) * room]
        page = self.overlay_page + 1 if self.overlay != "log" else pages - self.overlay_page
        t = current()
        head = t._("{title} · page {page} of {pages}").format(
            title=title, page=page, pages=pages) if pages > 1 else title
        out: StyleAndTextTuples = [("class:help-title", render.cut(head, width))]
        for line in shown:
            out += [("", "\n"), ("", " "), *line]
        out += [("", "\n")] * (room - len(shown))
        keys = t._("PgUp/PgDn: pages · ") if pages > 1 else ""
        out += [("", "\n"), ("class:dim", render.cut(
            keys + t._("Esc closes · F1 help · F2 log · F3 players"), width))]
        return out

    def _choice_panel(self, width: int, height: int) -> tuple[list[render.Line], bool]:
        """The numbered choices in words, grouped; a page at a time when they do not fit;
        and whether the table above is drawn brief for them (``render.screen``)."""
        choices = self.choices()
        ready = self.ready
        if not choices or ready is None:
            self.choice_pages = 0
            return [], False
        # Room for the choices: what the table above can spare (about 14 rows at 80x24 for
        # the header, players, hand and the question) and the latest moves of the log, at
        # least 5 rows.
        view = self.snap.view
        table = 14 if view is None else render.rows_besides_log(
            view, self.snap.names, width, self.snap.connected, self.snap.bots,
            list(ready.legal))
        room = max(5, min(len(choices) + 8, height - 1 - table - render.MOVES_SHOWN))
        t = current()
        if ready.phase == "turn":
            head = t._("Suggestions ({count} of {legal} legal):").format(
                count=len(choices), legal=len(ready.legal))
        else:
            head = t._("Choices ({count}):").format(count=len(choices))
        shown = choice_panel(choices, head, width, room, self.choice_page, self.changed)
        brief = False
        if shown.pages > 1 and ready.phase == "turn" and view is not None:
            # The suggestions of a progression turn need pages: the question's title alone
            # (they are its choices), no empty stored line, and the log's newest row only
            # (the others wait for this turn), so that a page holds several groups.
            table = render.rows_besides_log(view, self.snap.names, width, self.snap.connected,
                                            self.snap.bots, list(ready.legal), brief=True)
            fuller = choice_panel(choices, head, width, max(room, height - 1 - table - 1),
                                  self.choice_page, self.changed)
            if fuller.pages < shown.pages:
                shown, brief = fuller, True
        self.choice_page, self.choice_pages = shown.page, shown.pages
        return shown.lines, brief


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

    gone: Gone | None = None  # the table is gone (the connection's Gone notice)
    crashed = False  # an unexpected error ended the client (its traceback in crash_log)
    crash_log: Path | None = None  # where it was written (None: it could not be)

    def __init__(self, conn: Connection, *, color: bool | None = None,
                 on_notice: Callable[[Notice, ClientCore], None] | None = None,
                 language: str | None = None) -> None:
        # The language every word of the screen is in (--lang, docs/client.md
        # "Languages"): one player per client, so the process's current one.
        self.translator = use(language) if language is not None else current()
        self.conn = conn
        self.color = render.use_color() if color is None else color
        self.model = TableModel(address=conn.address, invite=conn.core.invite,
                                spectator=conn.core.settings.role == "spectator",
                                insecure=conn.insecure)
        self.extra_notice = on_notice  # called in the connection's thread (token saving)
        self._inbox: queue.Queue[tuple[Notice, Snapshot]] = queue.Queue()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.runner = ConnectionThread(conn, on_notice=self.notice_arrived)
        self.app = self._build()

    # -- the connection's side (its thread) -----------------------------------------------------

    def notice_arrived(self, notice: Notice) -> None:
        if isinstance(notice, Gone):
            self.gone = notice
        if self.extra_notice is not None:
            self.extra_notice(notice, self.conn.core)
        self._inbox.put((notice, take_snapshot(self.conn.core)))
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the screen has ended (its loop closed)
                loop.call_soon_threadsafe(self._drain)

    def thread_failed(self, error: BaseException, log: Path | None) -> None:
        """The connection thread stopped on an unexpected error (written to ``log``)."""
        if not self.crashed:
            self.crashed, self.crash_log = True, log
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closing: run() tells
                loop.call_soon_threadsafe(self._exit, CRASHED)

    def start(self, timeout: float = 10.0) -> Welcome:
        """Connect (raises HostError, ConnectTimeout, ClientError)."""
        self.gone, self.crashed, self.crash_log = None, False, None
        self.runner.on_error = self.thread_failed
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
                self._send_decision(decision)
        if changed:
            self.app.invalidate()

    def _send_decision(self, decision: Decision) -> None:
        # The one decide path: the connection's thread runs Connection.decide, which sends
        # what ClientCore.decide made of it; a refusal comes back through _failed.
        self._watch(self.runner.submit(lambda conn: conn.decide(decision)))

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
        self.model.move_on()  # Enter, even on an empty line
        action = self.model.interpret(buffer.text)
        if buffer.text.strip():
            self.model.open_overlay(None)
        if isinstance(action, Send):
            self._send_decision(self.model.sending(action))
        elif isinstance(action, Chat):
            self._watch(self.runner.chat(action.text))
            self.model.say("", error=False)
        elif isinstance(action, Say):
            self.model.say(action.text, error=action.error)
        elif isinstance(action, ShowHelp):
            self.model.open_overlay(action.page)
        elif isinstance(action, Leave):
            self.app.exit(result=OVER if self.model.over else LEFT)
        self.app.invalidate()
        return False  # clear the line (it is in the history)

    def _input_scroll(self, window: Window) -> int:
        """The input line's horizontal scroll: prompt_toolkit keeps the one a long line
        needed after the line is cleared (the next prompt would show its end, ``ke>``);
        never scrolled further than the prompt, the text and the cursor need."""
        width = self.app.output.get_size().columns  # the input line is the screen's width
        needed = get_cwidth(self.model.prompt_text()) + get_cwidth(self.input.text) + 1
        return min(window.horizontal_scroll, max(0, needed - width))

    def _build(self) -> Application[str]:
        model = self.model
        self.input = Buffer(multiline=False, completer=_DecisionCompleter(model),
                            complete_while_typing=False, history=InMemoryHistory(),
                            accept_handler=self._accept)
        screen = Window(ScreenControl(model.draw), wrap_lines=False)
        prompt = BeforeInput(lambda: [("class:input-prompt", model.prompt_text())])
        line = Window(BufferControl(buffer=self.input, input_processors=[prompt]), height=1,
                      get_horizontal_scroll=self._input_scroll)
        self.input.on_text_changed += lambda _: model.move_on()  # a key moves on
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

        rejoin = Condition(lambda: model.gone in (REPLACED, STOPPED) and not self.input.text)
        rewound = Condition(lambda: model.rewound is not None and not self.input.text)

        @kb.add("g", filter=rewound)
        @kb.add("G", filter=rewound)
        def _(event: KeyPressEvent) -> None:
            self.runner.accept_rewind()  # the host went back: go on, and say so
            model.went_on()

        @kb.add("j", filter=rejoin)
        @kb.add("J", filter=rejoin)
        def _(event: KeyPressEvent) -> None:
            event.app.exit(result=REJOIN)  # the table is gone: session.sit joins again

        @kb.add("f1")
        def _(event: KeyPressEvent) -> None:
            model.open_overlay("help")

        @kb.add("f2")
        def _(event: KeyPressEvent) -> None:
            model.open_overlay("log")

        @kb.add("f3")
        def _(event: KeyPressEvent) -> None:
            model.open_overlay("players")

        @kb.add("escape", eager=True)
        def _(event: KeyPressEvent) -> None:
            if model.help_open or model.overlay:
                model.open_overlay(None)
            elif self.input.complete_state is not None:
                self.input.cancel_completion()
            else:
                model.move_on()

        @kb.add("pageup")
        def _(event: KeyPressEvent) -> None:
            model.page(-1)

        @kb.add("pagedown")
        def _(event: KeyPressEvent) -> None:
            model.page(+1)

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
        """Run the screen until the player leaves; returns LEFT, OVER, REJOIN (J after the
        table is gone) or CRASHED. The connection must be started; it is stopped (bye) on
        the way out. An unexpected error, in the screen or the connection's thread, ends
        the screen with CRASHED (the terminal restored), its traceback in
        :attr:`crash_log` (:func:`mundus_net.client.background.record_crash`), never on the
        terminal."""
        async def main() -> str:
            loop = asyncio.get_running_loop()
            self._loop = loop
            # Errors in callbacks (the notices, redraws, keys) come here, not to
            # prompt_toolkit's handler, which prints the traceback on the screen.
            loop.set_exception_handler(self._loop_error)
            self._drain()  # what arrived while connecting
            ticker = asyncio.ensure_future(self._tick())
            try:
                return await self.app.run_async(pre_run=self._exit_if_crashed,
                                                set_exception_handler=False)
            finally:
                ticker.cancel()
        outcome = CRASHED
        try:
            outcome = asyncio.run(main())
        except EOFError:  # the terminal went away
            outcome = LEFT
        except Exception as exc:
            self._record(exc)
        finally:
            self._loop = None
            self.runner.stop()
        return CRASHED if self.crashed else outcome

    def _record(self, error: BaseException) -> None:
        if not self.crashed:
            self.crashed = True
            self.crash_log = record_crash(error, "the table screen")

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if isinstance(error, Exception):
            self._record(error)
            self._exit(CRASHED)

    def _exit_if_crashed(self) -> None:
        if self.crashed:
            self._exit(CRASHED)

    def _exit(self, result: str) -> None:
        """End the screen with ``result``, unless it is ending already."""
        app = self.app
        if app.is_running and app.future is not None and not app.future.done():
            app.exit(result=result)
