"""Container images the platform's own Jobs and DaemonSets run (not the charts' images: those are the charts'), one
home per image, each pinned by tag with its source and the date it was last verified.

* :data:`PYTHON_IMAGE`: the Python of the platform's small Jobs and DaemonSets (the directory preparation Jobs of FSS
  and Lustre, the GPU health cordoner, the RDMA topology labeler). Python 3.14 on Debian 13 "trixie" (Debian's stable
  release with regular security support; Debian 12 "bookworm", the earlier base, left regular security support):
  docker-library/python ``versions.json`` @4f070595 (2026-06-23) lists 3.14.6 with the ``slim-trixie`` variant.
  Pinned by tag, not digest: no registry is reachable where this was written, so no digest could be verified; the
  Renovate configuration (``renovate.json``) keeps the tag current and may add the digest (``pinDigests``).
* :data:`BUSYBOX_TAG`: busybox of kube-prometheus-stack's CRD upgrade Job (the chart defaults to ``latest``).
* :data:`NPD_IMAGE`: node-problem-detector (kubernetes/node-problem-detector release v0.8.23, image published by the
  project to ``registry.k8s.io/node-problem-detector/node-problem-detector``), pinned by tag.

Checked 2026-12-01. Update through Renovate (its ``customManagers`` match ``*_IMAGE = "..."`` here).
"""

from __future__ import annotations

#: Python for the platform's Jobs and DaemonSets (module docstring).
# renovate: datasource=docker depName=docker.io/library/python
PYTHON_IMAGE = "docker.io/library/python:3.14.6-slim-trixie"
#: node-problem-detector (module docstring).
# renovate: datasource=docker depName=registry.k8s.io/node-problem-detector/node-problem-detector
NPD_IMAGE = "registry.k8s.io/node-problem-detector/node-problem-detector:v0.8.23"
#: busybox of kube-prometheus-stack's CRD upgrade Job (its init container unpacks the CRDs; the chart's default tag is
#: ``latest``): docker-library busybox 1.37.0 (the stable busybox release), pinned by tag (no digest verifiable here).
# renovate: datasource=docker depName=docker.io/library/busybox
BUSYBOX_TAG = "1.37.0"
#: When the pins above were last compared with their sources.
CHECKED = "2026-12-01"
