"""OCI realms, regions and availability-domain names.

Regions and realms come from the OCI Python SDK (``oci`` on PyPI, pinned in ``requirements.txt``): its module
``oci/regions_definitions.py`` (``REGIONS``, ``REGION_REALMS``, ``REGIONS_SHORT_NAMES``, ``REALMS``; oci 2.189.0,
checked 2026-11-30: 85 regions in 20 realms, e.g. ``us-gov-ashburn-1`` in ``oc3``, ``me-dcc-muscat-1`` in ``oc9``).

Why the SDK and not a copy: the SDK is large (a 37 MB wheel, ~500 MB installed, and ``import oci`` takes ~0.3 s
because it imports every service client), while the table is 85 lines. But Oracle adds regions and realms several
times a year and ships them in the SDK's weekly releases, a copy would go stale without anyone noticing, and the
pre-flight (``python -m oke_rdma.preflight``) needs the SDK anyway. To keep the preview's start-up cost, only the
data module is executed (located through the installed package, without running ``oci/__init__``: ~1 ms).
Bumping the ``oci`` pin refreshes the table.

Availability-domain names (OCI docs "Regions and Availability Domains", regions.htm, and the Identity API
``ListAvailabilityDomains``; checked 2026-11-30) are ``<tenancy prefix>:<REGION>-AD-<n>``: the prefix is specific to
the tenancy (``Uocm``, ``bxtG``), ``<REGION>`` is the region identifier in upper case (``SA-SAOPAULO-1``), except in
the two oldest regions, which keep their legacy names: ``US-ASHBURN-AD-n`` (us-ashburn-1) and ``PHX-AD-n``
(us-phoenix-1). Most regions have one AD; :data:`MULTI_AD_REGIONS` lists those with three (for the realms in
:data:`AD_COUNT_REALMS`; elsewhere the count is unknown and only bounded by :data:`MOST_ADS`).
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Optional

#: Regions with three availability domains (OCI docs "Regions and Availability Domains", the table's "Availability
#: Domains" column; checked 2026-11-30). Every other region of a realm in :data:`AD_COUNT_REALMS` has one.
MULTI_AD_REGIONS = {"us-ashburn-1": 3, "us-phoenix-1": 3, "eu-frankfurt-1": 3, "uk-london-1": 3, "us-chicago-1": 3}
#: Realms whose regions' AD counts were read: ``oc1`` (commercial: OCI docs "Regions and Availability Domains",
#: regions.htm) and ``oc2`` (OCI docs "Oracle US Government Cloud", govfedramp.htm: us-langley-1 and us-luke-1, one
#: AD each); checked 2026-12-01. The other realms (US Defense, UK Government, sovereign and dedicated regions) are
#: documented apart, on pages not read here: their AD counts are unknown to oke-rdma (:func:`ad_count` is None).
AD_COUNT_REALMS = frozenset({"oc1", "oc2"})
#: The most ADs any documented OCI region has (the same tables): the bound for a region whose count is unknown.
MOST_ADS = 3
#: The legacy AD name stems of the first two regions (same source): ``Uocm:US-ASHBURN-AD-1``, ``Uocm:PHX-AD-1``.
LEGACY_AD_STEMS = {"us-ashburn-1": "US-ASHBURN", "us-phoenix-1": "PHX"}
#: ``<tenancy prefix>:<stem>-AD-<n>``; the prefix is letters and digits (4 in every tenancy seen; up to 16 accepted,
#: as only the tenancy knows its own: the pre-flight compares with ``ListAvailabilityDomains``).
_AD_RE = re.compile(r"^(?P<prefix>[A-Za-z0-9]{1,16}):(?P<stem>[A-Z0-9]+(?:-[A-Z0-9]+)*)-AD-(?P<number>[0-9]+)$")
#: A region identifier: lowercase words and a number joined by '-' (``us-gov-ashburn-1``, ``me-dcc-muscat-1``).
_REGION_FORM_RE = re.compile(r"^[a-z]+(?:-[a-z]+)+-[0-9]+$")


class FactsUnavailable(RuntimeError):
    """The OCI Python SDK, where the region table lives, is not installed."""


@functools.lru_cache(maxsize=1)
def _sdk_tables() -> ModuleType:
    """``oci/regions_definitions.py`` of the installed SDK, executed alone (not through ``oci/__init__``)."""
    loaded = sys.modules.get("oci.regions_definitions")
    if loaded is not None:
        return loaded
    spec = importlib.util.find_spec("oci")
    locations = list(spec.submodule_search_locations or []) if spec else []
    path = next((Path(p) / "regions_definitions.py" for p in locations
                 if (Path(p) / "regions_definitions.py").is_file()), None)
    if path is None:
        raise FactsUnavailable("the OCI Python SDK (package 'oci', pinned in requirements.txt) is not installed; it "
                               "holds OCI's region table: pip install -r requirements.txt")
    data_spec = importlib.util.spec_from_file_location("oke_rdma.facts._oci_regions_definitions", path)
    assert data_spec is not None and data_spec.loader is not None
    module = importlib.util.module_from_spec(data_spec)
    data_spec.loader.exec_module(module)
    return module


def regions() -> tuple[str, ...]:
    """Every region identifier the SDK knows (``us-ashburn-1``, ...), sorted."""
    return tuple(sorted(_sdk_tables().REGION_REALMS))


def realm_of(region: str) -> Optional[str]:
    """The realm key of ``region`` (``oc1``, ``oc3`` for ``us-gov-ashburn-1``), or None for an unknown region."""
    return _sdk_tables().REGION_REALMS.get(region)


def realms() -> dict[str, str]:
    """Realm key → its second-level domain (``oc1`` → ``oraclecloud.com``)."""
    return dict(_sdk_tables().REALMS)


def region_of_key(key: str) -> Optional[str]:
    """A region identifier or a short region key as it appears in OCIDs (``iad``, ``gru``) → the identifier."""
    tables = _sdk_tables()
    if key in tables.REGION_REALMS:
        return key
    return tables.REGIONS_SHORT_NAMES.get(key.lower())


def region_key(region: str) -> Optional[str]:
    """The short key of ``region`` in upper case, as OCI names its services ("All GRU Services In Oracle Services
    Network") and old OCIDs (lower case) use it: ``sa-saopaulo-1`` → ``GRU``; None for a region without one."""
    return next((k.upper() for k, r in _sdk_tables().REGIONS_SHORT_NAMES.items() if r == region), None)


def is_region_form(value: str) -> bool:
    """True when ``value`` is written like a region identifier (it may still be unknown to the SDK)."""
    return bool(_REGION_FORM_RE.match(value))


def ad_count(region: str) -> Optional[int]:
    """How many availability domains ``region`` has: 3 for :data:`MULTI_AD_REGIONS`, 1 for any other region of a
    realm in :data:`AD_COUNT_REALMS`, None when unknown (a region of another realm, or one the SDK does not know)."""
    if region in MULTI_AD_REGIONS:
        return MULTI_AD_REGIONS[region]
    return 1 if realm_of(region) in AD_COUNT_REALMS else None


def ad_stem(region: str) -> str:
    """The part of the region's AD names between the tenancy prefix and ``-AD-n``."""
    return LEGACY_AD_STEMS.get(region, region.upper())


def example_ads(region: str, prefix: str = "Uocm") -> list[str]:
    """The AD names of ``region`` for a tenancy prefix (for messages): ``['Uocm:PHX-AD-1', ...]``; only the first
    when the region's AD count is unknown."""
    return [f"{prefix}:{ad_stem(region)}-AD-{n}" for n in range(1, (ad_count(region) or 1) + 1)]


@dataclass(frozen=True)
class AvailabilityDomain:
    """A parsed AD name: tenancy prefix, the region it names (None when no known region has that stem), number."""

    prefix: str
    stem: str
    number: int
    region: Optional[str]


def parse_ad(name: str) -> Optional[AvailabilityDomain]:
    """Parse ``<prefix>:<STEM>-AD-<n>``; None when ``name`` is not written like an AD name at all."""
    m = _AD_RE.match(name)
    if not m:
        return None
    stem = m["stem"]
    region = next((r for r, s in LEGACY_AD_STEMS.items() if s == stem), None)
    if region is None and stem.lower() in _sdk_tables().REGION_REALMS and stem.lower() not in LEGACY_AD_STEMS:
        region = stem.lower()
    return AvailabilityDomain(m["prefix"], stem, int(m["number"]), region)
