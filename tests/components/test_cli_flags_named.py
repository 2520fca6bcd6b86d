"""Every ``--flag`` a CLI's messages (string literals of its modules) or its docs page name is one of that CLI's own
flags: a message telling the user to pass a flag the command does not have is a dead end.

Flags of other tools quoted in the same text (``oci ...``, ``pulumi ...``, ``kubectl ...``, ``helm ...``) are told
apart by the command word before them in the same backtick span or sentence fragment."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
#: A flag preceded (in the same clause) by one of these command words belongs to that other tool.
OTHER_TOOL = re.compile(r"\b(oci|pulumi|kubectl|helm|git|pip|pytest|make|flux|python3? -m (?!{mod}))\b[^;:()`]*$")


def _parser_flags(parser) -> set[str]:
    flags = {o for a in parser._actions for o in a.option_strings}
    for a in parser._actions:
        choices = getattr(a, "choices", None)
        for sub in (choices.values() if isinstance(choices, dict) else ()):
            if hasattr(sub, "_actions"):
                flags |= _parser_flags(sub)
    return flags


def _new_cluster_flags() -> set[str]:
    import argparse
    from unittest import mock

    from oke_rdma.fleet import newcluster
    captured = {}
    real = argparse.ArgumentParser.parse_args

    def grab(self, args=None, namespace=None):
        captured["p"] = self
        raise SystemExit(0)
    with mock.patch.object(argparse.ArgumentParser, "parse_args", grab):
        with pytest.raises(SystemExit):
            newcluster.main(["--name", "x"])
    assert real is not grab
    return _parser_flags(captured["p"])


def _cli_flags(name: str) -> set[str]:
    if name == "preflight":
        from oke_rdma.preflight.__main__ import _parser
        return _parser_flags(_parser())
    if name == "new_stack":
        from oke_rdma.new_stack import parser
        return _parser_flags(parser())
    if name == "fleet":  # new-cluster passes everything after -- to new_stack
        return _new_cluster_flags() | _cli_flags("new_stack") | {"--fleet", "--check"}
    raise KeyError(name)


#: CLI → (its module files, its docs pages, its python -m module name).
CLIS = {
    "preflight": (sorted((ROOT / "oke_rdma/preflight").glob("*.py")), [ROOT / "docs/preflight.md"],
                  "oke_rdma.preflight"),
    "new_stack": ([ROOT / "oke_rdma/new_stack.py"], [ROOT / "docs/new-stack.md"], "oke_rdma.new_stack"),
    "fleet": (sorted((ROOT / "oke_rdma/fleet").glob("*.py")), [], "oke_rdma.fleet"),
}


#: Flags of other tools a page names in prose (not in a command span): flag → the tool.
OTHER_TOOLS_IN_PROSE = {"--query": "OCI CLI (JMESPath)", "--json": "offline.preview", "--previous": "offline.preview",
                        "--config-file": "offline.preview"}


def _named_flags(text: str, module: str) -> set[str]:
    other = re.compile(OTHER_TOOL.pattern.replace("{mod}", re.escape(module)))
    found = set()
    for m in FLAG.finditer(text):
        if other.search(text[max(0, m.start() - 160):m.start()]):
            continue
        found.add(m.group())
    return found


def _strings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            out.append("".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values))
    return out


@pytest.mark.parametrize("cli", sorted(CLIS))
def test_every_flag_a_cli_names_in_messages_or_docs_is_its_own(cli):
    """The flags named by the CLI's string literals and docs page all exist in its argument parser."""
    files, docs, module = CLIS[cli]
    own = _cli_flags(cli)
    assert own, cli
    named: dict[str, str] = {}
    for f in files:
        for s in _strings(f):
            for flag in _named_flags(s, module):
                named.setdefault(flag, f.name)
    for d in docs:
        for flag in _named_flags(d.read_text(encoding="utf-8"), module):
            named.setdefault(flag, d.name)
    assert named, f"{cli}: no flag found in its messages or docs (the scan would pass vacuously)"
    unknown = {flag: where for flag, where in named.items()
               if flag not in own and not (where.endswith(".md") and flag in OTHER_TOOLS_IN_PROSE)}
    assert not unknown, f"{cli}: flags named but not accepted: {unknown}"


def test_the_scan_catches_a_flag_the_parser_lacks():
    """A message naming ``--config-file`` for the OCI config (the flag is ``--oci-config``) is caught; the same
    flag in an ``oci`` command is not the CLI's."""
    assert "--config-file" in _named_flags("or pass --config-file/--profile", "oke_rdma.preflight")
    assert not _named_flags("run `oci setup config --config-file x`", "oke_rdma.preflight")


def test_fleet_help_lists_every_subcommand_and_new_cluster_flags_are_described(capsys):
    """``python -m oke_rdma.fleet --help`` lists render and new-cluster with the whole first paragraph; every
    new-cluster flag has a description."""
    from oke_rdma.fleet.__main__ import main

    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "new-cluster" in out and "render" in out and "write them" in out
    with pytest.raises(SystemExit):
        main(["new-cluster", "--help"])
    out = capsys.readouterr().out
    for flag in ("--fleet", "--name", "--region", "--wave", "--landing-zone"):
        line = next(l for l in out.splitlines() if l.strip().startswith(flag))
        assert len(line.split(None, 2)) == 3 or flag == "--landing-zone", line


def test_new_stack_refusals_name_its_flag_not_a_pulumi_command(capsys, tmp_path):
    """A region new_stack refuses is fixed with --region: the message does not send the user to pulumi config set."""
    from oke_rdma import new_stack

    code = new_stack.main(["--stack", "x", "--region", "xx-nowhere-1", "--availability-domains",
                           "Uocm:US-ASHBURN-AD-1", "--output", str(tmp_path / "x.yaml")])
    err = capsys.readouterr().err
    assert code == 2 and "--region (oci:region)" in err and "pulumi config set" not in err


def test_preflight_credentials_error_names_the_oci_config_flag():
    """The OCI-config advice names --oci-config (the stack file's flag is --config-file)."""
    text = (ROOT / "oke_rdma/preflight/clients.py").read_text()
    assert "pass --oci-config/--profile" in text and "pass --config-file" not in text
