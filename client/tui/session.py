"""Sitting at a table from the command line: what ``mundus play``, ``mundus join`` and
``mundus watch`` share. Connect (with the saved seat token, if any), run the full-screen
client, then say in plain text how the game ended or how to come back.

Whatever happens, a person reads sentences, never a traceback: a table that is gone (its
host stopped, or replaced by a new game) is said on the screen with what can be done (J joins
the new table: :data:`~mundus_net.client.tui.app.REJOIN`), and an unexpected error is
written to the crash log in the state folder, with one sentence saying where
(docs/client.md)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mundus_net.cli_args import join_command
from mundus_net.client.background import record_crash
from mundus_net.client.connection import Connection, ConnectTimeout, HostError
from mundus_net.client.core import ClientCore, ClientError, ClientSettings, OfferSecret
from mundus_net.client.i18n import DEFAULT_LANGUAGE, current, use
from mundus_net.client.known_hosts import KnownHosts, Trust, UntrustedHost, trust_host
from mundus_net.client.notices import (
    REPLACED,
    STOPPED,
    TAKEN_OVER,
    GameOver,
    Gone,
    Joined,
    Notice,
    Welcome,
)
from mundus_net.client.tokens import Holder, SavedSeat, TokenStore
from mundus_net.client.tui.refusals import refusal_reason
from mundus_net.client.tui.sentences import REASONS, seat_name, words
from mundus_net.client.witness import WitnessFile
from mundus_net.protocol.names import DEFAULT_NAME, clean_name
from mundus_net.protocol.security import fetch_key
from mundus_net.protocol.statedir import atomic_write, state_dir

if TYPE_CHECKING:
    from mundus_net.client.tui.app import TableApp

__all__ = [
    "CONNECT_TIMEOUT_S", "INVITE_CODES", "NAME_FILE", "NEW_PLAYER", "RECONNECT_FOR_S", "TAKE_OVER",
    "WATCH", "Seating", "default_name", "name_file", "needs_terminal", "save_name", "saved_name",
    "say_crashed", "say_how_to_come_back", "say_result", "seat_in_use", "sit"
]

CONNECT_TIMEOUT_S = 10.0
# How long a client reconnects to a silent host before it says the table is gone (a host
# resumed from its log within this time gets its players back by itself).
RECONNECT_FOR_S = 120.0

NAME_FILE = "name.txt"  # in the state folder: the name used at the last table


# -- the player's name ------------------------------------------------------------------------


def name_file() -> Path:
    return state_dir() / NAME_FILE


def saved_name() -> str | None:
    """The name used at the last table (None if there is none)."""
    try:
        name = clean_name(name_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return name or None


def save_name(name: str) -> None:
    """Remember ``name`` for the next table (quietly nothing if the folder is not
    writable)."""
    name = clean_name(name)
    if not name or name == saved_name():
        return
    try:
        name_file().parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        atomic_write(name_file(), name + "\n")
    except OSError:
        pass


def default_name(ask: Callable[[str], str] = input) -> str:
    """The name to sit with when none is given: the one used at the last table; else, asked
    once on the plain terminal (``ask``) and saved; :data:`DEFAULT_NAME` when the answer is
    empty or standard input is not a terminal (nothing is asked then)."""
    saved = saved_name()
    if saved is not None:
        return saved
    if not sys.stdin.isatty():
        return DEFAULT_NAME
    try:
        answer = ask(current()._("Your name at the table [{name}]: ").format(name=DEFAULT_NAME))
    except EOFError:  # Ctrl-D: the default
        print(flush=True)
        answer = ""
    name = clean_name(answer) or DEFAULT_NAME
    save_name(name)
    return name


# -- commands to type -------------------------------------------------------------------------


def needs_terminal(command: str) -> bool:
    """True (after saying so) when standard input or output is not a terminal."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        return False
    print(current()._("mundus {command}: the table screen needs a terminal (standard input and "
                      "output)").format(command=command), file=sys.stderr)
    return True


