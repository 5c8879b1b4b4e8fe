"""Server-side printing: `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`.

Content negotiation lives here; the Tables themselves come from kubelite.server.tables.
"""
from __future__ import annotations

from kubelite.server import errors
from kubelite.server.handlers.http import Request
from kubelite.server.handlers.negotiate import TABLE, target


def wants_table(request: Request) -> bool:
    """Whether the Accept header's negotiated form is a Table (kubelite.server.handlers.negotiate)."""
    chosen = target(request)
    return chosen is not None and chosen.kind == TABLE


def table_version(request: Request) -> str:
    chosen = target(request)
    return chosen.version if chosen is not None and chosen.kind == TABLE else "v1"


def to_table(r, body: dict, request: Request, with_columns: bool = True) -> dict:
    """The Table for a GET/LIST response body, built by kubelite.server.tables."""
    from kubelite.server.tables import TableError, build_table

    include = request.query.get("includeObject") or "Metadata"
    if include not in ("None", "Metadata", "Object"):
        raise errors.bad_request(f'includeObject: Unsupported value: "{include}"')
    is_list = "items" in body and body.get("kind", "").endswith("List")
    now = request.clock.now() if request.clock is not None else None  # ages on the cluster's clock
    try:
        if is_list:
            return build_table(r, body["items"] or [], include_object=include, now=now,
                               list_meta=body.get("metadata") or {}, table_version=table_version(request))
        return build_table(r, body, include_object=include, table_version=table_version(request),
                           with_columns=with_columns, now=now)
    except TableError as err:
        raise errors.bad_request(str(err))
