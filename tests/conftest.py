"""The tests' fixtures, and only those: the helpers tests import live in tests/support/
(positions, the fake clock, the in-memory table and client, waits and free ports)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

# -- state kept by commands ---------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _private_state_home(tmp_path_factory: pytest.TempPathFactory,
                        monkeypatch: pytest.MonkeyPatch) -> None:
    """What commands keep between runs (game logs, host keys, known hosts, seat tokens) goes
    to a directory of the test's own, never to the user's ($XDG_STATE_HOME; subprocesses
    inherit it)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state-home")))


@pytest.fixture(autouse=True)
def _english_by_default(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts and ends with the process speaking English: `mundus join` and `sit()`
    switch it to the player's language (mundus_net.client.i18n.use), for the tests after.
    And the commands a test starts speak English whatever the machine's locale: `mundus
    host` and `mundus bot` print in the locale's language without --lang, and tests read
    their English lines (docs/client.md, "Lines that programs read"); a test that wants
    another language says so (--lang, or its own LANG)."""
    from mundus_net.client import i18n

    for variable in i18n.LOCALE_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    i18n.use(i18n.DEFAULT_LANGUAGE)
    yield
    i18n.use(i18n.DEFAULT_LANGUAGE)
