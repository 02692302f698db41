"""Entry-point plug-ins of dpaudit's open tables, loaded once.

dpaudit keeps five open tables — audit procedures, evidence kinds, claim tables, distinguishers
and report formats — each keyed by one attribute of what it holds (``kind``, ``notion`` or
``name``). A package adds a row without touching dpaudit by naming the object in an entry-point
group; :class:`EntryPointRows` is the one loader every table uses.

Contract:
* :meth:`EntryPointRows.load` imports every entry point of ``group`` the first time it is called
  and hands each loaded object to the table's ``register`` function; later calls do nothing.
  The flag is set before loading, so a plug-in whose import asks for the table again does not
  load the group twice.
* The entry point's name must equal the object's key attribute: ``name = "mod:Class"`` with
  ``Class.kind == name``.  A mismatch is a ``ValueError`` naming the entry point, its target and
  the key the object carries — a plug-in cannot register under one key while its entry point
  advertises another.
* :meth:`EntryPointRows.forget` makes the next :meth:`load` read the group again (tests that
  install a plug-in for one test).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class EntryPointRows:
    """The rows an entry-point ``group`` adds to a table keyed by ``key_attribute``."""

    group: str
    key_attribute: str
    register: Callable[[Any], Any]
    loaded: bool = field(default=False, init=False)

    def load(self) -> None:
        """Register every plug-in of the group, once (module docstring)."""
        if self.loaded:
            return
        self.loaded = True
        from importlib.metadata import entry_points

        for entry in entry_points(group=self.group):
            row = entry.load()
            key = getattr(row, self.key_attribute, None)
            if key != entry.name:
                raise ValueError(f"entry point {entry.name!r} of {self.group} names "
                                 f"{entry.value}, whose {self.key_attribute} is {key!r}")
            self.register(row)

    def forget(self) -> None:
        """Read the group again at the next :meth:`load`."""
        self.loaded = False


__all__ = ["EntryPointRows"]
