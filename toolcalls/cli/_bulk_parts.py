"""Where ``parse --jsonl`` keeps its work until the output is whole, so a run can resume.

Each batch is written to its own part file in ``OUT.parts/`` (``part-00000042.parquet``),
written under a temporary name and renamed, so a part either exists whole or not at all: a
Parquet file cut off by a crash has no footer and cannot be read, and one file written as the
run goes could not be resumed. ``job.json`` beside the parts records what the run was (input
file, its size and modification time, batch size, options); ``--resume`` skips the batches
whose part exists, and only for the same job. When every batch is written, the parts are
joined into OUT in order (one part in memory at a time) and the folder is removed.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from ._bulk_arrow import join_parquet, write_parquet
from ._input import InputError

__all__ = ["Parts"]


class Parts:
    """The part files of one output."""

    def __init__(self, out: Path, suffix: str) -> None:
        self.out, self.suffix = out, suffix
        self.folder = out.with_name(out.name + ".parts")

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

    def join(self, count: int) -> None:
        """OUT from parts 0 to `count - 1`; then the folder is gone."""
        parts = [self._path(index) for index in range(count)]
        joined = self.out.with_name(self.out.name + ".partial")
        if self.suffix == ".parquet":
            join_parquet(parts, joined)
        else:
            with joined.open("wb") as target:
                for part in parts:
                    with part.open("rb") as source:
                        shutil.copyfileobj(source, target)
        os.replace(joined, self.out)
        shutil.rmtree(self.folder)

    def _path(self, index: int) -> Path:
        return self.folder / f"part-{index:08d}{self.suffix}"

    def _index(self, path: Path) -> int:
        return int(path.name.removeprefix("part-").removesuffix(self.suffix))
