"""The placement policy pack (RDMA node pools, Compute Cluster), importable as ``policies.placement``."""
