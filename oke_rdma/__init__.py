"""oke-rdma: importable Pulumi components for an OKE GPU training platform with RDMA node pools on OCI (docs/architecture.md)."""
