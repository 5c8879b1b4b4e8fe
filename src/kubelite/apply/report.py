"""kubectl's wording for what apply prints: success lines and the errors at the end."""
from __future__ import annotations

DRY_RUN_SUFFIX = {"client": " (dry run)", "server": " (server dry run)", "none": ""}


def success_line(obj: dict, verb: str, dry_run: str = "none", output: str = "") -> str:
    """`deployment.apps/nginx configured (server dry run)`; `-o name` prints the name alone."""
    from kubelite.manifest.name import resource_name

    if output == "name":
        return resource_name(obj)
    return resource_name(obj, verb) + DRY_RUN_SUFFIX.get(dry_run, "")


def error_text(err: BaseException) -> str:
    """One error as kubectl's CheckErr prints it when it is the only one."""
    status = _status_of(err)
    if status is not None and status.get("reason") == "Invalid":
        return _invalid_text(status)
    return message_for(err)


def message_for(err: BaseException) -> str:
    """kubectl's StandardErrorMessage, or `error: ...` for anything that is not a Status."""
    status = _status_of(err)
    if status is not None:
        reason = status.get("reason") or ""
        text = str(err)
        if reason == "Unauthorized":
            return f"error: You must be logged in to the server ({status.get('message', '')})"
        return f"Error from server ({reason}): {text}" if reason else f"Error from server: {text}"
    text = str(err)
    return text if text.startswith("error: ") else f"error: {text}"


def errors_text(errors: list[BaseException]) -> str:
    """Everything printed on stderr for the errors of a run (final newline included)."""
    if not errors:
        return ""
    if len(errors) == 1:
        return error_text(errors[0]).rstrip("\n") + "\n"
    return "".join(message_for(e) + "\n" for e in errors)


def _status_of(err: BaseException) -> dict | None:
    from kubelite.client.errors import ApiError

    cause = getattr(err, "cause", err)
    if isinstance(cause, ApiError):
        return cause.status
    return None


def _invalid_text(status: dict) -> str:
    details = status.get("details") or {}
    head = "The request is invalid"
    if not details:
        message = status.get("message") or ""
        return f"{head}: {message}" if message else head
    if details.get("kind") or details.get("name"):
        head = f'The {details.get("kind", "")} "{details.get("name", "")}" is invalid'
    elif status.get("message") and not details.get("causes"):
        head += ": " + status["message"]
    seen: list[str] = []
    for cause in details.get("causes") or []:
        line = f"{cause.get('field', '')}: {cause.get('message', '')}"
        if line not in seen:
            seen.append(line)
    if not seen:
        return head
    if len(seen) == 1:
        return f"{head}: {seen[0]}"
    return f"{head}: [" + ", ".join(seen) + "]"
