"""Commit-reveal of the offer steps (docs/protocol.md §7; rule R5.3), as the table runs it.

:class:`CommitReveal` holds the offer step under way (host/offerstep.py's :class:`OfferStep`,
its state and questions) and makes each of its moves: a commitment taken, a host bot's
offer committed and kept secret, a reveal checked against its commitment, a seat that
broke or timed out given the default offer, the commitments opened and the step closed,
with the events, the record's offers and violations they make. The table checks each
message (its seat, its pending id), logs it, and hands the move here; what commit-reveal
needs of the table comes in as :class:`OfferWiring` (the engine, the record, the outputs),
so this module never imports the table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from mundus_net.engine.decisions import Decision, Offer, RuleError
from mundus_net.engine.defaults import default_decision
from mundus_net.engine.game import OFFER, Game
from mundus_net.engine.record import GameRecord, RecordedOffer
from mundus_net.host.offerstep import COMMIT, REVEAL, Cards, OfferStep
from mundus_net.protocol.commitment import commit, verify
from mundus_net.protocol.errors import ProtocolError

__all__ = ["CommitReveal", "OfferWiring"]

Message = dict[str, Any]
Later = Callable[[], None]


@dataclass(frozen=True)
class OfferWiring:
    """What commit-reveal uses of its table."""

    game: Callable[[], Game]
    """The engine now (the table deals a new one at the start)."""
    game_id: str
    """The game's id, in every commitment."""
    record: GameRecord
    """Where offers and violations are recorded."""
    emit: Callable[[Message], None]
    """Publish a host event (after the engine's events so far)."""
    after_reveal: Callable[[Message], None]
    """Publish an event right after the engine's next ``reveal`` event (the step's close)."""
    play: Callable[[int, Decision, str], None]
    """Apply a decision to the engine and record it (seat, decision, by)."""
    recorded: Callable[[int, Decision, str], None]
    """Record a decision the engine took already (seat, decision, by)."""
    after_change: Callable[[Iterable[int]], None]
    """The table looks again: the seats answered, new questions, the end."""


