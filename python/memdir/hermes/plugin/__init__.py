"""The memdir memory provider's Hermes plugin folder.

Copied or linked into ``$HERMES_HOME/plugins/memdir`` (``python -m
memdir.hermes install``) it is found by Hermes's memory-provider discovery,
and ``memory.provider: memdir`` in ``config.yaml`` turns it on. The same
module is the ``hermes_agent.plugins`` entry point of the ``memdir``
package. It needs the ``memdir`` package installed in Hermes's Python.
"""

import logging

from memdir.hermes import MemdirMemoryProvider

__all__ = ["MemdirMemoryProvider", "register"]


def register(ctx) -> None:
    """Registers memdir as a memory provider: ``ctx.register_memory_provider``.

    A plugin context that takes no memory provider (Hermes's general plugin
    loader, which loads the entry point when ``plugins.enabled`` names it)
    gets nothing: memory providers are chosen by ``memory.provider`` from
    the plugin folder, so this says how to install it instead of failing."""
    add = getattr(ctx, "register_memory_provider", None)
    if callable(add):
        add(MemdirMemoryProvider())
        return
    logging.getLogger("memdir.hermes").info(
        "memdir: Hermes chooses memory providers by memory.provider; run "
        "`python -m memdir.hermes install` and set memory.provider: memdir"
    )
