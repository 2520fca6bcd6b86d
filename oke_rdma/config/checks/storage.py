"""Rules of the ``storage`` section that read other keys of the stack config, and values derived from the whole
:class:`~oke_rdma.config.stack.StackConfig`. The section's models and single-key rules are in
``oke_rdma.config.storage``, which imports nothing back."""

from __future__ import annotations


import ipaddress

from .._base import _key
from ..network import subnet_plan
from ..stack import StackConfig
from .fleet import tenant_pools
from ..storage import PREPARATION_NAMESPACE, derived_id


def tenant_ids(cfg: StackConfig, tenant: str) -> tuple[int, int]:
    """``(uid, gid)`` of tenant ``tenant``'s shared storage: the configured ones, else
    :func:`~oke_rdma.config.storage.derived_id` of the tenant name."""
    shared = cfg.tenants[tenant].shared_storage
    default = derived_id(tenant)
    if shared is None:
        return default, default
    return (shared.uid if shared.uid is not None else default, shared.gid if shared.gid is not None else default)


def _lustre_exception_problems(cfg: StackConfig) -> list[str]:
    """``storage.lustre.clientExceptions``: root stays root for these clients, and a pod binds LNet's reserved source
    ports as easily as root does (root pods, NET_BIND_SERVICE, ``net.ipv4.ip_unprivileged_port_start``: the security
    pack's ``storage-trusts-only-node-addresses``). So each entry is one host or lies inside the workers subnet, and
    none overlaps the pods subnet. Unknown subnet CIDRs (a network read from another stack) are not judged here."""
    lustre = cfg.storage.lustre
    if lustre is None or not lustre.client_exceptions:
        return []
    try:
        plan = subnet_plan(cfg.network)
    except ValueError:
        return []  # the network check names that problem
    workers, pods = (ipaddress.ip_network(plan[r]) if plan.get(r) else None for r in ("workers", "pods"))
    problems = []
    for i, text in enumerate(lustre.client_exceptions):
        net = ipaddress.ip_network(text, strict=False)
        same = [n for n in (workers, pods) if n is not None and n.version == net.version]
        if pods in same and net.overlaps(pods):
            why = f"overlaps the pods subnet {pods}"
        elif net.num_addresses == 1 or (workers in same and net.subnet_of(workers)) or workers is None:
            continue
        else:
            why = f"is neither one host nor inside the workers subnet {workers}"
        problems.append(f"{_key(('storage', 'lustre', 'clientExceptions', i))}: {text} {why}: root there is root on "
                        f"every file, and pods can send from the reserved LNet ports; exempt only the administering "
                        f"nodes (their /32s; with prepareDirectories the workers subnet is added for you)")
    return problems


