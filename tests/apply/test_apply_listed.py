"""Client-side apply reads the live state of many objects of one kind with one LIST (kubectl GETs
each one): same outcomes as the GETs would give, fewer requests, and the cases where a LIST made
before the writes is out of date fall back to reading the object itself.

Runs on the embedded cluster through a Session, counting the dynamic client's calls."""
from __future__ import annotations

from test_apply_paths import apply_objects as apply_result
from test_apply_paths import session  # noqa: F401 (the fixture: a Session on the embedded cluster)

from kubelite.apply.engine import PREFETCH_MIN_OBJECTS


class Counting:
    """Wraps a dynamic client, counting GETs and LISTs; `hide` names are left out of every LIST
    (as if they were made by someone else after the LIST)."""

    def __init__(self, client, hide=()):
        self.client, self.gets, self.lists, self.hide = client, 0, 0, set(hide)

    def __getattr__(self, name):
        return getattr(self.client, name)

    def get(self, *args, **kwargs):
        self.gets += 1
        return self.client.get(*args, **kwargs)

    def list_pages(self, *args, **kwargs):
        self.lists += 1
        for page in self.client.list_pages(*args, **kwargs):
            page["items"] = [o for o in page["items"] if o["metadata"]["name"] not in self.hide]
            yield page


def configmap(name, value="1"):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"v": value}}


def apply_objects(session, objs):
    result = apply_result(session, objs)
    assert not result.errors, result.errors
    return [(o.verb, o.obj["metadata"]["name"]) for o in result.outcomes]


def test_many_objects_of_a_kind_are_read_with_one_list(session):
    n = PREFETCH_MIN_OBJECTS + 2
    first = [configmap(f"cm-{i}") for i in range(n)]
    assert apply_objects(session, first[:3]) == [("created", f"cm-{i}") for i in range(3)]
    counting = session._client = Counting(session.client)
    changed = [configmap(f"cm-{i}", "2" if i == 1 else "1") for i in range(n)]
    outcomes = apply_objects(session, changed)
    assert outcomes == ([("unchanged", "cm-0"), ("configured", "cm-1"), ("unchanged", "cm-2")] +
                        [("created", f"cm-{i}") for i in range(3, n)])
    assert counting.lists == 1 and counting.gets == 0
    # what the LIST answered is what a GET answers: kind and apiVersion first, as printed
    live = session.client.get(session.discovery.resolve("configmaps"), "cm-0", "default")
    unchanged_obj = [o.obj for o in apply_result(session, changed).outcomes if o.obj["metadata"]["name"] == "cm-0"][0]
    assert list(unchanged_obj)[:2] == ["kind", "apiVersion"] and unchanged_obj == live


def test_few_objects_are_read_one_by_one(session):
    counting = session._client = Counting(session.client)
    apply_objects(session, [configmap(f"few-{i}") for i in range(PREFETCH_MIN_OBJECTS - 1)])
    assert counting.lists == 0 and counting.gets == PREFETCH_MIN_OBJECTS - 1


def test_an_object_made_after_the_list_is_patched_not_created_twice(session):
    """The LIST said absent, the create answers AlreadyExists: read it and apply over it, as kubectl
    (which reads each object just before writing it) would have."""
    apply_objects(session, [configmap("late", "old")])
    counting = session._client = Counting(session.client, hide={"late"})
    objs = [configmap(f"x-{i}") for i in range(PREFETCH_MIN_OBJECTS)] + [configmap("late", "new")]
    outcomes = apply_objects(session, objs)
    assert outcomes[-1] == ("configured", "late") and counting.gets == 1
    assert session.client.get(session.discovery.resolve("configmaps"), "late", "default")["data"] == {"v": "new"}


def test_the_same_name_twice_reads_the_first_ones_result(session):
    objs = [configmap(f"d-{i}") for i in range(PREFETCH_MIN_OBJECTS)] + [configmap("d-0", "again")]
    counting = session._client = Counting(session.client)
    outcomes = apply_objects(session, objs)
    assert outcomes[0] == ("created", "d-0") and outcomes[-1] == ("configured", "d-0")
    assert counting.lists == 1 and counting.gets == 1


def test_side_by_side_the_lists_are_started_before_the_objects_and_used(session, monkeypatch):
    """Written a few at a time (over HTTP), each kind's LIST is sent from another thread before
    the first object is read, a namespace the run itself creates included (its LIST is empty)."""
    import threading

    from kubelite.client import inorder

    monkeypatch.setattr(inorder, "workers_for", lambda transport: 4)
    n = PREFETCH_MIN_OBJECTS
    apply_objects(session, [configmap(f"s-{i}") for i in range(3)])
    counting = session._client = Counting(session.client)
    listed_on = []
    list_pages = counting.list_pages

    def noting(*args, **kwargs):
        listed_on.append((threading.current_thread() is threading.main_thread(), args[1]))
        return list_pages(*args, **kwargs)

    counting.list_pages = noting
    elsewhere = [{**configmap(f"o-{i}"), "metadata": {"name": f"o-{i}", "namespace": "other"}} for i in range(n)]
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}}
    outcomes = apply_objects(session, [configmap(f"s-{i}") for i in range(n)] + [namespace] + elsewhere)
    # (namespaces go first, as kubectl orders them; the LIST in "other" may come before it exists)
    assert outcomes == ([("created", "other")] + [("unchanged", f"s-{i}") for i in range(3)]
                        + [("created", f"s-{i}") for i in range(3, n)] + [("created", f"o-{i}") for i in range(n)])
    assert sorted(listed_on) == [(False, "default"), (False, "other")]
    assert counting.lists == 2 and counting.gets == 1  # the Namespace, written alone, is read alone
