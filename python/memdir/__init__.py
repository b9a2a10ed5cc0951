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
from .client import Memory
from .errors import CODES, MemdirError, TransportError, UnsupportedOperation, error_class, error_from

__version__ = "0.1.0"

# The exception of every code (MemoryOverBudget, NotReady, …) as
# ``memdir.<Class>``, beside ``memdir.errors.<Class>``.
for _name in errors.__all__:
    globals()[_name] = getattr(errors, _name)
del _name

__all__ = ["Memory", "__version__", "errors"] + list(errors.__all__)
