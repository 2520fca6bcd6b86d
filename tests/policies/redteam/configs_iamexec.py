"""A tenant's Workload Identity grants that reach the GPU nodes' operating system: Run Command, node-pool
administration, the instance API and Bastion sessions. Each control reads instead."""
from __future__ import annotations

from tests.policies.redteam.configs import CONFIG_CASES, DATA, _grant

KEY = "oke-rdma:tenants.research.serviceAccounts.trainer.allow"

for _name, _bad, _safe in (
        ("workload_grant_run_command", "use instance-agent-command-family", "read instance-agent-command-family"),
        ("workload_grant_node_pools", "manage cluster-node-pools", "read cluster-node-pools"),
        ("workload_grant_instances", "use instance-family", "read instance-family"),
        ("workload_grant_bastion_sessions", "manage bastion-family", "read bastion-family")):
    CONFIG_CASES[_name] = ("identity", KEY, _grant(f"{_bad} in compartment id {DATA}"),
                           _grant(f"{_safe} in compartment id {DATA}"))
