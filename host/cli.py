"""``mundus host``: run one table on the network until its game is over.

It prints the address to join and the command that joins it, reports who joins and leaves,
and when the game ends prints the result (and writes the game record with ``--record``), in
the language of ``--lang`` (else the system locale's, else English). Programs that read these
lines (``join at ...``, ``host key: ...``, ``took seat N``) run it with ``--lang en``
(docs/client.md, "The host and the bot in your language").
Every input of the game goes to its game log first (host/gamelog.py): ``--resume GAME``
restores the table after a crash and serves it again; ``--list`` shows the games there are.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shlex
import signal
import socket
import sys
import textwrap
import threading
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mundus_net.bots.base import Bot, load_bot, strategy_names
from mundus_net.cli_args import add_deck_option, command, join_command, seconds, whole_number
from mundus_net.engine.deck import Deck, DeckError, load_deck
from mundus_net.engine.game import Result
from mundus_net.engine.seeds import derive_seed
from mundus_net.host import beacon
from mundus_net.host.gamelog import (
    BotSpec,
    GameLog,
    GameLogError,
    LogFailure,
    default_state_dir,
    find_game,
    format_listing,
    list_games,
    restore,
)
from mundus_net.host.keys import HostKeys, own_sign_key
from mundus_net.host.server import LINGER_AFTER_END, Host
from mundus_net.host.table import DEFAULT_BOT_SECONDS, Message, Table, TableSettings
from mundus_net.i18n import Translator, add_console_language_argument, current, early_language, use
from mundus_net.protocol import chain
from mundus_net.protocol.invite import new_code as new_invite
from mundus_net.protocol.invite import normal as invite_normal
from mundus_net.protocol.messages import MAX_INVITE
from mundus_net.protocol.security import SecurityError, fingerprint_bytes, require_curve
from mundus_net.protocol.signing import sign_record
from mundus_net.protocol.statedir import atomic_write, new_record_path

__all__ = [
    "DEFAULT_PORT", "ERROR_FILE", "StopRequest", "describe_event", "game_over", "invite_for",
    "join_address",
    "lan_address", "player", "print_identity", "record_text", "register", "resume_command",
    "standings"
]

DEFAULT_PORT = 7700
ERROR_FILE = "host-errors.log"  # in the state folder: the tracebacks of internal errors
_HOST = "mundus host: "  # the start of its errors, the program's name in every language


def _first_tm(text: str) -> int | None:
    if text == "random":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a seat number or 'random'") from None
    if not 0 <= value <= 5:
        raise argparse.ArgumentTypeError(f"seat {value} does not exist (seats are 0-5)")
    return value


def _bots(text: str) -> list[str] | int:
    """``--bots``: a count (of --bot-strategy bots) or a comma list of strategies."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    specs = [part.strip() for part in text.split(",")]
    if any(not spec for spec in specs):
        raise argparse.ArgumentTypeError(f"empty strategy in {text!r}")
    for spec in specs:
        _check_strategy(spec)
    return specs


