"""Who a request is made by: kube-apiserver's user.Info (name, uid, groups, extra)."""
from __future__ import annotations

from kubelite.record import FrozenRecord, factory

AUTHENTICATED = "system:authenticated"
UNAUTHENTICATED = "system:unauthenticated"
MASTERS = "system:masters"
SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"
SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts"
ANONYMOUS_NAME = "system:anonymous"
# The identity behind kubelite's admin token and client certificate (kind's admin user name).
ADMIN_NAME = "kubernetes-admin"


class UserInfo(FrozenRecord):  # a frozen dataclass's semantics, without dataclasses' import at every start
    name: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: dict[str, tuple[str, ...]] = factory(dict)

    def to_api(self) -> dict:
        """authentication.k8s.io/v1 UserInfo (empty fields omitted, as Go's omitempty does)."""
        out: dict = {"username": self.name}
        if self.uid:
            out["uid"] = self.uid
        if self.groups:
            out["groups"] = list(self.groups)
        if self.extra:
            out["extra"] = {k: list(v) for k, v in self.extra.items()}
        return out

    @property
    def is_master(self) -> bool:
        return MASTERS in self.groups


def authenticated(name: str, groups=(), uid: str = "", extra=None) -> UserInfo:
    """A user the authenticators vouched for: system:authenticated is added as kube-apiserver does."""
    groups = tuple(groups)
    if name != ANONYMOUS_NAME and AUTHENTICATED not in groups:
        groups += (AUTHENTICATED,)
    return UserInfo(name, uid, groups, dict(extra or {}))


ANONYMOUS = UserInfo(ANONYMOUS_NAME, groups=(UNAUTHENTICATED,))
ADMIN = authenticated(ADMIN_NAME, (MASTERS,))


def service_account_user(namespace: str, name: str, uid: str = "", extra=None) -> UserInfo:
    return authenticated(f"{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}",
                         (SERVICE_ACCOUNTS_GROUP, f"{SERVICE_ACCOUNTS_GROUP}:{namespace}"), uid, extra)


def split_service_account(username: str) -> tuple[str, str] | None:
    """("ns", "name") for system:serviceaccount:ns:name, else None."""
    if not username.startswith(SERVICE_ACCOUNT_PREFIX):
        return None
    namespace, sep, name = username[len(SERVICE_ACCOUNT_PREFIX):].partition(":")
    if not sep or not namespace or not name or ":" in name:
        return None
    return namespace, name
