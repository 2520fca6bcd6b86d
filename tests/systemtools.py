"""System tools some tests run (``promtool``, ``prometheus``: Debian's ``prometheus`` package).

:func:`require` returns the tool's path. When it is missing, the test is skipped with one line naming the tool and
how to install it — a fresh machine needs only Python and ``make`` for ``make test`` — except in CI (``CI=true``,
which GitHub Actions and most CI systems set), where a missing tool fails the test: the CI image must have it, and a
skip there would hide the rules' tests.
"""

from __future__ import annotations

import os
import shutil

import pytest

INSTALL = "install Debian's prometheus package (apt-get install prometheus; .ci/run does)"


def in_ci() -> bool:
    """``CI`` is set to a true value (``true``, ``1``, ``yes``)."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def require(name: str) -> str:
    """The path of system tool ``name``; skips the test without it (fails it in CI)."""
    path = shutil.which(name)
    if path:
        return path
    message = f"{name} is missing: {INSTALL}"
    if in_ci():
        pytest.fail(f"{message} (CI=true: the CI image must provide it)", pytrace=False)
    pytest.skip(message)