@dataclass
class Seating:
    """Where to sit and how to tell the player the way back."""

    address: str
    name: str
    spectator: bool = False
    store: TokenStore | None = None
    # Extra lines after "you left", e.g. that `mundus play`'s table runs on in the background.
    left_note: list[str] = field(default_factory=list)
    note: dict[str, Any] = field(default_factory=dict)  # kept with the token
    timeout: float = CONNECT_TIMEOUT_S
    # Encryption (docs/security.md): a pinned key, the key a LAN beacon offered, the
    # known-hosts file (trust on first use), or none at all with ``insecure``.
    host_key: str | None = None
    offered_key: str | None = None
    insecure: bool = False
    known_hosts: KnownHosts | None = None
    trust: Trust | None = None  # decided by sit()
    # Seconds of reconnecting to a silent host before the table counts as gone.
    give_up_after: float | None = RECONNECT_FOR_S
    # The table's invite code (--invite), or asked of the person when the host wants one.
    invite: str | None = None
    # Take the seat over if another program holds it (--take-over, or the person's choice).
    take_over: bool = False
    # Set by sit(): the game ended while this client was at the table.
    game_over: bool = False
    # The language the player reads (mundus_net.client.i18n.choose_language: --lang).
    language: str = DEFAULT_LANGUAGE
    # A line for the log when the game is over (mundus play: how to review the game).
    after_game: str | None = None


def _remember(s: Seating, core: ClientCore, secret: OfferSecret | None) -> None:
    """Keep the seat under the name its player sat with, held by this program."""
    if s.store is not None and not s.spectator and core.token is not None:
        s.store.save(s.address, core.token, game=core.game_id, seat=core.seat, name=s.name,
                     secret=secret, note=s.note, holder=Holder.this_program())


def _saver(s: Seating) -> Callable[[Notice, ClientCore], None]:
    """Keeps the token file up to date (called in the connection's thread)."""
    def save(notice: Notice, core: ClientCore) -> None:
        if isinstance(notice, Joined):
            _remember(s, core, core.secret)
        elif s.store is not None and not s.spectator and (
                isinstance(notice, GameOver)  # nothing to come back to
                or (isinstance(notice, Gone) and notice.why == REPLACED)):  # a dead token
            s.store.forget(s.address, s.name)
    return save


def _connection(s: Seating, saved: SavedSeat | None) -> Connection:
    key = s.trust.key if s.trust is not None else None
    settings = ClientSettings(s.name, "spectator" if s.spectator else "player",
                              contribute=not s.spectator, give_up_after=s.give_up_after,
                              invite=s.invite, take_over=s.take_over)
    conn = Connection(s.address, settings,
                      token=saved.token if saved is not None else None,
                      secret=saved.secret if saved is not None else None,
                      witnesses=WitnessFile(), server_key=key, insecure=key is None)
    # Saved before the commitment is sent: a restarted client can still reveal.
    core = conn.core
    core.on_secret = lambda secret: _remember(s, core, secret)
    return conn


def sit(s: Seating) -> int:
    """Join (or resume, or watch) and run the screen until the player leaves. Nothing
    unexpected reaches the terminal as a traceback: it goes to the crash log, and one
    sentence says where. Everything the client says from here is in the player's language."""
    use(s.language)
    try:
        return _sit(s)
    except Exception as exc:
        say_crashed(record_crash(exc, "the session"))
        return 1


def say_crashed(log: Path | None) -> None:
    t = current()
    where = t._("what happened is written to {log}").format(log=log) if log is not None else \
        t._("what happened could not be written to the crash log")
    print(t._("mundus: the client stopped on an unexpected error; {where} (please include it "
              "when you report the problem).").format(where=where), file=sys.stderr, flush=True)


