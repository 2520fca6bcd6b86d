"""The security policy pack (identity, exposure, pod privilege, data), importable as ``policies.security``."""
