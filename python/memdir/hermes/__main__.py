"""``python -m memdir.hermes install [--link] [--hermes-home DIR]``: puts the
memdir plugin folder into ``$HERMES_HOME/plugins/memdir`` (a copy, or with
``--link`` a symbolic link to the installed package's folder, which follows
upgrades of the package), and says which it did. ``status`` prints what
the provider would use and the writes memdir refused."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import List, Optional

from ._config import _hermes_home

PLUGIN_FILES = ("__init__.py", "plugin.yaml")


def plugin_source() -> Path:
    """The plugin folder inside the installed package."""
    return Path(__file__).resolve().parent / "plugin"


def _is_ours(path: Path) -> bool:
    """A folder or link an earlier install put there (its manifest names
    memdir), which an install may replace."""
    manifest = path / "plugin.yaml"
    try:
        return manifest.is_file() and any(
            line.strip() == "name: memdir" for line in manifest.read_text(encoding="utf-8").splitlines()[:5]
        )
    except OSError:
        return False


def install(hermes_home: Optional[str] = None, *, link: bool = False, force: bool = False) -> str:
    """Installs the plugin folder; returns the sentence saying what was done."""
    src = plugin_source()
    for name in PLUGIN_FILES:
        if not (src / name).is_file():
            raise SystemExit(f"memdir: the package's plugin folder {src} lacks {name}; reinstall memdir")
    plugins = _hermes_home(hermes_home) / "plugins"
    plugins.mkdir(parents=True, exist_ok=True)
    dest = plugins / "memdir"
    replaced = False
    if dest.is_symlink() or dest.exists():
        if not (force or _is_ours(dest)):
            raise SystemExit(
                f"memdir: {dest} exists and is not memdir's plugin; move it away or pass --force"
            )
        if dest.is_symlink() or dest.is_file():
            dest.unlink()
        else:
            shutil.rmtree(dest)
        replaced = True
    if link:
        os.symlink(src, dest, target_is_directory=True)
        what = f"linked {dest} -> {src}"
    else:
        tmp = Path(tempfile.mkdtemp(prefix=".memdir-", dir=plugins))
        for name in PLUGIN_FILES:
            shutil.copy2(src / name, tmp / name)
        os.replace(tmp, dest)
        what = f"copied the plugin folder to {dest}"
    if replaced:
        what += " (replacing the earlier one)"
    return what + "; set `memory.provider: memdir` in " + str(_hermes_home(hermes_home) / "config.yaml")


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memdir.hermes", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p_install = sub.add_parser("install", help="put the plugin folder into $HERMES_HOME/plugins/memdir")
    p_install.add_argument("--link", action="store_true", help="link to the installed package instead of copying")
    p_install.add_argument("--hermes-home", metavar="DIR", help="Hermes's home (default: $HERMES_HOME, else ~/.hermes)")
    p_install.add_argument("--force", action="store_true", help="replace a folder at the destination that is not memdir's")
    p_status = sub.add_parser("status", help="the settings in force and the writes memdir refused")
    p_status.add_argument("--hermes-home", metavar="DIR")
    args = parser.parse_args(argv)
    if args.command == "install":
        print(install(args.hermes_home, link=args.link, force=args.force))
        return 0
    if args.hermes_home:
        os.environ["HERMES_HOME"] = str(Path(args.hermes_home).expanduser())
    from . import MemdirMemoryProvider

    provider = MemdirMemoryProvider()
    provider._hermes_home = str(_hermes_home(args.hermes_home))
    print(json.dumps(provider.get_status_config(), indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
