"""Making and checking the catalogs of :mod:`mundus_net.i18n`, in a checkout of the
repository, with Babel (``pip install -e '.[test]'`` brings it):

    python -m mundus_net.client.i18n_build extract   # -> mundus_net/i18n/locale/mundus.pot
    python -m mundus_net.client.i18n_build update    # the template merged into every .po
    python -m mundus_net.client.i18n_build compile   # every .po -> its .mo (shipped in the wheel)
    python -m mundus_net.client.i18n_build check     # what tests/test_i18n_catalogs.py checks

The messages are those the sources mark (``_``, ``ngettext``, ``pgettext``, ``npgettext``,
by name, as functions or methods) and the game's names, which the engine's data gives
(resources, the default deck with its promo cards, events) with the steps and terms of
:mod:`mundus_net.i18n`. Nothing here runs in the game: the client and the host read the
``.mo`` files with the standard library alone.
"""

from __future__ import annotations

import io
import string
import sys
from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po, write_po

from mundus_net.engine.cards import RESOURCE_NAMES
from mundus_net.engine.deck import EVENT_NAMES, default_deck
from mundus_net.i18n import (
    CARAVEL_NAME,
    CARD,
    DOMAIN,
    EVENT,
    LANGUAGES,
    LOCALE_DIR,
    RESOURCE,
    STEP,
    STEPS,
    TERM,
    TERMS,
)

__all__ = [
    "PLURAL_FORMS", "PROJECT", "REPO", "SOURCES", "TEMPLATE", "Found", "compile_all", "compiled",
    "extract", "main", "message_problems", "mo_path", "name_entries", "placeholders", "po_path",
    "problems", "read", "update"
]

REPO = Path(__file__).resolve().parent.parent  # this file is the checkout's client/i18n_build.py
# The folders whose marked messages a player may read (the engine's words are not).
SOURCES = ("client", "host", "protocol", "mundus_net/i18n", "mundus_net/tools",
           "mundus_net/cli.py")
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
PROJECT = "mundus-net"
# GNU gettext's plural rules (its manual, "Plural forms"), not CLDR's: Babel's locale data
# gives Italian a third form ("many": 1000000) that integers of the game never reach.
PLURAL_FORMS = {
    "en": "nplurals=2; plural=(n != 1);",
    "it": "nplurals=2; plural=(n != 1);",
    "nl": "nplurals=2; plural=(n != 1);",
    "ru": "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && "
          "(n%100<10 || n%100>=20) ? 1 : 2);",
    "ko": "nplurals=1; plural=0;",
}


def po_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(language: str) -> Path:
    return po_path(language).with_suffix(".mo")


def name_entries() -> Iterator[tuple[str, str, str]]:
    """(context, message, comment) for each of the game's names."""
    for resource in RESOURCE_NAMES.values():
        yield RESOURCE, resource, "a resource (R1.1)"
    seen = set()
    for card in default_deck().cards:
        name = CARAVEL_NAME if card.kind == "caravel" else card.name
        if name not in seen:
            seen.add(name)
            yield CARD, name, f"a development card (docs/rules.md: {card.id}, {card.kind})"
    for code, event in EVENT_NAMES.items():
        yield EVENT, event, f"an event ({code}, R3.4)"
    for step in STEPS:
        yield STEP, step, "a step of the round (R7)"
    for term in TERMS:
        yield TERM, term, "a word of the table"


def extract() -> Catalog:
    """Every message to translate, from the sources and the game's data."""
    catalog = Catalog(domain=DOMAIN, project=PROJECT, fuzzy=False)
    for name_context, name, comment in name_entries():
        catalog.add(name, locations=[("mundus_net/engine", 0)], auto_comments=[comment],
                    context=name_context)
    for source in SOURCES:
        path = REPO / source
        if path.is_file():
            found = _extract_file(path)
        elif path.is_dir():
            found = _extract_dir(path, source)
        else:
            raise SystemExit(f"{path} is missing: run this in a checkout of the repository")
        for filename, lineno, message, comments, context in found:
            catalog.add(message, locations=[(filename, lineno)], auto_comments=comments,
                        context=context)
    return catalog


Found = Iterator[tuple[str, int, str | tuple[str, ...], list[str], str | None]]


def _extract_dir(path: Path, prefix: str) -> Found:
    for found in extract_from_dir(
            path, comment_tags=("TRANSLATORS:",), strip_comment_tags=True,
            directory_filter=lambda d: "locale" not in Path(d).parts
            and "__pycache__" not in Path(d).parts):
        if Path(found[0]).name != "i18n_build.py":
            yield f"{prefix}/{found[0]}", found[1], found[2], list(found[3]), found[4]


def _extract_file(path: Path) -> Found:
    from babel.messages.extract import extract

    with path.open("rb") as file:
        for lineno, message, comments, context in extract(
                "python", file, comment_tags=("TRANSLATORS:",), strip_comment_tags=True):
            yield str(path.relative_to(REPO)), lineno, message, list(comments), context


def _write(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=100, sort_output=True, include_lineno=False)
    path.write_bytes(buffer.getvalue())