def _sit(s: Seating) -> int:
    from mundus_net.client.tui.app import (  # prompt_toolkit is loaded only when a screen is wanted
        CRASHED,
        LEFT,
        REJOIN,
    )

    saved = s.store.get(s.address, s.name) if s.store is not None and not s.spectator \
        else None
    t = current()
    what = t._("Watching {address} …") if s.spectator else (
        t._("Coming back to {address} …") if saved else t._("Joining {address} …"))
    while True:
        try:
            s.trust = trust_host(s.address, pinned=s.host_key, offered=s.offered_key,
                                 insecure=s.insecure, store=s.known_hosts,
                                 fetch=lambda: fetch_key(s.address, min(s.timeout, 5.0)))
        except UntrustedHost as exc:
            print(f"mundus: {exc}", file=sys.stderr)
            return 1
        for line in s.trust.lines:
            print(line, flush=True)
        print(what.format(address=s.address), flush=True)
        joined = _join(s, saved)
        if isinstance(joined, int):
            return joined
        app, welcome, saved = joined
        if not s.spectator:
            save_name(s.name)  # the name to sit with next time (default_name)
        if saved is not None and s.take_over:
            app.model.greeting = t._("You took seat {number} over; the client that sat in it "
                                     "has stopped.").format(number=welcome.seat or 0)
        elif saved is not None:
            app.model.greeting = t._("Welcome back: seat {number} is yours again, as you "
                                     "left it.").format(number=welcome.seat or 0)
        app.model.after_game = s.after_game
        outcome = app.run()
        gone = app.gone
        if outcome == REJOIN:
            if gone is not None and gone.why == REPLACED:
                saved = None  # forgotten already (_saver): a new player at the new table
                what = t._("Watching the new game at {address} …") if s.spectator \
                    else t._("Joining the new table at {address} …")
            else:
                saved = s.store.get(s.address, s.name) \
                    if s.store is not None and not s.spectator else None
                what = t._("Trying again: {address} …")
            continue
        if s.store is not None and not s.spectator:
            s.store.release(s.address, s.name)  # no program of this computer holds it now
        if outcome == CRASHED:
            say_crashed(app.crash_log)
        core = app.conn.core
        names = app.model.snap.names or welcome.names
        if core.result is not None:
            s.game_over = True
            say_result(core, names)
        elif gone is not None:
            _say_gone(s, welcome.name, gone, core.invite)
        elif outcome in (LEFT, CRASHED):
            say_how_to_come_back(s, welcome.name, core.seat, names, core.invite)
        return 1 if outcome == CRASHED else 0


def _join(s: Seating, saved: SavedSeat | None
          ) -> tuple[TableApp, Welcome, SavedSeat | None] | int:
    """Connect: the screen, the welcome and the seat resumed; or the exit status after
    saying why not."""
    if saved is not None and saved.holder is not None and saved.holder.here \
            and not saved.holder.running and not s.take_over:
        # This computer's client that held the seat stopped without a word (a crash, a
        # closed terminal): its link may still look live to the host for a few seconds.
        s.take_over = True
    app = _app(s, saved)
    asked_invite = 0
    while True:
        try:
            return app, app.start(s.timeout), saved
        except HostError as exc:
            if exc.code in INVITE_CODES and asked_invite < 3 and _ask_invite(s, exc):
                asked_invite += 1  # a table for the invited: asked at most three times
                app = _app(s, saved)
                continue
            if exc.code == "seat_in_use" and saved is not None:
                answer = seat_in_use(s, saved, exc)
                if answer is None:
                    return 1
                if answer != TAKE_OVER:
                    saved = None  # a new seat, or none
                app = _app(s, saved)
                continue
            if saved is None or s.store is None or exc.code != "bad_token":
                return _cannot_join(s, exc)
            break
        except (ConnectTimeout, ClientError) as exc:
            return _cannot_join(s, exc)
    # The host at this address no longer knows the seat: a new game runs there.
    s.store.forget(s.address, s.name)
    print(current()._("The saved seat belongs to a game this host no longer runs: joining as a "
                      "new player."), flush=True)
    app = _app(s, None)
    try:
        return app, app.start(s.timeout), None
    except (HostError, ConnectTimeout, ClientError) as again:
        return _cannot_join(s, again)


def _app(s: Seating, saved: SavedSeat | None) -> TableApp:
    from mundus_net.client.tui.app import TableApp

    return TableApp(_connection(s, saved), on_notice=_saver(s), language=s.language)


INVITE_CODES = ("invite_needed", "bad_invite")
TAKE_OVER, NEW_PLAYER, WATCH = "take over", "new player", "watch"


