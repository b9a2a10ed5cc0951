"""The provider's settings: where Hermes keeps them (``$HERMES_HOME``), and
reading and writing ``memdir.json`` there (never the key, which Hermes keeps
in ``.env`` as ``MEMDIR_KEY``)."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any, Dict, Mapping, Optional

logger = logging.getLogger("memdir.hermes")

#: The provider's settings, in ``$HERMES_HOME``.
CONFIG_FILE = "memdir.json"
#: What is read of one of Hermes's own memory files (and of the settings).
MAX_HERMES_FILE = 1024 * 1024


def _hermes_home(explicit: Optional[str] = None) -> Path:
    if explicit:
        return Path(explicit).expanduser()
    try:
        from hermes_constants import get_hermes_home

        return Path(get_hermes_home())
    except Exception:
        env = os.environ.get("HERMES_HOME")
        return Path(env).expanduser() if env else Path.home() / ".hermes"


def load_config(hermes_home: Optional[str] = None) -> Dict[str, Any]:
    """The saved settings (``$HERMES_HOME/memdir.json``), or ``{}``."""
    path = _hermes_home(hermes_home) / CONFIG_FILE
    try:
        if path.is_symlink() or not path.is_file():
            return {}
        with open(path, "rb") as f:
            raw = f.read(MAX_HERMES_FILE + 1)
        if len(raw) > MAX_HERMES_FILE:
            logger.warning("memdir: %s is over %d bytes; ignored", path, MAX_HERMES_FILE)
            return {}
        data = json.loads(raw.decode("utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError) as e:
        logger.warning("memdir: cannot read %s: %s", path, e)
        return {}


def _parse_owners(value: Any) -> Dict[str, str]:
    """The owner mapping: a dict, or ``identity=owner`` pairs separated by
    commas (the setup wizard's text field)."""
    if isinstance(value, Mapping):
        return {str(k).strip(): str(v).strip() for k, v in value.items() if str(k).strip() and str(v).strip()}
    out: Dict[str, str] = {}
    if isinstance(value, str):
        for pair in value.split(","):
            if "=" in pair:
                k, v = pair.split("=", 1)
                if k.strip() and v.strip():
                    out[k.strip()] = v.strip()
    return out


def save_config(values: Mapping[str, Any], hermes_home: str) -> Path:
    """Writes the non-secret settings to ``$HERMES_HOME/memdir.json`` (mode
    0600, atomically), merged over what is there. The key is never written
    here: Hermes keeps it in ``.env`` as ``MEMDIR_KEY``."""
    home = Path(hermes_home)
    home.mkdir(parents=True, exist_ok=True)
    path = home / CONFIG_FILE
    current = load_config(str(home))
    for k, v in dict(values or {}).items():
        if k == "key":
            continue
        if k == "owners":
            v = _parse_owners(v)
        if isinstance(v, str):
            v = v.strip()
        if v in ("", None):
            current.pop(k, None)
        else:
            current[k] = v
    tmp = home / f".{CONFIG_FILE}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(current, f, indent=2, sort_keys=True)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path
