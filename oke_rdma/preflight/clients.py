"""The OCI SDK clients the pre-flight calls, built from ``~/.oci/config`` (API key or security token) or an
instance principal (OCI SDK docs, "SDK and CLI Configuration File" and "Calling Services from an Instance")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional


#: Attempts per OCI call and the time they may take together, in seconds.
RETRY_ATTEMPTS, RETRY_SECONDS = 3, 30


class CredentialsError(Exception):
    """The OCI credentials cannot be loaded: one line saying what and how to fix it."""


@dataclass(frozen=True)
class OciClients:
    """One client per OCI service the pre-flight asks, all for the stack's region, and the tenancy they act in."""

    identity: Any
    compute: Any
    limits: Any
    container_engine: Any
    tenancy_id: str

    @classmethod
    def from_config_file(cls, path: str, profile: str, region: str) -> "OciClients":
        """Clients authenticated like the ``oci`` CLI from ``path``/``profile``, pointed at ``region``.

        :raises CredentialsError: the file or profile is missing or invalid.
        """
        import oci

        try:
            config = oci.config.from_file(file_location=path, profile_name=profile)
            config["region"] = region
            oci.config.validate_config(config)
        except (oci.exceptions.ConfigFileNotFound, oci.exceptions.ProfileNotFound, oci.exceptions.InvalidConfig,
                oci.exceptions.InvalidKeyFilePath, oci.exceptions.InvalidPrivateKey, OSError, ValueError) as e:
            raise CredentialsError(f"{path} [{profile}]: {type(e).__name__}: {e}; create it with `oci setup config` "
                                   f"or pass --oci-config/--profile (or --auth instance_principal on an OCI "
                                   f"instance)") from None
        signer: Optional[Any] = None
        if config.get("security_token_file"):
            try:
                token = open(config["security_token_file"]).read().strip()
                key = oci.signer.load_private_key_from_file(config["key_file"])
            except OSError as e:
                raise CredentialsError(f"{path} [{profile}]: security token: {e}; run `oci session refresh`") from None
            signer = oci.auth.signers.SecurityTokenSigner(token, key)
        return cls._build(oci, config, signer, config["tenancy"])

    @classmethod
    def from_environment(cls, region: str, environ: Optional[dict] = None) -> "OciClients":
        """Clients authenticated from the OCI CLI's environment variables (OCI CLI docs, "CLI Environment
        Variables"): ``OCI_CLI_USER``, ``OCI_CLI_TENANCY``, ``OCI_CLI_FINGERPRINT`` and ``OCI_CLI_KEY_CONTENT`` (the
        PEM) or ``OCI_CLI_KEY_FILE``: what CI runners hold as secrets.

        :raises CredentialsError: a variable is missing or the key is invalid.
        """
        import os

        import oci

        env = os.environ if environ is None else environ
        names = {"user": "OCI_CLI_USER", "tenancy": "OCI_CLI_TENANCY", "fingerprint": "OCI_CLI_FINGERPRINT"}
        missing = [v for v in names.values() if not env.get(v)]
        if not env.get("OCI_CLI_KEY_CONTENT") and not env.get("OCI_CLI_KEY_FILE"):
            missing.append("OCI_CLI_KEY_CONTENT (or OCI_CLI_KEY_FILE)")
        if missing:
            raise CredentialsError(f"environment: {', '.join(missing)} not set; set them (the OCI CLI's variables) or "
                                   f"use --auth api_key with ~/.oci/config")
        config = {key: env[var] for key, var in names.items()} | {"region": region}
        if env.get("OCI_CLI_KEY_CONTENT"):
            config["key_content"] = env["OCI_CLI_KEY_CONTENT"]
        else:
            config["key_file"] = env["OCI_CLI_KEY_FILE"]
        try:
            oci.config.validate_config(config)
            return cls._build(oci, config, None, config["tenancy"])
        except (oci.exceptions.InvalidConfig, oci.exceptions.InvalidPrivateKey, oci.exceptions.InvalidKeyFilePath,
                OSError, ValueError) as e:
            raise CredentialsError(f"environment: {type(e).__name__}: {e}; check the OCI_CLI_* variables") from None

    @classmethod
    def from_instance_principal(cls, region: str) -> "OciClients":
        """Clients authenticated as the OCI instance this runs on (its dynamic group's policies apply).

        :raises CredentialsError: not on an OCI instance, or the instance metadata service does not answer.
        """
        import oci

        try:
            signer = oci.auth.signers.InstancePrincipalsSecurityTokenSigner()
        except Exception as e:  # noqa: BLE001 - any failure means: no instance principal here
            raise CredentialsError(f"instance principal: {type(e).__name__}: {e}; run on an OCI instance in a dynamic "
                                   f"group, or use --auth api_key with ~/.oci/config") from None
        return cls._build(oci, {"region": region}, signer, signer.tenancy_id)

    @classmethod
    def _build(cls, oci: Any, config: dict, signer: Optional[Any], tenancy_id: str) -> "OciClients":
        # The SDK's default strategy retries a failing call for minutes; a pre-flight answers sooner: at most
        # RETRY_ATTEMPTS attempts within RETRY_SECONDS, then the CLI reports OCI as unreachable.
        retry = oci.retry.RetryStrategyBuilder(max_attempts_check=True, max_attempts=RETRY_ATTEMPTS,
                                               total_elapsed_time_check=True,
                                               total_elapsed_time_seconds=RETRY_SECONDS).get_retry_strategy()
        kwargs: dict[str, Any] = {"retry_strategy": retry}
        if signer is not None:
            kwargs["signer"] = signer
        return cls(identity=oci.identity.IdentityClient(config, **kwargs),
                   compute=oci.core.ComputeClient(config, **kwargs),
                   limits=oci.limits.LimitsClient(config, **kwargs),
                   container_engine=oci.container_engine.ContainerEngineClient(config, **kwargs),
                   tenancy_id=tenancy_id)
