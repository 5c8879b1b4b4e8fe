"""API errors as kube-apiserver reports them: ``metav1.Status`` bodies.

Every failure the embedded server returns is a :class:`StatusError`; the HTTP
layer serialises ``err.to_status()`` (compact JSON, keys in the order built
here, which is the order kube-apiserver writes them) with ``err.code`` as the
HTTP status.

Naming conventions for the constructors:

* ``group`` is the API group ("" for core), ``resource`` the plural resource
  name (``deployments``), ``kind`` the object kind (``Deployment``).
* Messages follow kube-apiserver 1.32 wording exactly; recorded examples live
  in ``tests/data/reference/apiserver/errors``.

A *cause* is a plain dict ``{"reason": ..., "message": ..., "field": ...}``
(empty entries omitted), as produced by :mod:`kubelite.server.admission.field`.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing for annotations only
if TYPE_CHECKING:
    from typing import Any, Iterable, Mapping


__all__ = [
    "StatusError",
    "go_json",
    "qualified_resource",
    "qualified_kind",
    "not_found",
    "not_found_path",
    "already_exists",
    "conflict",
    "invalid",
    "bad_request",
    "forbidden",
    "namespace_terminating",
    "unauthorized",
    "method_not_allowed",
    "unsupported_media_type",
    "not_acceptable",
    "request_entity_too_large",
    "gone",
    "expired",
    "resource_version_too_old",
    "internal_error",
    "server_error",
    "timeout",
    "resource_version_too_large",
    "too_many_requests",
    "success_status",
]

# Go's reflection-free defaults for the "Status" wrapper.
_STATUS_HEAD = (("kind", "Status"), ("apiVersion", "v1"))

MODIFIED_MESSAGE = (
    "the object has been modified; please apply your changes to the latest version and try again"
)


class StatusError(Exception):
    """A failure carrying everything a ``metav1.Status`` body needs.

    ``details`` is ``None`` when the server sends no ``details`` key at all;
    an empty dict is sent as ``"details":{}`` (kube-apiserver does both,
    depending on the error).  ``status_metadata`` fills the Status'
    ``metadata`` (only ``continue`` is ever set, for expired list tokens).
    """

    def __init__(
        self,
        code: int,
        reason: str,
        message: str,
        *,
        name: str = "",
        group: str = "",
        kind: str = "",
        uid: str = "",
        causes: Iterable[Mapping[str, Any]] | None = None,
        retry_after_seconds: int | None = None,
        has_details: bool | None = None,
        status_metadata: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.name = name
        self.group = group
        self.kind = kind
        self.uid = uid
        self.causes = [dict(c) for c in causes] if causes is not None else []
        self.retry_after_seconds = retry_after_seconds
        if has_details is None:
            has_details = bool(name or group or kind or uid or self.causes or retry_after_seconds)
        self.has_details = has_details
        self.status_metadata = dict(status_metadata or {})

    @property
    def details(self) -> dict | None:
        """The ``details`` object in server key order, or ``None`` when absent."""
        if not self.has_details:
            return None
        out: dict[str, Any] = {}
        if self.name:
            out["name"] = self.name
        if self.group:
            out["group"] = self.group
        if self.kind:
            out["kind"] = self.kind
        if self.uid:
            out["uid"] = self.uid
        if self.causes:
            out["causes"] = [_ordered_cause(c) for c in self.causes]
        if self.retry_after_seconds:
            out["retryAfterSeconds"] = self.retry_after_seconds
        return out

    def to_status(self) -> dict:
        """The exact ``metav1.Status`` body (dict in kube-apiserver key order)."""
        body: dict[str, Any] = dict(_STATUS_HEAD)
        body["metadata"] = dict(self.status_metadata)
        body["status"] = "Failure"
        if self.message:
            body["message"] = self.message
        if self.reason:
            body["reason"] = self.reason
        details = self.details
        if details is not None:
            body["details"] = details
        if self.code:
            body["code"] = self.code
        return body

    def to_json(self) -> bytes:
        """The response body bytes exactly as kube-apiserver writes them."""
        return go_json(self.to_status())

    def __repr__(self) -> str:
        return f"StatusError({self.code}, {self.reason!r}, {self.message!r})"


_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def go_json(value: Any) -> bytes:
    """Compact JSON + newline with Go encoding/json's HTML-safe escapes."""
    import json

    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for raw, escaped in _GO_ESCAPES.items():
        text = text.replace(raw, escaped)
    return (text + "\n").encode()


