"""The pre-flight: what only the tenancy knows, asked of OCI with the user's credentials before ``pulumi up``.

``python -m oke_rdma.preflight --stack dev`` loads ``Pulumi.dev.yaml`` through the same config model as the
program (a config error exits 2, as in the offline preview), then asks OCI through the OCI Python SDK
(``~/.oci/config`` or an instance principal) whether:

* the credentials are for the stack's tenancy (``iam.tenancyId``) and the compartment is ACTIVE
  (``Identity.GetCompartment``);
* the availability domains exist in the tenancy (``Identity.ListAvailabilityDomains``);
* each pool's shape is offered in each of its ADs (``Compute.ListShapes``), has RDMA ports for an RDMA pool, the
  GPU count of the facts table, and the VNICs ``maxPodsPerNode`` needs;
* the compute service limits and compartment quotas leave room for every pool's nodes, and for the Compute Cluster
  (the shape's ``quota_names``, ``Limits.ListLimitDefinitions``, ``Limits.GetResourceAvailability``: available =
  limit or quota minus used);
* an existing Compute Cluster is ACTIVE and in its AD (``Compute.GetComputeCluster``);
* each pool's image is one OKE lists for node pools (``ContainerEngine.GetNodePoolOptions``) and matches the
  shape (a GPU image for a GPU shape, an aarch64 image for an Arm shape, the pool's Kubernetes version), or else is
  an image the deployer can read that declares the shape (``Compute.GetImage``,
  ``Compute.ListImageShapeCompatibilityEntries``);
* a pool that gets the Lustre client (``storage.lustre.client``) does not run an OKE platform image (which carries
  no client and boots UEK, where the node-init step cannot install one);
* the Kubernetes versions are offered (``ContainerEngine.GetClusterOptions`` / ``GetNodePoolOptions``);
* the mount target tier fits the AD's mount target limits (``Limits`` service ``filesystem``);
* the deployer can read what the stack declares in its compartment (the reads above and listing clusters,
  Compute Clusters and, with ``iam.createPolicies``, policies): OCI has no dry run for creation, so a missing
  ``manage`` grant still shows only at ``pulumi up``.

Output: one line per problem, ``<key path>: <what OCI said>; <fix>``, then ``note:`` lines for what could not be
checked (and why), then a summary. Exit codes: 0 no problem, 1 problems, 2 the stack config, the credentials or
the command line are wrong or OCI cannot be reached (one line saying which). Documented in ``docs/preflight.md``.
"""

from .checks import Finding, Preflight, run_checks

__all__ = ["Finding", "Preflight", "run_checks"]
