"""storage.lustre.clientExceptions: only administering hosts or the workers subnet keep root; a range reaching the
pods subnet, or wider than the workers subnet, is refused with its key path (pods bind LNet's reserved ports too)."""
from __future__ import annotations

import pytest

from oke_rdma.config import ConfigError
from tests.stackcfg import load_dev_config

KEY = "oke-rdma:storage.lustre.clientExceptions"


def _lustre(*exceptions):
    return {"lustre": {"capacityGb": 31200, "client": {"enabled": False}, "clientExceptions": list(exceptions)}}


@pytest.mark.parametrize("cidr, why", [("10.0.0.0/16", "overlaps the pods subnet"),
                                       ("10.0.128.0/24", "overlaps the pods subnet"),
                                       ("10.0.0.0/19", "neither one host nor inside the workers subnet"),
                                       ("10.0.3.0/24", "neither one host nor inside the workers subnet")])
def test_exceptions_wider_than_the_administering_nodes_are_refused(cidr, why):
    with pytest.raises(ConfigError) as err:
        load_dev_config(storage=_lustre("10.0.16.5/32", cidr))
    [problem] = err.value.problems
    assert problem.startswith(f"{KEY}[1]: {cidr}") and why in problem


@pytest.mark.parametrize("exceptions", [(), ("10.0.16.0/20",), ("10.0.16.0/24", "10.0.3.7/32")])
def test_hosts_and_the_workers_subnet_load(exceptions):
    cfg = load_dev_config(storage=_lustre(*exceptions))
    assert cfg.storage.lustre.client_exceptions == exceptions