def _ordered_cause(cause: Mapping[str, Any]) -> dict:
    out: dict[str, Any] = {}
    for key in ("reason", "message", "field"):
        if cause.get(key):
            out[key] = cause[key]
    return out


def _go_quote(text: str) -> str:
    """Go's ``%q`` for the (printable) names that appear in messages."""
    from kubelite.server.admission.field import go_quote

    return go_quote(text)


def qualified_resource(group: str, resource: str) -> str:
    """``deployments.apps`` / ``pods`` (GroupResource.String())."""
    return f"{resource}.{group}" if group else resource


def qualified_kind(group: str, kind: str) -> str:
    """``Deployment.apps`` / ``Pod`` (GroupKind.String())."""
    return f"{kind}.{group}" if group else kind


# --- 4xx -------------------------------------------------------------------


def not_found(group: str, resource: str, name: str) -> StatusError:
    """404 ``deployments.apps "x" not found`` (also namespaces on write)."""
    return StatusError(
        404,
        "NotFound",
        f"{qualified_resource(group, resource)} {_go_quote(name)} not found",
        name=name,
        group=group,
        kind=resource,
        has_details=True,
    )


def not_found_path() -> StatusError:
    """404 for URLs that name no known resource (``"details":{}``)."""
    return StatusError(
        404, "NotFound", "the server could not find the requested resource", has_details=True
    )


def already_exists(group: str, resource: str, name: str) -> StatusError:
    """409 ``configmaps "x" already exists``."""
    return StatusError(
        409,
        "AlreadyExists",
        f"{qualified_resource(group, resource)} {_go_quote(name)} already exists",
        name=name,
        group=group,
        kind=resource,
        has_details=True,
    )


def conflict(group: str, resource: str, name: str, detail: str = MODIFIED_MESSAGE) -> StatusError:
    """409 ``Operation cannot be fulfilled on configmaps "x": <detail>``.

    The default detail is the optimistic-concurrency one; precondition
    failures on DELETE pass the kind (``ConfigMap``) as ``resource`` and their
    own detail, exactly as kube-apiserver does.
    """
    return StatusError(
        409,
        "Conflict",
        f"Operation cannot be fulfilled on {qualified_resource(group, resource)} "
        f"{_go_quote(name)}: {detail}",
        name=name,
        group=group,
        kind=resource,
        has_details=True,
    )


def field_error_string(cause: Mapping[str, Any]) -> str:
    """``field: message`` as Go's field.Error.Error() prints it."""
    return f"{cause.get('field', '')}: {cause.get('message', '')}"


def aggregate_message(causes: Iterable[Mapping[str, Any]]) -> str:
    """One error as-is, several as ``[a, b]`` (duplicates dropped, first kept)."""
    seen: list[str] = []
    for cause in causes:
        text = field_error_string(cause)
        if text not in seen:
            seen.append(text)
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"


def invalid(group: str, kind: str, name: str, causes: Iterable[Mapping[str, Any]]) -> StatusError:
    """422 ``Deployment.apps "x" is invalid: <cause>`` / ``...: [<c1>, <c2>]``.

    ``causes`` come from :func:`kubelite.server.admission.validate`; all of
    them are listed in ``details.causes`` (duplicates included) while the
    message lists each distinct one once.
    """
    causes = [dict(c) for c in causes]
    message = f"{qualified_kind(group, kind)} {_go_quote(name)} is invalid"
    if causes:
        message += ": " + aggregate_message(causes)
    return StatusError(
        422,
        "Invalid",
        message,
        name=name,
        group=group,
        kind=kind,
        causes=causes,
        has_details=True,
    )


def bad_request(message: str) -> StatusError:
    """400 BadRequest with no details (decode errors, name/namespace mismatch)."""
    return StatusError(400, "BadRequest", message)


def forbidden(
    group: str,
    resource: str,
    name: str,
    detail: str,
    causes: Iterable[Mapping[str, Any]] | None = None,
) -> StatusError:
    """403 ``configmaps "x" is forbidden: <detail>``.

    Without a name: ``configmaps is forbidden: ...``; without a resource
    (non-resource URLs): ``forbidden: ...`` with ``"details":{}``.
    """
    resource_text = qualified_resource(group, resource) if resource else ""
    if not resource_text:
        message = f"forbidden: {detail}"
    elif not name:
        message = f"{resource_text} is forbidden: {detail}"
    else:
        message = f"{resource_text} {_go_quote(name)} is forbidden: {detail}"
    return StatusError(
        403,
        "Forbidden",
        message,
        name=name,
        group=group,
        kind=resource,
        causes=causes,
        has_details=True,
    )


