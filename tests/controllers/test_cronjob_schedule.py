"""Cron schedules as the CronJob controller reads them (robfig/cron's standard parser)."""
from __future__ import annotations

import datetime

import pytest

from kubelite.server.controllers import cron_schedule as cron

UTC = datetime.timezone.utc


def at(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.mark.parametrize("spec,after,expected", [
    ("*/1 * * * *", "2026-11-24T09:57:28Z", "2026-11-24T09:58:00Z"),
    ("*/15 * * * *", "2026-11-24T09:57:28Z", "2026-11-24T10:00:00Z"),
    ("@hourly", "2026-11-24T09:57:28Z", "2026-11-24T10:00:00Z"),
    ("@daily", "2026-11-24T09:57:28Z", "2026-11-25T00:00:00Z"),
    ("@weekly", "2026-11-24T09:57:28Z", "2026-11-29T00:00:00Z"),  # a Sunday
    ("@monthly", "2026-11-24T09:57:28Z", "2026-12-01T00:00:00Z"),
    ("@yearly", "2026-11-24T09:57:28Z", "2027-01-01T00:00:00Z"),
    ("30 8 * * mon-fri", "2026-11-27T09:00:00Z", "2026-11-30T08:30:00Z"),  # Friday after 8:30 -> Monday
    ("0 0 13 * 5", "2026-11-24T00:00:00Z", "2026-11-27T00:00:00Z"),  # both day fields: either matches
    ("0 0 13 * *", "2026-11-24T00:00:00Z", "2026-12-13T00:00:00Z"),
    ("0 12 * JAN,jul SUN", "2026-11-24T00:00:00Z", "2027-01-03T12:00:00Z"),
    ("@every 90s", "2026-11-24T09:57:28Z", "2026-11-24T09:58:58Z"),
])
def test_next_activation(spec, after, expected):
    assert cron.parse(spec).next_after(at(after)) == at(expected)


def test_time_zone_moves_the_activation():
    berlin = cron.time_zone("Europe/Berlin")
    assert cron.parse("0 9 * * *").next_after(at("2026-11-24T07:00:00Z"), berlin) == at("2026-11-24T08:00:00Z")
    with pytest.raises(cron.ScheduleError):
        cron.time_zone("Mars/Olympus")


@pytest.mark.parametrize("spec", ["TZ=UTC 0 * * * *", "CRON_TZ=UTC 0 * * * *", "* * * *", "61 * * * *",
                                  "*/0 * * * *", "@fortnightly", "x * * * *"])
def test_bad_schedules_are_refused(spec):
    with pytest.raises(cron.ScheduleError):
        cron.parse(spec)


def test_missed_runs_are_counted_and_the_latest_taken():
    every_minute = cron.parse("* * * * *")
    last, missed = cron.schedule_times(every_minute, at("2026-11-24T09:00:00Z"), at("2026-11-24T09:05:30Z"), UTC)
    assert (last, missed) == (at("2026-11-24T09:05:00Z"), 5)
    last, missed = cron.schedule_times(every_minute, at("2026-11-20T00:00:00Z"), at("2026-11-24T09:05:30Z"), UTC)
    assert last == at("2026-11-24T09:05:00Z") and missed > 100
