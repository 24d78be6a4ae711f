"""The tools: the commands that compose the lower layers (``mundus rules``, ``sim``,
``tournament``, ``report``, ``verify``, ``play``). Nothing below imports them
(docs/architecture.md).

Each module lists its public names in ``__all__``; this package imports none of them itself, so
a command loads only what it runs.
"""
