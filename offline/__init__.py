"""Offline engine: runs the oke-rdma program under Pulumi's runtime mocks, with no cloud and no credentials."""
