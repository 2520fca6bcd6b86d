"""oke-rdma components: one ``pulumi.ComponentResource`` per concern (see DESIGN.md §2)."""
