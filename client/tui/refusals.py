"""A host's refusal (an ``error``, docs/protocol.md §10) worded by the client in the player's
language, from what the host sends to be read by programs: its ``code`` and, when the engine
refused a decision, the docs/rules.md ``rule`` ID. The host's ``message`` is English for the
person running it; a player reading another language never sees it. In English the engine's
own detail is kept for an ``illegal`` decision, since it names the very card or seat.
"""

from __future__ import annotations

import re

from mundus_net.client.i18n import N_, Translator, current

# The seconds a hello waits after wrong invite codes (host/table.py says "... in 12 s").
_INVITE_WAIT = re.compile(r"invite codes\b.* in (\d+) s$")

# What each error code means for the person at the table, and what to do.
CODE_WORDS: dict[str, str] = {
    "malformed": N_("your client sent something the host cannot read (a bug in the client)"),
    "too_large": N_("that message is too long for the host"),
    "version": N_("this client and the host speak different versions of the protocol: "
                  "update one of them"),
    "unknown_type": N_("your client sent something the host does not know (a bug in the "
                       "client)"),
    "bad_field": N_("your client sent something the host does not accept (a bug in the "
                    "client)"),
    "not_joined": N_("the host does not know this connection yet: join the table again"),
    "bad_token": N_("the saved seat is not one of this table's"),
    "table_full": N_("no seat is free at this table"),
    "invite_needed": N_("this table is for the invited: ask its host for the invite code"),
    "bad_invite": N_("that invite code is not this table's"),
    "seat_in_use": N_("another client sits in this seat right now"),
    "spectator": N_("you are watching: spectators do not play"),
    "not_pending": N_("you have nothing to decide now, or not this"),
    "illegal": N_("the rules do not allow that"),
    "commit_phase": N_("a sealed offer does not fit this moment of the trade"),
    "commit_mismatch": N_("your offer's reveal does not match the offer you sealed"),
    "stale": N_("that answer came too late for its decision; look again"),
    "rate_limited": N_("too many requests at once: wait a moment and try again"),
    "flood": N_("your client sent too much at once: wait a second"),
    "game_over": N_("the game is over"),
    "internal": N_("the host failed to handle that (a bug in the host): try again"),
}

# The rule a refused decision breaks, as a player would say it (docs/rules.md): the IDs the
# engine names in its refusals (mundus_net/engine/game.py, RuleError).
RULE_WORDS: dict[str, str] = {
    "P01": N_("Sergio de Lagio's owner buys one card that is in the market, for 2 doubloons"),
    "P04": N_("only Vicente de la Raya's owner sells an identical set, of exactly 3 cards"),
    "R1.4": N_("you do not have the doubloons to pay for that"),
    "R3.3": N_("Coronado's owner imposes one of the five events, or passes"),
    "R4.4": N_("a split makes two fleets of your own caravels, each with at least one"),
    "R4.6": N_("a fleet takes cards of the caravel display, one per caravel"),
    "R4.7": N_("discard exactly as many cards of your hand as the pirates ask"),
    "R5.1": N_("the Trade Master announces 2, 3 or 4"),
    "R5.2": N_("offer cards of your hand, exactly as many as announced"),
    "R5.4": N_("the new Trade Master is chosen among the highest offers"),
    "R5.5": N_("take a card that another player offers, face up"),
    "R5.6": N_("it is another player's turn to take"),
    "R5.7": N_("no ping-pong: you may not take again at once from the player who took from "
               "you"),
    "R5.9": N_("give one of your own offered cards"),
    "R6.1": N_("choose one of the players to play first"),
    "R6.2": N_("a combination is an identical set (3 to 5 cards of one value, relics wild), "
               "a series (4 to 9 different values, no relics) or a relic set; one of each "
               "per turn"),
    "R6.3": N_("that set does not reach so far into the queue"),
    "R6.5": N_("each merchant turns one card of your hand into a value of its class, once "
               "per round"),
    "R6.9": N_("store only cards of your hand, as many as your warehouses hold"),
    "R7": N_("that does not answer the decision the game waits for"),
}


def rule_words(rule: str, t: Translator | None = None) -> str:
    """The rule ``rule`` as a player would say it; for a rule with no words of its own, "the
    rules do not allow that" (the ID is shown beside it)."""
    t = t or current()
    if rule.startswith("R8"):
        return t._(CODE_WORDS["game_over"])
    return t._(RULE_WORDS.get(rule, CODE_WORDS["illegal"]))


def refusal_reason(code: str, rule: str | None, message: str, in_terms: str | None = None,
                   t: Translator | None = None, request: str | None = None) -> str:
    """Why the host refused, in ``t``'s language: "R5.5: take a card that another player
    offers, face up". ``in_terms`` is the host's ``message`` with seats put as players' names
    (kept in English only, for an ``illegal`` decision: the engine's detail names the card).
    ``request`` is the refused request's type: a ``reveal`` refused by the rules had the
    default offer played in its place (docs/protocol.md §7)."""
    t = t or current()
    if code == "illegal" and rule:
        if t.language == "en":
            detail = in_terms if in_terms is not None else message
            return detail if detail.startswith(rule) else f"{rule}: {detail}"
        reason = f"{rule}: {rule_words(rule, t)}"
        if request == "reveal":  # a sealed offer the rules refuse: the host played the default
            reason = t._("{reason} (the default offer was played)").format(reason=reason)
        return reason
    wait = _INVITE_WAIT.search(message) if code == "rate_limited" else None
    if wait is not None:  # a hello after wrong invite codes: the number is all that is read
        return t._("too many wrong invite codes: the table looks at the next one in "
                   "{seconds} s").format(seconds=wait.group(1))
    words = CODE_WORDS.get(code)
    if words is None:  # a code newer than this client: its own name says what it is
        return code
    return t._(words)

