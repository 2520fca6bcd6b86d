"""What OCI, OKE and the Helm charts are, as tables the config checks and the pre-flight read.

One module per subject, each table with its source and the date it was checked: ``regions`` (realms, regions and
availability-domain names, from the OCI Python SDK), ``shapes`` (GPU, RDMA and Flex shapes, their VNICs and NVMe
drives, VCN-native pods per node), ``kubernetes`` (the Kubernetes versions OKE offers and the version skew rules),
``iam`` (policy verbs, resource types and families), ``storage`` (File Storage mount target tiers).

Nothing here reads the stack config or imports the rest of ``oke_rdma``: the facts are data plus small pure
functions, so the config checks, the pre-flight and the tests share one copy.
"""
