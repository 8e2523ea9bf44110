"""Aggregated progress of a sweep's shards: the board (a Ray actor) that the shards report
to, the snapshot the driver reads from it, the one-line display and the records for a
program that follows the sweep."""
from __future__ import annotations

import dataclasses
import json
import sys
import time
from typing import Callable, List, Optional, TextIO


@dataclasses.dataclass
class ShardProgress:
    """One shard of a sweep, as last reported.

    Attributes:
        index: the shard's K (0 <= K < N).
        out_file: the shard's file.
        state: "pending" (not started), "running", "done" or "failed" (its last attempt
            raised; a worker that died is seen only when Ray retries the task).
        attempt: how many times the shard's task has started (1 for a run without a
            retry).
        steps_done, steps_total: the shard's batch steps done and planned (a resumed
            attempt starts at its checkpoint's step).
        resumed: the current attempt continues from a checkpoint of an earlier one.
        pid, node: the process and the Ray node (IP address) running the current attempt.
    """

    index: int
    out_file: str = ""
    state: str = "pending"
    attempt: int = 0
    steps_done: int = 0
    steps_total: int = 0
    resumed: bool = False
    pid: int = 0
    node: str = ""


@dataclasses.dataclass
class SweepProgress:
    """Where a sweep stands: every shard's ShardProgress, and the totals.

    Attributes:
        shards: one ShardProgress per shard, by index.
        elapsed_s: [s] since the sweep's tasks were submitted.
    """

    shards: List[ShardProgress]
    elapsed_s: float = 0.0

    @property
    def steps_done(self) -> int:
        """Batch steps done, summed over the shards (a shard that is not running yet counts 0)."""
        return sum(s.steps_total if s.state == "done" else s.steps_done for s in self.shards)

    @property
    def steps_total(self) -> int:
        """Batch steps of every shard that has reported (each shard runs the scene's whole duration)."""
        return sum(s.steps_total for s in self.shards)

    @property
    def fraction(self) -> float:
        """Done fraction in [0, 1]; the shards that have not reported count as not started."""
        known = [s for s in self.shards if s.steps_total > 0]
        if not known:
            return 0.0
        per = [1.0 if s.state == "done" else s.steps_done / s.steps_total for s in known]
        return sum(per) / len(self.shards)

    @property
    def retries(self) -> int:
        """Task starts beyond the first of each shard (attempts after a failure)."""
        return sum(max(0, s.attempt - 1) for s in self.shards)

    def line(self) -> str:
        """One line: "sweep 45% | shards 1 done, 2 running, 1 pending of 4 | retries 1 | 12 s"."""
        count = {k: sum(s.state == k for s in self.shards) for k in ("done", "running", "pending", "failed")}
        parts = [f"{count[k]} {k}" for k in ("done", "running", "pending", "failed") if count[k] or k == "done"]
        text = f"sweep {100.0 * self.fraction:3.0f}% | shards {', '.join(parts)} of {len(self.shards)}"
        if self.retries:
            text += f" | retries {self.retries}"
        f = self.fraction
        eta = f" | ETA {self.elapsed_s * (1 - f) / f:.0f} s" if 0.02 < f < 1 else ""
        return text + f" | {self.elapsed_s:.0f} s" + eta


class ProgressBoard:
    """The shards' reports, kept by one Ray actor (wrapped with ray.remote by the driver).
    Each shard task calls start() when an attempt begins and report() from the job's
    progress hook; the driver reads snapshot()."""

    def __init__(self, files: List[str]) -> None:
        self._shards = [ShardProgress(index=k, out_file=f) for k, f in enumerate(files)]

    def start(self, index: int, pid: int, node: str, resumed: bool) -> None:
        """An attempt of shard `index` begins."""
        s = self._shards[index]
        s.attempt += 1
        s.state, s.pid, s.node, s.resumed = "running", pid, node, resumed
        s.steps_done = 0

    def report(self, index: int, steps_done: int, steps_total: int) -> None:
        s = self._shards[index]
        s.steps_done, s.steps_total = steps_done, steps_total

    def finish(self, index: int, ok: bool) -> None:
        s = self._shards[index]
        s.state = "done" if ok else "failed"
        if ok:
            s.steps_done = s.steps_total

    def snapshot(self) -> List[ShardProgress]:
        return [dataclasses.replace(s) for s in self._shards]


class ProgressPrinter:
    """Writes SweepProgress.line() to a stream: rewritten in place on a terminal, else a
    new line at most every `interval_s` seconds (and the last one)."""

    takes_final = True  # called with final=True once, after the last shard

    def __init__(self, stream: Optional[TextIO] = None, interval_s: float = 5.0) -> None:
        self._stream = stream or sys.stderr
        self._tty = bool(getattr(self._stream, "isatty", lambda: False)())
        self._interval_s = interval_s
        self._last = -float("inf")
        self._text = ""

    def __call__(self, p: SweepProgress, final: bool = False) -> None:
        text = p.line()
        now = time.monotonic()
        if self._tty:
            pad = " " * max(0, len(self._text) - len(text))
            self._stream.write("\r" + text + pad + ("\n" if final else ""))
        elif final or now - self._last >= self._interval_s:
            self._stream.write(text + "\n")
            self._last = now
        self._text = text
        self._stream.flush()




class ProgressRecords:
    """Appends the sweep's progress to a file, one JSON object a line, as `simphant run
    --progress-file` does (README "Command line"): steps_done, steps_total, progress
    (0..1), eta_s (the rest at the rate so far), wall_s, and the shards done, running,
    pending and failed; at most one every `interval_s` seconds, and the last one."""

    takes_final = True

    def __init__(self, path: str, interval_s: float = 0.25) -> None:
        self._file = open(path, "a", encoding="utf-8")
        self._interval_s = interval_s
        self._last = -float("inf")

    def __call__(self, p: SweepProgress, final: bool = False) -> None:
        now = time.monotonic()
        if not final and now - self._last < self._interval_s:
            return
        self._last = now
        f = p.fraction
        record = {"steps_done": p.steps_done, "steps_total": p.steps_total, "progress": f,
                  "eta_s": p.elapsed_s * (1.0 - f) / f if f > 0 else 0.0, "wall_s": p.elapsed_s}
        for state in ("done", "running", "pending", "failed"):
            record[f"shards_{state}"] = sum(s.state == state for s in p.shards)
        self._file.write(json.dumps(record) + "\n")
        self._file.flush()
        if final:
            self._file.close()


class ProgressFanout:
    """Passes each SweepProgress to several displays (ProgressPrinter, ProgressRecords)."""

    takes_final = True

    def __init__(self, *sinks: Callable[..., None]) -> None:
        self._sinks = sinks

    def __call__(self, p: SweepProgress, final: bool = False) -> None:
        for sink in self._sinks:
            sink(p, final=final)