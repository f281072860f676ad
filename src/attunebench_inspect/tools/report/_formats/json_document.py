"""The report as one JSON document: the report object itself (every dataclass as an object,
floats to 6 decimals, NaN and infinities as null), keys sorted, so that the same logs give the
same bytes."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else round(value, 6)
    return value


def json_text(report: Any) -> str:
    return json.dumps(_jsonable(report), indent=1, sort_keys=True, allow_nan=False) + "\n"
