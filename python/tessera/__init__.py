"""tessera: versioned columnar datasets with vector, scalar and full-text indexes.

Start with :func:`tessera.create` or :func:`tessera.open`; docs/python.md is the guide.
"""

from __future__ import annotations

import pyarrow as _pyarrow  # noqa: F401 - loads the Arrow C++ libraries the module links

from . import _native  # noqa: F401
from ._arrow import vectors
from ._sql import Session, SqlStatus, sql
from .dataset import Dataset, Model, Segment, Version, create, open
from .errors import *  # noqa: F401,F403
from .errors import __all__ as _error_names

__version__ = "0.1.0"

__all__ = [
    "Dataset",
    "Model",
    "Segment",
    "Session",
    "SqlStatus",
    "Version",
    "create",
    "open",
    "sql",
    "vectors",
    *_error_names,
]
