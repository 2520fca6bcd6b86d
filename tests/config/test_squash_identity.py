"""A root squash never maps root to an ID that owns a tenant's data: the Lustre file system's squashUid/squashGid
equal to a tenant's UID/GID is refused with its key path (FSS squashes to 65534, which no tenant may own)."""

from __future__ import annotations

import pytest

from oke_rdma.config import ConfigError
from tests.stackcfg import load_dev_config


def lustre(**squash) -> dict:
    return {"lustre": {"capacityGb": 31200, "tenants": ["research"], "client": {"enabled": False}, **squash}}


@pytest.mark.parametrize("squash, key", [({"squashUid": 20001}, "squashUid"), ({"squashGid": 20001}, "squashGid")])
def test_a_lustre_squash_to_a_tenants_id_is_refused(squash, key):
    """research owns its data as 20001:20001; squashing root to either would let root write as research."""
    with pytest.raises(ConfigError) as e:
        load_dev_config(storage=lustre(**squash))
    assert any(p.startswith(f"oke-rdma:storage.lustre.{key}: 20001 is the") and "'research'" in p
               for p in e.value.problems), e.value.problems


def test_a_lustre_squash_to_nobody_or_no_squash_passes():
    """The default squash (65534) and an ID no tenant owns pass."""
    assert load_dev_config(storage=lustre()).storage.lustre.squash_uid == 65534
    assert load_dev_config(storage=lustre(squashUid=40000, squashGid=40000)).storage.lustre.squash_gid == 40000
