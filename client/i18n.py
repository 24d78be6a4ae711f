"""What a client remembers of its player's language, and ``--lang`` for the commands that
open the table (docs/client.md, "Languages").

The catalogs, the :class:`Translator` and the choice of a language from ``--lang`` and the
system locale live in :mod:`mundus_net.i18n`, a floor that ``mundus host`` reads too (host and
client never import each other); they are named here as well, so that the client's modules
have one place to import them from. What is the client's own: the language remembered for
each player's name (``languages.json`` in the state folder) and ``--lang`` with that memory.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from pathlib import Path

from mundus_net.i18n import (
    AUTO,
    CARAVEL_NAME,
    CARD,
    DEFAULT_LANGUAGE,
    DOMAIN,
    EVENT,
    LANGUAGES,
    LOCALE_DIR,
    LOCALE_VARIABLES,
    N_,
    NAME_CONTEXTS,
    RESOURCE,
    STEP,
    STEPS,
    TERM,
    TERMS,
    Translator,
    current,
    early_language,
    language_of_locale,
    language_option,
    system_language,
    translator,
    use,
)
from mundus_net.protocol.names import clean_name
from mundus_net.protocol.statedir import atomic_write, state_dir

__all__ = [
    "AUTO", "CARAVEL_NAME", "CARD", "DEFAULT_LANGUAGE", "DOMAIN", "EVENT", "LANGUAGES",
    "LANGUAGES_FILE", "LOCALE_DIR", "LOCALE_VARIABLES", "NAME_CONTEXTS", "N_", "RESOURCE", "STEP",
    "STEPS", "TERM", "TERMS", "Translator", "add_language_argument", "choose_language", "current",
    "early_language", "language_of_locale", "language_option", "save_language", "saved_language",
    "system_language", "translator", "use"
]

LANGUAGES_FILE = "languages.json"  # in the state folder: player name -> language


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


def add_language_argument(parser: argparse.ArgumentParser) -> None:
    """``--lang`` for the commands that open the table (play, join, watch)."""
    parser.add_argument(
        "--lang", type=language_option, default=None, metavar="LANG",
        help="the language you read: "
             + ", ".join(f"{code} ({name})" for code, name in LANGUAGES.items())
             + f"; remembered with your name; {AUTO}: follow the system locale (default: the "
               "language remembered, else the system locale's, else English)")
