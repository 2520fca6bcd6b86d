"""Wire-form values (as the engine holds them) and their display form in the offline plan and report.

The engine's wire form (``json_format.MessageToDict`` of a registration's ``Struct``) marks an unknown value with the
sentinel :data:`UNKNOWN` and a secret with ``{SECRET_SIG[0]: SECRET_SIG[1], "value": ...}`` (pulumi SDK
``pulumi/runtime/rpc.py``, ``UNKNOWN`` and ``_special_sig_key``/``_special_secret_sig``; checked 2026-11-30 against
pulumi 3.272.0). The plan shows them as ``[unknown]`` and ``[secret]``.
"""

from __future__ import annotations

from typing import Any

from offline.stackfile import SECRET_PLACEHOLDER

UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
SECRET_SIG = ("4dabf18193072939515e22adb298388d", "1b47061264138c4ac30d75fd1eb44270")
UNKNOWN_SHOWN = "[unknown]"
SECRET_SHOWN = "[secret]"


def is_secret(value: Any) -> bool:
    """True for a wire-form secret wrapper."""
    return isinstance(value, dict) and value.get(SECRET_SIG[0]) == SECRET_SIG[1]


def contains_unknown(value: Any) -> bool:
    """True when the wire-form ``value`` is or holds an unknown."""
    if isinstance(value, dict):
        return any(contains_unknown(v) for v in value.values())
    if isinstance(value, list):
        return any(contains_unknown(v) for v in value)
    return value == UNKNOWN


def mask(value: Any) -> Any:
    """Wire-form value → display value: secrets become ``[secret]``, unknowns ``[unknown]``.

    A plain string that holds the stand-in for a ``secure:`` config value (:data:`SECRET_PLACEHOLDER`) is shown as
    ``[secret]`` too: the program passed a secret config value on without ``pulumi.Output.secret``, and the plan must
    not show it as if it were plain data."""
    if isinstance(value, str) and SECRET_PLACEHOLDER in value:
        return SECRET_SHOWN
    if isinstance(value, dict):
        if is_secret(value):  # a secret whose value is unknown is unknown to the engine (it unwraps secrets to diff)
            return UNKNOWN_SHOWN if contains_unknown(value.get("value")) else SECRET_SHOWN
        return {k: mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)  # the wire has one number type; show 3, not 3.0
    return UNKNOWN_SHOWN if value == UNKNOWN else value


def unmask(value: Any) -> Any:
    """A plan's display values back to wire form: ``[unknown]`` → the unknown sentinel, ``[secret]`` → a secret
    (holding the text ``[secret]``: a plan never stores a secret's value)."""
    if isinstance(value, dict):
        return {k: unmask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unmask(v) for v in value]
    if value == SECRET_SHOWN:
        return {SECRET_SIG[0]: SECRET_SIG[1], "value": SECRET_SHOWN}
    return UNKNOWN if value == UNKNOWN_SHOWN else value


def hide(text: str) -> str:
    """Free text (a diagnostic, a policy message, a summary) with any ``secure:`` stand-in shown as ``[secret]``."""
    return text.replace(SECRET_PLACEHOLDER, SECRET_SHOWN)
