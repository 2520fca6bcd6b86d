"""Facts about OCI, Kubernetes and the pinned charts that the program and its checks rely on, each with its source
and the date it was checked."""
