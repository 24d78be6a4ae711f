"""Sitting at a table from the command line: what ``mundus play``, ``mundus join`` and
``mundus watch`` share. Connect (with the saved seat token, if any), run the full-screen
client, then say in plain text how the game ended or how to come back."""

from __future__ import annotations

import getpass
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mundus_net.client.connection import (
    Connection,
    ConnectTimeout,
    GameOver,
    HostError,
    Joined,
    Notice,
    OfferSecret,
)
from mundus_net.client.known_hosts import KnownHosts, Trust, UntrustedHost, trust_host
from mundus_net.client.tokens import SavedSeat, TokenStore
from mundus_net.client.tui.sentences import REASONS, plural, seat_name
from mundus_net.protocol.security import fetch_key

if TYPE_CHECKING:
    from mundus_net.client.tui.app import TableApp

CONNECT_TIMEOUT_S = 10.0


def default_name() -> str:
    try:
        name = getpass.getuser()
    except Exception:  # no user name in the environment or the password database
        name = ""
    return (name.strip() or "Player")[:32]


def needs_terminal(command: str) -> bool:
    """True (after saying so) when standard input or output is not a terminal."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        return False
    print(f"mundus {command}: the table screen needs a terminal (standard input and output)",
          file=sys.stderr)
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


def _remember(s: Seating, conn: Connection, secret: OfferSecret | None) -> None:
    if s.store is not None and not s.spectator and conn.token is not None:
        s.store.save(s.address, conn.token, game=conn.game_id, seat=conn.seat, name=conn.name,
                     secret=secret, note=s.note)


def _saver(s: Seating) -> Callable[[Notice, Connection], None]:
    """Keeps the token file up to date (called in the connection's thread)."""
    def save(notice: Notice, conn: Connection) -> None:
        if isinstance(notice, Joined):
            _remember(s, conn, conn.secret)
        elif isinstance(notice, GameOver) and s.store is not None and not s.spectator:
            s.store.forget(s.address)  # nothing to come back to
    return save


def _connection(s: Seating, saved: SavedSeat | None) -> Connection:
    key = s.trust.key if s.trust is not None else None
    conn = Connection(s.address, s.name, "spectator" if s.spectator else "player",
                      token=saved.token if saved is not None else None,
                      secret=saved.secret if saved is not None else None,
                      server_key=key, insecure=key is None)
    # Saved before the commitment is sent: a restarted client can still reveal.
    conn.on_secret = lambda secret: _remember(s, conn, secret)
    return conn


def sit(s: Seating) -> int:
    """Join (or resume, or watch) and run the screen until the player leaves."""
    from mundus_net.client.tui.app import (  # prompt_toolkit is loaded only when a screen is wanted
        LEFT,
    )

    try:
        s.trust = trust_host(s.address, pinned=s.host_key, offered=s.offered_key,
                             insecure=s.insecure, store=s.known_hosts,
                             fetch=lambda: fetch_key(s.address, min(s.timeout, 5.0)))
    except UntrustedHost as exc:
        print(f"mundus: {exc}", file=sys.stderr)
        return 1
    for line in s.trust.lines:
        print(line, flush=True)
    saved = s.store.get(s.address) if s.store is not None and not s.spectator else None
    what = "Watching" if s.spectator else ("Coming back to" if saved else "Joining")
    print(f"{what} {s.address} …", flush=True)
    app = _app(s, saved)
    try:
        welcome = app.start(s.timeout)
    except HostError as exc:
        if saved is not None and s.store is not None and exc.code == "bad_token":
            # The host at this address no longer knows the seat: a new game runs there.
            s.store.forget(s.address)
            print("The saved seat belongs to a game this host no longer runs: joining as a "
                  "new player.", flush=True)
            saved = None
            app = _app(s, None)
            try:
                welcome = app.start(s.timeout)
            except (HostError, ConnectTimeout) as again:
                return _cannot_join(s, again)
        else:
            return _cannot_join(s, exc)
    except ConnectTimeout as exc:
        return _cannot_join(s, exc)
    if saved is not None:
        app.model.greeting = f"Welcome back: seat {(welcome.seat or 0) + 1} is yours again, " \
            "as you left it."
    outcome = app.run()
    conn = app.conn
    names = app.model.snap.names or welcome.names
    if outcome == LEFT and conn.result is None:
        _say_how_to_come_back(s, welcome.name, conn.seat, names)
    elif conn.result is not None:
        _say_result(conn, names)
    return 0


def _app(s: Seating, saved: SavedSeat | None) -> TableApp:
    from mundus_net.client.tui.app import TableApp

    return TableApp(_connection(s, saved), on_notice=_saver(s))


def _cannot_join(s: Seating, exc: Exception) -> int:
    if isinstance(exc, HostError):
        reason = exc.message
        if exc.code == "table_full":
            reason += f". You can watch it: mundus watch {s.address}"
    else:
        reason = f"{exc} (is the host running, and is the address right?)"
    print(f"mundus: cannot {'watch' if s.spectator else 'join'} {s.address}: {reason}",
          file=sys.stderr)
    return 1


def _say_how_to_come_back(s: Seating, table: str, seat: int | None,
                          names: tuple[str, ...] | list[str]) -> None:
    if s.spectator:
        print(f'You stopped watching "{table}". Watch again with:\n'
              f"    mundus watch {s.address}")
        return
    who = f"seat {seat + 1} ({seat_name(names, seat)})" if seat is not None else "your seat"
    print(f'You left "{table}". Your {who} is kept for you, marked away; the game waits '
          "for you.")
    for line in s.left_note:
        print(line)
    print(f"Come back with:\n    mundus join {s.address}", flush=True)


def _say_result(conn: Connection, names: tuple[str, ...] | list[str]) -> None:
    result = conn.result
    assert result is not None
    winners = " and ".join(seat_name(names, w) for w in result.winners)
    verb = "share the victory" if len(result.winners) > 1 else "wins"
    print(f"Game over after {plural(result.rounds, 'round')} "
          f"({REASONS.get(result.reason, result.reason)}): {winners} {verb}.")
    for seat in sorted(range(len(result.doubloons)), key=lambda s: result.places[s]):
        you = " (you)" if seat == conn.seat else ""
        print(f"  {result.places[seat]}. {seat_name(names, seat)}{you}: "
              f"{result.doubloons[seat]} doubloons")
    sys.stdout.flush()
