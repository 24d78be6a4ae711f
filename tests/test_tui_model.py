"""The terminal client's model without a terminal: what typed lines mean, the numbered
choices, the screen's size, and the seat-token file."""

from __future__ import annotations

import os
import re
import stat
import sys
from pathlib import Path

import pytest
from support.clock import FakeClock
from support.net import Net, play, table

from mundus_net.bots.base import load_bot
from mundus_net.client.core import OfferSecret
from mundus_net.client.notices import PendingDecision, PublicEvents, Synced
from mundus_net.client.tokens import TokenStore
from mundus_net.client.tui.app import (
    Chat,
    Leave,
    Say,
    Send,
    ShowHelp,
    Snapshot,
    TableModel,
    take_snapshot,
)
from mundus_net.client.tui.choices import choices_for
from mundus_net.client.tui.render import MOVES_SHOWN, line_width, split_rows
from mundus_net.client.tui.sentences import Narrator
from mundus_net.engine.decisions import EndTurn, Take
from mundus_net.engine.deck import EVENT_NAMES
from mundus_net.engine.game import Game, Pending
from mundus_net.engine.notation import format_decision
from mundus_net.engine.view import PlayerView, StateView, public_log
from mundus_net.protocol.codec import to_wire
from mundus_net.protocol.statedir import state_dir

ME = 3
NAMES = ("Bo", "Cy", "Di", "Ana")


def model_at(kind: str, seed: int = 7, from_round: int = 1) -> tuple[TableModel, Game]:
    """A model whose seat 3 is asked ``kind`` (bots play every other decision), in round
    ``from_round`` or later."""
    game = Game.new(4, seed=seed)
    bots = [load_bot("greedy", s) for s in range(4)]
    while True:
        pending = game.pending
        assert pending is not None, f"no {kind} for seat {ME} in this game"
        seat = pending.seats[0] if ME not in pending.seats else ME
        if seat == ME and pending.kind == kind and game.round >= from_round:
            break
        game.apply(seat, bots[seat].decide(PlayerView(game, seat), game.legal(seat)))
    legal = tuple(game.legal(ME))
    ready = PendingDecision(id=17, kind=kind, detail=dict(pending.detail), legal=legal,
                            deadline=None, seq=1)
    data = PlayerView(game, ME).to_dict()
    view = StateView(data, game.deck, list(legal), Pending(kind, (ME,), pending.detail))
    model = TableModel(address="tcp://127.0.0.1:7700")
    model.on_notice(Synced(1), Snapshot(view, ready, NAMES, online=True, seat=ME))
    return model, game


def played_model(seed: int, rounds: int) -> tuple[TableModel, Game, int]:
    """A model fed every notice of a core that plays a whole game (greedy) at a 3-seat
    table of the host's Table in memory, with two host bots; the game and the core's seat."""
    clock = FakeClock(100.0)
    net = Net(table(clock, host_bots=2, seed=seed, round_limit=rounds), clock)
    peer = net.join("Ana")
    model = TableModel(address="tcp://127.0.0.1:7700")
    told = 0
    collect = net.collect

    def collect_and_show() -> None:
        nonlocal told
        collect()
        for notice in peer.notices[told:]:
            model.on_notice(notice, take_snapshot(peer.core))
        told = len(peer.notices)

    net.collect = collect_and_show  # type: ignore[method-assign]
    seat = peer.core.seat
    assert seat is not None
    play(net, {peer: load_bot("greedy", seat)})
    return model, net.table.game, seat


def test_the_log_tells_a_seats_own_events_in_the_engines_order() -> None:
    """Your dealt, stored and returned cards are told where the engine made them: after the
    other seats' storage and discards and "Round N ends", in the new round."""
    # Seed 0: a game where Ana stores cards and gets them back (the bots' draws pick it).
    model, game, seat = played_model(seed=0, rounds=4)
    narrate = Narrator(list(model.snap.names), seat, game.deck)
    # The engine's log as this seat reads it; the offer is told by the reveal, the game's
    # end by the screen's last line.
    expected = [text for event in public_log(game, seat)
                if event["kind"] not in ("offer", "game_over") and (text := narrate(event))]
    told = iter(model.sentences)
    missing = [text for text in expected if not any(text == line for line in told)]
    assert not missing, f"out of order or missing: {missing[:3]}"
    assert any(text.startswith("You stored") for text in expected)
    assert any(text.endswith("back from the warehouses") for text in expected)