class CommitReveal:
    """The offer steps of one table: their state and every move of commit-reveal (§7)."""

    def __init__(self, wiring: OfferWiring) -> None:
        self._table = wiring
        self.step: OfferStep | None = None
        """The offer step under way (or the last one), None before the first."""

    def follow(self, game: Game) -> None:
        """A new offer step when the game has entered the offer phase of a new round."""
        if game.phase == OFFER and (self.step is None or self.step.round != game.round):
            self.step = OfferStep(game.round, game.waiting_seats())

    def _current(self) -> OfferStep:
        step = self.step
        assert step is not None, "no offer step under way"
        return step

    # -- moves -----------------------------------------------------------------------------

    def commit(self, seat: int, commitment: bytes) -> Later:
        """A seat's commitment, checked and logged by the table: the change to make once its
        ``ok`` is sent (nothing can refuse a commitment now)."""
        step = self._current()

        def later() -> None:
            step.commitments[seat] = commitment
            self._table.emit({"kind": "committed", "seat": seat})
            self._open_reveals()
            self._table.after_change((seat,))
        return later

    def commit_host_bot(self, seat: int, offer: Offer, nonce: bytes, by: str) -> None:
        """A host bot commits like everyone else; the host keeps its secret (§7) until the
        commitments open."""
        step = self._current()
        step.secrets[seat] = (offer.cards, nonce, by)
        step.commitments[seat] = commit(self._table.game_id, step.round, seat, offer.cards,
                                        nonce)
        self._table.emit({"kind": "committed", "seat": seat})
        self._open_reveals()

    def reveal(self, seat: int, offer: Cards, nonce: bytes, listed: Decision | None,
               by: str) -> Later | None:
        """A seat's reveal, logged by the table. ``listed``: the seat's legal decision it
        names, if any. Returns the change to make once the ``ok`` is sent (a listed offer
        cannot be refused), or None when it is made already. ProtocolError
        ``commit_mismatch`` or ``illegal`` when it does not open its commitment with a legal
        offer: the default offer is played (§7), and that change is made already."""
        step = self._current()
        if not verify(step.commitments[seat], self._table.game_id, step.round, seat, offer,
                      nonce):
            # §7: a broken reveal costs the seat its offer (the default is played), not the game
            self.break_reveal(seat, "commit_mismatch")
            raise ProtocolError("commit_mismatch", "the reveal does not open the commitment; "
                                                   "the default offer was played")
        if isinstance(listed, Offer):
            def later() -> None:
                self._apply_listed(step, seat, listed, nonce, by)
            return later
        try:
            self._table.game().apply(seat, Offer(offer))
        except RuleError as err:
            self.break_reveal(seat, f"illegal offer ({err})")
            raise ProtocolError("illegal", f"{err} (the default offer was played)",
                                rule=err.rule) from None
        self._opened(step, seat, offer, nonce, by)
        self._table.after_change((seat,))
        return None

    def time_out_commit(self, seat: int) -> None:
        """§8: no commitment by the deadline; the seat's default offer is played when the
        reveals open."""
        step = self._current()
        table = self._table
        table.emit({"kind": "timeout", "seat": seat, "phase": COMMIT})
        table.emit({"kind": "violation", "seat": seat, "reason": "timeout"})
        table.record.violations.append({"round": step.round, "seat": seat,
                                        "reason": "timeout", "phase": COMMIT})
        step.timed_out.add(seat)
        self._open_reveals()
        table.after_change((seat,))

    def time_out_reveal(self, seat: int) -> None:
        """§8: no reveal by the deadline: the seat breaks its reveal."""
        self.break_reveal(seat, "timeout", timeout=True)

    def break_reveal(self, seat: int, reason: str, timeout: bool = False) -> None:
        """A seat loses its reveal: violation published and recorded, default offer played."""
        step = self._current()
        table = self._table
        if timeout:
            table.emit({"kind": "timeout", "seat": seat, "phase": REVEAL})
        table.emit({"kind": "violation", "seat": seat, "reason": reason})
        table.record.violations.append({"round": step.round, "seat": seat, "reason": reason,
                                        "phase": REVEAL})
        step.broken.add(seat)
        table.play(seat, default_decision(table.game(), seat), "default")
        self._close()
        table.after_change((seat,))

    # -- the step's own moves ----------------------------------------------------------------

    def _open_reveals(self) -> None:
        """Once every asked seat is committed (or timed out), publish the commitments and
        open the host's own offers; the others are asked to reveal."""
        step = self._current()
        opened = step.open_reveals()
        if opened is None:
            return
        table = self._table
        table.emit(opened)
        for seat, (offer, nonce, by) in sorted(step.secrets.items()):
            try:
                table.game().apply(seat, Offer(offer))
            except RuleError as err:  # a host bot's offer was checked when it committed
                self.break_reveal(seat, f"illegal offer ({err})")
                continue
            self._opened(step, seat, offer, nonce, by)
        for seat in sorted(step.timed_out):
            step.broken.add(seat)
            table.play(seat, default_decision(table.game(), seat), "default")
        self._close()

    def _apply_listed(self, step: OfferStep, seat: int, offer: Offer, nonce: bytes,
                      by: str) -> None:
        """A reveal that opens its commitment with one of the seat's legal offers."""
        try:
            self._table.game().apply(seat, offer)
        except RuleError as err:  # the engine refused an offer it listed: a bug
            self.break_reveal(seat, f"illegal offer ({err})")
            raise RuntimeError(f"the engine refused {offer!r}, one of its legal offers for "
                               f"seat {seat}: {err}") from err
        self._opened(step, seat, offer.cards, nonce, by)
        self._table.after_change((seat,))

    def _opened(self, step: OfferStep, seat: int, offer: Cards, nonce: bytes, by: str) -> None:
        """A reveal that opens its commitment and was applied to the engine."""
        step.revealed[seat] = (offer, nonce)
        self._table.recorded(seat, Offer(offer), by)
        self._table.record.offers.append(RecordedOffer(
            step.round, seat, step.commitments[seat].hex(), offer, nonce.hex()))
        self._close()

    def _close(self) -> None:
        closed = self._current().close()
        if closed is not None:
            self._table.after_reveal(closed)  # published right after the engine's reveal
