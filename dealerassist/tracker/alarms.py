"""Open alarms of one table: raised by the tracker, cleared only by a supervisor (or by the system
when a device condition such as a link or the shoe's status goes back to normal)."""

from __future__ import annotations

from dataclasses import dataclass, field

from dealerassist.tracker.events import Alarm, AlarmCleared, AlarmCode, Severity


@dataclass
class AlarmBook:
    table: str
    open: dict[str, Alarm] = field(default_factory=dict)
    raised: int = 0
    conditions: dict[str, str] = field(default_factory=dict)

    def raise_alarm(
        self, code: AlarmCode, severity: Severity, message: str, round_id: int | None, condition: str = ""
    ) -> Alarm:
        """A new alarm with an id that is the same on every replay of the same inputs."""
        self.raised += 1
        alarm = Alarm(
            table=self.table,
            alarm_id=f"{self.table}:A{self.raised}",
            code=code,
            severity=severity,
            message=message,
            round_id=round_id,
        )
        self.open[alarm.alarm_id] = alarm
        if condition:
            self.conditions[condition] = alarm.alarm_id
        return alarm

    def has_condition(self, condition: str) -> bool:
        return condition in self.conditions

    def clear(self, alarm_id: str, user: str, reason: str) -> AlarmCleared:
        alarm = self.open.pop(alarm_id)
        for name, held in list(self.conditions.items()):
            if held == alarm_id:
                del self.conditions[name]
        return AlarmCleared(
            table=self.table,
            alarm_id=alarm_id,
            code=alarm.code,
            user=user,
            reason=reason,
            round_id=alarm.round_id,
        )

    def clear_condition(self, condition: str, reason: str) -> list[AlarmCleared]:
        """The device condition behind an alarm is over: the system clears it."""
        alarm_id = self.conditions.get(condition)
        if alarm_id is None:
            return []
        return [self.clear(alarm_id, "system", reason)]
