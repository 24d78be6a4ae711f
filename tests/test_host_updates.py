"""The table's outputs on their own (host/updates.py, issue 26): ``TableOutput`` reads a stub
table and a real game, and is checked for what it publishes and sends, without a Table."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mundus_net.engine.deck import default_deck
from mundus_net.engine.defaults import default_decision
from mundus_net.engine.game import Game, Options
from mundus_net.host.offerstep import OfferStep
from mundus_net.host.updates import TableOutput, changed_keys, event_wire

Message = dict[str, Any]


@dataclass
class StubSeat:
    index: int
    conn: bytes | None = None
    connected: bool = True
    program: bool = False
    host_bot: object | None = None


@dataclass
class StubAsked:
    id: int
    kind: str = "trade"
    detail: Any = None
    legal: list[Any] = field(default_factory=list)
    deadline: float | None = None


@dataclass
class StubTable:
    """Just what TableOutput reads of a table (its TableSource)."""

    seats: list[StubSeat]
    started: bool = True
    name: str = "stub"
    decision_seconds: float | None = None
    offer_step: OfferStep | None = None
    asked: dict[int, StubAsked] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return [f"p{s.index}" for s in self.seats]

    def pending_of(self, seat: int) -> StubAsked | None:
        return self.asked.get(seat)


def make_output(accepted: dict[int, int] | None = None
                ) -> tuple[TableOutput, StubTable, Game]:
    game = Game(Options(3, seed=7), default_deck())
    table = StubTable([StubSeat(0, conn=b"a"), StubSeat(1), StubSeat(2, host_bot=object())])
    return TableOutput(table, game, lambda: 0.0, {} if accepted is None else accepted), table, game


def privates_of(output: TableOutput) -> list[tuple[bytes, Message]]:
    """What a flush sends after a change (the table touches its output after every one)."""
    output.touch()
    output.flush()
    return output.take()[1]


def test_changed_keys_are_every_key_at_first_then_only_the_changed_ones() -> None:
    state = {"a": [1], "b": 2}
    assert changed_keys(None, state) == state
    assert changed_keys(state, {"a": [1], "b": 3, "c": None}) == {"b": 3, "c": None}


def test_an_engine_event_kind_field_travels_as_type_and_the_setup_seed_never() -> None:
    assert event_wire("trade", {"kind": "sale", "seat": 1}) == {
        "kind": "trade", "type": "sale", "seat": 1}
    assert event_wire("setup", {"seed": 99, "players": 3}) == {"kind": "setup", "players": 3}


def test_nothing_of_the_engine_is_published_before_the_start() -> None:
    output, table, _ = make_output()
    table.started = False
    output.emit({"kind": "joined", "seat": 0})
    output.flush()
    (update,), _ = output.take()
    assert update["events"] == [{"kind": "joined", "seat": 0}]
    assert update["changed"]["table"]["started"] is False
    table.started = True
    output.emit({"kind": "started"})
    output.flush()
    (update,), _ = output.take()
    kinds = [e["kind"] for e in update["events"]]
    assert kinds[0] != "started" and kinds[-1] == "started"  # the deal's events come first
    assert output.seq == 2 and output.history_length == 1 + len(kinds)


def test_a_private_message_goes_only_to_a_connected_person_when_its_state_changed() -> None:
    output, _, _ = make_output()
    sent = privates_of(output)
    assert [conn for conn, _ in sent] == [b"a"]  # not seat 1 (no connection), not the bot
    assert sent[0][1]["private"]["seat"] == 0 and sent[0][1]["private"]["hand"]
    assert privates_of(output) == []  # nothing of seat 0 changed
    output.send_whole_private(0)  # a new connection gets it all again
    assert [m["private"]["seat"] for _, m in privates_of(output)] == [0]


def test_no_private_message_only_clears_a_decision_its_ok_answered() -> None:
    accepted: dict[int, int] = {}
    output, table, _ = make_output(accepted)
    table.asked[0] = StubAsked(5)
    assert privates_of(output)[0][1]["private"]["pending"]["id"] == 5
    del table.asked[0]
    accepted[0] = 5  # the ok told the seat that its decision was taken
    assert privates_of(output) == []
    table.asked[0] = StubAsked(6)
    assert privates_of(output)[0][1]["private"]["pending"]["id"] == 6
    del table.asked[0]  # gone without an ok for it (6 is not accepted): the seat is told
    (_, cleared), = privates_of(output)
    assert cleared["private"]["pending"] is None


def test_the_reveals_event_follows_the_engine_reveal_before_what_comes_after() -> None:
    output, _, game = make_output()
    output.flush()
    output.take()
    reveals = {"kind": "reveals", "round": 1, "reveals": {}}
    output.after_reveal(reveals)
    while not any(e.kind == "reveal" for e in game.log):
        seat = game.waiting_seats()[0]
        game.apply(seat, default_decision(game, seat))
    output.emit({"kind": "chat", "seat": 0, "name": "p0", "text": "after"})
    output.flush()
    (update,), _ = output.take()
    kinds = [e["kind"] for e in update["events"]]
    assert kinds[kinds.index("reveal") + 1] == "reveals" and kinds[-1] == "chat"


def test_a_snapshot_takes_the_place_of_its_connection_queued_private_messages() -> None:
    output, _, _ = make_output()
    output.send(b"a", {"t": "taken_over", "seat": 0, "message": "gone"})
    output.touch()
    snap = output.snapshot(0, b"a")  # flushes: a private message for b"a" was queued, then dropped
    assert snap["seq"] == output.seq and snap["private"]["seat"] == 0
    assert snap["state"] == output.public_state() and snap["events"] == output.public_history()
    assert [m["t"] for _, m in output.take()[1]] == ["taken_over"]
