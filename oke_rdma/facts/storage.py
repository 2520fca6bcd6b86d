"""File Storage facts: mount target throughput tiers (FSS docs "Managing Mount Targets", "Mount Target
Performance" and "Updating Mount Target Performance"; checked 2026-11-30).

A mount target is created at 1 Gbps; the high-performance tiers are 20, 40 and 80 Gbps, each with a capacity
entitlement of as many TB, billed for at least 30 days once upgraded. High-performance mount targets count against
their own per-AD service limits (the Limits API's ``filesystem`` service; the pre-flight checks them).
"""

#: Mount target throughput tiers in Gbps (1 is the default tier).
FSS_THROUGHPUT_TIERS = (1, 20, 40, 80)
#: Capacity entitlement (TB) that comes with each high-performance tier.
FSS_CAPACITY_ENTITLEMENT_TB = {20: 20, 40: 40, 80: 80}
#: Minimum billing commitment of a high-performance mount target, in days.
FSS_HIGH_PERFORMANCE_COMMITMENT_DAYS = 30
#: The Limits API service of File Storage, and the per-AD limit counting mount targets.
FSS_LIMIT_SERVICE = "filesystem"
FSS_MOUNT_TARGET_LIMIT = "mount-target-count"
