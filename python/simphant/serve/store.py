"""The job queue in SQLite (docs/service.md, "Queue"): one row per job, written at every
state transition, so that a restarted service finds every job as it was.

States are OGC API - Processes' (queued, running, successful, failed, dismissed). The
database runs in WAL mode with synchronous=NORMAL: a committed transition survives the
process being killed (SIGKILL); a power loss may lose the last transitions (SQLite,
"Write-Ahead Logging"). One connection serialised by a lock: the service's statements
are short. An exclusive flock(2) on the database file itself keeps a second service off
it, under any name: a symbolic or hard link reaches the same file and so the same lock
(SQLite's own locks are POSIX record locks, which flock does not touch on Linux).
"""
from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import threading
import time
from typing import Any, Dict, List, Optional

QUEUED, RUNNING, SUCCESSFUL, FAILED, DISMISSED = "queued", "running", "successful", "failed", "dismissed"
#: The stages of a running job (column `stage`; '' when it is not running): its
#: `simphant run`, then `simphant report` (docs/service.md, "Queue").
SIMULATION, REPORT = "simulation", "report"
FINAL_STATES = (SUCCESSFUL, FAILED, DISMISSED)
ACTIVE_STATES = (QUEUED, RUNNING)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  owner TEXT NOT NULL,
  state TEXT NOT NULL,
  options TEXT NOT NULL,
  created REAL NOT NULL,
  started REAL,
  finished REAL,
  updated REAL NOT NULL,
  progress REAL NOT NULL DEFAULT 0,
  steps_done INTEGER NOT NULL DEFAULT 0,
  steps_total INTEGER NOT NULL DEFAULT 0,
  eta_s REAL,
  message TEXT NOT NULL DEFAULT '',
  summary TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  resume INTEGER NOT NULL DEFAULT 0,
  pid INTEGER,
  exit_code INTEGER,
  stage TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS jobs_owner ON jobs(owner, seq);
CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state, seq);
"""

_COLUMNS = ("seq", "id", "owner", "state", "options", "created", "started", "finished", "updated", "progress",
            "steps_done", "steps_total", "eta_s", "message", "summary", "attempts", "resume", "pid", "exit_code",
            "stage")


_ACTIVE_COUNT = "SELECT COUNT(*) FROM jobs WHERE owner = ? AND state IN (?, ?)"


class DatabaseBusy(RuntimeError):
    """Another service holds the database file's lock."""


