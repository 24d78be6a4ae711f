"""The players' languages: the gettext catalogs, how a process picks its language, and the
names the rulebooks print (docs/client.md, "Languages").

It sits under both sides of the network: the client's screens and ``mundus bot`` read it,
and so does ``mundus host``'s console, and host and client never import each other
(docs/architecture.md). It knows the engine's names and the standard library, nothing else:
what a client remembers of a player's language (the state folder) is
:mod:`mundus_net.client.i18n`'s.

The catalogs are ``locale/<lang>/LC_MESSAGES/mundus.mo`` in this package, compiled from the
``.po`` files beside them and shipped in the wheel: at run time only the standard library's
:mod:`gettext` reads them. Making and checking them is :mod:`mundus_net.client.i18n_build`
(Babel, a development tool).

A message is marked in the source with the functions of a :class:`Translator` (``_``,
``ngettext``, ``pgettext``, ``npgettext``) and written with ``{name}`` placeholders, filled
in with :meth:`str.format` after translation. The names of the game (resources, cards,
events, the four steps, a few terms) are looked up by the English name the engine gives them,
with a context (:data:`NAME_CONTEXTS`) telling the kinds apart; the host sends ids, never
words, so each client names the same card in its own language.
"""

from __future__ import annotations

import argparse
import gettext
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from mundus_net.engine.cards import RESOURCE_NAMES
from mundus_net.engine.deck import EVENT_NAMES, CardDef

__all__ = [
    "AUTO", "CARAVEL_NAME", "CARD", "DEFAULT_LANGUAGE", "DOMAIN", "ENDINGS", "EVENT", "LANGUAGES",
    "LOCALE_DIR", "LOCALE_VARIABLES", "NAME_CONTEXTS", "N_", "RESOURCE", "STEP", "STEPS", "TERM",
    "TERMS", "Translator", "add_console_language_argument", "current", "early_language",
    "korean_particles",
    "language_of_locale", "language_option", "system_language", "translator", "use"
]

DOMAIN = "mundus"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
# The languages of the rulebooks (../shared/seeds): each has a catalog.
LANGUAGES = {"en": "English", "it": "Italiano", "ru": "Русский", "nl": "Nederlands",
             "ko": "한국어"}
DEFAULT_LANGUAGE = "en"
AUTO = "auto"  # --lang auto: follow the system locale (a client also forgets its saved one)
# The variables that name the system locale, the first set one deciding (POSIX order).
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")

# The contexts (msgctxt) of the game's names in the catalogs.
RESOURCE, CARD, EVENT, STEP, TERM = "resource", "card", "event", "step", "term"
NAME_CONTEXTS = (RESOURCE, CARD, EVENT, STEP, TERM)
# The four steps of a round, as the rulebooks name them (R7).
STEPS = ("Event", "Supply", "Trade", "Progression")
# Words of the table every rulebook prints besides the cards.
TERMS = ("Trade Master", "market")
CARAVEL_NAME = "Caravel {value}"  # every caravel's name: one message for the twelve


def N_(message: str) -> str:
    """Marks a message for the catalogs where it is written (a table of words) and leaves it
    English; the code that shows it translates it then (``t._(WORDS[key])``)."""
    return message


# How a game ended: the engine's words (engine.game.REASON_WORDS), marked for the catalogs,
# for the lines of mundus host and mundus bot ("game over after 9 rounds, ended ...").
ENDINGS = {
    "perfect": N_("by a perfect combination"),
    "doubloons": N_("when a player reached 75 doubloons"),
    "queue": N_("when the queue ran out"),
    "round_limit": N_("at the round limit"),
}


# Korean particles that depend on the word before them (조사): the catalog writes the form
# with batchim first and the other in parentheses (을(를), 이(가), 은(는), 과(와), (으)로), and
# korean_particles picks one once the word is filled in, as Korean software does.
_PARTICLES = {"을(를)": ("을", "를"), "이(가)": ("이", "가"), "은(는)": ("은", "는"),
              "과(와)": ("과", "와"), "(으)로": ("으로", "로")}
