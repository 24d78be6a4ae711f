"""``mundus host``: run one table on the network until its game is over.

It prints the address to join and the command that joins it, reports who joins and leaves,
and when the game ends prints the result (and writes the game record with ``--record``).
"""

from __future__ import annotations

import argparse
import secrets
import socket
import sys
from pathlib import Path
from typing import Any

from mundus_net.bots.base import Bot, load_bot, strategy_names
from mundus_net.deck import Deck, DeckError, load_deck
from mundus_net.sim import derive_seed

from . import beacon
from .server import Host
from .table import DEFAULT_BOT_SECONDS, Message, Table

DEFAULT_PORT = 7700


def _int_range(lo: int, hi: int, what: str) -> Any:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{what} must be {lo}-{hi}, not {value}")
        return value
    return parse


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 86400:
        raise argparse.ArgumentTypeError(f"seconds must be more than 0 (and at most a day), "
                                         f"not {text}")
    return value


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
        "host", help="host a table on the network",
        description="Host one table: people and network bots join over ZeroMQ "
                    "(docs/protocol.md); host bots fill the seats you give them.")
    parser.add_argument("--seats", type=_int_range(2, 6, "seats"), default=4, metavar="N",
                        help="players at the table, 2-6 (default 4)")
    parser.add_argument("--bots", type=_bots, default=0, metavar="N|LIST",
                        help="host bots: a number (of --bot-strategy bots) or a comma list of "
                             f"strategies ({', '.join(strategy_names())} or module:Class); "
                             "they take the first seats (default 0)")
    parser.add_argument("--bot-strategy", type=_check_strategy, default="greedy",
                        metavar="NAME", help="strategy of --bots N (default greedy)")
    parser.add_argument("--name", default="Mundus table", help="the table's name")
    parser.add_argument("--port", type=_int_range(0, 65534, "the port"), default=DEFAULT_PORT,
                        help=f"ROUTER port; the PUB socket uses PORT+1 (default {DEFAULT_PORT};"
                             " 0 picks free ports)")
    parser.add_argument("--bind", default="0.0.0.0", metavar="ADDRESS",
                        help="interface to listen on (default 0.0.0.0, the whole LAN; "
                             "127.0.0.1 for this computer only)")
    parser.add_argument("--seed", type=int, default=None,
                        help="game seed (default: random; it is kept secret until the end)")
    parser.add_argument("--promo", action="store_true", help="play with the promo cards")
    parser.add_argument("--deck", metavar="FILE", default=None,
                        help="development deck file (default: the built-in deck)")
    parser.add_argument("--first-tm", type=_first_tm, default=0, metavar="SEAT|random",
                        help="the first Trade Master's seat, or random (default 0)")
    parser.add_argument("--decision-seconds", type=_seconds, default=None, metavar="S",
                        help="people who take longer get the default decision "
                             "(default: no limit)")
    parser.add_argument("--bot-seconds", type=_seconds, default=DEFAULT_BOT_SECONDS,
                        metavar="S", help="the same limit for network bots "
                                          f"(default {DEFAULT_BOT_SECONDS:g})")
    parser.add_argument("--bot-pace", type=float, default=0.0, metavar="S",
                        help="pause between host-bot decisions, to watch them (default 0)")
    parser.add_argument("--round-limit", type=_int_range(1, 10_000, "the round limit"),
                        default=None, metavar="N", help="end after N rounds (R8.5)")
    parser.add_argument("--record", metavar="FILE", default=None,
                        help="write the game record (JSON) to FILE at the end")
    beacon.add_arguments(parser)
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


