"""Resource transforms under mocks, run the way the Pulumi engine runs them.

``pulumi.ResourceOptions(transforms=[fn])`` and ``pulumi.runtime.register_resource_transform(fn)`` (a stack
transform) are engine-side callbacks: the SDK serves each function on its callback server (``_callbacks.py``,
``_CallbackServicer``) and sends the engine a ``Callback`` (token and target) in ``RegisterResourceRequest.transforms``
or ``RegisterStackTransform``; the engine calls it back before it registers a resource, and the provider, the state
and the policy packs see the transformed inputs and options. Pulumi's mock monitor never calls them back, so without
this module the packs would judge inputs the engine never sends (a bucket a stack transform makes public).

:class:`Transforms` does what the engine's resource monitor does (``pkg/resource/deploy/source_eval.go``,
``RegisterResource`` and ``wrapTransformCallback``, pulumi/pulumi, read 2026-12-01): for each registration it runs
first the resource's own transforms, then those of its parent, the parent's parent and so on, then every stack
transform in the order registered; each one gets a ``TransformRequest`` (type, name, custom, parent, the properties
and a ``TransformResourceOptions``) through the SDK's callback server over gRPC (``Callbacks.Invoke``), and its
``TransformResponse`` replaces the properties and options. Dependencies are re-read from the transformed options'
``depends_on``. Stack invoke transforms (``pulumi.runtime.register_invoke_transform``) are run on every later
invoke's arguments and options the same way (:meth:`Transforms.run_invoke`). Legacy ``transformations=`` run inside the SDK before the request is sent and need nothing here.

A transform that raises fails the registration as it fails ``pulumi preview``; a transform that cannot be called
(no callback server answering) is refused with :class:`TransformNotRun`, naming the resource: never a silent pass.
"""

from __future__ import annotations

import threading

import grpc
from google.protobuf import json_format
from pulumi.runtime.proto import callback_pb2, callback_pb2_grpc, resource_pb2

#: Options copied both ways between ``RegisterResourceRequest`` and ``TransformResourceOptions``: (request field,
#: options field, repeated/map). Scalars with presence are handled in :func:`_options`/:func:`_apply`.
_LISTS = [("dependencies", "depends_on"), ("ignoreChanges", "ignore_changes"),
          ("replaceOnChanges", "replace_on_changes"), ("additionalSecretOutputs", "additional_secret_outputs"),
          ("replace_with", "replace_with"), ("hideDiffs", "hide_diff")]
_SCALARS = [("version", "version"), ("provider", "provider"), ("pluginDownloadURL", "plugin_download_url"),
            ("deletedWith", "deleted_with")]
_MAPS = [("providers", "providers"), ("pluginChecksums", "plugin_checksums")]


class TransformNotRun(Exception):
    """A transform applies to a resource but could not be run offline: the packs cannot judge what the engine
    would register. The message names the resource."""


def _options(request) -> resource_pb2.TransformResourceOptions:
    """The options of ``request`` as the engine hands them to a transform."""
    opts = resource_pb2.TransformResourceOptions(protect=request.protect, retain_on_delete=request.retainOnDelete)
    for req_field, opt_field in _LISTS:
        getattr(opts, opt_field).extend(getattr(request, req_field))
    for req_field, opt_field in _SCALARS:
        setattr(opts, opt_field, getattr(request, req_field))
    for req_field, opt_field in _MAPS:
        getattr(opts, opt_field).update(dict(getattr(request, req_field)))
    opts.aliases.extend(request.aliases)
    if request.HasField("customTimeouts"):
        opts.custom_timeouts.CopyFrom(request.customTimeouts)
    if request.deleteBeforeReplaceDefined:
        opts.delete_before_replace = request.deleteBeforeReplace
    if request.HasField("replacement_trigger"):
        opts.replacement_trigger.CopyFrom(request.replacement_trigger)
    if request.importId:
        setattr(opts, "import", request.importId)
    if request.HasField("hooks"):  # a transform sees, and may change, the hooks bound (offline.engine_code)
        opts.hooks.CopyFrom(request.hooks)
    return opts


def _apply(request, opts: resource_pb2.TransformResourceOptions) -> None:
    """Write the transformed ``opts`` back onto ``request`` (what the engine registers)."""
    request.protect = opts.protect
    request.retainOnDelete = opts.retain_on_delete
    for req_field, opt_field in _LISTS:
        del getattr(request, req_field)[:]
        getattr(request, req_field).extend(getattr(opts, opt_field))
    for req_field, opt_field in _SCALARS:
        setattr(request, req_field, getattr(opts, opt_field))
    for req_field, opt_field in _MAPS:
        getattr(request, req_field).clear()
        getattr(request, req_field).update(dict(getattr(opts, opt_field)))
    del request.aliases[:]
    request.aliases.extend(opts.aliases)
    request.ClearField("customTimeouts")
    if opts.HasField("custom_timeouts"):
        request.customTimeouts.CopyFrom(opts.custom_timeouts)
    request.deleteBeforeReplaceDefined = opts.HasField("delete_before_replace")
    request.deleteBeforeReplace = opts.delete_before_replace
    request.ClearField("replacement_trigger")
    if opts.HasField("replacement_trigger"):
        request.replacement_trigger.CopyFrom(opts.replacement_trigger)
    request.importId = getattr(opts, "import")
    request.ClearField("hooks")
    if opts.HasField("hooks"):
        request.hooks.CopyFrom(opts.hooks)


