"""``mundus watch [tcp://HOST:PORT]``: follow a table as a spectator (public information
only: no hand, no decisions). Without an address, pick a table heard on the LAN."""

from __future__ import annotations

import argparse
from typing import Any

from mundus_net.client.known_hosts import KnownHosts
from mundus_net.client.tui.join import add_discovery_arguments, pick
from mundus_net.client.tui.session import Seating, needs_terminal, sit


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "watch",
        description="Follow a mundus host's table in the full-screen client, seeing what "
                    "every player sees of the table (docs/client.md).")
    add_discovery_arguments(p)
    p.add_argument("--name", default="spectator", help="the name the table sees")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if needs_terminal("watch"):
        return 2
    address, offered = args.address, None
    if address is None:
        chosen = pick(args, None, watching=True)
        if chosen is None:
            return 1
        address, offered = chosen.address, chosen.announcement.key
    return sit(Seating(address, (args.name.strip() or "spectator")[:32], spectator=True,
                       host_key=args.host_key, offered_key=offered, insecure=args.insecure,
                       known_hosts=KnownHosts(), invite=args.invite))