def _check_strategy(spec: str) -> str:
    try:
        load_bot(spec, 0)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    except Exception as exc:  # a factory that fails is as bad as an unknown name
        raise argparse.ArgumentTypeError(f"cannot make bot {spec!r}: {exc}") from None
    return spec


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "host",
        description="Host one table: people and network bots join over ZeroMQ "
                    "(docs/protocol.md); host bots fill the seats you give them.")
    parser.add_argument("--seats", type=whole_number(2, 6, "seats"), default=4, metavar="N",
                        help="players at the table, 2-6 (default 4)")
    parser.add_argument("--bots", type=_bots, default=0, metavar="N|LIST",
                        help="host bots: a number (of --bot-strategy bots) or a comma list of "
                             f"strategies ({', '.join(strategy_names())} or module:Class); "
                             "they take the first seats (default 0)")
    parser.add_argument("--bot-strategy", type=_check_strategy, default="greedy",
                        metavar="NAME", help="strategy of --bots N (default greedy)")
    parser.add_argument("--name", default="Mundus table", help="the table's name")
    parser.add_argument("--port", type=whole_number(0, 65533, "the port"), default=None,
                        help=f"ROUTER port; the PUB socket uses PORT+1 and the key port PORT+2 "
                             f"(default {DEFAULT_PORT}, or the resumed game's; 0 picks free "
                             "ports)")
    parser.add_argument("--bind", default=None, metavar="ADDRESS",
                        help="interface to listen on (default 0.0.0.0, the whole LAN, or the "
                             "resumed game's; 127.0.0.1 for this computer only)")
    parser.add_argument("--seed", type=whole_number(-2**63, 2**64 - 1, "the seed"), default=None,
                        help="the host's seed (default: random); it is kept secret until the "
                             "end, and the players' contributions are mixed into it (a fair "
                             "deal, docs/security.md)")
    parser.add_argument("--fixed-seed", action="store_true",
                        help="with --seed: play with exactly that seed, not mixing in the "
                             "players' contributions (for tests and replays: the host chooses "
                             "the deal, and the record says so)")
    parser.add_argument("--insecure", action="store_true",
                        help="no encryption (for debugging): anyone on the network can read "
                             "the game, hands included, and nothing proves who the host is")
    parser.add_argument("--key-dir", metavar="DIR", default=None,
                        help="where the host's keys live; made on first use "
                             "(default: $XDG_STATE_HOME/mundus-net)")
    parser.add_argument("--promo", action="store_true", help="play with the promo cards")
    add_deck_option(parser)
    parser.add_argument("--first-tm", type=_first_tm, default=0, metavar="SEAT|random",
                        help="the first Trade Master's seat, or random (default 0)")
    parser.add_argument("--decision-seconds", type=seconds(86400), default=None, metavar="S",
                        help="people who take longer get the default decision "
                             "(default: no limit)")
    parser.add_argument("--bot-seconds", type=seconds(86400), default=DEFAULT_BOT_SECONDS,
                        metavar="S", help="the same limit for network bots "
                                          f"(default {DEFAULT_BOT_SECONDS:g})")
    parser.add_argument("--stand-in-after", type=seconds(86400), default=None, metavar="S",
                        help="a seat whose player has been away S seconds is played by a "
                             "greedy host bot until the player comes back (default: the seat "
                             "waits; --decision-seconds gives it the default decisions)")
    parser.add_argument("--bot-pace", type=float, default=0.0, metavar="S",
                        help="pause between host-bot decisions, to watch them (default 0)")
    parser.add_argument("--linger", type=seconds(3600, "the linger", zero=True),
                        default=LINGER_AFTER_END, metavar="S",
                        help="seconds the host stays after the game while anyone is connected, "
                             f"so that every client reads the end (default {LINGER_AFTER_END:g})")
    parser.add_argument("--round-limit", type=whole_number(1, 10_000, "the round limit"),
                        default=None, metavar="N", help="end after N rounds (R8.5)")
    kept = parser.add_mutually_exclusive_group()
    kept.add_argument("--record", metavar="FILE", default=None,
                      help="where to write the game record (JSON, docs/record.md) when the game "
                           "ends (default: a new file in the state folder's records/, as "
                           "mundus play keeps its records)")
    kept.add_argument("--no-record", action="store_true", help="keep no record of the game")
    parser.add_argument("--resume", metavar="GAME", default=None,
                        help="restore game GAME (an id or the start of one, as --list shows, "
                             "or its log file) exactly as it was, after a crash, and serve it "
                             "again: its players come back with their seat tokens. The "
                             "table's options come from its log")
    parser.add_argument("--list", action="store_true",
                        help="list the games in the state directory (id, name, started, "
                             "round, seats, status) and exit")
    parser.add_argument("--state-dir", metavar="DIR", default=None,
                        help="where game logs are kept, private to you "
                             "(default: $XDG_STATE_HOME/mundus-net/games)")
    parser.add_argument("--durable", action="store_true",
                        help="sync the game log to the disk at every answer, so that not even "
                             "a power cut loses an answered decision (the default; about half a "
                             "millisecond a decision, docs/security.md)")
    parser.add_argument("--fast-log", action="store_true",
                        help="leave the game log's writing to the operating system: a crash of "
                             "the host still loses nothing it answered, but a power cut can "
                             "lose the last ~30 seconds (the kernel's writeback delay)")
    parser.add_argument("--invite", metavar="CODE", default=None,
                        help="seats (and watching) only for those who know CODE, which the "
                             "players give with --invite (default: a fresh code when the host "
                             "listens beyond this computer, none on 127.0.0.1)")
    parser.add_argument("--no-invite", action="store_true",
                        help="no invite code even beyond this computer: anyone who reaches "
                             "the port may take a free seat")
    parser.add_argument("--no-log", action="store_true",
                        help="keep no game log (the game cannot be resumed after a crash)")
    beacon.add_arguments(parser)
    add_console_language_argument(parser)
    parser.set_defaults(func=_main, host_parser=parser)


