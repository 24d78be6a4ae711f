"""``mundus join [tcp://HOST:PORT]``: sit at a table on the network.

With an address, join it; a seat token saved for that address (from an earlier join) gives
the seat back. Without one, listen for the hosts' LAN beacons for a couple of seconds, list
the tables heard, and join the one picked (docs/client.md).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from mundus_net.cli_args import command, join_command, seconds
from mundus_net.client.discovery import LISTEN_SECONDS, Table, discover, listen_address
from mundus_net.client.i18n import (
    add_language_argument,
    choose_language,
    current,
    early_language,
    use,
)
from mundus_net.client.known_hosts import KnownHosts, add_security_arguments
from mundus_net.client.tokens import SavedSeat, TokenStore
from mundus_net.client.tui.session import (
    Seating,
    default_name,
    needs_terminal,
    saved_name,
    sit,
)
from mundus_net.protocol.beacon import BEACON_PORT
from mundus_net.protocol.names import DEFAULT_NAME, clean_name

__all__ = ["add_discovery_arguments", "pick", "register", "run", "seat_to_resume"]


def _address(text: str) -> str:
    if "://" not in text:
        text = "tcp://" + text  # HOST:PORT is enough
    scheme, _, rest = text.partition("://")
    host, sep, port = rest.rpartition(":")
    if scheme != "tcp" or not sep or not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not tcp://HOST:PORT")
    return text


def _listen(text: str) -> tuple[str, int]:
    try:
        return listen_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_discovery_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("address", nargs="?", type=_address, default=None,
                   metavar="tcp://HOST:PORT",
                   help="the host's address (default: list the tables heard on the LAN)")
    p.add_argument("--listen", type=_listen, default=("", BEACON_PORT), metavar="[ADDR:]PORT",
                   help=f"where to listen for table beacons (default port {BEACON_PORT} on "
                        "every interface)")
    p.add_argument("--seconds", type=seconds(60), default=LISTEN_SECONDS,
                   help=f"how long to listen for beacons (default {LISTEN_SECONDS:g})")
    add_security_arguments(p)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "join",
        description="Join a mundus host's table in the full-screen client; a saved seat "
                    "token resumes your seat (docs/client.md).")
    add_discovery_arguments(p)
    p.add_argument("--name", default=None,
                   help="your name at the table, and the seat kept for that name (default: "
                        "the seat kept for you here, else the name you used last; the first "
                        "time, you are asked)")
    p.add_argument("--take-over", action="store_true",
                   help="take your seat over even if another terminal or computer sits in it "
                        "now with its token (that one is told, and stops)")
    add_language_argument(p)
    p.set_defaults(func=run)


def pick(args: argparse.Namespace, store: TokenStore | None, watching: bool = False
         ) -> Table | None:
    """Listen for beacons and let the player pick a table (with the key its beacon offers),
    or None."""
    # `mundus watch` picks too: what it prints before it sits is in the player's language.
    t = use(early_language(getattr(args, "lang", None), os.environ))
    host, port = args.listen
    where = t._("{interface}, port {port}").format(
        interface=host or t._("every interface"), port=port)
    print(t._("Listening for tables on the LAN ({where}) for {seconds} s …").format(
        where=where, seconds=f"{args.seconds:g}"), flush=True)
    try:
        tables = discover(args.seconds, host, port)
    except OSError as exc:
        print(t._("mundus: cannot listen on {address}: {error}").format(
            address=f"{host or '*'}:{port}", error=exc), file=sys.stderr)
        return None
    if not tables:
        print(t._("No table heard. Is a host running ({host_command}) on this network? Join it "
                  "by its address: {join_command} tcp://HOST:PORT").format(
                      host_command=command("host"), join_command=command("join")),
              file=sys.stderr)
        return None
    for i, table in enumerate(tables, 1):
        mine = store is not None and store.get(table.address) is not None
        print(f"  {i}. {table.describe()}" + (t._(" (your seat)") if mine else ""))
    if len(tables) == 1:
        chosen = tables[0]
    else:
        chosen_or_none = _ask(tables)
        if chosen_or_none is None:
            return None
        chosen = chosen_or_none
    if not chosen.compatible:
        print(t._("mundus: {address} speaks another protocol version").format(
            address=chosen.address), file=sys.stderr)
        return None
    mine = store is not None and store.get(chosen.address) is not None
    if not watching and not mine and chosen.announcement.free == 0:
        print(t._('mundus: every seat at "{table}" is taken. Watch it: {command}').format(
            table=chosen.announcement.name,
            command=join_command(chosen.address, args.invite, watch=True)), file=sys.stderr)
        return None
    return chosen


def _ask(tables: list[Table]) -> Table | None:
    t = current()
    while True:
        try:
            answer = input(t._("Which table? [1-{count}] ").format(count=len(tables))).strip()
        except EOFError:
            return None
        if answer.isdigit() and 1 <= int(answer) <= len(tables):
            return tables[int(answer) - 1]
        print(t._("Type a number from 1 to {count} (Ctrl-D gives up).").format(
            count=len(tables)))


def run(args: argparse.Namespace) -> int:
    use(early_language(args.lang, os.environ))  # for what is said before the name is known
    if needs_terminal("join"):
        return 2
    store = TokenStore()
    address, offered = args.address, None
    if address is None:
        chosen = pick(args, store)
        if chosen is None:
            return 1
        address, offered = chosen.address, chosen.announcement.key
    if args.name is not None:
        name = clean_name(args.name)
    else:
        saved = seat_to_resume(store.seats(address), saved_name())
        # The seat comes back with its name: nothing to ask.
        name = clean_name(saved.name) if saved is not None else default_name()
    name = name or DEFAULT_NAME
    return sit(Seating(address, name, store=store, host_key=args.host_key,
                       offered_key=offered, insecure=args.insecure, known_hosts=KnownHosts(),
                       invite=args.invite, take_over=args.take_over,
                       language=choose_language(args.lang, name, os.environ)))


def seat_to_resume(seats: list[SavedSeat], last_name: str | None) -> SavedSeat | None:
    """Which saved seat at a table ``mundus join`` without ``--name`` comes back to: one no
    running program of this computer holds (the other terminal's player keeps theirs), the
    one of the name used last if it is among them, else the one saved last; when every seat
    is held, the one of the name used last (the host then says it is in use)."""
    if not seats:
        return None
    def named(group: list[SavedSeat]) -> SavedSeat | None:
        return next((seat for seat in group if last_name is not None
                     and seat.name.casefold() == last_name.casefold()), None)

    free = [seat for seat in seats
            if seat.holder is None or not (seat.holder.here and seat.holder.running)]
    if free:
        return named(free) or free[0]
    return named(seats) or seats[0]