def seat_in_use(s: Seating, saved: SavedSeat, exc: HostError) -> str | None:
    """Another program sits in the saved seat: say who and from where, and let the person
    take the seat over, sit as a new player or watch (``s`` is changed to match); None:
    nothing chosen (the commands for each way are printed)."""
    t = current()
    holder = saved.holder
    if holder is not None and holder.here and holder.running:
        where = t._("from another terminal of this computer ({tty}process {pid})").format(
            tty=f"{holder.tty}, " if holder.tty else "", pid=holder.pid)
    else:
        where = t._("from another connection (another computer, or a client that has not said "
                    "goodbye yet)")
    seat = t._("seat {number}").format(number=saved.seat) if saved.seat is not None \
        else t._("a seat")
    print(t._("{name} sits at this table already ({seat}), {where}.").format(
        name=saved.name, seat=seat, where=where), flush=True)
    ways = [(TAKE_OVER, t._("take the seat over (the other terminal is told, and stops)"),
             join_command(s.address, name=saved.name, insecure=s.insecure, take_over=True)),
            (NEW_PLAYER, t._("sit as a new player, with another name"),
             join_command(s.address, s.invite, name="OTHER", insecure=s.insecure)),
            (WATCH, t._("watch the table"),
             join_command(s.address, s.invite, watch=True, insecure=s.insecure))]
    if not sys.stdin.isatty():
        print(t._("Choose one:"), flush=True)
        for _way, text, line in ways:
            print(f"    {text}: {line}", flush=True)
        return None
    for i, (_way, text, _line) in enumerate(ways, 1):
        print(f"  {i}) {text}", flush=True)
    while True:
        try:
            answer = input(t._("Which? [1-{count}] ").format(count=len(ways))).strip()
        except (EOFError, KeyboardInterrupt):
            print(flush=True)
            return None
        if answer in ("1", "2", "3"):
            break
        print(t._("Type 1, 2 or 3 (Ctrl-D gives up)."), flush=True)
    chosen = ways[int(answer) - 1][0]
    if chosen == TAKE_OVER:
        s.take_over = True
    elif chosen == WATCH:
        s.spectator = True
    else:
        name = _ask_new_name(saved.name)
        if name is None:
            return None
        s.name = name
    return chosen


def _ask_new_name(taken: str) -> str | None:
    while True:
        try:
            typed = clean_name(input(current()._("Your name at the table: ")))
        except (EOFError, KeyboardInterrupt):
            print(flush=True)
            return None
        if typed and typed.casefold() != taken.casefold():
            return typed
        print(current()._("Type a name other than {name} (Ctrl-D gives up).").format(
            name=taken), flush=True)


def _ask_invite(s: Seating, exc: HostError) -> bool:
    """Ask the person for the table's invite code (True: one was typed, try again)."""
    if not sys.stdin.isatty():
        return False
    t = current()
    first = exc.code == "invite_needed"
    print(t._("This table is for the invited: ask its host for the invite code.") if first else
          t._("That invite code is not this table's."), flush=True)
    try:
        typed = input(t._("Invite code (Enter to give up): ")).strip()
    except (EOFError, KeyboardInterrupt):
        return False
    if not typed:
        return False
    s.invite = typed[:32]
    return True


def _cannot_join(s: Seating, exc: Exception) -> int:
    t = current()
    if isinstance(exc, HostError):
        reason = refusal_reason(exc.code, exc.rule, exc.message, t=t)
        if exc.code in INVITE_CODES:  # CODE: the one thing the person must fill in
            code = current()._("CODE")  # what the person types in its place
            again = join_command(s.address, code, insecure=s.insecure, watch=s.spectator)
            reason += f" ({again})"
        if exc.code == "table_full":
            watch = join_command(s.address, s.invite, watch=True, insecure=s.insecure)
            reason += t._(". You can watch it: {command}").format(command=watch)
    elif isinstance(exc, ConnectTimeout):
        reason = t._("{error} (is the host running, and is the address right?)").format(
            error=exc)
    else:
        reason = str(exc)
    text = t._("mundus: cannot watch {address}: {reason}") if s.spectator \
        else t._("mundus: cannot join {address}: {reason}")
    print(text.format(address=s.address, reason=reason), file=sys.stderr)
    return 1


