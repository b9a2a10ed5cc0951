"""memdir for Python: an owner's file-backed markdown memory, through the
``memdir`` binary or a ``memdir serve`` server.

    from memdir import Memory
    mem = Memory(root="~/memory", owner="agt_claude")
    mem.add("The staging deploy needs the VPN on")
    print(mem.snapshot()["text"])

Errors are exceptions of memdir's codes (``memdir.errors``), with ``code``
and ``hint``.
"""

from . import errors
from ._transport import binary
from .client import Memory
from .errors import CODES, MemdirError, TransportError, UnsupportedOperation, error_class, error_from


def _version() -> str:
    """The installed distribution's version (its metadata): the Cargo
    workspace's version, the one place it is written (the wheel's, through
    maturin; ``pip install ./python``'s, through python/pyproject.toml's
    copy, which tests/it/wheel.rs holds equal to it). ``0+unknown`` when the
    package runs from a source tree that is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("memdir")
    except PackageNotFoundError:
        return "0+unknown"


__version__ = _version()

# The exception of every code (MemoryOverBudget, NotReady, …) as
# ``memdir.<Class>``, beside ``memdir.errors.<Class>``.
for _name in errors.__all__:
    globals()[_name] = getattr(errors, _name)
del _name

__all__ = ["Memory", "__version__", "binary", "errors"] + list(errors.__all__)
