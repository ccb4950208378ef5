"""What an export folder holds that is the export's own (issue 28 item 8).

``plumbline export --out DIR`` writes into a folder that other programs may also write to; it
must not write outside it nor delete what it did not write. So the folder is the export's only
when it is empty or holds its state file (``_plumbline_export.json``); nothing under it may be a
symbolic link (a linked subfolder would take the files elsewhere); the state file lists every
file the export wrote, and the export removes or replaces only files so listed. A state file of an
export made before files were listed owns the files of its layout (``part-*`` files of the table
folders).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from plumbline.export.errors import ExportError


class Ownership:
    """The files an export of ``out`` owns: those its state lists, and those it writes now."""

    def __init__(self, out: Path, listed: Iterable[str]) -> None:
        self.out = out
        self._owned = set(listed)

    @classmethod
    def of_folder(
        cls, out: Path, state_file: str, state: dict[str, object] | None, tables: Iterable[str]
    ) -> Ownership:
        """The ownership of ``out`` as found: raises :class:`ExportError` for a non-empty folder
        without ``state_file``, or a symbolic link under it."""
        present = _walk(out)
        if present and not (out / state_file).is_file():
            raise ExportError(
                f"{out} is not empty and holds no {state_file}: it is not a plumbline export "
                "folder (give an empty or new folder)"
            )
        if state is None:
            return cls(out, ())
        files = state.get("files")
        if isinstance(files, list) and all(isinstance(f, str) for f in files):
            return cls(out, files)
        folders = tuple(f"{table}/" for table in tables)  # an export before files were listed
        return cls(
            out,
            (f for f in present if f.startswith(folders) and Path(f).name.startswith("part-")),
        )

    def _name(self, path: Path) -> str:
        return path.relative_to(self.out).as_posix()

    def owns(self, path: Path) -> bool:
        """Whether ``path`` is the export's own."""
        return self._name(path) in self._owned

    def claim(self, path: Path) -> None:
        """``path`` is about to be written: raises :class:`ExportError` when a file there is not
        the export's (it is left as it is); else it is the export's from now on."""
        name = self._name(path)
        if name not in self._owned and (path.exists() or path.is_symlink()):
            raise ExportError(f"{path} was not written by plumbline export: move it away")
        if _linked(self.out, path.parent):
            raise ExportError(f"{path.parent} is a symbolic link: the export writes no file there")
        self._owned.add(name)

    def remove(self, path: Path) -> bool:
        """Remove ``path`` when it is the export's own (else leave it); whether it was."""
        name = self._name(path)
        if name not in self._owned:
            return False
        self._owned.discard(name)
        if path.is_file() and not path.is_symlink():
            path.unlink()
            return True
        return False

    def remove_folder(self, folder: Path) -> bool:
        """Remove the export's files under ``folder``, then the folder if that left it empty;
        whether any file was removed."""
        prefix = self._name(folder) + "/"
        removed = False
        for name in sorted(n for n in self._owned if n.startswith(prefix)):
            removed = self.remove(self.out / name) or removed
        try:
            folder.rmdir()
        except OSError:  # not empty (another program's files), or gone
            pass
        return removed

    def files(self) -> list[str]:
        """What the state file lists: the export's files that are there."""
        return sorted(n for n in self._owned if (self.out / n).is_file())


def _walk(out: Path) -> list[str]:
    """Every file under ``out`` (relative, POSIX); raises :class:`ExportError` at a symbolic
    link."""
    if not out.exists():
        return []
    found: list[str] = []
    for root, folders, files in os.walk(out, followlinks=False):
        for name in (*folders, *files):
            path = Path(root, name)
            if path.is_symlink():
                raise ExportError(
                    f"{path} is a symbolic link: an export folder holds none (the export would "
                    "write or delete through it)"
                )
        found += [Path(root, name).relative_to(out).as_posix() for name in files]
    return found


def _linked(out: Path, folder: Path) -> bool:
    """Whether ``folder`` or a folder between it and ``out`` is a symbolic link now."""
    while folder != out and out in folder.parents:
        if folder.is_symlink():
            return True
        folder = folder.parent
    return False