def say_how_to_come_back(s: Seating, table: str, seat: int | None,
                          names: tuple[str, ...] | list[str], invite: str | None) -> None:
    """The command that brings the person back, runnable as shown from any folder: a
    player's with ``--name`` (the name the seat was taken with) and the table's invite code
    when it has one (asked otherwise of a hello without the seat token)."""
    t = current()
    if s.spectator:
        print(t._('You stopped watching "{table}". Watch again with:').format(table=table)
              + f"\n    {join_command(s.address, invite, watch=True, insecure=s.insecure)}")
        return
    if seat is not None:
        text = t._('You left "{table}". Your seat {number} ({name}) is kept for you, marked '
                   'away; the game waits for you.')
    else:
        text = t._('You left "{table}". Your seat is kept for you, marked away; the game waits '
                   'for you.')
    print(text.format(table=table, number=seat, name=seat_name(names, seat, t)))
    for line in s.left_note:
        print(line)
    # With the name: name.txt holds whoever sat last at this computer (docs/client.md).
    again = join_command(s.address, invite, name=s.name, insecure=s.insecure)
    print(t._("Come back with:") + f"\n    {again}", flush=True)


def _say_gone(s: Seating, table: str, gone: Gone, invite: str | None) -> None:
    t = current()
    if gone.why == REPLACED:
        text = t._('The host at {address} now runs a new game: the game you watched ("{table}") '
                   'is gone. Watch the new table with:') if s.spectator else \
            t._('The host at {address} now runs a new game: your seat at "{table}" is gone. '
                'Join the new table with:')
        # A new table: its invite code, if it has one, is not known here (it is asked).
        again = join_command(s.address, name=None if s.spectator else s.name,
                             watch=s.spectator, insecure=s.insecure)
        print(text.format(address=s.address, table=table) + f"\n    {again}", flush=True)
    elif gone.why == TAKEN_OVER:  # the token still holds the seat: no invite needed
        back = join_command(s.address, name=s.name, insecure=s.insecure, take_over=True)
        watch = join_command(s.address, invite, watch=True, insecure=s.insecure)
        print(t._('Your seat at "{table}" was taken over: another terminal or computer sits in '
                  'it now with its token, so this one stopped. Take it back with:').format(
                      table=table)
              + f"\n    {back}\n" + t._("or watch the table with:") + f"\n    {watch}",
              flush=True)
    elif gone.why == STOPPED:  # resumed from its log, the table keeps its code
        again = join_command(s.address, invite, name=None if s.spectator else s.name,
                             watch=s.spectator, insecure=s.insecure)
        text = t._('The host at {address} stopped and did not come back: "{table}" is gone. If '
                   'it is started again, watch with:') if s.spectator else \
            t._('The host at {address} stopped and did not come back: "{table}" is gone. If '
                'it is started again, come back with:')
        print(text.format(address=s.address, table=table) + f"\n    {again}", flush=True)
    else:
        print(t._('"{table}" is over and its host has stopped.').format(table=table), flush=True)


def say_result(core: ClientCore, names: tuple[str, ...] | list[str]) -> None:
    t = current()
    result = core.result
    assert result is not None
    winners = seat_name(names, result.winners[0], t) if result.winners else ""
    for w in result.winners[1:]:
        winners = t._("{first} and {second}").format(first=winners,
                                                     second=seat_name(names, w, t))
    reason = words(REASONS[result.reason], t) if result.reason in REASONS else result.reason
    over = t.ngettext("Game over after {count} round ({reason})",
                      "Game over after {count} rounds ({reason})", result.rounds).format(
        count=result.rounds, reason=reason)
    text = t._("{over}: {names} share the victory.") if len(result.winners) > 1 \
        else t._("{over}: {names} wins.")
    print(text.format(over=over, names=winners))
    for seat in sorted(range(len(result.doubloons)), key=lambda s: result.places[s]):
        money = result.doubloons[seat]
        line = t.ngettext("{place}. {name} (you): {count} doubloons",
                          "{place}. {name} (you): {count} doubloons", money) \
            if seat == core.seat else \
            t.ngettext("{place}. {name}: {count} doubloons", "{place}. {name}: {count} doubloons",
                       money)
        print("  " + line.format(place=result.places[seat], name=seat_name(names, seat, t),
                                 count=money))
    sys.stdout.flush()
