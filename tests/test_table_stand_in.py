"""A seat whose player is away is handed to a stand-in bot and given back when the player
returns (issue 13, item 5; `mundus host --stand-in-after S`): the socket-free Table with an
injected clock, and its game log restoring exactly the same game."""

from __future__ import annotations

from pathlib import Path

from support.clock import FakeClock
from support.table import send
from test_gamelog import BOTS, SEED, Player, per_seat

from mundus_net.bots import load_bot
from mundus_net.engine.notation import format_position
from mundus_net.host.gamelog import GameLog, restore
from mundus_net.host.table import Table, TableSettings

AFTER = 10.0


def _table(clock: FakeClock) -> Table:
    return Table(4, TableSettings(game_id="5a5a5a5a5a5a5a5a", name="Stand-in table",
                                  stand_in_after=AFTER),
                 seed=SEED, bots=[load_bot(b.strategy, b.seed) for b in BOTS],
                 bot_names=["hb0", "hb1"], clock=clock)


def _kinds(table: Table) -> list[str]:
    table.output.flush()
    return [e["kind"] for e in table.output.public_history()]


def _turns(table: Table, players: list[Player], count: int) -> None:
    for _ in range(count):
        table.advance()
        table.drain()
        if table.over:
            return
        for player in players:
            player.act(table)


def test_an_absent_players_seat_is_played_by_a_stand_in_until_the_player_returns(
        tmp_path: Path) -> None:
    clock = FakeClock()
    table = _table(clock)
    log = GameLog.create(tmp_path, table, bots=BOTS, host={"port": 7700})
    ana, bo = Player("Ana"), Player("Bo")
    for player in (ana, bo):
        player.hello(table)
    _turns(table, [ana, bo], 20)
    assert ana.seat is not None
    # Ana's client says bye: away. Not yet handed over...
    assert send(table, ana.conn, t="bye", token=ana.token)["t"] == "ok"
    clock.now += AFTER - 0.5
    table.advance()
    assert "stand_in" not in _kinds(table)
    # ... then a bot plays her seat while Bo plays on (his pings keep him present).
    clock.now += 0.5
    decided = len([d for d in table.record.decisions if d.seat == ana.seat])
    _turns(table, [bo], 8)
    assert not table.over and _kinds(table).count("stand_in") == 1
    assert table.pending_of(ana.seat) is None  # nothing is asked of the absent player
    by_bot = [d for d in table.record.decisions if d.seat == ana.seat][decided:]
    assert by_bot and {d.by for d in by_bot} == {"bot"}
    # Ana comes back with her token: her seat is hers again, asked afresh.
    ana.hello(table)
    assert _kinds(table).count("stand_in_end") == 1
    _turns(table, [ana, bo], 5000)
    assert table.game.is_over
    after = [d.by for d in table.record.decisions if d.seat == ana.seat][decided + len(by_bot):]
    assert "player" in after  # she decided again
    log.close()
    # The log restores the same game: the stand-in's decisions are its logged ones.
    again = GameLog.open(log.path)
    restored = restore(again, clock=FakeClock(), record_resume=False).table
    again.close()
    assert format_position(restored.game) == format_position(table.game)
    assert per_seat(restored) == per_seat(table)


def test_without_stand_in_after_an_absent_seat_keeps_waiting() -> None:
    clock = FakeClock()
    table = _table(clock)
    table.stand_in_after = None
    ana, bo = Player("Ana"), Player("Bo")
    for player in (ana, bo):
        player.hello(table)
    send(table, ana.conn, t="bye", token=ana.token)
    clock.now += 3600
    _turns(table, [bo], 50)
    assert "stand_in" not in _kinds(table)
