"""The environments' remembered action mask (issue 29): at every step of many seeded games
the mask equals one built afresh from the legal decisions (R7: exactly the legal ones), and
changing a mask handed out changes nothing the environment hands out next."""

from __future__ import annotations

import random
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

from mundus_net.engine.game import OVER  # noqa: E402 - after the skips
from mundus_net.rl.table import Table  # noqa: E402


def _fresh_mask(table: Table, seat: int) -> Any:
    """The mask as it was built before it was remembered."""
    mask = np.zeros(len(table.actions), dtype=np.int8)
    for index in table.actions.legal_indexes(table.game.legal(seat), seat, table.players):
        mask[index] = 1
    return mask


def test_the_remembered_mask_equals_a_fresh_one_at_every_step_of_many_games() -> None:
    for seed in range(40):
        table = Table(2 + seed % 5)
        table.new_game(seed)
        rng = random.Random(seed)
        while (seat := table.to_move()) is not None:
            for asked in {seat, *table.game.waiting_seats()}:  # every seat asked now
                assert np.array_equal(table.mask(asked), _fresh_mask(table, asked))
            legal = list(table.legal_actions(seat))
            table.play(seat, legal[rng.randrange(len(legal))])
        assert table.game.phase == OVER
        assert not table.mask(None).any()


def test_changing_a_mask_handed_out_does_not_change_the_next_one() -> None:
    table = Table(4)
    table.new_game(5)
    seat = table.to_move()
    assert seat is not None
    first = table.mask(seat)
    expected = first.copy()
    first[:] = 1
    assert np.array_equal(table.mask(seat), expected)
    assert table.mask(seat) is not table.mask(seat)

