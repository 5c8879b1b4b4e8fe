"""The gate every request passes before dispatch: authenticate, impersonate, authorize.

Without a token (the in-process door) the caller is this process, a cluster admin, and nothing
is checked unless it impersonates someone: then RBAC decides for the impersonated user. So the
authorizer and the modules that check are loaded on first use: the embedded commands never
check, and importing them was ~2 ms of each.
"""
from __future__ import annotations

from kubelite.server.auth import impersonation
from kubelite.server.auth.authn import Authenticator
from kubelite.server.auth.tokenfile import is_public
from kubelite.server.routing import request_info

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from kubelite.server.auth.rbac import RBACAuthorizer
    from kubelite.server.auth.user import UserInfo


class Gate:
    def __init__(self, api, token: str | None = None, static_tokens: dict | None = None):
        self.api = api
        self.authn = Authenticator(api, token, static_tokens)
        self._authorizer: RBACAuthorizer | None = None
        self._policy_ensured = False
        if self.authn.enabled:
            self._ensure_policy()

    def _ensure_policy(self) -> None:
        # The in-process door creates the bootstrap policy only once someone is impersonated:
        # until then nothing reads it, and embedded stores stay as their users left them.
        if not self._policy_ensured:
            from kubelite.server.auth.bootstrap import ensure_policy

            with self.api.store.durable_at_end():
                ensure_policy(self.api)
            self._policy_ensured = True

    @property
    def authorizer(self) -> RBACAuthorizer:
        if self._authorizer is None:
            from kubelite.server.auth.rbac import RBACAuthorizer

            self._authorizer = RBACAuthorizer(self.api.store)
        return self._authorizer

    @property
    def enabled(self) -> bool:
        return self.authn.enabled

    def admit(self, request) -> UserInfo:
        """The user the request runs as; raises 401/403 StatusErrors as kube-apiserver answers."""
        user = self.authn.authenticate(request.path, request.header("authorization"), request.client_cert)
        impersonating = impersonation.requested(request.headers)
        if impersonating:
            self._ensure_policy()
            user = impersonation.impersonate(self.authorizer, user, request.headers)
        if (not self.enabled and not impersonating) or user.is_master or is_public(request.path):
            return user  # (system:masters: RBAC allows everything, and no escalation is checked)
        from kubelite.server.auth import escalation
        from kubelite.server.auth.attributes import forbidden, from_request_info

        info = request_info(request)
        attrs = from_request_info(user, info)
        allowed, _ = self.authorizer.authorize(attrs)
        if not allowed:
            raise forbidden(attrs)
        if info.is_resource_request:
            escalation.check(self.api, self.authorizer, request, info, user)
        return user

    def allows(self, path: str, authorization: str | None) -> bool:
        """Whether the credentials are accepted at all (the old TokenAuthenticator's question)."""
        from kubelite.server.errors import StatusError

        try:
            self.authn.authenticate(path, authorization)
        except StatusError:
            return False
        return True