def test_numbers_pass_and_notation_choose_decisions() -> None:
    model, game = model_at("take")
    every = game.legal(ME)
    choices = model.choices()
    # Every legal take but the swaps that change nothing (a card for the market's card of
    # the same value, without Orellana), in the engine's order.
    legal = [d for d in every if not (isinstance(d, Take) and d.swap == d.card)]
    assert [c.decisions[0] for c in choices] == legal
    assert model.interpret("1") == Send((legal[0],))
    assert model.interpret(str(len(legal))) == Send((legal[-1],))
    assert isinstance(model.interpret(str(len(legal) + 1)), Say)
    first = legal[0]
    assert isinstance(first, Take)
    text = f"take:{'R' if first.card == 10 else first.card}@{first.seat}"
    assert model.interpret(text) == Send((first,))
    assert model.interpret(f"{ME}.{text}") == Send((first,))
    wrong_seat = model.interpret(f"{(ME + 1) % 4}.{text}")
    assert isinstance(wrong_seat, Say) and "seat prefix" in wrong_seat.text
    # Of the right kind but not listed: sent, for the engine to judge.
    own = model.interpret(f"take:5@{ME}")
    assert isinstance(own, Send) and "host will judge" in own.note
    wrong_kind = model.interpret("announce:3")
    assert isinstance(wrong_kind, Say) and "take a card" in wrong_kind.text
    bad = model.interpret("take:5")
    assert isinstance(bad, Say) and "take:CARD@SEAT" in bad.text
    assert isinstance(model.interpret("pass"), Say)  # nothing to pass in a take


def test_an_offer_is_checked_before_it_is_sealed() -> None:
    model, game = model_at("offer")
    legal = game.legal(ME)
    assert model.interpret(format_decision(legal[0])) == Send((legal[0],))
    wrong = model.interpret("offer:99999")  # of the right kind, but not a legal offer
    assert isinstance(wrong, Say) and "not an offer you can make" in wrong.text


def test_commands() -> None:
    model, _ = model_at("take")
    assert model.interpret("  ") is None
    assert model.interpret("help") == ShowHelp()
    assert model.interpret("quit") == Leave()
    assert model.interpret("say  hello  all ") == Chat("hello  all")
    assert isinstance(model.interpret("say"), Say)
    model.spectator = True
    assert isinstance(model.interpret("say hi"), Say)


def test_sending_marks_the_question_answered() -> None:
    model, _ = model_at("take")
    action = model.interpret("1")
    assert isinstance(action, Send)
    model.sending(action)
    # Read into a local: mypy keeps a narrowed ``model.ready`` across the calls below.
    ready_while_sending = model.ready
    assert ready_while_sending is None and model.prompt_text() == "> "
    waiting = model.interpret("2")
    assert isinstance(waiting, Say) and "on its way" in waiting.text
    model.send_failed(RuntimeError("gone"))
    assert model.ready is not None and model.prompt_text() == "take> "


def test_the_turn_lists_the_advisor_and_end() -> None:
    model, game = model_at("turn", seed=5)
    choices = model.choices()
    assert choices[-1].decisions == (EndTurn(),)
    legal = game.legal(ME)
    assert all(c.decisions[0] in legal for c in choices if len(c.decisions) == 1)
    assert model.interpret("end") == Send((EndTurn(),))
    assert model.interpret("pass") == Send((EndTurn(),))
    view, ready = model.snap.view, model.snap.ready
    assert view is not None and ready is not None
    assert choices_for(view, view.pending, ready.legal, NAMES) == choices


@pytest.mark.parametrize("width, height", [(80, 24), (100, 30), (160, 50)])
def test_the_screen_fits_and_grows(width: int, height: int) -> None:
    model, _ = model_at("take")
    model.sentences = [f"Sentence number {i} of the story so far" for i in range(60)]
    rows = split_rows(model.draw(width, height - 1))  # the input line takes the last row
    assert len(rows) == height - 1
    assert all(line_width(row) <= width for row in rows)
    text = ["".join(t for _, t in row) for row in rows]
    assert any(line.startswith("Hand ") for line in text)
    assert any(line.startswith("Choices (") for line in text)
    shown = sum(1 for line in text if line.startswith("Sentence number"))
    assert shown >= (MOVES_SHOWN if height == 24 else 5)  # the latest moves
    assert "Sentence number 59 of the story so far" in text


