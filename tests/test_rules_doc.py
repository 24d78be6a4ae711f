"""docs/rules.md, the rules reference that ships with the project: it carries the rule IDs of
the shared specification, and every rule ID the engine and the terminal help name."""

from __future__ import annotations

import re
from pathlib import Path

from mundus_net.client.tui import helptext

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "rules.md"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "RULES.md"
ENGINE = REPO / "mundus_net" / "engine"

ITEM_ID = re.compile(r"\*\*(R\d+\.\d+|P\d\d)\b")  # "**R5.7** ..." and "**P01 Sergio ..."
ORDER_ID = re.compile(r"^## (\d+)\. Order", re.M)  # the order of a round, "R7"
SECTION = re.compile(r"^## (\d+)\. ", re.M)
NAMED_ID = re.compile(r"\b(R\d+(?:\.\d+)?|P0\d)\b")  # "R5.7", "R7", "P01" in the sources


def _rule_ids(text: str) -> set[str]:
    """The rule IDs a rules text defines: its bold items and its order-of-a-round section."""
    return set(ITEM_ID.findall(text)) | {f"R{n}" for n in ORDER_ID.findall(text)}


def _section_ids(text: str) -> set[str]:
    """``R3`` for a section ``## 3. ...``: the whole-section IDs (``R8``) errors may name."""
    return {f"R{n}" for n in SECTION.findall(text)}


def _doc() -> str:
    return DOC.read_text(encoding="utf-8")


def _engine_ids() -> dict[str, set[str]]:
    """Every rule ID named in the engine's sources, by file name."""
    return {path.name: set(NAMED_ID.findall(path.read_text(encoding="utf-8")))
            for path in sorted(ENGINE.glob("*.py"))}


def test_rules_doc_carries_the_same_rule_ids_as_the_shared_specification() -> None:
    doc = _doc()
    ids = _rule_ids(doc)
    assert "R7" in ids and "P05" in ids and len(ids) > 50
    # The shared folder is beside the repository on the project's machines, not in a clone.
    if SHARED.exists():
        spec = SHARED.read_text(encoding="utf-8")
        assert sorted(ids) == sorted(_rule_ids(spec))
        assert _section_ids(doc) == _section_ids(spec)


def test_every_rule_id_the_engine_and_the_help_name_exists_in_the_rules_doc() -> None:
    doc = _doc()
    known = _rule_ids(doc) | _section_ids(doc)
    named = _engine_ids()
    assert sum(map(len, named.values())) > 40, named  # the regex still finds the engine's IDs
    assert "R5.7" in named["game.py"]
    missing = {name: sorted(ids - known) for name, ids in named.items() if ids - known}
    assert not missing, f"engine rule IDs missing from docs/rules.md: {missing}"
    for kind in helptext.HELP:
        rules = helptext.rules_for(kind)
        assert rules, kind
        assert set(rules) <= _rule_ids(doc), (kind, sorted(set(rules) - _rule_ids(doc)))


def test_each_rule_id_starts_its_own_bold_item_once() -> None:
    items = re.findall(r"^- \*\*(R\d+(?:\.\d+)?|P\d\d)\b", _doc(), re.M)
    assert len(items) == len(set(items))
    assert set(items) == _rule_ids(_doc())


def test_card_table_lists_44_cards_and_the_deck_sizes_it_states() -> None:
    rows = re.findall(r"^\| (D\d\d) \| [^|]+ \| ([2-6]) \| (KA|IP|ST|FI|PI|) ?\| (\d) \|$",
                      _doc(), re.M)
    assert [card for card, *_ in rows] == [f"D{i:02d}" for i in range(1, 45)]
    sizes = [sum(1 for _, players, *_ in rows if int(players) <= n) for n in range(2, 7)]
    stated = re.search(r"^\| development cards \| (.+) \|$", _doc(), re.M)
    assert stated is not None
    assert sizes == [int(s) for s in stated.group(1).split(" | ")] == [24, 30, 36, 40, 44]


def test_rules_doc_marks_every_ruling_of_the_shared_specification() -> None:
    doc = _doc()
    rulings = len(re.findall(r"\bRuling\b", doc))
    assert rulings >= 21
    if SHARED.exists():
        spec = SHARED.read_text(encoding="utf-8")
        assert rulings >= len(re.findall(r"\bRuling\b", spec))
