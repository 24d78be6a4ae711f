"""The players' languages: gettext catalogs, the language a player reads, and the names the
rulebooks print (docs/client.md, "Languages").

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
import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from mundus_net.engine.cards import RESOURCE_NAMES
from mundus_net.engine.deck import EVENT_NAMES, CardDef
from mundus_net.protocol.names import clean_name
from mundus_net.protocol.statedir import atomic_write, state_dir

__all__ = [
    "AUTO", "CARAVEL_NAME", "CARD", "DEFAULT_LANGUAGE", "DOMAIN", "EVENT", "LANGUAGES",
    "LANGUAGES_FILE", "LOCALE_DIR", "LOCALE_VARIABLES", "NAME_CONTEXTS", "N_", "RESOURCE", "STEP",
    "STEPS", "TERM", "TERMS", "Translator", "add_language_argument", "choose_language", "current",
    "early_language", "language_of_locale", "save_language", "saved_language", "system_language",
    "translator", "use"
]

DOMAIN = "mundus"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
# The languages of the rulebooks (../shared/seeds): each has a catalog.
LANGUAGES = {"en": "English", "it": "Italiano", "ru": "Русский", "nl": "Nederlands",
             "ko": "한국어"}
DEFAULT_LANGUAGE = "en"
AUTO = "auto"  # --lang auto: forget the remembered language, follow the system locale
# The variables that name the system locale, the first set one deciding (POSIX order).
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")
LANGUAGES_FILE = "languages.json"  # in the state folder: player name -> language

# The contexts (msgctxt) of the game's names in the catalogs.
RESOURCE, CARD, EVENT, STEP, TERM = "resource", "card", "event", "step", "term"
NAME_CONTEXTS = (RESOURCE, CARD, EVENT, STEP, TERM)
# The four steps of a round, as the rulebooks name them (R7).
STEPS = ("Event", "Supply", "Trade", "Progression")
# Words of the table every rulebook prints besides the cards.
TERMS = ("Trade Master", "market")
CARAVEL_NAME = "Caravel {value}"  # every caravel's name: one message for the twelve


class Translator:
    """One language's messages: gettext's functions, and the game's names."""

    def __init__(self, language: str, catalog: gettext.NullTranslations) -> None:
        self.language = language
        self._catalog = catalog

    def _(self, message: str) -> str:
        return self._catalog.gettext(message)

    def ngettext(self, singular: str, plural: str, count: int) -> str:
        return self._catalog.ngettext(singular, plural, count)

    def pgettext(self, context: str, message: str) -> str:
        return self._catalog.pgettext(context, message)

    def npgettext(self, context: str, singular: str, plural: str, count: int) -> str:
        return self._catalog.npgettext(context, singular, plural, count)

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


def _languages_file() -> Path:
    return state_dir() / LANGUAGES_FILE


def _saved_languages() -> dict[str, str]:
    try:
        data = json.loads(_languages_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): str(v) for k, v in data.items() if v in LANGUAGES}


def saved_language(name: str) -> str | None:
    """The language ``name`` chose with ``--lang`` at an earlier table, if any."""
    return _saved_languages().get(clean_name(name))


def save_language(name: str, language: str | None) -> None:
    """Remember ``language`` for ``name`` (None forgets it); quietly nothing if the state
    folder is not writable."""
    languages = _saved_languages()
    key = clean_name(name)
    if languages.get(key) == language:
        return
    if language is None:
        languages.pop(key, None)
    else:
        languages[key] = language
    try:
        _languages_file().parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        atomic_write(_languages_file(), json.dumps(languages, ensure_ascii=False, indent=1,
                                                   sort_keys=True) + "\n")
    except OSError:
        pass


def choose_language(option: str | None, name: str, environ: Mapping[str, str]) -> str:
    """The language ``name`` reads: ``--lang`` (remembered for that name); else the one
    remembered; else the system locale's; else English. ``--lang auto`` forgets the
    remembered one."""
    if option == AUTO:
        save_language(name, None)
    elif option is not None:
        save_language(name, option)
        return option
    else:
        remembered = saved_language(name)
        if remembered is not None:
            return remembered
    return system_language(environ) or DEFAULT_LANGUAGE


def _language_option(text: str) -> str:
    value = text.strip().lower()
    if value == AUTO:
        return AUTO
    language = language_of_locale(value)
    if language is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a language of the game: {', '.join(LANGUAGES)} or {AUTO}")
    return language


def add_language_argument(parser: argparse.ArgumentParser) -> None:
    """``--lang`` for the commands that open the table (play, join, watch)."""
    parser.add_argument(
        "--lang", type=_language_option, default=None, metavar="LANG",
        help="the language you read: "
             + ", ".join(f"{code} ({name})" for code, name in LANGUAGES.items())
             + f"; remembered with your name; {AUTO}: follow the system locale (default: the "
               "language remembered, else the system locale's, else English)")


def N_(message: str) -> str:
    """Marks a message for the catalogs where it is written (a table of words) and leaves it
    English; the code that shows it translates it then (``t._(WORDS[key])``)."""
    return message


# The language this process's screens speak: one player per client, so one language; the
# functions that word the game take a Translator and fall back on this one.
_current: list[Translator] = []


def use(language: str) -> Translator:
    """Make ``language`` the one :func:`current` gives (the client calls it once it knows
    the player's language)."""
    _current[:] = [translator(language)]
    return _current[0]


def current() -> Translator:
    """The language :func:`use` chose; English before any."""
    return _current[0] if _current else translator(DEFAULT_LANGUAGE)


def early_language(option: str | None, environ: Mapping[str, str]) -> str:
    """The language to speak before the player's name is known (what a command prints before
    it sits): ``--lang``, else the system locale's, else English; :func:`choose_language`
    decides once the name is known."""
    if option is not None and option != AUTO:
        return option
    return system_language(environ) or DEFAULT_LANGUAGE
