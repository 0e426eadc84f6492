"""Query-time matrix products on one BLAS thread (issue 15).

One query's product (chunks × dimension by one vector) is far too small to
share: waking BLAS's other threads costs more than the product, and on a busy
machine a 10k × 384 product took 27 ms with OpenBLAS's default threads and
1.4 ms on one (median, 2 cores). Only these products are limited; embedding
batches keep every thread.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["one_blas_thread"]

_LOCK = threading.Lock()


@functools.cache
def _controller() -> Any:
    from threadpoolctl import (  # type: ignore[import-untyped]  # noqa: PLC0415
        ThreadpoolController,  # imported with the first vector query only
    )

    return ThreadpoolController()


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the block with BLAS limited to one thread (restored afterwards). The limit
    is process-wide, so concurrent queries take turns setting and restoring it."""
    with _LOCK, _controller().limit(limits=1, user_api="blas"):
        yield
