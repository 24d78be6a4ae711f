"""``mundus watch [tcp://HOST:PORT]``: follow a table as a spectator (public information
only: no hand, no decisions). Without an address, pick a table heard on the LAN."""

from __future__ import annotations

import argparse
import os
from typing import Any

from mundus_net.client.i18n import add_language_argument, choose_language
from mundus_net.client.known_hosts import KnownHosts
from mundus_net.client.tui.join import add_discovery_arguments, pick
from mundus_net.client.tui.session import Seating, needs_terminal, saved_name, sit

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "watch",
        description="Follow a mundus host's table in the full-screen client, seeing what "
                    "every player sees of the table (docs/client.md).")
    add_discovery_arguments(p)
    p.add_argument("--name", default="spectator", help="the name the table sees")
    add_language_argument(p)
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
    # The language is remembered for the player's own name, not the one the table sees.
    language = choose_language(args.lang, saved_name() or args.name, os.environ)
    return sit(Seating(address, (args.name.strip() or "spectator")[:32], spectator=True,
                       host_key=args.host_key, offered_key=offered, insecure=args.insecure,
                       known_hosts=KnownHosts(), invite=args.invite, language=language))
