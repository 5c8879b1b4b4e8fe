"""The exceptions of the Python API.

Every failure the server reports is an `APIError` subclass chosen by the Status reason
(`NotFound`, `AlreadyExists`, `Conflict`, `Invalid`, ...). Each keeps the server's Status
(`.status`, `.code`, `.reason`, `.causes`) and its message is the line kubectl prints for it.
Manifests that cannot be read raise `ManifestError` (naming the file and line).
"""
from __future__ import annotations

from kubelite.client.errors import ApiError
from kubelite.manifest.errors import ManifestError


class KubeliteError(Exception):
    """Base of the errors the Python API raises on purpose (besides ManifestError)."""


class APIError(KubeliteError, ApiError):
    """The server refused a request; `str(err)` is kubectl's message for it."""

    def __init__(self, status: dict, code: int | None = None, text: str | None = None):
        ApiError.__init__(self, status, code)
        self.text = text if text is not None else kubectl_message(ApiError(status, code))
        self.args = (self.text,)

    def __str__(self) -> str:
        return self.text

    @property
    def causes(self) -> list[dict]:
        """The Status details' causes (field, reason, message), as the server listed them."""
        return [c for c in self.details.get("causes") or () if isinstance(c, dict)]


class NotFound(APIError):
    """404: the object (or its type) does not exist."""


class AlreadyExists(APIError):
    """409 AlreadyExists: an object of that name exists."""


class Conflict(APIError):
    """409 Conflict: a resourceVersion precondition failed or server-side apply found a conflict."""


class Invalid(APIError):
    """422: the object failed validation; `.causes` names each field."""


class BadRequest(APIError):
    """400: the request itself is malformed."""


class Forbidden(APIError):
    """403: not allowed (RBAC, or a namespace being terminated)."""


class Unauthorized(APIError):
    """401: the credentials were refused."""


class ApplyError(KubeliteError):
    """Some objects of an apply failed; `.errors` holds each (kubectl's messages), `.results` what worked."""

    def __init__(self, errors: list[BaseException], results: list):
        self.errors = errors
        self.results = results
        super().__init__("\n".join(str(e) for e in errors))


class WaitTimeout(KubeliteError, TimeoutError):
    """`wait` gave up: the condition was not met in time (kubectl's `timed out waiting` message)."""


class NotSupported(KubeliteError):
    """The operation needs an in-process cluster (settle, advance, snapshot, serve)."""


_BY_REASON = {"NotFound": NotFound, "AlreadyExists": AlreadyExists, "Conflict": Conflict, "Invalid": Invalid,
              "BadRequest": BadRequest, "Forbidden": Forbidden, "Unauthorized": Unauthorized}
_BY_CODE = {404: NotFound, 409: Conflict, 422: Invalid, 400: BadRequest, 403: Forbidden, 401: Unauthorized}


def translate(err: BaseException) -> BaseException:
    """The Python API's exception for a client error (others are returned unchanged)."""
    from kubelite.apply.serverside import ApplyConflict

    if isinstance(err, ApplyConflict):  # server-side apply's conflict, kubectl's advice appended
        status = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Conflict", "code": 409,
                  "message": str(err)}
        return Conflict(status, 409, text=kubectl_message(err))
    if isinstance(err, APIError) or not isinstance(err, ApiError):
        return err
    cls = _BY_REASON.get(err.reason) or _BY_CODE.get(err.code) or APIError
    return cls(err.status, err.code)


def kubectl_message(err: BaseException) -> str:
    """The line kubectl prints for an error (`Error from server (NotFound): ...`)."""
    from kubelite.cli.common import error_message

    return error_message(err)


__all__ = ["APIError", "AlreadyExists", "ApplyError", "BadRequest", "Conflict", "Forbidden", "Invalid",
           "KubeliteError", "ManifestError", "NotFound", "NotSupported", "Unauthorized", "WaitTimeout",
           "kubectl_message", "translate"]
