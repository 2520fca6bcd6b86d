"""Entry point of the placement pack: the Pulumi CLI runs ``python -m pulumi.policy <engine address> .`` in
``policies/placement/``, and ``runpy`` runs this file with that directory on ``sys.path``. Building the
``PolicyPack`` starts its gRPC analyzer server, prints the port and blocks.

Never import this module from tests or offline code; import ``policies.placement.pack`` instead.
"""
from pulumi_policy import PolicyPack

from pack import PACK_DESCRIPTION, PACK_ENFORCEMENT_LEVEL, PACK_NAME, POLICIES  # this directory is on sys.path

PolicyPack(
    name=PACK_NAME,
    policies=POLICIES,
    enforcement_level=PACK_ENFORCEMENT_LEVEL,
    description=PACK_DESCRIPTION,
)