_PARTICLE = re.compile("|".join(re.escape(form) for form in _PARTICLES))
_CLOSING = "\"'”’]」』>*`"  # marks between a word and its particle, looked through
# How a digit is read at the end of a number (영 일 이 삼 사 오 육 칠 팔 구): its final
# consonant, 0 for none, 8 for ㄹ (the code of a Hangul syllable's final consonant).
_DIGIT_FINAL = {"0": 21, "1": 8, "2": 0, "3": 16, "4": 0, "5": 0, "6": 1, "7": 8, "8": 8,
                "9": 0}
_LETTER_FINAL = {"l": 8, "m": 16, "n": 4}  # el, em, en; other letters end in a vowel


def _final_consonant(text: str) -> int | None:
    """The final consonant (받침) of the last word of ``text`` as read aloud: 0 for none,
    8 for ㄹ; None when it cannot be told (no letter, digit or syllable before)."""
    word = text.rstrip(_CLOSING + " ")
    while word.endswith(")") and "(" in word:  # "창고 (1장)": the word before the brackets
        word = word[:word.rindex("(")].rstrip(_CLOSING + " ")
    if not word:
        return None
    last = word[-1]
    if "가" <= last <= "힣":
        return (ord(last) - ord("가")) % 28
    if last in _DIGIT_FINAL:
        return _DIGIT_FINAL[last]
    if last.isascii() and last.isalpha():
        return _LETTER_FINAL.get(last.lower(), 0)
    return None


def korean_particles(text: str) -> str:
    """Each particle written 을(를) (이(가), 은(는), 과(와), (으)로) in ``text`` made the one
    the word before it takes: 카카오를, 해적을, 면은, 감자와, 유물로, 캐러벨선 7로; left as
    written after something that cannot be read (a symbol)."""
    out: list[str] = []
    last = 0
    for m in _PARTICLE.finditer(text):
        out.append(text[last:m.start()])
        final = _final_consonant("".join(out))
        with_final, without = _PARTICLES[m.group(0)]
        if final is None:
            out.append(m.group(0))
        elif m.group(0) == "(으)로":
            out.append(without if final in (0, 8) else with_final)  # ㄹ takes 로
        else:
            out.append(with_final if final else without)
        last = m.end()
    out.append(text[last:])
    return "".join(out)


class _Korean(str):
    """A Korean message: once formatted, its particles fit the words filled in."""

    def format(self, *args: object, **kwargs: object) -> str:
        return korean_particles(str.format(self, *args, **kwargs))


class Translator:
    """One language's messages: gettext's functions, and the game's names."""

    def __init__(self, language: str, catalog: gettext.NullTranslations) -> None:
        self.language = language
        self._catalog = catalog
        self._text = _Korean if language == "ko" else str

    def _(self, message: str) -> str:
        return self._text(self._catalog.gettext(message))

    def ngettext(self, singular: str, plural: str, count: int) -> str:
        return self._text(self._catalog.ngettext(singular, plural, count))

    def pgettext(self, context: str, message: str) -> str:
        return self._text(self._catalog.pgettext(context, message))

    def npgettext(self, context: str, singular: str, plural: str, count: int) -> str:
        return self._text(self._catalog.npgettext(context, singular, plural, count))

    def resource(self, resource: int) -> str:
        """A resource's name (1-9, or the relic)."""
        return self.pgettext(RESOURCE, RESOURCE_NAMES[resource])

    def card(self, card: CardDef) -> str:
        """A development's name; a custom deck's own names (docs/deck-format.md) stay as
        its file writes them when no catalog knows them."""
        if card.kind == "caravel" and card.name == CARAVEL_NAME.format(value=card.caravel):
            return self.pgettext(CARD, CARAVEL_NAME).format(value=card.caravel)
        return self.pgettext(CARD, card.name)

    def event(self, code: str) -> str:
        """An event's name from its icon code (``KA``, ``IP``, ``ST``, ``FI``, ``PI``)."""
        return self.pgettext(EVENT, EVENT_NAMES[code])

    def step(self, step: str) -> str:
        """One of :data:`STEPS`."""
        return self.pgettext(STEP, step)

    def term(self, term: str) -> str:
        """One of :data:`TERMS`."""
        return self.pgettext(TERM, term)

    def ended(self, reason: str) -> str:
        """How a game ended (a result's ``reason``), as :data:`ENDINGS` words it; an unknown
        reason as it is."""
        return self._(ENDINGS[reason]) if reason in ENDINGS else reason

    def and_(self, items: list[str]) -> str:
        """``Ann and Bo and Cy``: names joined the way the language joins them."""
        if not items:
            return ""
        joined = items[0]
        for item in items[1:]:
            joined = self._("{first} and {second}").format(first=joined, second=item)
        return joined

    def doubloons(self, count: int) -> str:
        """``count`` doubloons, in the language's plural form."""
        return self.npgettext("term", "{count} doubloon", "{count} doubloons",
                              count).format(count=count)


