"""Add-on versions oke-rdma knows to exist, per ``platform.<key>``: the versions its facts cite (pins, compatibility
ranges read at a tag, known bugs' fixed releases, CRD and upgrade-path facts), each read from the project's releases
or tags. Read by :mod:`oke_rdma.config.checks.chart_versions`: a version written in another format than the add-on's
(GPU Operator chart versions carry a ``v``) is refused; a version not listed here is warned about with the nearest
known one, since Helm would fail on a version that does not exist in the middle of ``pulumi up``. A new pin needs its
row here (a test keeps every pin listed).
"""

from __future__ import annotations

#: ``platform.<key>`` → (versions known to exist, where they are read and when).
KNOWN_VERSIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "gpuOperator": (("v25.10.1", "v26.3.0", "v26.3.1", "v26.3.2", "v26.3.3", "v26.7.0"),
                    "NVIDIA/gpu-operator tags (oke_rdma/facts/charts.py MAJOR_STEPS); checked 2026-12-01"),
    "kueue": (("0.14.3", "0.15.0", "0.18.2", "0.18.6", "0.18.7", "0.18.8", "0.19.2", "0.19.3", "0.19.4", "0.19.6",
               "0.19.7"),
              "kubernetes-sigs/kueue tags and CHANGELOG-0.14/0.15/0.18/0.19.md (oke_rdma/facts/charts.py, compat.py, "
              "known_bugs.py); checked 2026-12-02"),
    "keda": (tuple(f"2.{m}.0" for m in range(13, 21)) + ("2.20.1", "2.20.2"),
             "kedacore/keda-docs 'Kubernetes Compatibility' matrix (2.13-2.20, oke_rdma/facts/charts.py); kedacore/charts "
             "keda 2.20.1 and 2.20.2 (oke_rdma/addons/keda.py, oke_rdma/facts/known_bugs.py); checked 2026-12-02"),
    "kubePrometheusStack": (("87.2.1", "88.5.3"), "prometheus-community/helm-charts tags kube-prometheus-stack-87.2.1 and "
                                                  "-88.5.3 (oke_rdma/facts/charts.py); checked 2026-12-01"),
    "cilium": (("1.20.0",), "cilium/charts cilium-1.20.0.tgz (oke_rdma/facts/charts.py); checked 2026-12-01"),
    "flux": (("2.18.3",), "fluxcd-community/helm-charts flux2 2.18.3 (oke_rdma/addons/flux.py); checked 2026-11-30"),
    "jobset": (("0.12.0",), "kubernetes-sigs/jobset v0.12.0 (oke_rdma/facts/compat.py); checked 2026-12-01"),
    "kuberay": (("1.6.1", "1.6.2", "1.7.0"), "ray-project/kuberay tags v1.6.1, v1.6.2, v1.7.0 (oke_rdma/facts/"
                                             "compat.py, oke_rdma/addons/kuberay.py); checked 2026-12-01"),
    "mpiOperator": (("0.8.0", "0.8.2"), "kubeflow/mpi-operator v0.8.0 and v0.8.2 manifests (oke_rdma/addons/manifests);"
                                        " checked 2026-12-01"),
    "trainer": (("2.2.1", "2.3.0"), "kubeflow/trainer v2.2.1 and v2.3.0 (oke_rdma/facts/compat.py, oke_rdma/facts/"
                                    "crds.py); checked 2026-12-01"),
    "pulumiOperator": (("2.9.0",), "pulumi/pulumi-kubernetes-operator chart 2.9.0 (oke_rdma/addons/pulumi_operator.py); "
                                   "checked 2026-11-30"),
}