def _describe(event: Message, names: list[str]) -> str | None:
    """One line for the host's console, for the events worth telling the host's owner."""
    kind = event["kind"]
    seat = event.get("seat")
    who = f"seat {seat} ({names[seat] if isinstance(seat, int) and seat < len(names) else ''})"
    if kind == "joined":
        return f"{event['name']} took seat {seat}" + (" (a bot)" if event.get("bot") else "")
    if kind == "started":
        return "every seat is taken: the game begins"
    if kind in ("away", "back"):
        return f"{who} is {kind}"
    if kind == "round":
        return f"round {event['round']}"
    if kind == "violation":
        return f"{who}: violation ({event.get('reason')}); the default was played"
    if kind == "timeout":
        return f"{who} ran out of time ({event.get('phase')})"
    if kind == "spectator":
        return f"{event['name']} is watching"
    return None


def _main(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.host_parser
    deck: Deck | None = None
    if args.deck is not None:
        try:
            deck = load_deck(args.deck)
        except DeckError as exc:
            parser.error(str(exc))
    specs = [args.bot_strategy] * args.bots if isinstance(args.bots, int) else args.bots
    if len(specs) > args.seats:
        parser.error(f"--bots: {len(specs)} host bots do not fit at {args.seats} seats")
    if args.first_tm is not None and args.first_tm >= args.seats:
        parser.error(f"--first-tm: seat {args.first_tm} is not at a {args.seats}-seat table")
    if args.bot_pace < 0:
        parser.error("--bot-pace: seconds cannot be negative")
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    bots: list[Bot] = [load_bot(spec, derive_seed(seed, "host-bot", i))
                       for i, spec in enumerate(specs)]
    names = [f"{spec.rpartition(':')[2]} bot {i}"[:32] for i, spec in enumerate(specs)]
    table = Table(args.seats, seed=seed, promo=args.promo, deck=deck, first_tm=args.first_tm,
                  round_limit=args.round_limit, name=args.name, bots=bots, bot_names=names,
                  decision_seconds=args.decision_seconds, bot_seconds=args.bot_seconds,
                  bot_pace=args.bot_pace)

    def on_update(update: Message) -> None:
        for event in update["events"]:
            line = _describe(event, update["state"]["table"]["names"])
            if line:
                print(line, flush=True)

    host = Host(table, bind=args.bind, port=args.port, on_update=on_update)
    try:
        host.open()
    except Exception as exc:  # zmq.ZMQError: address in use, bad interface...
        print(f"mundus host: cannot listen on {args.bind}:{args.port}: {exc}", file=sys.stderr)
        return 1
    address = join_address(args.bind, host.port)
    print(f"{args.name!r}: {args.seats} seats, {len(specs)} host bot(s), game {table.game_id}")
    print(f"join at {address} (public updates on port {host.pub_port})")
    if table.free_seats():
        print(f"  a bot joins with:  mundus bot --connect {address}")
        print(f"waiting for {table.free_seats()} player(s)...", flush=True)
    host.start()
    announcer = beacon.from_args(args, host, address)
    if announcer is not None:  # stops by itself with the host
        announcer.start()
        print(f"announced to {announcer.target[0]}:{announcer.target[1]} "
              "(`mundus join` lists it; --no-beacon turns this off)", flush=True)
    try:
        while not host.wait(0.5):
            pass
    except KeyboardInterrupt:
        print("\nstopping the table", file=sys.stderr)
        host.stop()
        _write_record(args.record, table)
        return 130
    _write_record(args.record, table)
    if host.error is not None:
        print(f"mundus host: stopped by an internal error: {host.error!r}", file=sys.stderr)
        return 1
    result = table.game.result
    if result is None:
        print("the table stopped before the game ended")
        return 1
    names_now = table.names
    winners = ", ".join(f"{names_now[s]} (seat {s})" for s in result.winners)
    print(f"game over after {result.rounds} round(s) ({result.reason}): won by {winners}")
    for seat in range(table.players):
        print(f"  place {result.places[seat]}: seat {seat} {names_now[seat]}, "
              f"{result.doubloons[seat]} doubloons")
    return 0


def _write_record(path: str | None, table: Table) -> None:
    if path is None:
        return
    try:
        Path(path).write_text(table.record.to_json() + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"mundus host: cannot write the record to {path}: {exc}", file=sys.stderr)
        return
    print(f"record written to {path}")
