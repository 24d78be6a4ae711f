"""``mundus report``: pictures of a game record (doubloons by round), of tournament results
(win rates, doubloons, head to head, by strategy, ratings, by seat, game lengths), of a folder
of records (mean doubloons by round) and of several runs overlaid, as PNG and SVG files."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from mundus_net.bots.base import load_bot
from mundus_net.cli import main
from mundus_net.engine.game import Game
from mundus_net.engine.record import GameRecord
from mundus_net.tools import report as report_module
from mundus_net.tools.games import Settings
from mundus_net.tools.report import (
    draw_head_to_head,
    draw_record,
    draw_win_rates,
    end_words,
    nice_axis,
)
from mundus_net.tools.report_data import (
    Cell,
    EntryRounds,
    GameRow,
    Tournament,
    head_to_head_matrix,
    load_folder,
    load_results,
    picture_label,
    rating_progress,
    record_series,
    round_means,
    seat_stats,
    tournament_stats,
)
from mundus_net.tools.results import wilson
from mundus_net.tools.runner import play_game
from mundus_net.tools.sim import run_sim
from mundus_net.tools.tournament import run_tournament, write_json

pytest.importorskip("matplotlib")

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def record() -> GameRecord:
    game = Game.new(3, 21, round_limit=4)
    play_game(game, [load_bot("greedy", s) for s in range(3)])
    return GameRecord.from_game(game, "report-test", ["Ana", "Bo", "Cy"])


def tiny_tournament() -> dict[str, object]:
    """The shape of ``mundus tournament --json`` (docs/tournament.md), made by hand."""
    rows = [{"game": i, "seed": 100 + i, "seating": [(s - i) % 3 for s in range(3)],
             "winners": [0], "places": [1, 2, 3], "doubloons": [80 - i, 40 + i, 20 + 2 * i],
             "rounds": 9, "reason": "doubloons", "faults": [{}, {}, {}]} for i in range(6)]
    per_bot = [{"index": j, "bot": bot, "games": 6, "wins": w, "win_rate": w / 6,
                "win_rate_ci95": [max(0.0, w / 6 - 0.3), min(1.0, w / 6 + 0.3)],
                "mean_doubloons": 50.0} for j, (bot, w) in
               enumerate((("greedy", 4.0), ("random", 1.0), ("examples/x.py:MyBot", 1.0)))]
    return {"summary": {"bots": ["greedy", "random", "examples/x.py:MyBot"], "players": 3,
                        "games": 6, "seed": 0, "per_bot": per_bot}, "games": rows}


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def check_picture(path: Path, fmt: str) -> None:
    data = path.read_bytes()
    assert len(data) > 2000, path
    if fmt == "png":
        assert data.startswith(PNG_MAGIC)
    else:
        assert b"<svg" in data[:2000] and data.rstrip().endswith(b"</svg>")


def test_the_doubloons_of_a_record_by_round(record: GameRecord) -> None:
    series = record_series(record)
    assert record.result is not None
    assert series.rounds == [0, 1, 2, 3, 4]
    assert [d[0] for d in series.doubloons] == [0, 0, 0]
    assert [d[-1] for d in series.doubloons] == list(record.result.doubloons)
    assert series.names == ["Ana", "Bo", "Cy"]
    assert series.winners == record.result.winners


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_a_record_report(tmp_path: Path, record: GameRecord, fmt: str,
                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game-000007.json"
    path.write_text(record.to_json(), encoding="utf-8")
    out = tmp_path / "pictures"
    assert main(["report", str(path), "--out", str(out), "--format", fmt]) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [str(out / f"game-000007-doubloons-by-round.{fmt}")]
    check_picture(Path(printed[0]), fmt)


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_a_tournament_report(tmp_path: Path, fmt: str,
                             capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "results.json", tiny_tournament())
    assert main(["report", str(path), "--out", str(tmp_path), "--format", fmt]) == 0
    printed = capsys.readouterr().out.split()
    # Three strategies of one entry each: no by-strategy picture (it would repeat the win
    # rates); no head_to_head in this summary: computed from the rows.
    assert printed == [str(tmp_path / f"results-{kind}.{fmt}") for kind in
                       ("win-rates", "doubloons", "head-to-head", "ratings", "by-seat",
                        "game-lengths")]
    for p in printed:
        check_picture(Path(p), fmt)


def test_tournament_stats_read_the_rows_by_entry() -> None:
    stats = tournament_stats(tiny_tournament())
    assert [b.label for b in stats.bots] == ["0 greedy", "1 random", "2 MyBot"]
    # Game i seats entry (s - i) % 3 at seat s: entry 0 sits at seat i % 3.
    assert stats.bots[0].doubloons == [80, 41, 24, 77, 44, 30]
    assert stats.bots[0].ci95 == pytest.approx((4 / 6 - 0.3, 4 / 6 + 0.3))
    assert stats.players == 3 and stats.games == 6


def test_the_real_tournament_and_sim_outputs(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    tournament = pytest.importorskip("mundus_net.tools.tournament")
    settings = Settings(bots=("greedy", "random", "random"), players=3, seed=3)
    summary, rows = tournament.run_tournament(settings, games=3)
    tournament.write_json(tmp_path / "t.json", summary, rows)
    loaded = load_results(tmp_path / "t.json")
    assert isinstance(loaded, Tournament)
    assert [len(b.doubloons) for b in loaded.bots] == [3, 3, 3]
    # A `mundus sim --json` summary has no per-game rows: the win rates only, and a note.
    sim = write(tmp_path / "sim.json", run_sim(3, ["greedy", "random", "random"], 2))
    assert main(["report", str(tmp_path / "t.json"), str(sim), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert out.out.split() == [str(tmp_path / f"{name}.png") for name in (
        "t-win-rates", "t-doubloons", "t-head-to-head", "t-by-strategy", "t-ratings",
        "t-by-seat", "t-game-lengths", "sim-win-rates", "sim-by-strategy", "sim-by-seat")]
    assert "no per-game rows" in out.err


@pytest.mark.parametrize(("data", "message"), [
    ("{oops", "not a JSON document"),
    ({"hello": 1}, "neither a game record"),
    ({"format": "mundus-record/1"}, "it is a damaged game record"),
    ({"summary": {"players": 3}}, "a field is missing or malformed"),
])
def test_bad_inputs_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                           data: object, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    assert main(["report", str(path), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mundus report: {path}: ") and message in err
    assert not list(tmp_path.glob("*.png"))


def test_without_matplotlib_it_says_how_to_install_it(
        tmp_path: Path, record: GameRecord, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends",
                 "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)
    path = tmp_path / "game.json"
    path.write_text(record.to_json(), encoding="utf-8")
    assert isinstance(load_results(path), GameRecord)  # reading needs no matplotlib
    assert main(["report", str(path), "--out", str(tmp_path)]) == 1
    assert "pip install 'mundus-net[plots]'" in capsys.readouterr().err
    assert not list(tmp_path.glob("*.png"))


def test_the_title_says_how_the_game_ended_in_words(record: GameRecord) -> None:
    series = record_series(record)
    assert series.reason == "round_limit"
    assert end_words(series) == "ended at the round limit after 4 rounds"
    for reason, words in (("perfect", "ended by a perfect combination after 4 rounds"),
                          ("doubloons", "ended when a player reached 75 doubloons after 4 "
                                        "rounds"),
                          ("queue", "ended when the queue ran out after 4 rounds")):
        assert end_words(replace(series, reason=reason)) == words
    unfinished = replace(series, reason=None, winners=(),
                         unfinished="it stops in round 5, after decision 80")
    assert end_words(unfinished) == "not finished: it stops in round 5, after decision 80"


@pytest.mark.parametrize("top", [0, 3, 15, 34, 49, 73, 80, 87, 100, 140, 999])
def test_nice_axes_end_on_a_round_value_a_little_above_the_data(top: int) -> None:
    upper, step = nice_axis(top)
    assert upper > top and upper <= 1.6 * top + 5  # a margin, not a band of empty space
    assert 4 <= upper / step <= 9 and upper / step == int(upper / step)
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert mantissa in (1, 2, 2.5, 5) and step == int(step)


def drawn_axes(monkeypatch: pytest.MonkeyPatch, draw: Callable[[], object]) -> Any:
    """The axes of the figure ``draw`` saves (nothing is written)."""
    saved: list[Any] = []
    monkeypatch.setattr(report_module, "_save", lambda fig, path, fmt: saved.append(fig))
    draw()
    return saved[0].axes[0]


def test_the_record_picture_fits_its_axis_to_the_doubloons(
        record: GameRecord, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    series = record_series(record)
    top = max(max(d) for d in series.doubloons)
    assert top < 60  # a round-limit game far from 75 doubloons
    ax = drawn_axes(monkeypatch, lambda: draw_record(series, tmp_path / "x.png"))
    low, high = ax.get_ylim()
    assert top < high <= nice_axis(top)[0] and low <= 0
    ticks = list(ax.get_yticks())
    assert ticks[0] == 0 and ticks[-1] == high
    assert all(line.get_linestyle() != "--" for line in ax.get_lines())  # no 75 line
    # A game that reaches 75 doubloons shows the line, and the axis goes past it.
    rich = replace(series, doubloons=[[*d[:-1], 87 if s == 0 else d[-1]]
                                      for s, d in enumerate(series.doubloons)])
    ax = drawn_axes(monkeypatch, lambda: draw_record(rich, tmp_path / "y.png"))
    assert ax.get_ylim()[1] >= 90
    assert any(line.get_linestyle() == "--" for line in ax.get_lines())


def test_the_win_rate_axis_fits_the_intervals(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    low = tournament_stats(tiny_tournament())
    low = replace(low, bots=[replace(b, win_rate=0.1, ci95=(0.0, 0.2)) for b in low.bots])
    ax = drawn_axes(monkeypatch, lambda: draw_win_rates(low, tmp_path / "w.png"))
    assert 34 <= ax.get_ylim()[1] <= 50  # the even share (33%) and a margin, not 100%
    high = replace(low, bots=[replace(b, win_rate=0.9, ci95=(0.8, 0.99)) for b in low.bots])
    ax = drawn_axes(monkeypatch, lambda: draw_win_rates(high, tmp_path / "w.png"))
    assert ax.get_ylim()[1] > 100 and max(ax.get_yticks()) == 100


# -- the researcher's pictures --------------------------------------------------------------------


@pytest.fixture(scope="module")
def played() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A real tournament: greedy and two random entries, 2 at a table, every pair meets."""
    return run_tournament(Settings(("greedy", "random", "random"), 2, seed=1), 6)


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of three game records written by a tournament."""
    folder = tmp_path_factory.mktemp("records") / "rec"
    run_tournament(Settings(("greedy", "random", "random"), 2, seed=1, records=str(folder)), 3)
    return folder


def test_the_head_to_head_cells_are_the_summarys_pairs_turned_round(
        played: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    summary, rows = played
    matrix = head_to_head_matrix(tournament_stats({"summary": summary, "games": rows}))
    assert [matrix[i][i] for i in range(3)] == [None, None, None]
    assert len(summary["head_to_head"]) == 3
    for p in summary["head_to_head"]:
        a, b = p["a"], p["b"]
        assert p["games"] == 2
        assert matrix[a][b] == Cell(p["a_ahead_rate"], p["margin"], p["games"])
        turned = matrix[b][a]
        assert turned is not None and turned.games == p["games"]
        assert (turned.rate, turned.margin) == (1 - p["a_ahead_rate"], -p["margin"])


def test_older_files_without_head_to_head_get_it_from_their_rows(
        played: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    summary, rows = played
    old = {k: v for k, v in summary.items() if k != "head_to_head"}
    assert (head_to_head_matrix(tournament_stats({"summary": old, "games": rows}))
            == head_to_head_matrix(tournament_stats({"summary": summary, "games": rows})))
    assert tournament_stats({"summary": old}).pairs is None  # no rows either: none


def test_pairs_that_never_met_are_drawn_grey_with_words(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 4 entries, 2 at a table, 2 games: 2 of the 6 pairs meet.
    summary, rows = run_tournament(Settings(("greedy", "random", "random", "random"), 2), 2)
    t = tournament_stats({"summary": summary, "games": rows})
    met = sum(1 for a in range(4) for b in range(a + 1, 4)
              if (cell := head_to_head_matrix(t)[a][b]) is not None and cell.games)
    assert met == 2
    ax = drawn_axes(monkeypatch, lambda: draw_head_to_head(t, tmp_path / "h.png"))
    texts = [x.get_text() for x in ax.texts]
    assert texts.count("never\nmet") == 2 * (6 - met)
    assert texts.count("—") == 4  # the diagonal


def test_rating_progress_ends_at_the_tournaments_ratings(
        played: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    summary, rows = played
    t = tournament_stats({"summary": summary, "games": rows})
    progress = rating_progress(len(t.bots), t.rows)
    for j, b in enumerate(summary["per_bot"]):
        assert len(progress.mu[j]) == len(rows) + 1
        assert progress.mu[j][0] == pytest.approx(25.0)
        assert progress.mu[j][-1] == pytest.approx(b["rating"]["mu"], abs=1e-6)
        assert progress.sigma[j][-1] == pytest.approx(b["rating"]["sigma"], abs=1e-6)
        assert progress.ordinal(j)[-1] == pytest.approx(b["rating"]["ordinal"], abs=1e-5)


def test_the_win_rate_by_seat_shares_a_shared_victory() -> None:
    rows = [GameRow(0, (0, 1), (1, 1), (80, 80), (0, 1), 9, "doubloons"),
            GameRow(1, (1, 0), (1, 2), (80, 40), (0,), 9, "doubloons"),
            GameRow(2, (0, 1), (2, 1), (30, 76), (1,), 9, "doubloons")]
    t = replace(tournament_stats(tiny_tournament()), players=2, rows=rows)
    seats = seat_stats(t)
    assert [s.wins for s in seats] == [1.5, 1.5] and [s.games for s in seats] == [3, 3]
    assert seats[0].ci95 == wilson(1.5, 3) and seats[0].win_rate == 0.5


def test_by_strategy_pools_the_entries_of_a_bot(
        played: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    summary, rows = played
    t = tournament_stats({"summary": summary, "games": rows})
    assert [(r.label, r.entries, r.games) for r in t.strategies] == [("greedy", 1, 4),
                                                                     ("random", 2, 8)]
    assert t.strategies[1].win_rate == summary["by_name"]["random"]["win_rate"]
    # A summary without by_name: the same numbers, pooled from the entries.
    old = tournament_stats({"summary": {k: v for k, v in summary.items() if k != "by_name"},
                            "games": rows})
    for new, pooled in zip(t.strategies, old.strategies, strict=True):
        assert (pooled.label, pooled.entries, pooled.games) == (new.label, new.entries,
                                                                new.games)
        assert pooled.win_rate == pytest.approx(new.win_rate, abs=1e-6)
        assert pooled.ci95 == pytest.approx(new.ci95, abs=1e-6)
        assert pooled.mean_doubloons == pytest.approx(new.mean_doubloons, abs=1e-5)


def test_entries_with_bot_options_are_labelled_with_them() -> None:
    assert (picture_label("search:iterations=8:seconds=0.50", 2)
            == "2 search(iterations=8, seconds=0.50)")
    assert picture_label("examples/x.py:MyBot", 0) == "0 MyBot"


def test_round_means_have_a_95_band_over_the_games_still_going() -> None:
    entry = EntryRounds("0 greedy", [([0, 1, 2], [0, 10, 20]), ([0, 1], [0, 20])])
    means = round_means(entry)
    assert [(m.round, m.games, m.mean) for m in means] == [(0, 2, 0), (1, 2, 15), (2, 1, 20)]
    assert means[1].half == pytest.approx(1.96 * math.sqrt(50) / math.sqrt(2))
    assert means[2].half == 0


def test_a_folder_of_records_draws_doubloons_by_round_and_game_lengths(
        records: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = load_folder(records)
    assert folder.records == 3 and len(folder.lengths) == 3
    # Each seat's doubloons go to its entry (the records' tournament meta), 2 seats a game.
    assert [e.label for e in folder.entries] == ["0 greedy", "1 random", "2 random"]
    assert sum(len(e.games) for e in folder.entries) == 6
    assert main(["report", str(records), "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [str(tmp_path / "rec-doubloons-by-round.png"),
                       str(tmp_path / "rec-game-lengths.png")]
    for p in printed:
        check_picture(Path(p), "png")


def test_records_without_tournament_meta_are_grouped_by_seat(
        record: GameRecord, tmp_path: Path) -> None:
    for i in range(2):
        (tmp_path / f"g{i}.json").write_text(record.to_json(), encoding="utf-8")
    folder = load_folder(tmp_path)
    assert [(e.label, len(e.games)) for e in folder.entries] == [
        ("seat 0", 2), ("seat 1", 2), ("seat 2", 2)]


def test_a_damaged_record_in_a_folder_is_skipped_with_a_note(
        records: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    for path in records.glob("*.json"):
        (folder / path.name).write_bytes(path.read_bytes())
    bad = folder / "game-000009.json"
    bad.write_text('{"format": "mundus-record/1", "game":', encoding="utf-8")
    assert main(["report", str(folder), "--out", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"mundus report: {bad}: skipped: it is cut short")
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert len(list((tmp_path / "out").glob("*.png"))) == 2


def test_an_empty_folder_or_one_without_a_usable_record_is_an_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["report", str(empty), "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (f"mundus report: {empty}: it is a folder, not a file, "
                                       "and there is no game record (*.json) in it; mundus "
                                       "tournament --records DIR writes them\n")
    write(empty / "t.json", tiny_tournament())
    assert main(["report", str(empty), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"mundus report: {empty / 't.json'}: skipped: it is tournament results, "
                   "not a game record",
                   f"mundus report: {empty}: none of its 1 .json file(s) is a game record "
                   "that replays (the notes above say why)"]
    assert not list(tmp_path.glob("*.png"))


def test_overlay_compares_runs_in_one_picture_each(
        tmp_path: Path, played: tuple[dict[str, Any], list[dict[str, Any]]],
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    write_json(tmp_path / "a.json", *played)
    write_json(tmp_path / "b.json", *run_tournament(Settings(("greedy", "random", "random"), 2,
                                                             seed=2), 3))
    files = [str(tmp_path / "a.json"), str(tmp_path / "b.json")]
    assert main(["report", *files, "--overlay", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [str(tmp_path / "overlay-win-rates.png"),
                       str(tmp_path / "overlay-ratings.png")]
    for p in printed:
        check_picture(Path(p), "png")
    # One legend entry per run, named by its file.
    saved: list[Any] = []
    monkeypatch.setattr(report_module, "_save", lambda fig, path, fmt: saved.append(fig))
    assert main(["report", *files, "--overlay", "--out", str(tmp_path)]) == 0
    for fig in saved:
        legend = [t.get_text() for t in fig.legends[0].get_texts()]
        assert [t.split()[0] for t in legend] == ["a", "b"]


def test_overlay_takes_tournament_results_only(
        tmp_path: Path, record: GameRecord, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    path.write_text(record.to_json(), encoding="utf-8")
    assert main(["report", str(path), "--overlay", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"mundus report: {path}: --overlay compares tournament results (mundus tournament "
        "--json FILE), and this is a game record\n")
