"""Entry point of the security pack: the Pulumi CLI runs ``python -m pulumi.policy <engine address> .`` in
``policies/security/``, and ``runpy`` runs this file with that directory on ``sys.path``. Building the
``PolicyPack`` (through ``_serve.serve``) starts its gRPC analyzer server, prints the port and blocks.

Never import this module from tests or offline code; import ``policies.security.pack`` instead.
"""
from _serve import serve  # this directory is on sys.path
from pack import PACK_DESCRIPTION, PACK_ENFORCEMENT_LEVEL, PACK_NAME, POLICIES

# PolicyPack(...) with each resource converted once per analyzer call and the imports frozen (_serve.py).
serve(PACK_NAME, POLICIES, PACK_ENFORCEMENT_LEVEL, PACK_DESCRIPTION)
