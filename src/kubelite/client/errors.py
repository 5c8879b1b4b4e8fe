"""Typed client errors. Every API failure is an `ApiError` carrying the server's `Status`.

The `message` of each error is what kubectl would print for it (see kubelite.cli.common for
the exact line layout of several errors).
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any


class ClientError(Exception):
    """Base of everything the client raises on purpose."""


class ApiError(ClientError):
    """The server answered with a failure `Status` (or a body we turned into one)."""

    def __init__(self, status: dict[str, Any], code: int | None = None):
        self.status = status
        self.code = int(code if code is not None else status.get("code") or 0)
        super().__init__(self.message)

    @property
    def reason(self) -> str:
        return str(self.status.get("reason") or "")

    @property
    def message(self) -> str:
        return str(self.status.get("message") or "")

    @property
    def details(self) -> dict:
        details = self.status.get("details")
        return details if isinstance(details, dict) else {}

    def with_source(self, verb: str, source: str) -> "ApiError":
        """kubectl's `error when creating "f.yaml": ...` wrapping of a server message."""
        if not source:
            return self
        status = dict(self.status)
        status["message"] = f'error when {verb} "{source}": {self.message}'
        return ApiError(status, self.code)

    @classmethod
    def from_response(cls, code: int, body: bytes, method: str = "GET") -> "ApiError":
        """The Status in a failed response, or one made up as client-go does for other bodies."""
        import json

        try:
            doc = json.loads(body) if body else None
        except ValueError:
            doc = None
        if isinstance(doc, dict) and doc.get("kind") == "Status":
            return cls(doc, code)
        reason, message = _generic(code, method)
        return cls({"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message,
                    "reason": reason, "code": code}, code)


# client-go's reasons and messages for error responses that carry no Status.
def _generic(code: int, method: str) -> tuple[str, str]:
    table = {
        400: ("BadRequest", "the server rejected our request for an unknown reason"),
        401: ("Unauthorized", "the server has asked for the client to provide credentials"),
        403: ("Forbidden", "the server does not allow access to the requested resource"),
        404: ("NotFound", "the server could not find the requested resource"),
        405: ("MethodNotAllowed", "the server does not allow this method on the requested resource"),
        406: ("NotAcceptable", "the server was unable to respond with a content type that the client supports"),
        409: ("Conflict", "the server reported a conflict"),
        410: ("Expired", "the server could not find the requested resource"),
        413: ("RequestEntityTooLarge", "the server has rejected the request because it is too large"),
        415: ("UnsupportedMediaType", "the server was unable to respond with a content type that the client supports"),
        422: ("Invalid", "the server rejected our request due to an error in our request"),
        429: ("TooManyRequests", "the server has received too many requests and has asked us to try again later"),
        500: ("InternalError", "an error on the server has prevented the request from succeeding"),
        503: ("ServiceUnavailable", "the server is currently unable to handle the request"),
        504: ("Timeout", "the server was unable to return a response in the time allotted, but may still be processing the request"),
    }
    return table.get(code, ("", f"the server responded with the status code {code} but did not return more "
                                 "information"))


class ConnectionFailed(ClientError):
    """The server could not be reached; the message is kubectl's line for it."""


class ResourceTypeNotFound(ClientError):
    """No served resource answers to what the user typed (kubectl's NoResourceMatchError)."""

    def __init__(self, resource: str, group: str = "", version: str = ""):
        self.resource, self.group, self.version = resource, group, version
        if group and version:
            text = f'the server doesn\'t have a resource type "{resource}" in group "{group}" and version "{version}"'
        elif group:
            text = f'the server doesn\'t have a resource type "{resource}" in group "{group}"'
        else:
            text = f'the server doesn\'t have a resource type "{resource}"'
        super().__init__(text)


def is_not_found(err: BaseException) -> bool:
    return isinstance(err, ApiError) and err.code == 404 and err.reason == "NotFound"


def is_already_exists(err: BaseException) -> bool:
    return isinstance(err, ApiError) and err.reason == "AlreadyExists"


def is_conflict(err: BaseException) -> bool:
    return isinstance(err, ApiError) and err.code == 409