def screen_lines(model: TableModel, width: int, height: int) -> list[str]:
    """The screen above the input line, as text lines."""
    return ["".join(t for _, t in row) for row in split_rows(model.draw(width, height - 1))]


def test_a_rounds_end_shows_its_summary_until_the_player_moves_on() -> None:
    """At 80x24 the summary of the round that ended takes the players table's place beside
    the next question, with the latest moves below it; at 120x40 it sits above the log, the
    table stays. A key (move_on) brings the table back."""
    model, game = model_at("offer", from_round=2)
    model.on_notice(PublicEvents(2, tuple(to_wire(e) for e in public_log(game, ME))),
                    model.snap)
    for width, height in ((80, 24), (120, 40)):
        lines = screen_lines(model, width, height)
        assert len(lines) == height - 1 and all(line_width([("", x)]) <= width for x in lines)
        at = next(i for i, line in enumerate(lines) if line.startswith("Round 1 is over"))
        rows = lines[at + 1:at + 5]
        for row, name in zip(rows, ("Bo", "Cy", "Di", "you"), strict=True):
            assert re.match(rf"  {name} +[+-]?\d+  now +\d+", row), lines
        assert any(line.startswith("Choices (") for line in lines)
        table = any(line.lstrip().startswith("Player ") for line in lines)
        assert table == (width >= 120), lines  # at 80x24 in the table's place
        log = lines[at + 5:next(i for i, x in enumerate(lines) if x.startswith("Hand "))]
        assert len(log) >= MOVES_SHOWN and not any(x.startswith("Summary of") for x in log)
    model.move_on()
    lines = screen_lines(model, 80, 24)
    assert not any(line.startswith("Round 1 is over") for line in lines)
    assert any(line.lstrip().startswith("Player ") for line in lines)


def test_the_80_column_queue_shows_event_icons_and_names_next_rounds_at_storage() -> None:
    model, game = model_at("store", seed=2)
    lines = screen_lines(model, 80, 24)
    queue = " ".join(line for line in lines if line.startswith(("Queue", "  ")))
    first = game.deck.by_id[game.queue[0]]
    coming = EVENT_NAMES[first.icon] if first.icon else "no event"
    assert f"Queue (next round: {coming}): " in queue, lines
    for card_id in game.queue:
        card = game.deck.by_id[card_id]
        if card.icon:
            assert f"{card.name} [{card.icon}]" in queue, lines
    help_text = " ".join(model.help_lines(78))
    assert "[FI] Fire" in help_text and "next round's event" in help_text


def test_help_names_the_rules() -> None:
    model, _ = model_at("take")
    model.help_open = True
    text = "\n".join("".join(t for _, t in row) for row in split_rows(model.draw(80, 23)))
    assert "Help (F1 or Esc closes)" in text and "R5.7" in text


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG folders are Linux's")
def test_the_state_folder_follows_xdg_state_home(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert state_dir() == tmp_path / "mundus-net"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/path")  # the spec: ignore a relative path
    monkeypatch.setenv("HOME", str(tmp_path))
    assert state_dir() == tmp_path / ".local" / "state" / "mundus-net"


def test_tokens_are_private_and_per_address(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "state" / "tokens.json")
    secret = OfferSecret(2, (1, 5), b"\x01" * 32, b"\x02" * 32)
    store.save("tcp://127.0.0.1:7700", "a" * 32, game="g1", seat=3, name="Ana", secret=secret,
               note={"pid": 42})
    store.save("tcp://127.0.0.1:7800", "b" * 32, game="g2", seat=0, name="Ana")
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(store.path.parent).st_mode) == 0o700
    saved = store.get("tcp://127.0.0.1:7700")
    assert saved is not None and (saved.token, saved.seat, saved.secret, saved.note) == \
        ("a" * 32, 3, secret, {"pid": 42})
    store.save("tcp://127.0.0.1:7700", "a" * 32, game="g1", seat=3, name="Ana", secret=None)
    again = store.get("tcp://127.0.0.1:7700")
    assert again is not None and again.secret is None and again.note == {"pid": 42}
    store.forget("tcp://127.0.0.1:7700")
    assert store.get("tcp://127.0.0.1:7700") is None
    assert store.get("tcp://127.0.0.1:7800") is not None
    store.path.write_text("not json")
    assert store.get("tcp://127.0.0.1:7800") is None  # a broken file is no seat, not a crash


