"""``mundus tournament``: determinism whatever --jobs, rotation, the summary (Wilson intervals,
openskill ratings), the output files, records, --network through real processes and
--scheduler on a local Dask cluster."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from mundus_net.cli import main
from mundus_net.engine.record import GameRecord
from mundus_net.tools.games import Settings, design_games, seating, without_cpu
from mundus_net.tools.progress import ProgressReport
from mundus_net.tools.sim import run_sim
from mundus_net.tools.standings import summarise
from mundus_net.tools.tournament import chunks, format_table, run_tournament

BOTS = ("greedy", "random", "random")
FAULTY = Path(__file__).resolve().with_name("test_bot_sdk.py")  # bots that fail now and then


def _without_measures(text: str) -> str:
    """The printed summary without what is measured (the speed line, the CPU columns)."""
    lines = [line for line in text.splitlines() if not line.startswith("speed:")]
    header = next(i for i, line in enumerate(lines) if "cpu ms" in line)
    start, stop = lines[header].index("cpu ms") - 3, lines[header].index("p95") + 3
    for i in range(header + 1, lines.index("", header)):
        lines[i] = lines[i][:start] + " " * (stop - start) + lines[i][stop:]
    return "\n".join(lines)


def test_seating_puts_every_bot_in_every_seat_equally_often() -> None:
    for bots, players in ((4, 4), (3, 3), (6, 4), (5, 2)):
        block = math.comb(bots, players) * players  # every line-up in every rotation
        seen = Counter((seat, bot) for i in range(block)
                       for seat, bot in enumerate(seating(i, bots, players, seed=3)))
        assert len(set(seen.values())) == 1 and len(seen) == bots * players, (bots, players)
        for i in range(block):
            assert len(set(seating(i, bots, players, seed=3))) == players  # no bot twice


def test_every_pair_meets_equally_often_and_every_seat_order_comes(tmp_path: Path) -> None:
    """A round robin: with 5 entries and 2 players every pair meets (it did not when seats
    slid by one from game to game), and with as many bots as seats the relative order
    changes too."""
    for bots, players in ((5, 2), (6, 4), (4, 4)):
        n = design_games(bots, players)
        pairs = Counter(frozenset(pair) for i in range(n)
                        for pair in itertools.combinations(seating(i, bots, players, seed=8), 2))
        assert len(pairs) == math.comb(bots, 2) and len(set(pairs.values())) == 1
    orders = {seating(i, 4, 4, seed=8) for i in range(design_games(4, 4))}
    assert len(orders) == 24  # every order of 4 bots at 4 seats
    assert seating(7, 5, 2, seed=8) != seating(7, 5, 2, seed=9)  # the seed shuffles it


def test_the_summary_has_the_head_to_head_matrix_and_warns_of_pairs_that_never_met() -> None:
    settings = Settings(("greedy", "random", "random", "random", "random"), 2, seed=8)
    summary, _ = run_tournament(settings, 4, jobs=1)
    assert len(summary["head_to_head"]) == 10 and summary["unmet_pairs"]
    text = format_table(summary)
    assert "head to head" in text and "warning: these pairs never met" in text
    summary, _ = run_tournament(settings, design_games(5, 2), jobs=1)
    assert summary["unmet_pairs"] == []
    assert all(p["games"] == 2 for p in summary["head_to_head"])


def test_chunks_cover_the_games_in_order() -> None:
    for games, jobs in ((1, 1), (7, 2), (1000, 2), (10_000, 4)):
        parts = chunks(games, jobs)
        assert [i for a, b in parts for i in range(a, b)] == list(range(games))


@pytest.mark.network
def test_same_results_whatever_jobs_and_as_the_rotated_sim() -> None:
    settings = Settings(BOTS, 3, seed=4)
    one, rows1 = run_tournament(settings, 9, jobs=1)
    two, rows2 = run_tournament(settings, 9, jobs=2)
    assert without_cpu(rows1) == without_cpu(rows2)
    assert json.dumps(without_cpu(one)) == json.dumps(without_cpu(two))
    sim = run_sim(3, list(BOTS), 9, seed=4, rotate=True)
    for ours, theirs in zip(one["per_bot"], sim["per_bot"], strict=True):
        assert ours["wins"] == theirs["wins"]
        assert ours["mean_doubloons"] == theirs["mean_doubloons"]
    assert one["end_reasons"] == sim["end_reasons"]


def test_summary_has_intervals_spreads_and_ratings() -> None:
    summary, rows = run_tournament(Settings(BOTS, 3, seed=2), 6)
    assert summary["games"] == 6 and len(rows) == 6
    assert sum(b["wins"] for b in summary["per_bot"]) == pytest.approx(6)
    for b in summary["per_bot"]:
        assert b["games"] == 6
        lo, hi = b["win_rate_ci95"]
        assert 0 <= lo <= b["win_rate"] <= hi <= 1
        assert b["sd_doubloons"] >= 0
        r = b["rating"]
        assert r["ordinal"] == pytest.approx(r["mu"] - 3 * r["sigma"], abs=1e-5)
        assert r["sigma"] < 25 / 3  # every game made the rating surer
    greedy, random_ = summary["per_bot"][0], summary["per_bot"][1]
    assert greedy["rating"]["mu"] > random_["rating"]["mu"]
    assert summary["by_name"]["random"]["entries"] == 2
    assert sum(summary["end_reasons"].values()) == 6
    text = format_table(summary, 1.5)
    for word in ("win rate (95% CI)", "doubloons (sd)", "mu", "sigma", "ordinal",
                 "games ended by", "rounds: mean", "speed:"):
        assert word in text


def test_fewer_players_than_bots_and_bad_settings() -> None:
    # 12 games: every one of the 6 line-ups twice, so every bot plays 6
    summary, _ = run_tournament(Settings(("random",) * 4, 2, seed=1, round_limit=3), 12)
    assert [b["games"] for b in summary["per_bot"]] == [6, 6, 6, 6]
    assert [s["seat"] for s in summary["per_seat"]] == [0, 1]
    with pytest.raises(ValueError, match="at least 3 bots"):
        run_tournament(Settings(("random", "random"), 3), 1)
    with pytest.raises(ValueError, match="unknown strategy"):
        run_tournament(Settings(("random", "nosuch"), 2), 1)
    with pytest.raises(ValueError, match="cannot be combined"):
        run_tournament(Settings(("random", "random"), 2), 1, network=True, scheduler="x")


@pytest.mark.network
def test_cli_outputs_are_the_same_for_one_and_two_jobs(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    outputs = []
    for jobs in (1, 2):
        out = tmp_path / str(jobs)
        out.mkdir()
        assert main(["tournament", "--bots", ",".join(BOTS), "--games", "6", "--seed", "3",
                     "--jobs", str(jobs), "--json", str(out / "t.json"), "--csv",
                     str(out / "t.csv"), "--records", str(out / "records")]) == 0
        captured = capsys.readouterr()
        assert "tournament: 6/6 games (100%)" in captured.err  # plain progress lines
        outputs.append((_without_measures(captured.out),
                        json.dumps(without_cpu(json.loads((out / "t.json").read_bytes()))),
                        (out / "t.csv").read_bytes(),
                        sorted(p.name for p in (out / "records").iterdir())))
    assert outputs[0] == outputs[1]
    text, _, raw_csv, records = outputs[0]
    data = json.loads((tmp_path / "1" / "t.json").read_bytes())
    assert data["summary"]["games"] == 6 and len(data["games"]) == 6
    row = data["games"][1]
    assert set(row) == {"game", "seed", "seating", "winners", "places", "doubloons", "rounds",
                        "reason", "faults", "decisions", "fault_list", "tracebacks", "cpu_ms"}
    assert [len(times) for times in row["cpu_ms"]] == row["decisions"]
    assert row["seating"] == list(seating(1, 3, 3, seed=3))  # the design's, fixed by the seed
    lines = list(csv.DictReader(io.StringIO(raw_csv.decode())))
    assert len(lines) == 6 and lines[1]["seat1_bot"] == BOTS[row["seating"][1]]
    assert int(lines[1]["seat1_doubloons"]) == row["doubloons"][1]
    assert records == [f"game-{i:06d}.json" for i in range(6)]
    record = GameRecord.from_json((tmp_path / "1" / "records" / records[1]).read_text())
    assert record.replay().result == record.result
    assert list(record.result.places) == row["places"]  # type: ignore[union-attr]
    assert "greedy" in text


def test_cli_rejects_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, message in ((["--bots", "random,random", "--players", "3"], "at least 3 bots"),
                          (["--bots", "random,bogus"], "unknown strategy 'bogus'"),
                          (["--bots", "random,random", "--time-limit", "-1"], "positive"),
                          (["--bots", ",".join(["random"] * 7)], "give --players")):
        with pytest.raises(SystemExit) as info:
            main(["tournament", *argv])
        assert info.value.code == 2
        assert message in capsys.readouterr().err


def test_progress_bar_on_a_terminal_and_in_a_log() -> None:
    tty = io.StringIO()
    bar = ProgressReport(tty, "tournament", tty=True, redraw_s=0)
    bar(1, 4)
    bar(4, 4)
    drawn = tty.getvalue()
    assert "tournament:" in drawn and "1/4" in drawn and "4/4" in drawn and "game/s" in drawn
    assert drawn.endswith("\r")  # the bar is cleared at the end (leave=False)
    log = io.StringIO()
    times = iter(float(t) for t in range(200)).__next__
    bar = ProgressReport(log, "tournament", tty=False, clock=times)
    for done in range(1, 101):
        bar(done, 100)
    lines = log.getvalue().splitlines()
    assert 10 <= len(lines) <= 12 and "\r" not in log.getvalue()
    assert lines[-1].startswith("tournament: 100/100 games (100%)")


@pytest.mark.network
def test_network_games_give_the_in_process_results(tmp_path: Path) -> None:
    """Two games through `mundus host` and three `mundus bot` processes each (two tables at
    once): the same rows as in-process, faults included (the failing bots of
    test_bot_sdk.py, loaded by file path in the bot processes)."""
    bots = ("greedy", f"{FAULTY}:RaisingBot", f"{FAULTY}:IllegalBot")
    settings = Settings(bots, 3, seed=8, round_limit=6, records=str(tmp_path))
    network, rows = run_tournament(settings, 2, jobs=2, network=True)
    local, local_rows = run_tournament(Settings(bots, 3, seed=8, round_limit=6), 2)
    # Said by the bot process, in its own words; the CPU is measured in-process only.
    detail = ("fault_list", "tracebacks", "cpu_ms")

    def which(row: dict[str, Any]) -> list[tuple[object, ...]]:
        return [(f["seat"], f["kind"], f["phase"], f["round"], f["seat_decision"],
                 f["traceback"] is not None) for f in row["fault_list"]]

    for far, near in zip(rows, local_rows, strict=True):
        assert {k: v for k, v in far.items() if k not in detail} == \
            {k: v for k, v in near.items() if k not in detail}
        assert sorted(which(far)) == sorted(which(near))  # the network's: seat by seat
        assert [t.splitlines()[-1] for t in far["tracebacks"]] == \
            [t.splitlines()[-1] for t in near["tracebacks"]]
    assert json.dumps(without_cpu(network)) == json.dumps(without_cpu(local))
    assert all(row["cpu_ms"] is None for row in rows)
    assert all(b["cpu_ms"] is None for b in network["per_bot"])
    assert network["faults"]["error"] > 0 and network["faults"]["illegal"] > 0
    record = GameRecord.from_json((tmp_path / "game-000001.json").read_text())
    names = {0: "greedy #0", 1: "RaisingBot #1", 2: "IllegalBot #2"}
    assert record.names == [names[j] for j in rows[1]["seating"]]
    assert record.result is not None and list(record.result.places) == rows[1]["places"]


@pytest.mark.network
def test_scheduler_runs_on_a_local_dask_cluster() -> None:
    distributed = pytest.importorskip("distributed")
    settings = Settings(BOTS, 3, seed=6)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        summary, rows = run_tournament(settings, 5, scheduler=cluster.scheduler_address)
    local, local_rows = run_tournament(settings, 5)
    assert without_cpu(rows) == without_cpu(local_rows)
    assert json.dumps(without_cpu(summary)) == json.dumps(without_cpu(local))
    assert summarise(settings, rows) == summary