def namespace_terminating(group: str, resource: str, name: str, namespace: str) -> StatusError:
    """403 for creating content in a namespace that is being deleted."""
    return forbidden(
        group,
        resource,
        name,
        f"unable to create new content in namespace {namespace} because it is being terminated",
        causes=[
            {
                "reason": "NamespaceTerminating",
                "message": f"namespace {namespace} is being terminated",
                "field": "metadata.namespace",
            }
        ],
    )


def unauthorized(message: str = "Unauthorized") -> StatusError:
    """401 (an invalid bearer token)."""
    return StatusError(401, "Unauthorized", message)


def method_not_allowed() -> StatusError:
    """405 as the server's router reports it (``"details":{}``)."""
    return StatusError(
        405,
        "MethodNotAllowed",
        "the server does not allow this method on the requested resource",
        has_details=True,
    )


DEFAULT_BODY_TYPES = ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf")
PATCH_BODY_TYPES_CR = (
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/apply-patch+yaml",
)


def unsupported_media_type(accepted: Iterable[str] = DEFAULT_BODY_TYPES) -> StatusError:
    """415 for a request body (or patch) type the endpoint does not accept."""
    return StatusError(
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: "
        + ", ".join(accepted),
    )


def not_acceptable(accepted: Iterable[str] = DEFAULT_BODY_TYPES) -> StatusError:
    """406 for an Accept header the endpoint cannot produce."""
    return StatusError(
        406,
        "NotAcceptable",
        "only the following media types are accepted: " + ", ".join(accepted),
    )


def request_entity_too_large(limit: int = 3 * 1024 * 1024) -> StatusError:
    """413 for request bodies over the server's limit (3 MiB)."""
    return StatusError(413, "RequestEntityTooLarge", f"Request entity too large: limit is {limit}")


def gone(message: str) -> StatusError:
    """410 with reason Gone."""
    return StatusError(410, "Gone", message)


def expired(message: str, continue_token: str | None = None) -> StatusError:
    """410 Expired (compacted RV); a fresh ``continue`` token goes in metadata."""
    meta = {"continue": continue_token} if continue_token else None
    return StatusError(410, "Expired", message, status_metadata=meta)


def resource_version_too_old(requested: int | str, oldest: int | str) -> StatusError:
    """410 Expired as sent in a watch ERROR event: ``too old resource version: 1 (70921)``."""
    return expired(f"too old resource version: {requested} ({oldest})")


def too_many_requests(message: str, retry_after_seconds: int = 1) -> StatusError:
    """429 TooManyRequests."""
    return StatusError(
        429, "TooManyRequests", message, retry_after_seconds=retry_after_seconds
    )


# --- 5xx -------------------------------------------------------------------


def internal_error(detail: str) -> StatusError:
    """500 InternalError, ``Internal error occurred: <detail>`` (Go NewInternalError)."""
    return StatusError(
        500,
        "InternalError",
        f"Internal error occurred: {detail}",
        causes=[{"message": detail}],
        has_details=True,
    )


def server_error(message: str) -> StatusError:
    """500 without reason or details: how plain (non-API) errors surface.

    kube-apiserver reports e.g. ``resourceVersion should not be set on objects
    to be created`` and ``strconv.ParseUint: parsing "abc": invalid syntax``
    this way.
    """
    return StatusError(500, "", message)


def timeout(message: str, retry_after_seconds: int = 0) -> StatusError:
    """504 ``Timeout: <message>``."""
    return StatusError(
        504, "Timeout", f"Timeout: {message}", retry_after_seconds=retry_after_seconds or None
    )


def resource_version_too_large(requested: int | str, current: int | str) -> StatusError:
    """504 after waiting for a future resourceVersion (``Retry-After: 1``)."""
    return StatusError(
        504,
        "Timeout",
        f"Timeout: Too large resource version: {requested}, current: {current}",
        causes=[{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
        retry_after_seconds=1,
        has_details=True,
    )


def success_status(
    *, name: str = "", group: str = "", kind: str = "", uid: str = "", code: int = 0
) -> dict:
    """A ``status: Success`` body (DELETE of most kinds, pods/binding)."""
    body: dict[str, Any] = dict(_STATUS_HEAD)
    body["metadata"] = {}
    body["status"] = "Success"
    details: dict[str, Any] = {}
    for key, value in (("name", name), ("group", group), ("kind", kind), ("uid", uid)):
        if value:
            details[key] = value
    if details:
        body["details"] = details
    if code:
        body["code"] = code
    return body
