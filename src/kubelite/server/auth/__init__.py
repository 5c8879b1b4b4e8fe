"""Who may do what: authentication, RBAC authorization, impersonation and the review APIs.

`gate.Gate` is what the ASGI app asks before dispatching a request; the modules below it
each do one job (user identities, token and JWT checks, RBAC rules, the bootstrap policy).
"""
from kubelite.server.auth.tokenfile import PUBLIC_PATHS, TOKEN_FILE, ensure_token, is_public  # noqa: F401
from kubelite.server.auth.tokenfile import TokenAuthenticator  # noqa: F401,E402
