"""CronJob schedules: the standard 5 fields (minute hour day-of-month month day-of-week, with
names, ranges, steps, `*` and `?`), the macros @yearly @annually @monthly @weekly @daily
@midnight @hourly and `@every <duration>`, evaluated in a time zone (zoneinfo).

As the CronJob controller reads them: when both day fields are restricted a day matching either
is taken; when one of them is `*` (or `?`) both must match. `TZ=`/`CRON_TZ=` prefixes are refused
(the API refuses them too: the time zone belongs in `spec.timeZone`).
"""
from __future__ import annotations

import datetime
import re

from kubelite.record import Record

UTC = datetime.timezone.utc
MACROS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
          "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *"}
MONTHS = {n: i + 1 for i, n in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split())}
DAYS = {n: i for i, n in enumerate("sun mon tue wed thu fri sat".split())}
_BOUNDS = [(0, 59, {}), (0, 23, {}), (1, 31, {}), (1, 12, MONTHS), (0, 6, DAYS)]
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_UNIT = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}


class ScheduleError(ValueError):
    pass


class Schedule(Record):
    minutes: frozenset
    hours: frozenset
    days: frozenset
    months: frozenset
    weekdays: frozenset
    day_star: bool
    weekday_star: bool
    every: float | None = None  # seconds, for @every

    def next_after(self, moment: datetime.datetime, tz: datetime.tzinfo = UTC) -> datetime.datetime | None:
        """The first activation strictly after `moment` (an aware datetime), as an aware UTC time."""
        if self.every is not None:
            step = max(1.0, round(self.every))
            return (moment.astimezone(UTC).replace(microsecond=0) + datetime.timedelta(seconds=step))
        local = moment.astimezone(tz).replace(second=0, microsecond=0, tzinfo=None) + datetime.timedelta(minutes=1)
        day = local.date()
        for _ in range(366 * 5):  # schedules that never match (Feb 30) end after five years
            if day.month in self.months and self._day_matches(day):
                for hour in sorted(self.hours):
                    for minute in sorted(self.minutes):
                        candidate = datetime.datetime(day.year, day.month, day.day, hour, minute)
                        if candidate >= local:
                            return candidate.replace(tzinfo=tz).astimezone(UTC)
            day += datetime.timedelta(days=1)
        return None

    def _day_matches(self, day: datetime.date) -> bool:
        dom = day.day in self.days
        dow = (day.isoweekday() % 7) in self.weekdays
        if self.day_star or self.weekday_star:
            return dom and dow
        return dom or dow


def parse(text: str) -> Schedule:
    spec = (text or "").strip()
    if spec.startswith(("TZ=", "CRON_TZ=")):
        raise ScheduleError("cannot use TZ or CRON_TZ in schedule, use timeZone field instead")
    if spec.startswith("@every "):
        return Schedule(*(frozenset(),) * 5, False, False, every=_duration(spec[len("@every "):].strip()))
    spec = MACROS.get(spec.lower(), spec) if spec.startswith("@") else spec
    if spec.startswith("@"):
        raise ScheduleError(f"unrecognized descriptor: {spec}")
    fields = spec.split()
    if len(fields) != 5:
        raise ScheduleError(f"expected exactly 5 fields, found {len(fields)}: {spec}")
    sets = [_field(f, *bounds) for f, bounds in zip(fields, _BOUNDS)]
    weekdays = set(sets[4])
    if 7 in weekdays:
        weekdays.discard(7)
        weekdays.add(0)
    return Schedule(frozenset(sets[0]), frozenset(sets[1]), frozenset(sets[2]), frozenset(sets[3]),
                    frozenset(weekdays), fields[2][0] in "*?", fields[4][0] in "*?")


def _field(text: str, lo: int, hi: int, names: dict) -> set[int]:
    out: set[int] = set()
    for part in text.split(","):
        rng, _, step_text = part.partition("/")
        step = _number(step_text, names) if step_text else 1
        if step <= 0:
            raise ScheduleError(f"step of range should be a positive number: {part}")
        if rng in ("*", "?"):
            first, last = lo, hi
        else:
            a, dash, b = rng.partition("-")
            first = _number(a, names)
            last = _number(b, names) if dash else (hi if step_text else first)
        if first < lo or last > hi + (1 if hi == 6 else 0) or first > last:
            raise ScheduleError(f"value out of range ({lo} - {hi}): {part}")
        out.update(range(first, last + 1, step))
    return out


def _number(text: str, names: dict) -> int:
    key = text.lower()
    if key in names:
        return names[key]
    if not text.isdigit():
        raise ScheduleError(f"failed to parse int from {text}")
    return int(text)


def _duration(text: str) -> float:
    pos, total = 0, 0.0
    for m in _DURATION.finditer(text):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNIT[m.group(2)]
        pos = m.end()
    if pos != len(text) or not text:
        raise ScheduleError(f"failed to parse duration @every {text}")
    return total


def time_zone(name: str | None) -> datetime.tzinfo:
    if not name:
        return UTC
    import zoneinfo  # here: only a CronJob with a time zone needs it (~2 ms of every embedded command)

    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as err:
        raise ScheduleError(f"unknown time zone {name}") from err


def schedule_times(schedule: Schedule, earliest: datetime.datetime, now: datetime.datetime,
                   tz: datetime.tzinfo) -> tuple[datetime.datetime | None, int]:
    """The most recent activation in (earliest, now] and how many there were (missed runs)."""
    count, last = 0, None
    t = schedule.next_after(earliest, tz)
    while t is not None and t <= now:
        count += 1
        last = t
        if count > 100:
            # Far behind: jump close to `now` by the schedule's period, then walk the rest.
            t2 = schedule.next_after(t, tz)
            period = (t2 - t).total_seconds() if t2 else 0
            if period > 0:
                skip = int((now - t).total_seconds() // period) - 1
                if skip > 0:
                    count += skip
                    t = t + datetime.timedelta(seconds=skip * period)
                    t = schedule.next_after(t - datetime.timedelta(seconds=1), tz)
                    last = t if t and t <= now else last
                    while t is not None and t <= now:
                        last = t
                        t = schedule.next_after(t, tz)
                        if t is not None and t <= now:
                            count += 1
                    return last, count
        t = schedule.next_after(t, tz)
    return last, count
