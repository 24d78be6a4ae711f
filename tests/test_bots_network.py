"""The built-in bots over the network play as they do in-process: each is handed a StateView
there, a PlayerView here (engine/view.py's ``View``). .ci/run also runs this file against the
compiled build, where a bot typed for one view only would refuse the other."""

from __future__ import annotations

import pytest

from mundus_net.tools.games import Settings, without_cpu
from mundus_net.tools.tournament import run_tournament


@pytest.mark.network
def test_the_built_in_bots_play_the_same_game_as_mundus_bot_processes() -> None:
    """One game through `mundus host` and a `mundus bot` process per seat: the same row as
    in-process, with no fault charged to any bot."""
    settings = Settings(("search", "greedy", "random"), 3, seed=4, round_limit=3)
    far, far_rows = run_tournament(settings, 1, network=True)
    near, near_rows = run_tournament(settings, 1)
    assert [row["faults"] for row in far_rows] == [[{}, {}, {}]]
    assert without_cpu(far) == without_cpu(near)
    assert [{k: v for k, v in row.items() if k != "cpu_ms"} for row in far_rows] == \
        [{k: v for k, v in row.items() if k != "cpu_ms"} for row in near_rows]
