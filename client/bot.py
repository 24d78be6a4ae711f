"""Network bots: any engine :class:`~mundus_net.bots.base.Bot` playing one seat of a host's
table (``mundus bot``).

The bot sees the table through a :class:`~mundus_net.engine.view.StateView` built from the
connection's public and private state, and decides only when the public state has caught up
with its pending decision, so it sees exactly what an in-process bot would. Offers go
through commit-reveal (the connection does it); reconnects after host silence are the
connection's too. Its lines are in the language of ``--lang`` (else the system locale's, else
English); the ``--json`` line, which programs read, is the same in every language.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from mundus_net.bots.base import Bot, bot_traceback, load_bot
from mundus_net.client.connection import (
    Connection,
    ConnectTimeout,
    HostError,
    poll_all,
)
from mundus_net.client.core import ClientCore, ClientError, ClientSettings, OfferSecret
from mundus_net.client.known_hosts import (
    KnownHosts,
    UntrustedHost,
    add_security_arguments,
    trust_host,
)
from mundus_net.client.notices import (
    Closed,
    GameOver,
    Gone,
    Joined,
    Lost,
    Mismatch,
    Problem,
    Refused,
    Rewound,
    problem_sentence,
    rewind_sentence,
)
from mundus_net.client.tokens import Holder
from mundus_net.client.witness import WitnessFile
from mundus_net.engine.decisions import DECISION_TYPES, Offer
from mundus_net.engine.defaults import default_choice
from mundus_net.engine.game import Result
from mundus_net.engine.notation import format_decision
from mundus_net.engine.view import PlayerView
from mundus_net.i18n import Translator, add_console_language_argument, current, early_language, use
from mundus_net.protocol.security import fetch_key
from mundus_net.protocol.shapes import Message
from mundus_net.protocol.statedir import atomic_write

__all__ = [
    "Log", "NetworkBot", "game_over_line", "ordinal", "play_all", "player", "read_session",
    "register", "report_result", "run", "table_names", "write_session"
]

Log = Callable[[str], None]
_BOT = "mundus bot: "  # the start of its errors, the program's name in every language


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)



def table_names(core: ClientCore) -> list[str]:
    """The players' names as the table knows them now (the welcome's until the first state)."""
    table = core.state.get("table")
    names = table.get("names") if isinstance(table, dict) else None
    if not isinstance(names, list) and core.welcome is not None:
        names = list(core.welcome.names)
    return [str(n) for n in names] if isinstance(names, list) else []


def player(seat: int | None, names: Sequence[str], t: Translator | None = None) -> str:
    """``Ann (seat 1)``: a player by name, with the 0-based seat index."""
    t = t or current()
    if seat is None:
        return t._("no seat")
    name = names[seat] if 0 <= seat < len(names) and names[seat] else ""
    if name:
        return t._("{name} (seat {number})").format(name=name, number=seat)
    return t._("seat {number}").format(number=seat)


def ordinal(place: int, t: Translator | None = None) -> str:
    """``2nd``: a place, as the language writes an ordinal (``2º``, ``2-е``, ``2e``, ``2위``)."""
    t = t or current()
    if 10 <= place % 100 <= 20 or place % 10 not in (1, 2, 3):
        # TRANSLATORS: a place in the standings (4th, 11th); English's ending for most numbers.
        text = t._("{number}th")
    elif place % 10 == 1:
        # TRANSLATORS: a place in the standings (1st, 21st).
        text = t._("{number}st")
    elif place % 10 == 2:
        # TRANSLATORS: a place in the standings (2nd, 22nd).
        text = t._("{number}nd")
    else:
        # TRANSLATORS: a place in the standings (3rd, 23rd).
        text = t._("{number}rd")
    return text.format(number=place)


class NetworkBot:
    """Plays ``bot`` over ``conn`` until the game is over."""

    def __init__(self, conn: Connection, bot: Bot, log: Log = _stderr,
                 go_on_after_rewind: bool = False) -> None:
        self.conn = conn
        self.bot = bot
        self.log = log
        # A host that goes back in time (docs/security.md): the bot leaves, unless told to
        # go on (--on-rewind go-on), which it then says at the table.
        self.go_on_after_rewind = go_on_after_rewind
        self.left_on_rewind: Rewound | None = None
        self.decisions = 0  # the strategy was asked
        self.faults: dict[str, int] = {}  # error / illegal -> count (docs/bots.md)
        self.fault_list: list[dict[str, object]] = []  # each, with its traceback (--json)
        self._refused: dict[int, int] = {}  # pending id -> refused answers

    def fault(self, kind: str, detail: str, error: BaseException | None = None,
              log: bool = True) -> None:
        """The strategy failed (``error``) or chose an illegal decision (``illegal``): the
        default decision is played instead (mundus_net.engine.defaults.default_choice).
        ``detail`` says what happened (the exception's type and message, the decision)."""
        self.faults[kind] = self.faults.get(kind, 0) + 1
        pending = self.conn.core.pending
        trace = None if error is None else bot_traceback(error)
        self.fault_list.append({
            "kind": kind, "phase": pending.phase if pending is not None else "",
            "round": self.conn.core.state.get("round", 0), "seat_decision": self.decisions - 1,
            "reason": f"{kind}: {detail}", "traceback": trace})
        if log:
            t = current()
            said = t._("the strategy failed: {detail}; playing the default") \
                if kind == "error" else t._("illegal: {detail}; playing the default")
            self.log(said.format(detail=detail) + ("" if trace is None else
                                                   f"\n{trace.rstrip()}"))

    def play(self, poll_s: float = 1.0) -> Result | None:
        """Decide whenever asked; return the result (None if the connection closed first)."""
        conn, core = self.conn, self.conn.core
        while core.result is None and not core.closed:
            conn.save_witness()  # a round's, deferred until the answer has left
            for notice in conn.poll(poll_s):
                self.handle_notice(notice)
            self.step()
        return core.result

    @property
    def playing(self) -> bool:
        core = self.conn.core
        return core.result is None and not core.closed

    def step(self) -> None:
        """Answer the pending decision if it waits for this side (the notices received so far
        are handled): the strategy runs, and the view is built, only then."""
        conn, core = self.conn, self.conn.core
        pending = core.ready
        if pending is None or not pending.legal or core.result is not None:
            return
        refused = self._refused.get(pending.id, 0)
        if refused >= 2:
            return  # neither the bot's choice nor the first legal one: wait for the host
        default = default_choice(pending.phase, core.seat or 0, pending.legal)
        if refused == 1:
            decision = default  # the bot's choice was refused: play the default
        else:
            # A StateView has PlayerView's reading API over the received state.
            view = cast(PlayerView, core.view())
            self.decisions += 1  # asked: as the in-process referee counts them
            try:
                decision = self.bot.decide(view, pending.legal)
            except (Exception, SystemExit) as exc:  # a broken strategy must not lose the seat
                self.fault("error", f"{type(exc).__name__}: {exc}", exc)
                decision = default
            else:
                if not isinstance(decision, DECISION_TYPES):
                    self.fault("illegal", f"not a decision: {decision!r}")
                    decision = default
                elif isinstance(decision, Offer):  # checked here: a commitment is final
                    decision = Offer(tuple(sorted(decision.cards)))
                    if decision not in pending.legal:
                        self.fault("illegal", f"{format_decision(decision)}: not one of "
                                              "the legal offers")
                        decision = default
        try:
            conn.decide(decision)
        except (ClientError, TypeError, ValueError, KeyError) as exc:  # malformed too
            self.log(current()._("cannot answer: {error}").format(error=exc))
            if refused == 0:
                self.fault("illegal", f"cannot be sent: {exc}", log=False)
            self._refused[pending.id] = refused + 1
            return

    def handle_notice(self, notice: object) -> None:
        t = current()
        if isinstance(notice, Refused):
            self.log(t._("host refused {request}: {code}: {message}").format(
                request=notice.request, code=notice.code, message=notice.message))
            pending = self.conn.core.pending
            if notice.request in ("decide", "commit") and pending is not None and \
                    notice.code not in ("stale", "flood"):
                refused = self._refused.get(pending.id, 0)
                if refused == 0:
                    self.fault("illegal", f"refused by the host: {notice.code}: "
                                          f"{notice.message}", log=False)
                self._refused[pending.id] = refused + 1
        elif isinstance(notice, Mismatch):
            who = player(notice.seat, table_names(self.conn.core))
            self.log(t._("COMMITMENT MISMATCH in round {round}, the offer of {player}: "
                         "{reason}").format(round=notice.round, player=who, reason=notice.reason))
        elif isinstance(notice, Rewound):
            if self.go_on_after_rewind:
                self.log(t._("THE HOST WENT BACK: {what}; going on (--on-rewind go-on), said at "
                             "the table").format(what=rewind_sentence(notice, t)))
                self.conn.accept_rewind()
            else:
                self.log(t._("THE HOST WENT BACK: {what}; leaving the table (--on-rewind go-on "
                             "would play on)").format(what=rewind_sentence(notice, t)))
                self.left_on_rewind = notice
                self.conn.close(bye=True)
        elif isinstance(notice, Lost):
            self.log(t._("connection lost ({reason}); reconnecting").format(reason=notice.reason))
        elif isinstance(notice, Joined) and notice.resumed:
            self.log(t._("{player} is back at the table").format(
                player=player(notice.welcome.seat, table_names(self.conn.core))))
        elif isinstance(notice, Problem):
            self.log(problem_sentence(notice, t))
        elif isinstance(notice, Gone):
            self.log(t._("no more play at this table ({why}): {detail}").format(
                why=notice.why, detail=notice.detail))
        elif isinstance(notice, Closed):
            self.log(t._("connection closed ({reason})").format(reason=notice.reason))
        elif isinstance(notice, GameOver):  # conn.core.result is set; play() returns
            told = getattr(self.bot, "on_game_end", None)
            if told is not None:
                try:
                    told(cast(PlayerView, self.conn.core.view()))
                except (Exception, SystemExit) as exc:
                    self.fault("error", f"on_game_end: {type(exc).__name__}: {exc}", exc)


def play_all(players: Sequence[NetworkBot], poll_s: float = 1.0) -> list[Result | None]:
    """Play several seats from this thread (``mundus bot --seats N``), each over its own
    connection: one wait for all their sockets (client.connection.poll_all), every message
    that arrived handled, then each seat that is asked decides. Returns each seat's result
    (None for a connection that closed before the end)."""
    owner = {id(player.conn): player for player in players}
    while True:
        active = [player.conn for player in players if player.playing]
        if not active:
            break
        for conn in active:
            conn.save_witness()  # the round's, once the answers left
        for conn, notices in poll_all(active, poll_s):
            player = owner[id(conn)]
            for notice in notices:
                player.handle_notice(notice)
        for player in players:
            if player.playing:
                player.step()
    return [player.conn.core.result for player in players]


# -- the token file -----------------------------------------------------------------------------


def read_session(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_session(path: Path, conn: Connection) -> None:
    """Token and open commitment, written atomically (a kill mid-write loses nothing)."""
    core = conn.core
    data = {"address": conn.address, "game": core.game_id, "seat": core.seat,
            "token": core.token,
            "secret": None if core.secret is None else core.secret.to_json(),
            "holder": Holder.this_program().to_json()}
    atomic_write(path, json.dumps(data))


def _jsonable(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _tracer(path: Path) -> Callable[[str, Message], None]:
    out = path.open("a", encoding="utf-8")

    def tap(source: str, message: Message) -> None:
        out.write(json.dumps({"src": source, "m": _jsonable(message)}) + "\n")
        out.flush()  # a killed process keeps what it received

    return tap


# -- the command --------------------------------------------------------------------------------


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "bot",
        description="Join a mundus host as a bot player and play until the game ends.")
    p.add_argument("--connect", required=True, metavar="tcp://HOST:PORT",
                   help="the host's address")
    p.add_argument("--strategy", default="greedy",
                   help="a strategy name (random, greedy) or module:Class (default greedy)")
    p.add_argument("--name", help="the player's name (default: the strategy's)")
    p.add_argument("--seed", type=int, default=0, help="the bot's seed (default 0)")
    p.add_argument("--seats", type=int, default=1, metavar="N",
                   help="play N seats from this one process, each with its own connection "
                        "and token, the strategy seeded SEED, SEED+1, ... and named NAME-1, "
                        "NAME-2, ... (default 1); the seats join in turn. With --json, one "
                        "line per seat")
    p.add_argument("--token-file", type=Path, metavar="FILE",
                   help="keep the seat token (and an open offer commitment) here; an "
                        "existing file resumes that seat")
    p.add_argument("--token", help=argparse.SUPPRESS)  # resume a seat (tests)
    p.add_argument("--take-over", action="store_true",
                   help="take the seat of --token-file over even if another program plays it "
                        "now (that one is told, and stops); a bot whose earlier process "
                        "stopped takes its seat back by itself")
    p.add_argument("--on-rewind", choices=("stop", "go-on"), default="stop",
                   help="when the host comes back at an earlier point of the game than this "
                        "bot saw, or with another history (docs/security.md): stop (leave the "
                        "table, exit status 3; the default) or go-on (play on from the host's "
                        "state, said at the table)")
    p.add_argument("--timeout", type=float, default=10.0,
                   help="seconds to wait for the host when joining (default 10)")
    add_security_arguments(p)
    add_console_language_argument(p)
    p.add_argument("--json", action="store_true",
                   help="print the result as one JSON line: seat (this bot's, 0-based), "
                        "winners (their seats), reason, doubloons and places (in seat order), "
                        "rounds, faults")
    # Every message received, one JSON line each (bytes as hex): for tests and debugging.
    p.add_argument("--trace", type=Path, help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    t = use(early_language(args.lang, os.environ))
    seats = args.seats
    if seats < 1:
        _stderr(_BOT + t._("--seats is at least 1"))
        return 2
    if seats > 1 and (args.token_file is not None or args.token is not None
                      or args.trace is not None):
        _stderr(_BOT + t._("--token-file (and --token, --trace) keep one seat: use them with "
                           "--seats 1"))
        return 2
    try:
        bots = [load_bot(args.strategy, args.seed + k) for k in range(seats)]
    except ValueError as exc:
        _stderr(f"mundus bot: {exc}")
        return 2
    token: str | None = args.token
    secret: OfferSecret | None = None
    path: Path | None = args.token_file
    take_over: bool = args.take_over
    if path is not None and path.exists():
        saved = read_session(path)
        token = token or saved.get("token")
        holder = Holder.from_json(saved.get("holder"))
        if holder is not None and holder.here and not holder.running:
            take_over = True  # the process that played it stopped: its link may look live
        if saved.get("secret"):
            try:
                secret = OfferSecret.from_json(saved["secret"])
            except (KeyError, TypeError, ValueError):
                secret = None
    name = args.name or f"{args.strategy.rsplit(':', 1)[-1]}-bot"
    names = [name[:32]] if seats == 1 else [f"{name[:28]}-{k + 1}" for k in range(seats)]
    # A pinned key needs no memory; otherwise the known-hosts file (trust on first use).
    try:
        trust = trust_host(args.connect, pinned=args.host_key, insecure=args.insecure,
                           store=None if args.host_key else KnownHosts(),
                           fetch=lambda: fetch_key(args.connect, min(args.timeout, 5.0)))
    except UntrustedHost as exc:
        _stderr(f"mundus bot: {exc}")
        return 1
    for line in trust.lines:
        _stderr(line)
    # One connection per seat (its own DEALER socket, CURVE session, token and protocol
    # traffic); with --seats N they are driven by this one thread and the first one's SUB
    # socket receives the public messages for all of them.
    conns: list[Connection] = []
    witnesses = WitnessFile()  # a file per seat: the seats never wait on each other
    for k in range(seats):
        settings = ClientSettings(names[k], "player", bot=True, invite=args.invite,
                                  take_over=take_over)
        conns.append(Connection(args.connect, settings, token=token, secret=secret,
                                witnesses=witnesses, defer_witness=True,
                                server_key=trust.key, insecure=trust.key is None,
                                wakeable=False, public_from=conns[0] if conns else None))
    conn = conns[0]
    if args.trace is not None:
        conn.tap = _tracer(args.trace)
    if path is not None:
        def save(_: object) -> None:
            write_session(path, conn)
        conn.core.on_secret = save
    players: list[NetworkBot] = []
    try:
        for k, one in enumerate(conns):  # in turn: seats are given in join order
            try:
                welcome = one.connect(args.timeout)
            except (HostError, ConnectTimeout) as exc:
                _stderr(_BOT + t._("cannot join {address}: {error}").format(
                    address=args.connect, error=exc))
                if isinstance(exc, HostError) and exc.code == "seat_in_use":
                    _stderr(_BOT + t._("another program plays this seat now (another `mundus "
                                       "bot` with the same --token-file?); --take-over takes "
                                       "it over, and that one stops"))
                for other in conns[:k]:
                    other.close(bye=True)
                return 1
            if path is not None:
                write_session(path, one)
            _stderr(t._("{name} took seat {number} at the table \"{table}\" (game "
                        "{game})").format(name=names[k], number=welcome.seat,
                                          table=welcome.name, game=welcome.game))
            players.append(NetworkBot(one, bots[k],
                                      go_on_after_rewind=args.on_rewind == "go-on"))
        finished = [players[0].play()] if seats == 1 else play_all(players)
    except KeyboardInterrupt:
        for one in conns:
            one.close(bye=True)
        _stderr(t._("left the table (the seat stays, marked away)") if seats == 1 else
                t._("left the table (the seats stay, marked away)"))
        return 130
    status = 0
    for seat_bot, result in zip(players, finished, strict=True):
        seat_bot.conn.close(bye=True)
        if result is None and seat_bot.left_on_rewind is not None:
            _stderr(_BOT + t._("{player} left the table: {what}").format(
                player=_me(seat_bot.conn.core),
                what=rewind_sentence(seat_bot.left_on_rewind, t)))
            status = 3
            continue
        if result is None:
            _stderr(_BOT + t._("{player}: the connection closed before the game ended").format(
                player=_me(seat_bot.conn.core)))
            status = 1
            continue
        report_result(args, seat_bot, result)
    return status


def _me(core: ClientCore, t: Translator | None = None) -> str:
    """This seat's player: ``greedy-bot (seat 2)``."""
    names = table_names(core)
    seat = core.seat
    if seat is not None and not (0 <= seat < len(names) and names[seat]):
        names = [*names, *[""] * (seat + 1 - len(names))]
        names[seat] = core.settings.name
    return player(seat, names, t) if seat is not None else core.settings.name


def _chain(core: ClientCore) -> dict[str, object] | None:
    """What this bot's client witnessed of the public history (the record's meta.chain)."""
    witness = core.witness
    return None if witness is None else {"events": witness.count,
                                         "digest": witness.digest.hex()}


def report_result(args: argparse.Namespace, bot: NetworkBot, result: Result) -> None:
    seat = bot.conn.core.seat
    if args.json:
        print(json.dumps({"seat": seat, "winners": list(result.winners),
                          "reason": result.reason, "doubloons": list(result.doubloons),
                          "places": list(result.places), "rounds": result.rounds,
                          "faults": bot.faults, "decisions": bot.decisions,
                          "chain": _chain(bot.conn.core),
                          "fault_list": bot.fault_list}), flush=True)
        return
    print(game_over_line(bot, result), flush=True)


def game_over_line(bot: NetworkBot, result: Result, t: Translator | None = None) -> str:
    """``game over after 3 rounds, ended at the round limit; won by Cy (seat 2); Ann (seat 0)
    placed 2nd with 13 doubloons``, in ``t``'s language (the current one by default)."""
    t = t or current()
    seat = bot.conn.core.seat
    names = table_names(bot.conn.core)
    me = _me(bot.conn.core, t)
    if seat is None or not 0 <= seat < len(result.places):
        mine = t._("{player} has no place").format(player=me)
    elif seat in result.winners:
        mine = t._("{player} won with {doubloons}").format(
            player=me, doubloons=t.doubloons(result.doubloons[seat]))
    else:
        mine = t._("{player} placed {place} with {doubloons}").format(
            player=me, place=ordinal(result.places[seat], t),
            doubloons=t.doubloons(result.doubloons[seat]))
    return t.ngettext("game over after {count} round, ended {how}; won by {winners}; {mine}",
                      "game over after {count} rounds, ended {how}; won by {winners}; {mine}",
                      result.rounds).format(
        count=result.rounds, how=t.ended(result.reason),
        winners=t.and_([player(s, names, t) for s in result.winners]), mine=mine)