@cache
def translator(language: str = DEFAULT_LANGUAGE) -> Translator:
    """The messages of ``language`` (one of :data:`LANGUAGES`); English, the source's own
    words, for any other."""
    if language not in LANGUAGES:
        language = DEFAULT_LANGUAGE
    catalog = gettext.translation(DOMAIN, LOCALE_DIR, [language], fallback=True)
    return Translator(language, catalog)


def language_of_locale(value: str) -> str | None:
    """``"it_IT.UTF-8"`` -> ``"it"``; None for a locale naming no language of ours
    (``C``, ``POSIX``, ``de_DE``)."""
    code = value.split(".")[0].split("@")[0].split("_")[0].split("-")[0].lower()
    return code if code in LANGUAGES else None


def system_language(environ: Mapping[str, str]) -> str | None:
    """The language the system locale names: the first of ``LC_ALL``, ``LC_MESSAGES``,
    ``LANG`` that is set decides (as for every program), None when it is none of ours."""
    for variable in LOCALE_VARIABLES:
        value = environ.get(variable, "")
        if value:
            return language_of_locale(value)
    return None


def early_language(option: str | None, environ: Mapping[str, str]) -> str:
    """``--lang`` (not ``auto``), else the system locale's, else English: the language of a
    command that remembers none (``mundus host``, ``mundus bot``, ``mundus replay``), and of
    what ``mundus join`` prints before the player's name is known."""
    if option is not None and option != AUTO:
        return option
    return system_language(environ) or DEFAULT_LANGUAGE


def language_option(text: str) -> str:
    """``--lang``'s type: a code of :data:`LANGUAGES` or a locale naming one, or ``auto``."""
    value = text.strip().lower()
    if value == AUTO:
        return AUTO
    language = language_of_locale(value)
    if language is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a language of the game: {', '.join(LANGUAGES)} or {AUTO}")
    return language


def add_console_language_argument(parser: argparse.ArgumentParser) -> None:
    """``--lang`` for the commands that print lines and remember nothing (``mundus host``,
    ``mundus bot``): the language of what they print for people."""
    parser.add_argument(
        "--lang", type=language_option, default=None, metavar="LANG",
        help="the language of the lines printed for people: "
             + ", ".join(f"{code} ({name})" for code, name in LANGUAGES.items())
             + f", or {AUTO} (default: the system locale's, else English); a program that "
               "reads these lines passes --lang en (docs/client.md, \"The host and the bot in "
               "your language\")")


# The language this process speaks: one player per client, one person at a host's console,
# so one language; the functions that word the game take a Translator and fall back on this.
_current: list[Translator] = []


def use(language: str) -> Translator:
    """Make ``language`` the one :func:`current` gives (a command calls it once it knows the
    language of its reader)."""
    _current[:] = [translator(language)]
    return _current[0]


def current() -> Translator:
    """The language :func:`use` chose; English before any."""
    return _current[0] if _current else translator(DEFAULT_LANGUAGE)
