"""``mundus review RECORD``: what each decision of a game cost its seat (docs/review.md).

The numbers are :mod:`mundus_net.bots.review`'s (the search bot's estimates of a seat's share
of the win after the decision played and after the best one it finds, each from the seat's
own view); the words are :mod:`mundus_net.client.tui.reviewtext`'s, in the player's language.
It prints a summary per player (accuracy, how many inaccuracies, mistakes and blunders, the
three largest losses), with ``--seat`` every decision of that seat, and writes the review as
JSON with ``--json FILE`` (which ``mundus report`` draws and ``mundus replay --review``
shows).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from mundus_net.bots.review import (
    DEFAULT_ITERATIONS,
    LABELS,
    DecisionReview,
    GameReview,
    accuracy,
    largest_losses,
)
from mundus_net.cli_args import add_deck_option, command, positive_int
from mundus_net.client.i18n import (
    Translator,
    add_language_argument,
    current,
    early_language,
    use,
)
from mundus_net.client.tui.replay import parse_viewer
from mundus_net.client.tui.reviewtext import (
    label_count,
    label_word,
    points,
    reason,
    review_line,
    share,
)
from mundus_net.client.tui.sentences import PHASE_WORDS, seat_name, words
from mundus_net.engine.deck import Deck, DeckError, load_deck
from mundus_net.engine.record import GameRecord, RecordError
from mundus_net.engine.view import PlayerView
from mundus_net.tools.results import file_error

__all__ = ["make_review", "print_review", "register", "run"]


def make_review(record: GameRecord, deck: Deck | None = None, seats: Sequence[int] | None = None,
                *, seed: int = 0, iterations: int = DEFAULT_ITERATIONS,
                progress: Callable[[int, int], None] | None = None) -> GameReview:
    """Review ``record`` (RecordError if it does not replay) and word each decision's reason
    in the current language (kept in the review's ``extra``: the JSON's ``reason`` and
    ``line``)."""
    review = GameReview.of_record(record, deck, seats, seed=seed, iterations=iterations,
                                  progress=progress)
    review.names = [seat_name(record.names, s) for s in range(review.players)]
    names = review.names
    # The words need each seat's view at its decision: one more replay, cheap beside the review.
    decisions = [(d.seat, d.decision) for d in record.decisions]
    words = record.replay(deck, upto=0)
    views = PlayerView.for_seats(words)
    todo = {r.index: r for r in review.decisions}
    for index, (seat, decision) in enumerate(decisions):
        r = todo.get(index)
        if r is not None:
            review.extra[index] = {"reason": reason(r, views[seat], names),
                                   "line": review_line(r, views[seat], names)}
        words.apply(seat, decision)
    return review


def _where(r: DecisionReview, t: Translator) -> str:
    return t._("decision {number}, round {round}").format(number=r.index + 1, round=r.round)


def print_review(review: GameReview, out: TextIO, *, detail: int | None = None) -> None:
    """The summary of every reviewed seat; with ``detail``, every decision of that seat."""
    t = current()
    print(t._("Review of game {game}: each decision's share of the win as the search "
              "estimates it from the seat's own view (seed {seed}, {count} deals a "
              "decision; docs/review.md)").format(game=review.game, seed=review.seed,
                                                  count=review.iterations), file=out)
    for seat in review.seats:
        mine = review.of_seat(seat)
        score = accuracy(mine)
        counts = ", ".join(label_count(name, sum(1 for r in mine if r.label == name))
                           for name, _ in reversed(LABELS))
        print("", file=out)
        print(t._("{name} (seat {seat}): accuracy {accuracy} over {count} decisions · "
                  "{counts}").format(name=review.names[seat], seat=seat,
                                     accuracy="-" if score is None else f"{score:.1f}",
                                     count=len(mine), counts=counts), file=out)
        worst = largest_losses(mine)
        if not worst:
            print("  " + t._("no decision lost anything the search could see"), file=out)
        for r in worst:
            line = review.extra.get(r.index, {}).get("line", "")
            print(f"  {_where(r, t)}: {line}", file=out)
        if seat == detail:
            print("  " + t._("every decision: its number, the round, the share of the win after "
                             "the decision played → after the best, the points lost, the step"),
                  file=out)
            for r in mine:
                label = f" · {label_word(r.label)}" if r.label else ""
                print(f"  {r.index + 1:>4} r{r.round:<2} {share(r.played_share):>4} → "
                      f"{share(r.best_share):>4}  −{points(r.loss):>4}  "
                      f"{words(PHASE_WORDS[r.phase])}{label}", file=out)
                text = review.extra.get(r.index, {}).get("reason")
                if r.label is not None and text:
                    print(f"        {text}", file=out)


# -- the command --------------------------------------------------------------------------------


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "review",
        description="Review a finished (or unfinished) game from its record: for each "
                    "decision of a seat, the search's estimate of that seat's share of the "
                    "win after the decision played and after the best one it finds, from "
                    "that seat's own view only; labels (inaccuracy, mistake, blunder) with a "
                    "reason; a summary per player (accuracy, the three largest losses). The "
                    "same record and seed give the same review (docs/review.md).")
    p.add_argument("record", metavar="RECORD", help="a game record file (JSON, docs/record.md)")
    p.add_argument("--seat", default=None, metavar="SEAT",
                   help="review this seat only (a seat number, 0-based, or a player's name) "
                        "and list every one of its decisions (default: every seat, summaries)")
    p.add_argument("--json", metavar="FILE", default=None,
                   help="write the review as JSON (for mundus report and mundus replay "
                        "--review)")
    p.add_argument("--seed", type=int, default=0,
                   help="the seed of the review's chances (default 0): the same record and "
                        "seed give the same review")
    p.add_argument("--iterations", type=positive_int, default=DEFAULT_ITERATIONS, metavar="N",
                   help=f"deals of the hidden cards per decision (default {DEFAULT_ITERATIONS}; "
                        "more is steadier and slower)")
    add_deck_option(p, recorded=True)
    add_language_argument(p)
    p.set_defaults(func=run)


def _progress(stream: TextIO) -> Callable[[int, int], None] | None:
    """A line redrawn in place on a terminal (nothing in a log)."""
    if not stream.isatty():
        return None
    t = current()

    def show(done: int, total: int) -> None:
        if done == total or done % 8 == 0:
            end = "\n" if done == total else ""
            stream.write("\r" + t._("reviewing: {done}/{total} decisions").format(
                done=done, total=total) + end)
            stream.flush()
    return show


def run(args: argparse.Namespace) -> int:
    t = use(early_language(args.lang, os.environ))
    try:
        raw = Path(args.record).read_bytes()
    except OSError as exc:
        print(f"mundus review: {args.record}: {file_error(exc)}", file=sys.stderr)
        return 2
    try:
        record = GameRecord.from_json(raw)
        deck = load_deck(args.deck) if args.deck is not None else None
    except RecordError as exc:
        print(f"mundus review: {args.record}: {exc}", file=sys.stderr)
        return 2
    except DeckError as exc:
        print(f"mundus review: --deck: {exc}", file=sys.stderr)
        return 2
    players = record.options.players
    names = [seat_name(record.names, s) for s in range(players)]
    seat = None
    if args.seat is not None:
        try:
            seat = parse_viewer(args.seat, names)
        except ValueError as exc:
            print(f"mundus review: --seat: {exc}", file=sys.stderr)
            return 2
        if seat is None:
            print(t._("mundus review: --seat: a spectator makes no decisions: give a seat "
                      "number or a player's name"), file=sys.stderr)
            return 2
    if args.json is not None and not Path(args.json).absolute().parent.is_dir():
        print(t._("mundus review: --json {file}: there is no such folder").format(
            file=args.json), file=sys.stderr)
        return 2
    try:  # a record that does not replay is refused before the long part starts
        review = make_review(record, deck, None if seat is None else [seat], seed=args.seed,
                             iterations=args.iterations, progress=_progress(sys.stderr))
    except RecordError as exc:
        print(f"mundus review: {args.record}: {exc}", file=sys.stderr)
        return 2
    print_review(review, sys.stdout, detail=seat)
    if args.json is not None:
        try:
            Path(args.json).write_text(review.to_json() + "\n", "utf-8")
        except OSError as exc:
            print(f"mundus review: --json {args.json}: {file_error(exc)}", file=sys.stderr)
            return 2
        print("\n" + t._("The review: {file} (draw it: {report}; beside the game: "
                         "{replay})").format(
            file=args.json, report=command("report", args.json),
            replay=command("replay", args.record, "--review", args.json)))
    return 0
