"""Best writes of a class are paced across invocations, not per invocation."""

from alleycat.rules.pacing import BEST_WRITES_PER_SECOND
from alleycat.stream.pacing import ClassPacer


class FakeTime:
    """One clock shared by two 'invocations'; sleeping moves it on."""

    def __init__(self):
        self.now = 1_800_000_000.0
        self.starts: list[float] = []

    def sleep(self, seconds):
        self.now += seconds


def test_two_invocations_settling_races_of_one_class_share_its_best_write_rate(table):
    # Given two invocations, each settling a 300-racer race of the same class at the same moment
    clock = FakeTime()
    pacers = [ClassPacer("hill", 300, clock=lambda: clock.now, sleep=clock.sleep) for _ in range(2)]
    # When they interleave their Best writes
    for _ in range(300):
        for pacer in pacers:
            pacer.wait()
            clock.starts.append(clock.now)
    # Then over both, no second sees more than the class's rate
    starts = sorted(clock.starts)
    assert len(starts) == 600
    window = [sum(1 for t in starts if s <= t < s + 1) for s in starts]
    assert max(window) <= BEST_WRITES_PER_SECOND
    # and the writes were not slowed below it either (they took about 600 / rate seconds)
    assert starts[-1] - starts[0] < 600 / BEST_WRITES_PER_SECOND + 0.5