class JobStore:
    """The jobs table. Every method is one transaction; rows come back as dicts with
    `options` and `summary` parsed from JSON."""

    def __init__(self, path: str) -> None:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        # Held open until close(): closing any descriptor of the file would also drop
        # SQLite's POSIX locks of this process (fcntl(2)), so it is closed after SQLite's.
        self._lock_fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._lock_fd)
            raise DatabaseBusy(f"{path}: used by another simphant serve (the database file is locked; "
                               "a link to it is the same file)") from None
        self.path = path
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        columns = {r[1] for r in self._db.execute("PRAGMA table_info(jobs)")}
        if "stage" not in columns:  # a database of an earlier service
            self._db.execute("ALTER TABLE jobs ADD COLUMN stage TEXT NOT NULL DEFAULT ''")
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()
        os.close(self._lock_fd)

    @staticmethod
    def _row(r: Optional[tuple]) -> Optional[Dict[str, Any]]:
        if r is None:
            return None
        d = dict(zip(_COLUMNS, r))
        d["options"] = json.loads(d["options"])
        d["summary"] = None if d["summary"] is None else json.loads(d["summary"])
        return d

    def _select(self, where: str, args: tuple) -> List[Dict[str, Any]]:
        cur = self._db.execute(f"SELECT {', '.join(_COLUMNS)} FROM jobs {where}", args)
        return [self._row(r) for r in cur.fetchall()]

    def insert_if_below(self, job_id: str, owner: str, options: Dict[str, Any], max_active: int) -> bool:
        """Queues a job unless `owner` already has max_active unfinished jobs (False then)."""
        now = time.time()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                (n,) = self._db.execute(_ACTIVE_COUNT, (owner, *ACTIVE_STATES)).fetchone()
                if n >= max_active:
                    self._db.execute("ROLLBACK")
                    return False
                self._db.execute("INSERT INTO jobs (id, owner, state, options, created, updated) "
                                 "VALUES (?, ?, ?, ?, ?, ?)", (job_id, owner, QUEUED, json.dumps(options), now, now))
                self._db.execute("COMMIT")
                return True
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def active_count(self, owner: str) -> int:
        """The owner's unfinished (queued + running) jobs."""
        with self._lock:
            (n,) = self._db.execute(_ACTIVE_COUNT, (owner, *ACTIVE_STATES)).fetchone()
        return n

    def get(self, job_id: str, owner: Optional[str] = None) -> Optional[Dict[str, Any]]:
        """The job, or None when it does not exist or belongs to another owner."""
        with self._lock:
            rows = self._select("WHERE id = ?" + (" AND owner = ?" if owner is not None else ""),
                                (job_id,) if owner is None else (job_id, owner))
        return rows[0] if rows else None

    def list(self, owner: str, limit: int = 1000, states: Optional[List[str]] = None) -> List[Dict[str, Any]]:
        """The owner's jobs (in `states` when given), newest first, at most `limit`."""
        where, args = "WHERE owner = ?", [owner]
        if states:
            where += f" AND state IN ({', '.join('?' * len(states))})"
            args += states
        with self._lock:
            return self._select(where + " ORDER BY seq DESC LIMIT ?", (*args, limit))

    def claim_next(self) -> Optional[Dict[str, Any]]:
        """The oldest queued job, switched to running (attempts + 1) in one transaction."""
        now = time.time()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                rows = self._select("WHERE state = ? ORDER BY seq LIMIT 1", (QUEUED,))
                if not rows:
                    self._db.execute("ROLLBACK")
                    return None
                job = rows[0]
                self._db.execute("UPDATE jobs SET state = ?, started = COALESCE(started, ?), updated = ?, "
                                 "attempts = attempts + 1, message = '' WHERE id = ?", (RUNNING, now, now, job["id"]))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        job.update(state=RUNNING, attempts=job["attempts"] + 1, started=job["started"] or now)
        return job

    def update(self, job_id: str, **fields: Any) -> None:
        """Sets columns of one job (summary and options as JSON); `updated` is set too, and
        `stage` to '' when the job leaves the running state."""
        if "summary" in fields and fields["summary"] is not None:
            fields["summary"] = json.dumps(fields["summary"])
        if "options" in fields:
            fields["options"] = json.dumps(fields["options"])
        fields["updated"] = time.time()
        if fields.get("state") in FINAL_STATES:
            fields.setdefault("finished", fields["updated"])
        if "state" in fields and fields["state"] != RUNNING:
            fields.setdefault("stage", "")
        bad = set(fields) - set(_COLUMNS)
        if bad:
            raise KeyError(f"unknown job columns {sorted(bad)}")
        with self._lock:
            self._db.execute(f"UPDATE jobs SET {', '.join(k + ' = ?' for k in fields)} WHERE id = ?",
                             (*fields.values(), job_id))

    def dismiss_if_queued(self, job_id: str) -> bool:
        """Queued -> dismissed in one statement; False when the job was not queued."""
        now = time.time()
        with self._lock:
            cur = self._db.execute("UPDATE jobs SET state = ?, finished = ?, updated = ?, message = ? "
                                   "WHERE id = ? AND state = ?",
                                   (DISMISSED, now, now, "dismissed before it started", job_id, QUEUED))
            return cur.rowcount == 1

    def delete(self, job_id: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM jobs WHERE id = ?", (job_id,))

    def running(self) -> List[Dict[str, Any]]:
        with self._lock:
            return self._select("WHERE state = ? ORDER BY seq", (RUNNING,))

    def unclaim(self, job: Dict[str, Any], message: str) -> None:
        """A job of claim_next back to queued as it was: its run did not start, so the
        attempt is not counted."""
        self.update(job["id"], state=QUEUED, resume=int(bool(job["resume"])), pid=None,
                    attempts=max(0, job["attempts"] - 1), message=message)

    def requeue(self, job_id: str, resume: bool, message: str) -> None:
        """Running -> queued, to be resumed from its checkpoint (resume) or run anew."""
        self.update(job_id, state=QUEUED, resume=int(resume), pid=None, message=message)
