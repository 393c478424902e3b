"""Where ``parse --jsonl`` keeps its work until the output is whole, so a run can resume.

Each batch is written to its own part file in ``OUT.parts/`` (``part-00000042.parquet``),
written under a temporary name and renamed, so a part either exists whole or not at all: a
Parquet file cut off by a crash has no footer and cannot be read, and one file written as the
run goes could not be resumed. ``job.json`` beside the parts records what the run was (input
file, its size and modification time, batch size, options); ``--resume`` skips the batches
whose part exists, and only for the same job.

OUT is built as the run goes: each part is appended to ``OUT.partial`` as soon as every part
before it is (one part in memory at a time), so the join overlaps the parsing instead of
following it (a join after the run kept 2 workers at 1.72x of 1 at 1M rows); once the last
part is in, ``OUT.partial`` becomes OUT and the folder is removed. A run stopped part-way
leaves the parts, and ``--resume`` joins them again from the first.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import IO, Any

from ._bulk_arrow import ParquetJoin, write_parquet
from ._input import InputError

__all__ = ["Parts"]


class Parts:
    """The part files of one output, and OUT joined from them in order."""

    def __init__(self, out: Path, suffix: str) -> None:
        self.out, self.suffix = out, suffix
        self.folder = out.with_name(out.name + ".parts")
        self._joined = out.with_name(out.name + ".partial")
        self._target: ParquetJoin | IO[bytes] | None = None
        self._next = 0  # the first part not yet in OUT.partial
        self._waiting: set[int] = set()  # parts written ahead of it

    def start(self, job: dict[str, Any], resume: bool) -> set[int]:
        """Prepare the folder; the batches already written (none unless `resume`)."""
        manifest = self.folder / "job.json"
        if self.folder.exists() and not resume:
            raise InputError(f"{str(self.folder)!r} holds an earlier run's batches: run again "
                             "with --resume to finish it, or delete the folder to start anew")
        if resume and manifest.exists():
            earlier = json.loads(manifest.read_text(encoding="utf-8"))
            changed = sorted(key for key in job.keys() | earlier.keys()
                             if job.get(key) != earlier.get(key))
            if changed:
                raise InputError(f"--resume: the earlier run in {str(self.folder)!r} differs in "
                                 f"{', '.join(changed)}: rerun it as it was, or delete the folder")
            return {self._index(path) for path in self.folder.glob(f"part-*{self.suffix}")}
        self.folder.mkdir(parents=True, exist_ok=True)
        manifest.write_text(json.dumps(job, indent=1), encoding="utf-8")
        return set()

    def write(self, index: int, data: Any) -> None:
        """Batch `index`'s output, whole or not at all."""
        final = self._path(index)
        partial = final.with_name(final.name + ".partial")
        if self.suffix == ".parquet":
            write_parquet(data, partial)
        else:
            partial.write_bytes(data)
        os.replace(partial, final)

    def ready(self, index: int) -> None:
        """Part `index` is written (now or by an earlier run): append it to OUT.partial, with
        the parts after it that were waiting for it."""
        self._waiting.add(index)
        while self._next in self._waiting:
            self._waiting.remove(self._next)
            self._append(self._path(self._next))
            self._next += 1

    def finish(self, count: int) -> None:
        """OUT.partial holds parts 0 to `count - 1`: it becomes OUT; the folder is removed."""
        if self._next != count:
            raise RuntimeError(f"{count - self._next} of {count} parts were not joined")
        self._close()
        os.replace(self._joined, self.out)
        shutil.rmtree(self.folder)

    def abandon(self) -> None:
        """The run stopped: OUT.partial goes, the parts stay for --resume."""
        self._close()
        self._joined.unlink(missing_ok=True)

    def _append(self, part: Path) -> None:
        if self._target is None:
            self._target = (ParquetJoin(self._joined) if self.suffix == ".parquet"
                            else self._joined.open("wb"))
        if isinstance(self._target, ParquetJoin):
            self._target.append(part)
        else:
            with part.open("rb") as source:
                shutil.copyfileobj(source, self._target)

    def _close(self) -> None:
        if self._target is not None:
            self._target.close()
            self._target = None

    def _path(self, index: int) -> Path:
        return self.folder / f"part-{index:08d}{self.suffix}"

    def _index(self, path: Path) -> int:
        return int(path.name.removeprefix("part-").removesuffix(self.suffix))
