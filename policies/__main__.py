"""Entry point the Pulumi CLI runs for ``--policy-pack policies``: builds the PolicyPack, which serves and blocks.

Never import this module from tests or offline code; import ``policies.pack`` instead.
"""
from pulumi_policy import PolicyPack

from pack import PACK_DESCRIPTION, PACK_ENFORCEMENT_LEVEL, PACK_NAME, POLICIES  # policies/ is on sys.path here

PolicyPack(
    name=PACK_NAME,
    policies=POLICIES,
    enforcement_level=PACK_ENFORCEMENT_LEVEL,
    description=PACK_DESCRIPTION,
)