def check_storage(cfg: StackConfig) -> list[str]:
    """Cross-field rules of shared storage: a tenant that asks for it needs ``storage.fss.enabled``; the availability
    domain of the file system must be one of ``availabilityDomains``; ``identitySquash: ALL`` is refused while tenants
    use the storage (every writer would be the anonymous 65534), and so is ``identitySquash: NONE`` (a root pod
    would own every tenant's directory); ``identitySquash: NONE`` needs
    ``requirePrivilegedSourcePort``; two tenants never share a UID or GID (each owns its
    directory alone), nor the same ``subPath`` (nor one inside another's); no tenant takes the preparation
    namespace."""
    problems: list[str] = []
    fss = cfg.storage.fss
    sharing = sorted(n for n, t in cfg.tenants.items() if t.shared_storage is not None)
    if fss.enabled and fss.identity_squash == "ALL" and sharing:
        # FSS docs "Working with NFS Export Options": ALL maps every UID/GID to anonymousUid/anonymousGid (65534)
        problems.append(f"{_key(('storage', 'fss', 'identitySquash'))}: ALL maps every user to the anonymous ID 65534, "
                        f"so tenants {sharing} could not write to their directories (owned by their own UIDs) and "
                        f"could not be told apart; use ROOT (the default)")
    if fss.enabled and fss.identity_squash == "NONE" and sharing:
        # Pod Security baseline admits pods running as UID 0; unsquashed, their root reads and rewrites every
        # tenant's directory whatever its mode (FSS docs "Working with NFS Export Options"; checked 2026-12-02)
        problems.append(f"{_key(('storage', 'fss', 'identitySquash'))}: NONE leaves root unsquashed on the export "
                        f"tenants {sharing} share: a pod running as root (Pod Security baseline allows it) reads and "
                        f"rewrites every tenant's directory; use ROOT (the default: the platform prepares the "
                        f"directories through its own workers-only export)")
    if fss.enabled and fss.identity_squash == "NONE" and not fss.require_privileged_source_port:
        # FSS docs "Working with NFS Export Options": NFS (AUTH_SYS) believes the UID a client sends; without the
        # privileged-port check any non-root process on a client host claims UID 0 (checked 2026-12-01)
        problems.append(f"{_key(('storage', 'fss', 'requirePrivilegedSourcePort'))}: false with identitySquash NONE "
                        f"lets any non-root process on a client host act as root on every file; set it to true, or "
                        f"squash root (identitySquash ROOT)")
    problems += _lustre_exception_problems(cfg)
    owners: dict[tuple[str, int], str] = {}
    paths: dict[str, str] = {}
    lustre = cfg.storage.lustre
    # tenants whose Lustre directory the platform creates own it by the same IDs
    on_lustre = set(lustre.tenants) if lustre is not None and lustre.prepare_directories else set()
    for name, tenant in sorted(cfg.tenants.items()):  # sorted: the same tenant is named whatever the YAML order
        if tenant.shared_storage is None and name not in on_lustre:
            continue
        uid, gid = tenant_ids(cfg, name)
        for kind, value in (("uid", uid), ("gid", gid)):
            other = owners.setdefault((kind, value), name)
            if other == name:
                continue
            there = cfg.tenants[other].shared_storage
            there_set = there is not None and getattr(there, kind) is not None
            if tenant.shared_storage is None and not there_set:  # a Lustre-only tenant: IDs derived from its name
                problems.append(f"{_key(('tenants', name))}: its {kind} {value} (derived from the name, for its "
                                f"Lustre directory) is already the {kind} of tenant {other!r}; each tenant owns its "
                                f"directories alone: give it sharedStorage with its own {kind}, or rename it")
                continue
            here_set = tenant.shared_storage is not None and getattr(tenant.shared_storage, kind) is not None
            # name the key the user set: a derived ID that meets a set one is the set one's conflict
            blamed, peer, blamed_set, peer_set = ((other, name, there_set, here_set) if there_set and not here_set
                                                  else (name, other, here_set, there_set))
            how = "set" if blamed_set else "derived from the name"
            peer_how = (f"its {_key(('tenants', peer, 'sharedStorage', kind))}" if peer_set
                        else "derived from its name")
            problems.append(f"{_key(('tenants', blamed, 'sharedStorage', kind))}: {value} ({how}) is already the "
                            f"{kind} of tenant {peer!r} ({peer_how}); each tenant owns its directory alone: set "
                            f"another {kind}")
        if lustre is not None and lustre.root_squash == "ROOT":
            # File Storage with Lustre docs "Creating a Lustre File System": root on a client becomes squashUid/
            # squashGid; if that is a tenant's ID, root on any client writes as that tenant
            for kind, value, squash in (("uid", uid, lustre.squash_uid), ("gid", gid, lustre.squash_gid)):
                if value == squash:
                    field = "squashUid" if kind == "uid" else "squashGid"
                    problems.append(f"{_key(('storage', 'lustre', field))}: {squash} is the {kind} tenant {name!r} "
                                    f"owns its data as, so root on any client would write as that tenant; squash "
                                    f"to an ID no tenant uses (65534, nobody)")
        if cfg.tenant_namespace(name) == PREPARATION_NAMESPACE:
            problems.append(f"{_key(('tenants', name, 'namespace'))}: {PREPARATION_NAMESPACE!r} is the platform's "
                            f"storage preparation namespace; give the tenant its own")
        sub = tenant.shared_storage.sub_path if tenant.shared_storage is not None else None
        if sub is not None:
            for other_path, other in paths.items():
                relation = ("is" if sub == other_path else "is inside" if sub.startswith(other_path + "/")
                            else "contains" if other_path.startswith(sub + "/") else None)
                if relation:
                    problems.append(f"{_key(('tenants', name, 'sharedStorage', 'subPath'))}: {sub!r} {relation} "
                                    f"tenant {other!r}'s directory {other_path!r} "
                                    f"({_key(('tenants', other, 'sharedStorage', 'subPath'))}); give each tenant a "
                                    f"directory of its own, neither inside the other")
            paths[sub] = name
    for name, tenant in cfg.tenants.items():
        if tenant.shared_storage is not None and not fss.enabled:
            problems.append(f"{_key(('tenants', name, 'sharedStorage'))}: asks for the shared FSS volume but "
                            f"storage.fss.enabled is false; enable FSS or remove sharedStorage")
    if fss.enabled and fss.availability_domain and fss.availability_domain not in cfg.availability_domains:
        problems.append(f"{_key(('storage', 'fss', 'availabilityDomain'))}: {fss.availability_domain!r} is not in "
                        f"availabilityDomains; use one of {', '.join(cfg.availability_domains)}")
    problems += check_lustre(cfg)
    return problems


