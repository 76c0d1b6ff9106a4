"""Great Expectations suites in code: one module per file family
(docs/pages/ui.md, Validation).

``suite_for(family)`` returns a family's ``Suite`` (``expectations/rules.py``); which module holds it is
the family registry's ``Family.suite``. Suite modules are plain data — importing them does not import
Great Expectations.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from expectations.rules import Suite


def suite_for(family: str) -> Suite:
    """The suite the family registry names for ``family`` (``"<module>:<attribute>"``)."""
    from pipelines.families.registry import family as family_of

    try:
        module, attribute = family_of(family).suite.split(":")
    except KeyError:
        raise KeyError(f"no validation suite for file family {family!r}") from None
    return getattr(import_module(module), attribute)