def lan_address() -> str:
    """This computer's address on the LAN (no packet is sent), or 127.0.0.1."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: only picks the outgoing interface
        address = str(probe.getsockname()[0])
    except OSError:
        address = "127.0.0.1"
    finally:
        probe.close()
    return address


def join_address(bind: str, port: int) -> str:
    shown = lan_address() if bind in ("0.0.0.0", "*", "") else bind
    return f"tcp://{shown}:{port}"


def player(seat: int, names: list[str], t: Translator | None = None) -> str:
    """``Ann (seat 1)``: a player by name, with the 0-based seat index."""
    t = t or current()
    name = names[seat] if 0 <= seat < len(names) and names[seat] else ""
    if name:
        return t._("{name} (seat {number})").format(name=name, number=seat)
    return t._("seat {number}").format(number=seat)


def describe_event(event: Message, names: list[str]) -> str | None:
    """One line for the host's console, for the events worth telling the host's owner: a
    player by name, with the 0-based seat index (``Ann (seat 1) is away``)."""
    t = current()
    kind = event["kind"]
    seat = event.get("seat")
    who = player(seat, names) if isinstance(seat, int) else t._("a player")
    if kind == "joined":
        # "NAME took seat N" (--lang en): tournaments and tests read the seat from this line.
        text = t._("{name} took seat {number} (a bot)") if event.get("bot") \
            else t._("{name} took seat {number}")
        return text.format(name=event["name"], number=seat)
    if kind == "started":
        return t._("every seat is taken: the game begins")
    if kind == "away":
        return t._("{player} is away").format(player=who)
    if kind == "back":
        return t._("{player} is back").format(player=who)
    if kind == "round":
        return t._("round {number}").format(number=event["round"])
    if kind == "violation":
        return t._("{player}: answer refused ({reason}); the default decision was "
                   "played").format(player=who, reason=event.get("reason"))
    if kind == "timeout":
        return t._("{player} ran out of time ({phase})").format(player=who,
                                                                phase=event.get("phase"))
    if kind == "spectator":
        return t._("{name} is watching").format(name=event["name"])
    return None


def standings(result: Result, names: list[str]) -> list[str]:
    """The final standings by place, 1st first (seat order among equals); players who share
    a place are marked so (R8.4: the winners share place 1)."""
    t = current()
    order = sorted(range(len(result.places)), key=lambda s: (result.places[s], s))
    lines = []
    for seat in order:
        place = result.places[seat]
        shared = sum(1 for p in result.places if p == place) > 1
        if not shared:
            text = t._("place {place}: {player}, {doubloons}")
        elif place == 1:
            text = t._("place {place}: {player}, {doubloons} (shared victory)")
        else:
            text = t._("place {place}: {player}, {doubloons} (tied)")
        lines.append("  " + text.format(place=place, player=player(seat, names),
                                        doubloons=t.doubloons(result.doubloons[seat])))
    return lines


def game_over(result: Result, names: list[str], t: Translator) -> str:
    """``game over after 9 rounds, ended at the round limit; won by Cy (seat 2)``."""
    return t.ngettext("game over after {count} round, ended {how}; won by {winners}",
                      "game over after {count} rounds, ended {how}; won by {winners}",
                      result.rounds).format(
        count=result.rounds, how=t.ended(result.reason),
        winners=t.and_([player(s, names, t) for s in result.winners]))


def _rounds(count: int) -> str:
    return current().ngettext("{count} round", "{count} rounds", count).format(count=count)


def _cells(text: str) -> int:
    """The terminal cells ``text`` takes (a Korean syllable takes two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _say(text: str) -> None:
    print(text, file=sys.stderr)


def _main(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.host_parser
    t = use(early_language(args.lang, os.environ))
    state_dir = Path(args.state_dir) if args.state_dir else default_state_dir()
    if args.list:
        games = list_games(state_dir)
        print(format_listing(games) if games else
              t._("no games in {folder}").format(folder=state_dir))
        return 0
    if args.resume is not None:
        return _resume(args, state_dir)
    args.port = DEFAULT_PORT if args.port is None else args.port
    args.bind = "0.0.0.0" if args.bind is None else args.bind
    deck: Deck | None = None
    if args.deck is not None:
        try:
            deck = load_deck(args.deck)
        except DeckError as exc:
            parser.error(str(exc))
    specs = [args.bot_strategy] * args.bots if isinstance(args.bots, int) else args.bots
    if len(specs) > args.seats:
        parser.error("--bots: " + t.ngettext(
            "{count} host bots do not fit at {seats} seat",
            "{count} host bots do not fit at {seats} seats", args.seats).format(
            count=len(specs), seats=args.seats))
    if args.first_tm is not None and args.first_tm >= args.seats:
        parser.error("--first-tm: " + t._("seat {number} is not at a {seats}-seat table").format(
            number=args.first_tm, seats=args.seats))
    if args.bot_pace < 0:
        parser.error("--bot-pace: " + t._("seconds cannot be negative"))
    if args.fixed_seed and args.seed is None:
        parser.error(t._("--fixed-seed needs --seed N"))
    keys: HostKeys | None = None
    if not args.insecure:
        try:
            require_curve()
            keys = HostKeys.load_or_create(Path(args.key_dir) if args.key_dir else None,
                                           warn=lambda text: print(text, file=sys.stderr))
        except (SecurityError, OSError) as exc:
            print(f"mundus host: {exc}", file=sys.stderr)
            return 1
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    bots: list[Bot] = [load_bot(spec, derive_seed(seed, "host-bot", i))
                       for i, spec in enumerate(specs)]
    names = [f"{spec.rpartition(':')[2]} bot {i}"[:32] for i, spec in enumerate(specs)]
    settings = TableSettings(promo=args.promo, first_tm=args.first_tm,
                             round_limit=args.round_limit, name=args.name,
                             decision_seconds=args.decision_seconds,
                             bot_seconds=args.bot_seconds, bot_pace=args.bot_pace,
                             fixed_seed=args.fixed_seed, invite=invite_for(args),
                             stand_in_after=args.stand_in_after)
    table = Table(args.seats, settings, seed=args.seed, deck=deck, bots=bots, bot_names=names)
    if args.record is None and not args.no_record:  # kept by default, as mundus play does
        args.record = str(new_record_path())
    specs_seeded = [BotSpec(spec, derive_seed(seed, "host-bot", i))
                    for i, spec in enumerate(specs)]
    return _serve(args, table, keys, state_dir, specs_seeded)


def _resume(args: argparse.Namespace, state_dir: Path) -> int:
    """``--resume GAME``: the table from its log, served as it was served."""
    t = current()
    try:
        path = find_game(state_dir, args.resume)
        log = GameLog.open(path, durable=not args.fast_log)
    except GameLogError as exc:
        _say(_HOST + t._("cannot resume {game}: {error}").format(game=args.resume, error=exc))
        return 1
    try:
        # A finished game is only read (its record made again): no resumed row.
        restored = restore(log, record_resume=log.status != "over")
    except GameLogError as exc:
        log.close()
        _say(_HOST + t._("cannot resume {game}: {error}").format(game=args.resume, error=exc))
        return 1
    except LogFailure as exc:  # still no room: the log is as it was
        log.close()
        _say(_HOST + t._("cannot resume {game}: {error}; nothing in the log is lost: make room and "
                     "run the command again").format(game=args.resume, error=exc))
        return 1
    table = restored.table
    for warning in restored.warnings:
        _say(_HOST + t._("warning: {warning}").format(warning=warning))
    served = log.params.get("host", {})
    if log.status == "over" and not table.over:
        log.close()
        _say(_HOST + t._("cannot resume {game}: {path}: damaged: its head says the game is over, "
                     "but its rows do not play it to the end").format(game=args.resume,
                                                                       path=path))
        return 1
    if table.over:
        log.close()
        return _record_of_finished(args, table, served)
    _ignored_options(args)

    args.port = served.get("port", DEFAULT_PORT) if args.port is None else args.port
    args.bind = served.get("bind", "0.0.0.0") if args.bind is None else args.bind
    if args.record is None and not args.no_record:  # where it went, unless told otherwise
        args.record = served.get("record")
    args.insecure = args.insecure or bool(served.get("insecure"))
    args.key_dir = args.key_dir or served.get("key_dir")
    args.no_beacon = args.no_beacon or bool(served.get("no_beacon"))
    # The invite code stays the one the players were given, unless told otherwise now.
    table.invite = None if args.no_invite else (
        invite_for(args) if args.invite is not None else served.get("invite"))
    if served.get("beacon") is not None and tuple(args.beacon) == beacon.DEFAULT_TARGET:
        args.beacon = tuple(served["beacon"])  # not given again: as it was
    # Synced as it was served (logs older than this option were not), unless told now.
    if args.fast_log:
        args.durable = False
    elif args.durable or served.get("durable", False):
        args.durable = True
    else:
        args.durable = False
        log.make_fast()
    keys: HostKeys | None = None
    if not args.insecure:  # the same keys as before: the players pinned them
        try:
            require_curve()
            keys = HostKeys.load_or_create(Path(args.key_dir) if args.key_dir else None,
                                           warn=lambda text: print(text, file=sys.stderr))
        except (SecurityError, OSError) as exc:
            log.close()
            print(f"mundus host: {exc}", file=sys.stderr)
            return 1
    print(t.ngettext("resuming game {game} from {path}: round {round}, {rows} log row; the "
                     "players come back with their seat tokens",
                     "resuming game {game} from {path}: round {round}, {rows} log rows; the "
                     "players come back with their seat tokens", restored.rows).format(
        game=table.game_id, path=path, round=table.game.round, rows=restored.rows), flush=True)
    return _serve(args, table, keys, state_dir, log=log)


# What a new game takes and --resume does not: the table's options come from its log.
_TABLE_OPTIONS = ("seats", "bots", "bot_strategy", "name", "seed", "fixed_seed", "promo", "deck",
                  "first_tm", "decision_seconds", "bot_seconds", "bot_pace", "round_limit",
                  "stand_in_after",
                  "no_log")


def _ignored_options(args: argparse.Namespace) -> None:
    """Say which options given with --resume are not used (the log's are)."""
    parser: argparse.ArgumentParser = args.host_parser
    given = [name for name in _TABLE_OPTIONS
             if getattr(args, name, None) != parser.get_default(name)]
    if given:
        flags = ", ".join("--" + name.replace("_", "-") for name in given)
        _say(_HOST + current().ngettext(
            "note: {options} is not used: a resumed game keeps the options it was made with "
            "(its log has them)",
            "note: {options} are not used: a resumed game keeps the options it was made with "
            "(its log has them)", len(given)).format(options=flags))


def _record_of_finished(args: argparse.Namespace, table: Table, served: dict[str, Any]) -> int:
    """``--resume`` of a game that is over: its record written again from the log (to
    --record FILE, else where its host wrote it), signed with the same keys; nothing is
    served."""
    t = current()
    rounds = _rounds(table.game.round)
    path = args.record if args.record is not None or args.no_record else served.get("record")
    if path is None:
        _say(_HOST + t._("game {game} is over (after {rounds}): there is nothing to resume; "
                     "{command} --record FILE writes its record again").format(
            game=table.game_id, rounds=rounds, command=resume_command(args, table.game_id)))
        return 1
    keys: HostKeys | None = None
    if not (args.insecure or served.get("insecure")):
        key_dir = args.key_dir or served.get("key_dir")
        try:
            require_curve()
            keys = HostKeys.load_or_create(Path(key_dir) if key_dir else None,
                                           warn=lambda text: print(text, file=sys.stderr))
        except (SecurityError, OSError) as exc:
            print(f"mundus host: {exc}", file=sys.stderr)
            return 1
    print(t._("game {game} is over (after {rounds}): its record is made again from its "
              "log").format(game=table.game_id, rounds=rounds))
    return 0 if _write_record(str(path), table, keys) else 1


def _serve(args: argparse.Namespace, table: Table, keys: HostKeys | None, state_dir: Path,
           bots: list[BotSpec] | None = None, log: GameLog | None = None) -> int:
    """Serve ``table`` until its game is over (with its game log: a new one unless given)."""
    specs = bots if bots is not None else [s for s in table.seats if s.host_bot is not None]
    resumed = log is not None  # a new game's log is made below

    def on_update(update: Message) -> None:  # in the host's thread, right after the flush
        names = table.names
        for event in update["events"]:
            line = describe_event(event, names)
            if line:
                print(line, flush=True)

    # Tracebacks go to a file beside the game logs; the console has one line for each.
    errors = state_dir / ERROR_FILE if not args.no_log or log is not None else None
    host = Host(table, bind=args.bind, port=args.port, on_update=on_update, keys=keys,
                insecure=args.insecure, error_file=errors, linger_after_end=args.linger)
    try:
        host.open()
    except Exception as exc:  # zmq.ZMQError: address in use, bad interface...
        _say(_HOST + current()._("cannot listen on {address}: {error}").format(
            address=f"{args.bind}:{args.port}", error=exc))
        if log is not None:
            log.close()
        return 1
    if log is None and not args.no_log:
        try:  # before anyone can join: every input goes to the log first
            args.durable = not args.fast_log
            log = GameLog.create(state_dir, table, bots=bots or [], durable=args.durable, host={
                "bind": args.bind, "port": host.port, "insecure": keys is None,
                # Kept so that --resume serves the game as it was served.
                "durable": bool(args.durable), "no_beacon": bool(args.no_beacon),
                "invite": table.invite,
                "beacon": list(args.beacon),
                "record": None if args.record is None else str(Path(args.record).resolve()),
                "key_dir": None if args.key_dir is None else str(Path(args.key_dir).resolve())})
        except (GameLogError, OSError) as exc:
            host.stop()
            _say(_HOST + current()._("cannot keep the game log: {error} (--no-log plays without "
                                 "one)").format(error=exc))
            return 1
    try:
        with _stop_signals() as stop:
            return _run(args, table, host, keys, len(specs), log, stop, resumed=resumed)
    finally:
        if log is not None:
            log.close()


def _run(args: argparse.Namespace, table: Table, host: Host, keys: HostKeys | None,
         host_bots: int, log: GameLog | None, stop: StopRequest | None = None,
         resumed: bool = False) -> int:
    t = current()
    address = join_address(args.bind, host.port)
    resume = resume_command(args, table.game_id)
    print(t._("table \"{name}\": {seats}, {bots}, game {game}").format(
        name=table.name, game=table.game_id,
        seats=t.ngettext("{count} seat", "{count} seats", table.players).format(
            count=table.players),
        bots=t.ngettext("{count} host bot", "{count} host bots", host_bots).format(
            count=host_bots)))
    if log is not None:
        print(t._("game log: {path} (after a crash: {command})").format(path=log.path,
                                                                         command=resume))
    print(t._("join at {address} (public updates on port {pub_port}, key port "
              "{key_port})").format(address=address, pub_port=host.pub_port,
                                    key_port=host.key_port))
    print_identity(keys)
    recorded: bool | None = None  # the record: not written yet, or whether it could be
    try:  # Ctrl-C, SIGTERM and SIGHUP (StopRequest) end in the except below
        # Z85 has shell characters (<, &, $...): quoted, the line can be pasted into a shell.
        # One word: a key may start with "-", which would read as an option.
        pin = "--insecure" if keys is None else shlex.quote(f"--host-key={keys.public_key}")
        invite = [] if table.invite is None else ["--invite", table.invite]
        if table.invite is not None:
            print(t._("invite code: {code} (seats and watching are for those who know it; "
                      "--no-invite opens the table to anyone who reaches it)").format(
                code=table.invite))
        # Resumed, the commands again: a player who comes back after the crash finds them
        # here, not in the scrollback of the host that stopped (a bot only for a free seat).
        if table.free_seats() or resumed:
            hints = [
                (t._("players join with:"),
                 join_command(address, table.invite, insecure=keys is None)),
                (t._("spectators watch with:"),
                 join_command(address, table.invite, watch=True, insecure=keys is None))]
            if table.free_seats():
                hints.append((t._("a bot joins with:"),
                              f"{command('bot', '--connect', address, *invite)} {pin}"))
            width = max(_cells(label) for label, _ in hints)
            for label, typed in hints:  # the commands in one column
                print(f"  {label}{' ' * (width - _cells(label))} {typed}", flush=True)
        if table.free_seats():
            print(t.ngettext("waiting for {count} player...", "waiting for {count} players...",
                             table.free_seats()).format(count=table.free_seats()), flush=True)
        host.start()
        announcer = beacon.from_args(args, host, address)
        if announcer is not None:  # stops by itself with the host
            announcer.start()
            print(t._("announced to {address} (`mundus join` lists it; --no-beacon turns this "
                      "off)").format(address=f"{announcer.target[0]}:{announcer.target[1]}"),
                  flush=True)
        while not host.wait(0.5):
            if stop is not None:
                stop.check()
            # The record is written as soon as the game ends, not when the host closes: a
            # host killed while it lingers for the last messages loses nothing. (Once the
            # game is over its record no longer changes: read here without a call.)
            if recorded is None and args.record is not None and table.over:
                recorded = _write_record(args.record, table, keys)
    except KeyboardInterrupt as stop:
        how = str(stop.args[0]) if stop.args else "Ctrl-C"
        _say("\n" + t._("stopping the table ({how})").format(how=how))
        with contextlib.suppress(Exception):  # the players are told, if the loop still runs
            host.call(lambda t: t.output.announce_stop(how), timeout=2.0)
        host.stop()  # its last flush publishes the announcement
        if log is not None and not table.over:
            # The game goes on after a resume: its record, which holds the secret host seed
            # and the engine seed, is written only when it ends.
            if args.record is not None:
                _say(t._("the game did not finish: its record goes to {record} when it ends, "
                         "{signer} (until then its seeds stay secret)").format(
                    record=args.record, signer=_signer(keys)))
            _say(t._("resume it with: {command}").format(command=resume))
        elif recorded is None:
            _write_record(args.record, table, keys)  # over, or over for good (no log)
        return 130
    if recorded is None and (table.over or log is None):  # a resumable game keeps its seeds
        recorded = _write_record(args.record, table, keys)
    if isinstance(host.error, LogFailure):
        _say_log_failure(host.error, table, resume)
        return 1
    if host.error is not None:
        _say(_HOST + t._("stopped by an internal error: {error}").format(error=repr(host.error)))
        if log is not None and not table.over:
            _say(t._("nothing it answered is lost: once the problem is fixed, resume it with: "
                     "{command}").format(command=resume))
        return 1
    result = table.game.result
    if result is None:
        print(t._("the table stopped before the game ended"))
        return 1
    names_now = table.names
    print(game_over(result, names_now, t))
    if keys is None:
        print(t._("INSECURE: this game was played without encryption"))
    print(t._("final standings:"))
    for line in standings(result, names_now):
        print(line)
    if recorded is False:
        _say(_HOST + (t._("the game is over, but its record was not written; once the problem is "
                      "fixed, {command} --record FILE writes it again from the game "
                      "log").format(command=resume) if log is not None else
                  t._("the game is over, but its record was not written")))
        return 1
    return 0


def _say_log_failure(failure: LogFailure, table: Table, resume: str) -> None:
    """The host stopped because its game log cannot be written: what happened, in plain
    words and first, then what to do (the players were told by the host)."""
    t = current()
    _say("\n" + _HOST + t._("the table stopped: {error}").format(error=failure))
    if table.over:
        _say(t._("the game had ended; what its log holds makes its record again: {command} "
                 "--record FILE").format(command=resume))
        return
    _say(t._("the players were told the table stops; nothing the host answered is lost."))
    _say(t._("once there is room (or the disk is back), resume it with: {command}").format(
        command=resume))


def invite_for(args: argparse.Namespace) -> str | None:
    """The table's invite code: --invite's, none with --no-invite, else a fresh one when the
    host listens beyond this computer (anyone on the LAN reaches it) and none on loopback."""
    if args.no_invite:
        return None
    if args.invite is not None:
        code = invite_normal(args.invite)
        if not 4 <= len(code) <= MAX_INVITE:
            raise SystemExit(_HOST + "--invite: " + current()._(
                "a code of 4 to {most} letters and digits").format(most=MAX_INVITE))
        return str(args.invite).strip()
    bind = args.bind or "0.0.0.0"
    loopback = bind in ("localhost", "::1") or bind.startswith("127.")
    return None if loopback else new_invite()


def resume_command(args: argparse.Namespace, game: str) -> str:
    """The command that resumes ``game``, as typed from where the host runs: everything else
    (address, keys, record file, how the log is synced, the beacon, the table's options) is
    kept by the log; only where the log is must be said again."""
    words = ["host", "--resume", game]
    if args.state_dir is not None:
        words += ["--state-dir", str(Path(args.state_dir).resolve())]
    return command(*words)


def print_identity(keys: HostKeys | None) -> None:
    """The host's keys, for people to compare and for clients to pin."""
    t = current()
    if keys is None:
        print(t._("INSECURE: encryption is off (--insecure): anyone on the network can read "
                  "this game, hands and offers included, and clients cannot tell this host from "
                  "an impostor"), flush=True)
        return
    where = keys.path if keys.path is not None else t._("memory only")
    print(_key_lines(t._("host key: {key}  fingerprint {fingerprint}  ({where})").format(
        key=keys.public_key, fingerprint=keys.fingerprint, where=where), keys.public_key,
        keys.fingerprint))
    print(_key_lines(t._("record signing key: {key}  fingerprint {fingerprint}").format(
        key=keys.sign_key, fingerprint=keys.sign_fingerprint), keys.sign_key,
        keys.sign_fingerprint), flush=True)


def _key_lines(text: str, key: str, fingerprint: str) -> str:
    """A key's line at 80 columns: its words up to the key stay on the first line, as the
    programs that pin the key read it (``host key: KEY  fingerprint``: docs/client.md), the
    fingerprint's groups stay together, the rest goes on lines indented by two spaces. A
    label with a 64-digit key is wider than 80 columns and stands alone on its line."""
    head = text[:text.index(key) + len(key)]
    glued = text.replace(head, head.replace(" ", "\xa0"), 1).replace(
        fingerprint, fingerprint.replace(" ", "\xa0"))
    return "\n".join(textwrap.wrap(glued, 80, subsequent_indent="  ", break_long_words=False,
                                   break_on_hyphens=False)).replace("\xa0", " ")


def record_text(table: Table, keys: HostKeys | None) -> str:
    """The game record, signed with the host's key (unsigned when insecure). It holds the
    host seed and the engine seed: written only for a game that is over, or that can never go
    on (no game log). Its ``meta.chain`` is the chain of the public history the host
    published (protocol/chain.py): what every player's client that saw the whole game
    witnessed, the same count and digest (docs/security.md)."""
    count, digest = chain.extend(0, chain.GENESIS, table.output.public_history())
    table.record.meta["chain"] = {"scheme": chain.SCHEME, "events": count,
                                  "digest": digest.hex()}
    text = table.record.to_json() + "\n"
    if keys is None:
        return text
    return sign_record(text, keys.sign, keys.sign_public)


class StopRequest:
    """A stop asked by a signal (SIGTERM, SIGHUP, SIGINT): the serving loop sees it at its next
    turn and stops as Ctrl-C did, so that no stop lands in the middle of starting or
    writing something."""

    def __init__(self) -> None:
        self.signal: str | None = None

    def __call__(self, signum: int, _frame: object) -> None:
        self.signal = signal.Signals(signum).name

    def check(self) -> None:
        if self.signal is not None:
            raise KeyboardInterrupt("Ctrl-C" if self.signal == "SIGINT" else self.signal)


@contextlib.contextmanager
def _stop_signals() -> Iterator[StopRequest]:
    """SIGTERM and SIGHUP stop the table as Ctrl-C does (the record written, the resume hint
    printed), instead of killing it without a word."""
    request = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield request  # signal handlers belong to the main thread (tests run hosts elsewhere)
        return
    names = ("SIGTERM", "SIGHUP", "SIGINT")
    wanted = [getattr(signal, name) for name in names if hasattr(signal, name)]
    before = {sig: signal.signal(sig, request) for sig in wanted}
    try:
        yield request
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def _signer(keys: HostKeys | None) -> str:
    """Which key signs this host's records, as ``mundus verify`` names it
    (host.keys.signed_by), in the reader's language."""
    t = current()
    if keys is None:
        return t._("not signed (--insecure)")
    fp = fingerprint_bytes(bytes.fromhex(keys.sign_key))
    if keys.sign_key == own_sign_key():
        return t._("signed by this computer's host key, fingerprint {fingerprint}").format(
            fingerprint=fp)
    return t._("signed by the record signing key {fingerprint}").format(fingerprint=fp)


def _write_record(path: str | None, table: Table, keys: HostKeys | None = None) -> bool:
    """Write the record to ``path`` (None: nothing to do); False if it could not be."""
    if path is None:
        return True
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        atomic_write(Path(path), record_text(table, keys), 0o644)
    except OSError as exc:
        _say(_HOST + current()._("cannot write the record to {path}: {error}").format(path=path,
                                                                                   error=exc))
        return False
    print(current()._("record written to {path}, {signer}").format(path=path,
                                                                   signer=_signer(keys)))
    return True
