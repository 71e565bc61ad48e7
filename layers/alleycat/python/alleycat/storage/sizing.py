"""DynamoDB's item size and capacity-unit rules, for tests and benchmarks (the benchmark sizes transactions and batch writes with them).

Size of an item = sum over attributes of (UTF-8 length of the name + size of the value):
strings by UTF-8 length, binaries by byte length, numbers by about 1 byte per two
significant digits plus 1, booleans and nulls 1 byte, lists and maps 3 bytes plus
1 byte per element plus their contents (names of map keys counted like attribute names).
A write unit covers 1 KB of item, a read unit 4 KB (strongly consistent; half that
for eventually consistent reads).
"""

from __future__ import annotations

import base64
import math
from decimal import Decimal


def _number_size(text: str) -> int:
    digits = Decimal(text).normalize().as_tuple().digits
    return (len(digits) + 1) // 2 + 1


def value_size(value: dict) -> int:
    (kind, inner), = value.items()
    if kind == "S":
        return len(inner.encode())
    if kind == "N":
        return _number_size(inner)
    if kind == "B":
        return len(base64.b64decode(inner)) if isinstance(inner, str) else len(inner)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "L":
        return 3 + sum(1 + value_size(v) for v in inner)
    if kind == "M":
        return 3 + sum(1 + len(k.encode()) + value_size(v) for k, v in inner.items())
    if kind == "NS":
        return sum(_number_size(v) for v in inner)
    if kind == "SS":
        return sum(len(v.encode()) for v in inner)
    raise ValueError(kind)


def item_size(item: dict) -> int:
    return sum(len(name.encode()) + value_size(value) for name, value in item.items())


def write_units(size: int) -> int:
    return max(1, math.ceil(size / 1024))


def read_units(size: int, consistent: bool = False) -> float:
    units = max(1, math.ceil(size / 4096))
    return units if consistent else units / 2
