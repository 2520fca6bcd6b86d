"""``python -m bench.imports``: the fixed cost of an offline preview — interpreter start plus every import — and
nothing else.

It imports what the preview imports (pulumi, pulumi_oci, pulumi_kubernetes, pulumi_policy, the components, the
policy evaluation and its analyzer driver, the offline engine) and resolves every SDK class the components name (``oci.core.Vcn``,
``k8s.helm.v3.Release``, ...): the SDKs load their submodules lazily, on first attribute access, so importing the
top-level packages alone would miss most of the cost. The class names are read from the component sources, so a
component that starts using a new SDK module is measured without editing this file. The garbage collector is set
up as in the preview's command-line process (:mod:`offline.preview`).

``python -m bench.imports --exit-now`` ends with ``os._exit`` right after the imports, as the preview's process does
once it has printed its plan: the imports without the interpreter's finalization.

``python -m bench.imports --program STACK_FILE`` (the *program floor*) then runs the project's program once on that
stack's config under the Pulumi SDK's own mocks (``pulumi.runtime.set_mocks`` with the SDK's mock monitor; the
offline preview's :class:`offline.mocks.OciMocks` answer the provider calls the program makes) and ends with
``os._exit``: what any preview of the program pays before recording, judging or reporting anything — no offline
engine, no packs, no report, no plan. It prints ``registered N resources`` (every registration but the root stack, as the mock monitor saw them).
"""

import gc

if __name__ == "__main__":
    gc.disable()  # as offline.preview does in its own process, before any import

import ast  # noqa: E402
import importlib  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: How the components import the SDKs (``import pulumi_oci as oci``).
PACKAGES = {"oci": "pulumi_oci", "k8s": "pulumi_kubernetes"}


def sdk_names(sources: list[Path]) -> set[tuple[str, str]]:
    """``(module, attribute)`` for every SDK name the sources use, like ``oci.core.Vcn`` or
    ``k8s.helm.v3.Release`` (read from the syntax tree, so strings and comments never count)."""
    found = set()
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            chain: list[str] = []
            while isinstance(node, ast.Attribute):
                chain.insert(0, node.attr)
                node = node.value
            if isinstance(node, ast.Name) and node.id in PACKAGES and len(chain) >= 2:
                *modules, attr = chain
                found.add((".".join([PACKAGES[node.id], *modules]), attr))
    # a chain's prefixes are attribute nodes too (oci.core for oci.core.Vcn): keep the longest ones only
    modules = {m for m, _ in found}
    return {(m, a) for m, a in found if f"{m}.{a}" not in modules}


def main() -> int:
    import pulumi  # noqa: F401
    import pulumi_kubernetes  # noqa: F401
    import pulumi_oci  # noqa: F401
    import pulumi_policy  # noqa: F401

    sources = sorted((ROOT / "oke_rdma").glob("*.py")) + [ROOT / "__main__.py"]
    for path in sources:
        if path.parent.name == "oke_rdma" and path.stem != "__init__":
            importlib.import_module(f"oke_rdma.{path.stem}")
    importlib.import_module("offline.policy_eval")
    importlib.import_module("offline.analyzer")  # the gRPC driver of the packs' analyzer servers
    importlib.import_module("offline.preview")
    for module, attr in sorted(sdk_names(sources)):
        getattr(importlib.import_module(module), attr)
    return 0


def run_under_sdk_mocks(stack_file: Path) -> int:
    """Run the project's ``__main__.py`` once on ``stack_file``'s config (read as the preview reads it) under the
    SDK's own mocks and mock monitor, update-like (every apply runs); returns how many resources the mocks created
    (every registration but the root stack: components too, as the plan counts them). The stack's name is the file's (``Pulumi.<stack>.yaml``).

    :raises offline.stackfile.StackFileError: the stack file cannot be read.
    :raises Exception: what the program raised.
    """
    import asyncio
    import runpy

    import pulumi
    from pulumi.runtime.stack import run_pulumi_func
    from pulumi.runtime.sync_await import _sync_await

    from offline.mocks import OciMocks
    from offline.stackfile import read_stack_file

    config, secret_keys = read_stack_file(stack_file)
    stack = stack_file.name.removeprefix("Pulumi.").removesuffix(".yaml")
    created = []

    class Counting(OciMocks):
        def new_resource(self, args):  # noqa: ANN001, ANN201 (pulumi.runtime.Mocks' signature)
            created.append(args.typ)
            return super().new_resource(args)

    asyncio.set_event_loop(asyncio.new_event_loop())
    pulumi.runtime.set_all_config(dict(config), list(secret_keys))
    pulumi.runtime.set_mocks(Counting(config.get("oci:region", "unknown-region-1")), project="oke-rdma",
                             stack=stack, preview=False)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    _sync_await(run_pulumi_func(lambda: runpy.run_path(str(ROOT / "__main__.py"), run_name="__main__")))
    return len(created)


if __name__ == "__main__":
    status = main()
    gc.freeze()  # as offline.preview.collect_after_imports does once the preview's imports are done
    gc.set_threshold(100_000, 20, 10)
    gc.enable()
    if "--program" in sys.argv[1:]:
        count = run_under_sdk_mocks(Path(sys.argv[sys.argv.index("--program") + 1]))
        print(f"registered {count} resources", flush=True)
        sys.stderr.flush()
        os._exit(status)
    if "--exit-now" in sys.argv[1:]:
        # The imports alone, without the interpreter's finalization (tearing the SDK classes down again, about
        # 0.4 s): the preview's command-line process skips it too (offline.preview.exit_now). bench.run reports the
        # dev preview against both floors; its target uses the floor above, with the finalization.
        os._exit(status)
    raise SystemExit(status)
