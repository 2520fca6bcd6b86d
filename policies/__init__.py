"""The oke-rdma CrossGuard policy pack, importable as a package (``policies.pack``) by tests and ``offline/``."""