class Transforms:
    """The transforms a mock resource monitor must run: stack transforms (:meth:`add_stack`), and each registered
    resource's own (kept by URN, with its parent, so children inherit them). Thread-safe: registrations arrive from
    the SDK's thread pool."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stack: list[callback_pb2.Callback] = []
        self._own: dict[str, list[callback_pb2.Callback]] = {}  # URN → its transforms
        self._parents: dict[str, str] = {}  # URN → parent URN
        self._channels: dict[str, grpc.Channel] = {}
        self._invoke: list[callback_pb2.Callback] = []

    def add_stack(self, callback: callback_pb2.Callback) -> None:
        """A stack transform (``RegisterStackTransform``): it applies to every resource registered after it."""
        with self._lock:
            self._stack.append(callback)

    def add_stack_invoke(self, callback: callback_pb2.Callback) -> None:
        """A stack invoke transform (``RegisterStackInvokeTransform``): it applies to every later invoke."""
        with self._lock:
            self._invoke.append(callback)

    def run_invoke(self, request):
        """An invoke ``request`` after the stack invoke transforms, in the order registered (the engine's
        ``wrapInvokeTransformCallback``): each one's ``TransformInvokeResponse`` replaces the arguments and options.

        :raises TransformNotRun: when a transform's callback server does not answer.
        """
        with self._lock:
            callbacks = list(self._invoke)
        if not callbacks:
            return request
        out = resource_pb2.ResourceInvokeRequest()
        out.CopyFrom(request)
        for callback in callbacks:
            opts = resource_pb2.TransformInvokeOptions(provider=out.provider, plugin_download_url=out.pluginDownloadURL,
                                                       version=out.version)
            opts.plugin_checksums.update(dict(out.pluginChecksums))
            call = resource_pb2.TransformInvokeRequest(token=out.tok, args=out.args, options=opts)
            response = resource_pb2.TransformInvokeResponse.FromString(
                self._call(callback, call, f"invoke {out.tok}").response)
            if response.HasField("args"):
                out.args.CopyFrom(response.args)
            if response.HasField("options"):
                out.provider, out.version = response.options.provider, response.options.version
                out.pluginDownloadURL = response.options.plugin_download_url
                out.pluginChecksums.clear()
                out.pluginChecksums.update(dict(response.options.plugin_checksums))
        return out

    def _call(self, callback: callback_pb2.Callback, message, what: str):
        """Call one transform through its callback server (``Callbacks.Invoke``), as the engine does."""
        try:
            return self._stub(callback.target).Invoke(
                callback_pb2.CallbackInvokeRequest(token=callback.token, request=message.SerializeToString()),
                timeout=120)
        except grpc.RpcError as e:
            if e.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED,
                            grpc.StatusCode.INVALID_ARGUMENT):
                raise TransformNotRun(
                    f"{what}: a transform applies to it but could not be run offline ({e.code().name}); "
                    "the policy packs cannot judge what the engine would do") from None
            raise Exception(f"{what}: a transform failed: {e.details()}") from None

    def remember(self, urn: str, request) -> None:
        """Keep ``request``'s transforms and parent under its ``urn`` (after it registered)."""
        with self._lock:
            self._parents[urn] = request.parent
            if request.transforms:
                self._own[urn] = list(request.transforms)

    def applying(self, request) -> list[callback_pb2.Callback]:
        """The transforms that apply to ``request``, in the order the engine runs them."""
        with self._lock:
            found = list(request.transforms)
            current, seen = request.parent, set()
            while current and current not in seen:
                seen.add(current)
                found += self._own.get(current, [])
                current = self._parents.get(current, "")
            return found + self._stack

    def run(self, request):
        """``request`` as the engine registers it: a transformed copy when a transform applies, else itself.

        :raises TransformNotRun: when a transform's callback server does not answer.
        :raises Exception: what a transform raised (``pulumi preview`` fails the same way), naming the resource.
        """
        callbacks = self.applying(request)
        if not callbacks:
            return request
        out = resource_pb2.RegisterResourceRequest()
        out.CopyFrom(request)
        what = f"{request.type} {request.name}"
        for callback in callbacks:
            call = resource_pb2.TransformRequest(type=out.type, name=out.name, custom=out.custom, parent=out.parent,
                                                 properties=out.object, options=_options(out))
            answer = self._call(callback, call, what)
            response = resource_pb2.TransformResponse.FromString(answer.response)
            if response.HasField("properties"):
                out.object.CopyFrom(response.properties)
            if response.HasField("options"):
                _apply(out, response.options)
        return out

    def run_child(self, child) -> None:
        """Transform a remote component's child (an :class:`offline.policy_eval.EngineResource` the offline engine
        registers for the provider) in place: the provider registers it through the resource monitor, so its parent's
        and the stack's transforms apply as to any other registration."""
        request = resource_pb2.RegisterResourceRequest(type=child.type, name=child.name, parent=child.parent or "",
                                                       custom=True, provider=child.provider or "")
        if not self.applying(request):
            return
        json_format.ParseDict(child.inputs, request.object)
        out = self.run(request)
        child.inputs = json_format.MessageToDict(out.object)
        child.protect = out.protect
        child.ignore_changes = list(out.ignoreChanges)
        child.dependencies = list(out.dependencies)

    def _stub(self, target: str) -> callback_pb2_grpc.CallbacksStub:
        with self._lock:
            channel = self._channels.get(target)
            if channel is None:
                channel = self._channels[target] = grpc.insecure_channel(target)
            return callback_pb2_grpc.CallbacksStub(channel)

    def close(self) -> None:
        """Close the channels to the callback servers."""
        with self._lock:
            for channel in self._channels.values():
                channel.close()
            self._channels.clear()

