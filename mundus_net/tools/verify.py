"""Signed game records and ``mundus verify`` (docs/record.md, "Signed records").

A host signs the whole record with its Ed25519 key: the signature covers the canonical JSON
of the record body (every field but ``signature``), so a record changed in any field fails,
and ``mundus verify`` also checks that the file is byte for byte the layout the host wrote.
Then it checks the fair deal (the seed commitment against the revealed seed, the seed's
derivation from the contributions, the deal the derived seed gives), every offer commitment,
and that replaying the decisions gives the recorded result. It names the first thing that
does not hold.

Pure: it reads text and returns results (no sockets, no files but the CLI's).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from mundus_net.cli_args import add_deck_option
from mundus_net.engine.decisions import Offer, RuleError
from mundus_net.engine.deck import Deck, DeckError, deck_for_record, default_deck, load_deck
from mundus_net.engine.errors import MundusError
from mundus_net.engine.game import REASON_WORDS, Game, Result
from mundus_net.engine.record import FORMAT as RECORD_FORMAT
from mundus_net.engine.record import GameRecord, RecordError
from mundus_net.host.keys import own_sign_key, signed_by
from mundus_net.protocol import commitment, fairdeal
from mundus_net.protocol.security import fingerprint_bytes
from mundus_net.protocol.signing import (
    SIGNATURE_ALG,
    deal_digest,
    layout,
    signed_message,
)
from mundus_net.tools.results import file_error, wrapped

__all__ = [
    "CHECKS", "Check", "Report", "UnreadableRecord", "chain_words", "register", "run",
    "verify_text", "what_is_wrong"
]


class UnreadableRecord(MundusError, ValueError):
    """The file is not a game record at all (exit status 2); the message says what it is."""


# -- verification ---------------------------------------------------------------------------


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


@dataclass
class Report:
    checks: list[Check] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    # Set when the record's game did not finish: where it stops ("round 4, after decision
    # 60"). Everything recorded up to there was checked; only the result is missing.
    unfinished: str | None = None
    # Who signed (a valid signature): the key (hex), its words (host.keys.signed_by), and
    # whether it is the pinned key or this computer's own host key.
    signer: str | None = None
    signer_words: str = ""
    pinned: bool = False
    own: bool = False
    # The chain of the public history the host says it published (meta.chain,
    # protocol/chain.py), for the players to compare with what their clients saw; None when
    # the record has none (written before it, or by mundus sim).
    chain: str | None = None

    @property
    def signer_fingerprint(self) -> str | None:
        return None if self.signer is None else fingerprint_bytes(bytes.fromhex(self.signer))

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks) and not self.skipped

    @property
    def first_failure(self) -> Check | None:
        return next((c for c in self.checks if not c.ok), None)


CHECKS = ("signature", "layout", "record", "seed commitment", "seed derivation", "deal",
          "offer commitments", "replay", "offers match decisions", "result")


class _Failed(Exception):
    pass


def _hex(value: Any, size: int, what: str) -> bytes:
    """Lowercase hex of ``size`` bytes, written one way only: the signature's own fields are
    not signed, so another spelling of the same bytes must not pass."""
    if not isinstance(value, str) or len(value) != 2 * size:
        raise ValueError(f"{what} is not {size} bytes of hex")
    raw = bytes.fromhex(value)
    if raw.hex() != value:
        raise ValueError(f"{what} is not lowercase hex")
    return raw


def what_is_wrong(data: str | bytes) -> str:
    """In plain words, why ``data`` (a file's text or bytes) is not a game record: empty, cut
    short, damaged, a picture, a host's game log, a deck file... (the record loader's words)."""
    try:
        GameRecord.from_json(data)
    except RecordError as exc:
        return str(exc)
    return "it is not a game record"


def verify_text(text: str, pinned_key: str | None = None, deck: Deck | None = None,
                on_check: Callable[[Check], None] | None = None,
                own_key: str | None = None) -> Report:
    """Check a signed record (the file's text). Stops at the first check that fails; the
    rest are listed as skipped. ``own_key``: this computer's record signing key (hex), named
    as such when it signed. UnreadableRecord when ``text`` is not a game record at all (not
    JSON, or a JSON document that is neither signed nor of the record format)."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        raise UnreadableRecord(what_is_wrong(text)) from None
    if not isinstance(document, dict) or (
            document.get("format") != RECORD_FORMAT and "signature" not in document):
        raise UnreadableRecord(what_is_wrong(text))
    report = Report()

    def check(name: str, ok: bool, detail: str) -> None:
        found = Check(name, ok, detail)
        report.checks.append(found)
        if on_check is not None:
            on_check(found)
        if not ok:
            raise _Failed

    try:
        _verify(document, text, pinned_key, own_key, deck, check, report)
    except _Failed:
        done = {c.name for c in report.checks}
        report.skipped = [name for name in CHECKS if name not in done]
    return report


def _verify(document: dict[str, Any], text: str, pinned_key: str | None, own_key: str | None,
            deck: Deck | None, check: Callable[[str, bool, str], None], report: Report) -> None:
    # 1. The signature over the canonical body, by the pinned key if one is given.
    signature = document.get("signature")
    if not isinstance(signature, dict):
        check("signature", False, "the record is not signed: only `mundus host` signs its "
                                  "records (those of mundus sim and mundus tournament are not "
                                  "signed), so there is nothing to verify; `mundus replay` "
                                  "still shows the game")
        return
    body = {k: v for k, v in document.items() if k != "signature"}
    try:
        if signature.get("alg") != SIGNATURE_ALG:
            raise ValueError(f"unknown algorithm {signature.get('alg')}")
        key = _hex(signature.get("key"), 32, "the signing key")
        value = _hex(signature.get("value"), 64, "the signature")
        if set(signature) != {"alg", "key", "value"}:
            raise ValueError("unknown fields in 'signature'")
        message = signed_message(body)
    except ValueError as exc:
        check("signature", False, f"malformed signature: {exc}")
        return
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(value, message)
    except InvalidSignature:
        check("signature", False, f"the signature by key {key.hex()} does not match the "
                                  "record: it was changed after it was signed, or signed by "
                                  "another key")
    fp = fingerprint_bytes(key)
    report.signer, report.signer_words = key.hex(), signed_by(key.hex(), own_key)
    if pinned_key is not None:
        pinned = pinned_key.strip().lower()
        report.pinned = pinned == key.hex()
        check("signature", report.pinned,
              f"signed by the pinned key {fp} ({key.hex()})" if report.pinned else
              f"signed by the key {fp} ({key.hex()}), not by the pinned key {pinned}")
    elif key.hex() == own_key:
        report.own = True
        check("signature", True, f"{report.signer_words}: the record was made here (mundus "
                                 "host or mundus play), nothing to compare")
    else:
        check("signature", True, f"{report.signer_words} ({key.hex()}), not this "
                                 "computer's: compare it with the fingerprint of the "
                                 "record signing key that the game's host printed (ask the "
                                 "person who hosted it: mundus host prints it when it starts, "
                                 "mundus play with the record), or pass --host-key HEX")

    # 2. The file is exactly what was written.
    # Every byte counts: a removed final newline is a change too.
    expected = layout(document)
    same = text == expected
    if same:
        why = "the file is byte for byte as the host wrote it"
    elif text == expected.rstrip("\n"):
        why = "the content is signed, but the file's final newline was removed"
    else:
        why = "the content is signed, but the file's layout (spaces, escapes) was changed"
    check("layout", same, why)

    # 3. A record this version reads.
    try:
        record = GameRecord.from_json(text)
    except RecordError as exc:
        check("record", False, f"not a readable game record: {exc}")
        return
    names = [str(record.names[s]) if s < len(record.names) and record.names[s] else ""
             for s in range(record.options.players)]
    deck = deck or deck_for_record(record.deck_digest) or default_deck()
    if record.deck_digest and deck.digest != record.deck_digest:
        check("record", False, f"played with the deck \"{record.deck}\" "
                               f"({record.deck_digest}); pass that deck with --deck FILE")
    check("record", True, f"game {record.game_id}: {len(record.decisions)} decisions, "
                          f"{len(record.offers)} committed offers")
    report.chain = chain_words(record.meta)

    # 4.-6. The fair deal.
    fair = document.get("fairness")
    if not isinstance(fair, dict):
        check("seed commitment", False, "the record has no fair-deal data ('fairness')")
        return
    try:
        if fair.get("scheme") != fairdeal.SCHEME:
            raise ValueError(f"unknown scheme {fair.get('scheme')}")
        promised = _hex(fair.get("commitment"), 32, "the seed commitment")
        host_seed = _hex(fair.get("host_seed"), fairdeal.SEED_BYTES, "the host seed")
        mixed = fair.get("mixed")
        if not isinstance(mixed, bool):
            raise ValueError("'mixed' is not true or false")
        entries = fair.get("contributions")
        if not isinstance(entries, list) or len(entries) != record.options.players:
            raise ValueError("not one contribution per seat")
        values = []
        by_players = 0
        for seat, entry in enumerate(entries):
            if not isinstance(entry, dict) or entry.get("seat") != seat:
                raise ValueError(f"contribution {seat} is not seat {seat}'s")
            values.append(_hex(entry.get("value"), fairdeal.CONTRIBUTION_BYTES,
                               f"the contribution of seat {seat}"))
            by_players += entry.get("by") == "player"
        digest = fair.get("deal_digest")
        if not isinstance(digest, str):
            raise ValueError("no deal digest")
    except ValueError as exc:
        check("seed commitment", False, f"malformed fair-deal data: {exc}")
        return
    opens = fairdeal.check_commitment(promised, record.game_id, host_seed)
    check("seed commitment", opens,
          "the revealed host seed opens the commitment published before any contribution"
          if opens else "the revealed host seed does not open the commitment")
    derived = fairdeal.engine_seed(record.game_id, host_seed, values, mixed)
    how = (f"mixed from the host seed and {len(values)} contributions, {by_players} of them "
           "from players' clients" if mixed else
           "FIXED by the host (--fixed-seed): the contributions were not mixed in, so the "
           "host chose the deal")
    if mixed and not by_players:
        how += " (no client contributed: the host alone chose the deal)"
    check("seed derivation", derived == record.options.seed,
          f"seed {derived}, {how}" if derived == record.options.seed else
          f"the game was played with seed {record.options.seed}, but the host seed and the "
          f"contributions give {derived}")
    try:
        game = Game(record.options, deck)
    except RuleError as exc:
        check("deal", False, f"the record's options make no game: {exc}")
        return
    dealt = deal_digest(game) == digest
    check("deal", dealt, "the seed deals exactly the set-up the host played" if dealt
          else "the set-up the seed deals is not the one the host played")

    # 7. Every offer commitment.
    for offer in record.offers:
        try:
            opened = commitment.verify(bytes.fromhex(offer.commitment), record.game_id,
                                       offer.round, offer.seat, offer.offer,
                                       bytes.fromhex(offer.nonce))
        except (ValueError, OverflowError):  # not hex, or numbers that fit no commitment
            opened = False
        if not opened:
            check("offer commitments", False, f"round {offer.round}, seat {offer.seat}: the "
                                              "offer and nonce do not open the commitment")
    check("offer commitments", True, f"all {len(record.offers)} open their commitments")

    # 8.-10. Replay: every decision is legal, the committed offers are the ones played, and
    # the game ends as recorded.
    played: dict[tuple[int, int], tuple[int, ...]] = {}
    for index, rec in enumerate(record.decisions):
        if isinstance(rec.decision, Offer):
            played[(game.round, rec.seat)] = tuple(sorted(rec.decision.cards))
        try:
            game.apply(rec.seat, rec.decision)
        except RuleError as exc:
            check("replay", False, f"decision {index + 1} (seat {rec.seat}) is illegal: {exc}")
    check("replay", True, f"all {len(record.decisions)} decisions are legal")
    for offer in record.offers:
        shown = played.get((offer.round, offer.seat))
        if shown != tuple(sorted(offer.offer)):
            check("offers match decisions", False,
                  f"round {offer.round}, seat {offer.seat} committed to {list(offer.offer)} "
                  f"but the decisions play {list(shown) if shown else 'no offer'}")
    check("offers match decisions", True, "every committed offer is the one played")
    replayed, recorded = game.result, record.result
    if replayed is None and recorded is None:
        report.unfinished = (f"it stops in round {game.round}, after decision "
                             f"{len(record.decisions)}")
        check("result", False, f"the game did not finish: the record stops in round "
                               f"{game.round}, after decision {len(record.decisions)} (its "
                               "host stopped before the game ended), so it has no result")
    elif recorded is None and replayed is not None:
        check("result", False, f"the decisions play the game to its end "
                               f"({_result_text(replayed, names)}), but the record has no "
                               "result")
    elif replayed is None and recorded is not None:
        check("result", False, f"the record says {_result_text(recorded, names)}, but "
                               f"its decisions stop in round {game.round}, before the end")
    elif replayed is not None and recorded is not None and replayed != recorded:
        check("result", False, f"the replay ends with the game {_result_text(replayed, names)}"
                               f", but the record says: {_result_text(recorded, names)}")
    elif recorded is not None:
        check("result", True,
              f"the replay ends as recorded: {_result_text(recorded, names)}")


def _chain_of(text: str) -> str | None:
    """chain_words of a record's text (already read as a record: its JSON is sound)."""
    meta = json.loads(text).get("meta")
    return chain_words(meta) if isinstance(meta, dict) else None


def chain_words(meta: dict[str, Any]) -> str | None:
    """What the record says of its public history's chain, for people; None without one."""
    found = meta.get("chain")
    if not isinstance(found, dict) or not isinstance(found.get("events"), int) \
            or not isinstance(found.get("digest"), str):
        return None
    resumed = meta.get("resumed")
    restarts = f"; the host resumed the game {resumed} time{'s' if resumed != 1 else ''}" \
        if isinstance(resumed, int) and resumed else ""
    return (f"the host published {found['events']} public events, chain digest "
            f"{found['digest'][:16]}{restarts}. A player's client that saw the whole game "
            "shows the same count and digest at its end; a client that saw more, or "
            "another digest, saw the host go back in time (docs/security.md)")


def _result_text(result: Result, names: list[str]) -> str:
    """``won by Ann (seat 2) after 3 rounds, at the round limit, with 10/20/32 doubloons``."""
    def who(seat: int) -> str:
        return (f"{names[seat]} (seat {seat})" if 0 <= seat < len(names) and names[seat]
                else f"seat {seat}")
    how = REASON_WORDS.get(result.reason, f"by {result.reason}")
    rounds = f"{result.rounds} round{'' if result.rounds == 1 else 's'}"
    return (f"won by {' and '.join(who(s) for s in result.winners)} after {rounds}, {how}, "
            f"with {'/'.join(map(str, result.doubloons))} doubloons")


# -- the command ----------------------------------------------------------------------------


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "verify",
        description="Check a game record signed by its host (docs/record.md): the signature "
                    "(by the pinned key with --host-key), the seed commitment, the seed's "
                    "derivation from the players' contributions, the deal, every offer "
                    "commitment, and that the decisions replay to the recorded result. "
                    "Exit status 0: everything holds; 1: something does not (the first is "
                    "named); 2: the file cannot be read.")
    p.add_argument("record", metavar="RECORD", help="the record file (mundus host --record)")
    p.add_argument("--host-key", metavar="HEX", default=None,
                   help="the host's signing key (64 hex digits, as `mundus host` prints it): "
                        "the record must be signed by it")
    add_deck_option(p, recorded=True)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        with open(args.record, "rb") as f:
            raw = f.read()
    except OSError as exc:
        print(f"mundus verify: {args.record}: {file_error(exc)}", file=sys.stderr)
        return 2
    try:
        text = raw.decode("utf-8")  # as written: no newline translation
    except UnicodeDecodeError:
        print(f"mundus verify: {args.record}: {what_is_wrong(raw)}", file=sys.stderr)
        return 2
    deck = None
    if args.deck is not None:
        try:
            deck = load_deck(args.deck)
        except DeckError as exc:
            print(f"mundus verify: {exc}", file=sys.stderr)
            return 2

    def say(text: str, indent: str = "  ") -> None:
        print("\n".join(wrapped(text, indent)), flush=True)

    def show(found: Check) -> None:
        # A check's detail under its name, at 80 columns (the name's column kept clear).
        say(f"{'ok  ' if found.ok else 'FAIL'} {found.name}: {found.detail}", " " * 5)
        if found.name == "record" and found.ok:
            # What the host says it published, for the players to compare (not a check).
            history = _chain_of(text)
            if history is not None:
                say(f"     history: {history}", " " * 5)

    try:
        report = verify_text(text, args.host_key, deck, on_check=show, own_key=own_sign_key())
    except UnreadableRecord as exc:
        print(f"mundus verify: {args.record}: {exc}", file=sys.stderr)
        return 2
    if report.ok:
        fp = report.signer_fingerprint
        if report.own:
            say(f"{args.record}: every check holds; {report.signer_words}")
        elif report.pinned:
            say(f"{args.record}: every check holds; signed by the pinned key {fp}")
        else:
            say(f"{args.record}: every check holds; it is its host's record if {fp} is the "
                "fingerprint of the record signing key that host printed")
        return 0
    failed = report.first_failure
    for name in report.skipped:
        print(f"  -  {name}: not checked")
    if report.unfinished is not None:
        say(f"the game in {args.record} did not finish ({report.unfinished}): "
            "everything recorded up to there holds, but there is no result to check")
        return 1
    what = f"{failed.name}: {failed.detail}" if failed is not None else "incomplete"
    say(f"{args.record}: DOES NOT HOLD: {what}")
    return 1
