import threading
import time

import pytest

from alleycat.storage import parallel


def test_every_item_runs_before_the_first_error_is_raised():
    # Given a batch whose first request fails at once while the others take a moment (a chunk's
    # write throttled beside other racers' writes that went through)
    ran = []
    lock = threading.Lock()

    def write(item):
        if item == 0:
            raise RuntimeError("throttled")
        time.sleep(0.002)
        with lock:
            ran.append(item)
        return item

    # When they run side by side on fewer workers than items
    with pytest.raises(RuntimeError, match="throttled"):
        parallel.map_all(write, range(40), workers=2)
    # Then every other item still ran (a retry's answer counts on what went through), none cancelled
    assert sorted(ran) == list(range(1, 40))


def test_results_come_back_in_the_items_order():
    assert parallel.map_all(lambda item: item * 2, [3, 1, 2], workers=3) == [6, 2, 4]
    assert parallel.outcomes(lambda key, value: 1 / value, {"a": 1, "b": 0})["b"].__class__ is ZeroDivisionError
