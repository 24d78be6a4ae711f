"""The numbered choices in words (client/tui/choices.py), the full-screen pages (log, players)
and refusals in the player's terms: no terminal, seeded games."""

from __future__ import annotations

import re
import sys

import pytest

from mundus_net.bots.base import load_bot
from mundus_net.client.connection import PendingDecision, Synced
from mundus_net.client.tui.app import Snapshot, TableModel, in_player_terms
from mundus_net.client.tui.choices import Choice, choices_for, panel
from mundus_net.client.tui.render import line_width, split_rows
from mundus_net.engine.decisions import Take
from mundus_net.engine.game import Game, Pending
from mundus_net.engine.notation import format_decision
from mundus_net.engine.view import PlayerView, StateView

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from tui_term import NOTATION_ONLY

NAMES = ("Ana", "greedy 1", "greedy 2", "greedy 3")


def view_of(game: Game, seat: int, **changes: object) -> StateView:
    """The seat's view as it comes over the network, with some fields changed."""
    pending = game.pending
    assert pending is not None
    data = PlayerView(game, seat).to_dict()
    data.update(changes)
    return StateView(data, game.deck, list(game.legal(seat)),
                     Pending(pending.kind, (seat,), pending.detail))


def every_question(seeds: range, players: int = 4):  # type: ignore[no-untyped-def]
    """(game, seat) at every decision of seeded games played by greedy bots."""
    for seed in seeds:
        game = Game.new(players, seed=seed, promo=seed % 2 == 1)
        bots = [load_bot("greedy", s) for s in range(players)]
        while not game.is_over:
            pending = game.pending
            assert pending is not None
            for seat in pending.seats:
                yield game, seat
            seat = pending.seats[0]
            game.apply(seat, bots[seat].decide(PlayerView(game, seat), game.legal(seat)))


def test_no_choice_of_any_step_is_notation_alone() -> None:
    kinds: set[str] = set()
    for game, seat in every_question(range(3)):
        view = view_of(game, seat)
        assert view.pending is not None
        kinds.add(view.pending.kind)
        for choice in choices_for(view, view.pending, game.legal(seat), NAMES):
            assert not NOTATION_ONLY.match(choice.words), (view.pending.kind, choice)
            assert not NOTATION_ONLY.match(choice.short), (view.pending.kind, choice)
            assert re.search(r"[a-z]{3}", choice.short), choice
    assert {"announce", "offer", "take", "turn", "first"} <= kinds


def test_every_listed_choice_is_legal_and_a_number_picks_it() -> None:
    for game, seat in every_question(range(2)):
        view = view_of(game, seat)
        legal = set(game.legal(seat))
        listed = choices_for(view, view.pending, game.legal(seat), NAMES)
        assert listed, view.pending
        for choice in listed:
            assert choice.decisions[0] in legal, choice


def _take_position() -> tuple[Game, int]:
    for game, seat in every_question(range(10)):
        if game.pending is not None and game.pending.kind == "take" and \
                any(isinstance(d, Take) and d.swap == d.card for d in game.legal(seat)):
            return game, seat
    raise AssertionError("no take with a same-value swap in ten games")


def test_take_choices_are_grouped_by_card_and_player_R5_5() -> None:
    game, seat = _take_position()
    view = view_of(game, seat)
    listed = choices_for(view, view.pending, game.legal(seat), NAMES)
    keeps = [c for c in listed if c.label == "keep it"]
    takes = {(d.seat, d.card) for d in game.legal(seat) if isinstance(d, Take)}
    assert len(keeps) == len(takes)  # one group per card on the table
    for choice in listed:
        d = choice.decisions[0]
        assert isinstance(d, Take) and choice.group is not None
        assert choice.group.endswith(f"from {NAMES[d.seat]}")


def test_a_swap_that_changes_nothing_is_not_listed_R5_5() -> None:
    game, seat = _take_position()
    view = view_of(game, seat)
    listed = [c.decisions[0] for c in choices_for(view, view.pending, game.legal(seat), NAMES)]
    assert not any(isinstance(d, Take) and d.swap == d.card for d in listed)
    useful = [d for d in game.legal(seat) if not (isinstance(d, Take) and d.swap == d.card)]
    assert listed == useful
    # Still typeable: the model sends it (the engine judges it).
    same = next(d for d in game.legal(seat) if isinstance(d, Take) and d.swap == d.card)
    model = _model(game, seat)
    action = model.interpret(format_decision(same))
    assert getattr(action, "decisions", None) == (same,)