def lustre_availability_domain(cfg: StackConfig) -> str:
    """The AD of the Lustre file system: ``storage.lustre.availabilityDomain``, else the Compute Cluster's (where the
    RDMA nodes that read it run), else the first of ``availabilityDomains``."""
    lustre = cfg.storage.lustre
    if lustre is not None and lustre.availability_domain:
        return lustre.availability_domain
    if cfg.compute_cluster is not None:
        return cfg.compute_cluster.availability_domain
    return cfg.availability_domains[0]


def check_lustre(cfg: StackConfig) -> list[str]:
    """``storage.lustre``: its AD is one of ``availabilityDomains``; every tenant it lists exists, once; every node
    pool of ``client.pools`` exists, once."""
    lustre = cfg.storage.lustre
    if lustre is None:
        return []
    problems = []
    at = ("storage", "lustre")
    if lustre.availability_domain and lustre.availability_domain not in cfg.availability_domains:
        problems.append(f"{_key((*at, 'availabilityDomain'))}: {lustre.availability_domain!r} is not in "
                        f"availabilityDomains; use one of {', '.join(cfg.availability_domains)}")
    for i, tenant in enumerate(lustre.tenants):
        if tenant not in cfg.tenants:
            problems.append(f"{_key((*at, 'tenants', i))}: no tenant named {tenant!r}; use one of "
                            f"{', '.join(sorted(cfg.tenants)) or '(no tenants defined)'}, or remove it")
    if len(set(lustre.tenants)) != len(lustre.tenants):
        problems.append(f"{_key((*at, 'tenants'))}: lists a tenant twice; list each once")
    for i, pool in enumerate(lustre.client.pools):
        if pool not in cfg.node_pools:
            problems.append(f"{_key((*at, 'client', 'pools', i))}: no node pool named {pool!r}; use one of "
                            f"{', '.join(sorted(cfg.node_pools))}, or remove it")
    if len(set(lustre.client.pools)) != len(lustre.client.pools):
        problems.append(f"{_key((*at, 'client', 'pools'))}: lists a pool twice; list each once")
    listed = [t for t in lustre.tenants if t in cfg.tenants]
    if listed and lustre.client.enabled and not lustre_client_pools(cfg):
        # The tenants' volumes require the client label, which only nodes of the client pools can get.
        problems.append(f"{_key((*at, 'client', 'pools'))}: no node pool gets the Lustre client (tenants "
                        f"{', '.join(listed)} have no pool in their Kueue flavors), so their Lustre volumes could "
                        f"never be mounted; name the pools in storage.lustre.client.pools, or set "
                        f"storage.lustre.client.enabled false if the nodes are prepared outside oke-rdma")
    return problems


def lustre_client_pools(cfg: StackConfig) -> tuple[str, ...]:
    """The node pools whose nodes get the Lustre client: ``storage.lustre.client.pools`` when given, else the pools
    the Kueue flavors of the tenants in ``storage.lustre.tenants`` cover (where their queued jobs run:
    :func:`~oke_rdma.config.checks.fleet.tenant_pools`), in pool order; none without ``storage.lustre`` or with
    ``client.enabled: false``."""
    lustre = cfg.storage.lustre
    if lustre is None or not lustre.client.enabled:
        return ()
    if lustre.client.pools:
        return tuple(lustre.client.pools)
    wanted = {pool for tenant in lustre.tenants if tenant in cfg.tenants for pool in tenant_pools(cfg, tenant)}
    return tuple(pool for pool in cfg.node_pools if pool in wanted)
