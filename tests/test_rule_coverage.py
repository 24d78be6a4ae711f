"""Every rule ID of docs/rules.md is named by at least one test (in its name or docstring)."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
RULES = TESTS.parent / "docs" / "rules.md"


def _rule_ids() -> set[str]:
    text = RULES.read_text(encoding="utf-8")
    ids = set(re.findall(r"\*\*(R\d+\.\d+)\*\*", text))
    ids |= set(re.findall(r"\*\*(P\d\d) ", text))
    ids |= {f"R{section}" for section in re.findall(r"^## (\d+)\. Order", text, re.M)}
    return ids


def test_every_rule_id_is_named_by_a_test() -> None:
    named = set()
    for path in TESTS.glob("test_*.py"):
        if path.name in (Path(__file__).name, "test_rules_doc.py"):  # they check the doc
            continue
        text = path.read_text(encoding="utf-8")
        named |= {m.replace("_", ".") for m in re.findall(r"\b(R\d+[._]\d+|R7|P\d\d)", text)}
    ids = _rule_ids()
    assert len(ids) > 50 and "R7" in ids and "P05" in ids, sorted(ids)
    missing = sorted(ids - named, key=lambda r: [int(x) for x in re.findall(r"\d+", r)])
    assert not missing, f"rule IDs no test names: {', '.join(missing)}"