def test_a_same_value_swap_that_pays_orellana_is_listed_R5_10() -> None:
    game, seat = _take_position()
    same = next(d for d in game.legal(seat) if isinstance(d, Take) and d.swap == d.card)
    orellana = next(c.id for c in game.deck.cards if c.power == "orellana")
    developments = [list(d) for d in PlayerView(game, seat).developments]
    developments[seat].append(orellana)
    # A market of three identical cards: the swap in keeps it so, and pays (R5.10).
    view = view_of(game, seat, developments=developments, market=[same.card] * 3)
    listed = choices_for(view, view.pending, game.legal(seat), NAMES)
    paying = [c for c in listed if c.decisions[0] == same]
    assert paying and "(+2, Orellana)" in paying[0].words


def _choice(n: int, group: str | None = None) -> Choice:
    return Choice((), f"choice number {n}", f"label {n}", group)


@pytest.mark.parametrize("width, room", [(80, 5), (80, 9), (50, 6), (120, 12)])
def test_the_panel_pages_whole_and_keeps_the_numbers(width: int, room: int) -> None:
    listed = [_choice(n, f"group {n // 4}") for n in range(60)]
    seen: list[int] = []
    first = panel(listed, "Choices (60):", width, room)
    assert first.pages > 1
    for page in range(first.pages):
        shown = panel(listed, "Choices (60):", width, room, page)
        assert len(shown.lines) <= room
        assert all(line_width(line) <= width for line in shown.lines)
        title = "".join(t for _, t in shown.lines[0])
        assert f"page {page + 1} of {first.pages}" in title
        text = "\n".join("".join(t for _, t in line) for line in shown.lines[1:])
        seen += [int(n) for n in re.findall(r"(\d+)\) label", text)]
    assert seen == list(range(1, 61))


def _model(game: Game, seat: int, **changes: object) -> TableModel:
    pending = game.pending
    assert pending is not None
    legal = tuple(game.legal(seat))
    ready = PendingDecision(id=17, kind=pending.kind, detail=dict(pending.detail), legal=legal,
                            deadline=None, seq=1)
    model = TableModel(address="tcp://127.0.0.1:7700")
    model.on_notice(Synced(1), Snapshot(view_of(game, seat, **changes), ready, NAMES,
                                        online=True, seat=seat))
    return model


def test_page_down_turns_the_pages_of_choices() -> None:
    game, seat = _take_position()
    model = _model(game, seat)
    model.draw(60, 16)  # small: the choices need pages
    if model.choice_pages < 2:
        pytest.skip("this take fits one page")
    model.page(+1)
    text = "\n".join("".join(t for _, t in r) for r in split_rows(model.draw(60, 16)))
    assert f"page 2 of {model.choice_pages}" in text


def test_the_log_page_shows_the_whole_log_a_screen_at_a_time() -> None:
    game, seat = _take_position()
    model = _model(game, seat)
    model.sentences = [f"sentence {i}" for i in range(100)]
    model.page(-1)  # PageUp with one page of choices: the log
    assert model.overlay == "log"
    newest = "\n".join("".join(t for _, t in r) for r in split_rows(model.draw(80, 23)))
    assert "sentence 99" in newest and "page" in newest
    model.page(-1)
    older = "\n".join("".join(t for _, t in r) for r in split_rows(model.draw(80, 23)))
    assert "sentence 99" not in older and "sentence 70" in older
    model.open_overlay(None)
    assert model.overlay is None


def test_the_players_page_names_every_development_in_full() -> None:
    game, seat = _take_position()
    long_name = max(game.deck.cards, key=lambda c: len(c.name))
    other = (seat + 1) % 4
    developments = [list(d) for d in PlayerView(game, seat).developments]
    developments[other].append(long_name.id)
    model = _model(game, seat, developments=developments)
    model.open_overlay("players")
    text = "\n".join("".join(t for _, t in r) for r in split_rows(model.draw(80, 23)))
    assert long_name.name in text
    assert all(name in text for name in NAMES if name != NAMES[seat])


def test_refusals_name_players_not_seat_numbers() -> None:
    assert in_player_terms("seat 2 has no such card on the table", NAMES, 0) == \
        "greedy 2 has no such card on the table"
    assert in_player_terms("it is seat 1's decision, not seat 0's", NAMES, 0) == \
        "it is greedy 1's decision, not yours"
    assert in_player_terms("no ping-pong: you may not take from seat 3 again", NAMES, 0) == \
        "no ping-pong: you may not take from greedy 3 again"


def test_nonsense_at_the_prompt_is_answered_in_words() -> None:
    game, seat = _take_position()
    model = _model(game, seat)
    said = model.interpret("banana")
    text = getattr(said, "text", "")
    assert "not something you can do here" in text and "unknown kind" not in text