def _write_template(template: Catalog) -> None:
    """The template, rewritten only when its messages change (its date would churn)."""
    if TEMPLATE.exists():
        with TEMPLATE.open("rb") as file:
            old = read_po(file, domain=DOMAIN)
        if _entries(old) == _entries(template):
            return
    _write(template, TEMPLATE)


def _entries(catalog: Catalog) -> list[tuple[object, ...]]:
    return sorted((m.context or "", str(m.id), m.auto_comments, sorted(f for f, _ in m.locations))
                  for m in catalog if m.id)


def read(language: str) -> Catalog:
    with po_path(language).open("rb") as file:
        return read_po(file, locale=language, domain=DOMAIN)


def update(template: Catalog) -> None:
    """Merge ``template`` into every language's catalog: new messages come untranslated
    (``check`` names them), messages no longer in the source become obsolete."""
    for language in LANGUAGES:
        path = po_path(language)
        if path.exists():
            catalog = read(language)
            catalog.update(template, no_fuzzy_matching=True, update_creation_date=False)
        else:
            catalog = Catalog(locale=language, domain=DOMAIN, project=PROJECT, fuzzy=False)
            catalog.mime_headers = [("Plural-Forms", PLURAL_FORMS[language])]
            catalog.update(template, no_fuzzy_matching=True)
        _write(catalog, path)


def compiled(language: str) -> bytes:
    buffer = io.BytesIO()
    write_mo(buffer, read(language))
    return buffer.getvalue()


def compile_all() -> None:
    for language in LANGUAGES:
        mo_path(language).write_bytes(compiled(language))


def placeholders(text: str) -> set[str]:
    """The ``{name}`` fields of a message (``str.format``'s syntax)."""
    return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}


def problems(language: str, template: Catalog) -> list[str]:
    """What keeps ``language``'s catalog from translating every message of ``template`` the
    way the source means it: missing or untranslated messages, fuzzy ones, other
    placeholders, the wrong number of plural forms, a .mo behind its .po."""
    catalog = read(language)
    found: list[str] = []
    if catalog.plural_forms != PLURAL_FORMS[language]:
        found.append(f"{language}: Plural-Forms is {catalog.plural_forms!r}, not gettext's "
                     f"{PLURAL_FORMS[language]!r}")
    for message in template:
        if not message.id:
            continue
        translated = catalog.get(message.id, message.context)
        where = f"{language}: {_describe(message)}"
        if translated is None:
            found.append(f"{where} is missing (run update)")
            continue
        found.extend(f"{where}: {problem}" for problem in message_problems(message,
                                                                           translated,
                                                                           catalog))
    if not mo_path(language).exists() or not _same_messages(mo_path(language).read_bytes(),
                                                             compiled(language)):
        found.append(f"{language}: {mo_path(language).name} is not compiled from its .po "
                     "(run compile)")
    return found


def _same_messages(mo: bytes, fresh: bytes) -> bool:
    """Whether two .mo files hold the same translations (whatever Babel version wrote
    them)."""
    def messages(data: bytes) -> list[tuple[str, str, str]]:
        return sorted((m.context or "", str(m.id), str(m.string))
                      for m in read_mo(io.BytesIO(data)))
    return messages(mo) == messages(fresh)


def _describe(message: Message) -> str:
    ident = message.id if isinstance(message.id, str) else message.id[0]
    return f"[{message.context}] {ident!r}" if message.context else repr(ident)


def message_problems(source: Message, translated: Message, catalog: Catalog) -> Iterator[str]:
    if translated.fuzzy:
        yield "marked fuzzy"
    if source.pluralizable != translated.pluralizable:
        yield "plural in one catalog, not in the other"
        return
    if source.pluralizable:
        forms = translated.string if isinstance(translated.string, tuple | list) else ()
        if len(forms) != catalog.num_plurals:
            yield f"{len(forms)} plural forms, the language has {catalog.num_plurals}"
        wanted = placeholders(source.id[1])
        for i, form in enumerate(forms):
            if not form:
                yield f"plural form {i} untranslated"
            elif placeholders(form) != wanted:
                yield f"plural form {i} has {sorted(placeholders(form))}, not {sorted(wanted)}"
        return
    text, ident = translated.string, source.id
    if not isinstance(text, str) or not text or not isinstance(ident, str):
        yield "untranslated"
    elif placeholders(text) != placeholders(ident):
        yield f"has {sorted(placeholders(text))}, not {sorted(placeholders(ident))}"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0] not in ("extract", "update", "compile", "check"):
        print(__doc__, file=sys.stderr)
        return 2
    command = args[0]
    if command == "extract":
        _write_template(extract())
        print(f"wrote {TEMPLATE.relative_to(REPO)}")
    elif command == "update":
        template = extract()
        _write_template(template)
        update(template)
        print("updated " + ", ".join(str(po_path(x).relative_to(REPO)) for x in LANGUAGES))
    elif command == "compile":
        compile_all()
        print("compiled " + ", ".join(str(mo_path(x).relative_to(REPO)) for x in LANGUAGES))
    else:
        template = extract()
        found = [p for language in LANGUAGES for p in problems(language, template)]
        for problem in found:
            print(problem)
        print(f"{len(found)} problem(s) in {len(LANGUAGES)} catalogs of "
              f"{sum(1 for m in template if m.id)} messages")
        return 1 if found else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
