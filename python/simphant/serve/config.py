"""The service's configuration: one JSON file (docs/service.md, "Configuration").

Example::

    {
      "data_dir": "/var/lib/simphant",
      "database": "/var/lib/simphant/jobs.sqlite",
      "tokens": {"s3cr3t-token-of-alice": {"name": "alice", "max_jobs": 20}},
      "limits": {"max_upload_bytes": 67108864, "max_instances": 100000,
                 "max_steps": 10000000000, "max_jobs_per_token": 50},
      "connections": {"max_total": 1000, "max_per_client": 64, "header_timeout": 10,
                      "body_timeout": 60, "keep_alive_timeout": 5},
      "validation": {"workers": 2, "per_owner": 1, "timeout_s": 60},
      "workers": 0, "ray_address": null, "host": "127.0.0.1", "port": 8080,
      "checkpoint_every": 10, "report": true
    }

Every key is optional; a relative data_dir or database is relative to the config file.
"""
from __future__ import annotations

import dataclasses
import json
import os
from typing import Any, Callable, Dict, Optional


@dataclasses.dataclass(frozen=True)
class TokenInfo:
    """One bearer token's owner.

    name: the owner's name (jobs belong to it: tokens of one name share their jobs);
    max_jobs: this owner's bound on unfinished (queued + running) jobs, None: the
    limits' max_jobs_per_token.
    """

    name: str
    max_jobs: Optional[int] = None


@dataclasses.dataclass(frozen=True)
class Limits:
    """Per-request and per-owner bounds (docs/service.md, "Limits").

    max_upload_bytes: the request body of POST /jobs (and a bundle's unpacked size) [bytes];
    max_instances: instances of one job; max_steps: instance-steps of one job
    (instances * t_end / dt); max_jobs_per_token: unfinished jobs of one owner.
    """

    max_upload_bytes: int = 64 * 1024 * 1024
    max_instances: int = 1_000_000
    max_steps: int = 10_000_000_000
    max_jobs_per_token: int = 100


@dataclasses.dataclass(frozen=True)
class Connections:
    """Bounds on the HTTP connections (docs/service.md, "Connections and timeouts").

    max_total: open connections at once (more are answered 503 and closed; lowered at
    start to what the open-file limit leaves after a reserve for the jobs);
    max_per_client: open connections of one client address (0: no bound, e.g. behind a
    reverse proxy, which then holds the per-address bound); header_timeout [s]: from
    the connection (or the end of the last response) to the end of the request's
    headers; body_timeout [s]: between two reads of a request body; keep_alive_timeout
    [s]: an idle connection between requests. A connection past a timeout is closed.
    """

    max_total: int = 1000
    max_per_client: int = 64
    header_timeout: float = 10.0
    body_timeout: float = 60.0
    keep_alive_timeout: float = 5.0


@dataclasses.dataclass(frozen=True)
class Validation:
    """Bounds on the validation of submitted scenes (docs/service.md, "Validation"): each
    is `simphant check` in a process of its own. workers: validations at once; per_owner:
    one owner's validations at once (below workers, so that other owners find a slot);
    timeout_s [s]: the longest a submission waits for its places (then 503) and the
    longest a validation runs (then 403).
    """

    workers: int = 2
    per_owner: int = 1
    timeout_s: float = 60.0


@dataclasses.dataclass
class ServeConfig:
    """The service's settings (see the module docstring for the file format).

    data_dir: folder of the jobs (<data_dir>/jobs/<id>/) and the default database;
    database: the SQLite file of the queue (default <data_dir>/jobs.sqlite);
    tokens: bearer token -> TokenInfo; an empty map refuses every request but the
    OpenAPI document; limits: Limits; connections: Connections; validation: Validation; workers: concurrent jobs, 0 = one per GPU when
    nvidia-smi lists GPUs, else max(1, CPU cores / 2); ray_address: run each job as a
    sharded Ray sweep on this cluster (simphant.distributed) instead of one `simphant run`;
    host, port: where uvicorn listens; simphant: the CLI executable (None: $SIMPHANT_EXECUTABLE,
    else the build tree's beside the package, else `simphant` on PATH); checkpoint_every:
    [s] of wall time between a job's checkpoints; threads: `simphant run --threads` of a
    job (0: every CPU it may use); report: write `simphant report` into <job>/report/ after a
    successful run; max_attempts: runs of a job whose process was killed before it is failed.
    """

    data_dir: str = "simphant-data"
    database: Optional[str] = None
    tokens: Dict[str, TokenInfo] = dataclasses.field(default_factory=dict)
    limits: Limits = dataclasses.field(default_factory=Limits)
    connections: Connections = dataclasses.field(default_factory=Connections)
    validation: Validation = dataclasses.field(default_factory=Validation)
    workers: int = 0
    ray_address: Optional[str] = None
    host: str = "127.0.0.1"
    port: int = 8080
    simphant: Optional[str] = None
    checkpoint_every: float = 10.0
    threads: int = 0
    report: bool = True
    max_attempts: int = 3

    @property
    def database_path(self) -> str:
        return self.database or os.path.join(self.data_dir, "jobs.sqlite")

    @property
    def jobs_dir(self) -> str:
        return os.path.join(self.data_dir, "jobs")


_KEYS = {f.name for f in dataclasses.fields(ServeConfig)}


def _seconds(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or value == float("inf"):
        raise ValueError(f"{path}: expected seconds > 0, got {value!r}")
    return float(value)


def _section(doc: Any, name: str, cls: type, parse: Callable[[str, Any, str], Any]) -> Any:
    """cls from the config's object `name` ({key: value}), each value parse(key, value,
    its JSON path); ValueError naming the path of a bad or unknown key."""
    if not isinstance(doc, dict):
        raise ValueError(f"{name}: expected an object")
    known = sorted(f.name for f in dataclasses.fields(cls))
    bad = sorted(set(doc) - set(known))
    if bad:
        raise ValueError(f"{name}.{bad[0]}: unknown key (known: {', '.join(known)})")
    return cls(**{k: parse(k, v, f"{name}.{k}") for k, v in doc.items()})


def _limit(key: str, value: Any, path: str) -> int:
    return _int(value, path, 1)


def _connection(key: str, value: Any, path: str) -> Any:
    if key == "max_total":
        return _int(value, path, 1)
    if key == "max_per_client":
        return _int(value, path, 0)
    return _seconds(value, path)


def _validation(key: str, value: Any, path: str) -> Any:
    return _seconds(value, path) if key == "timeout_s" else _int(value, path, 1)


def _int(value: Any, path: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{path}: expected an integer >= {minimum}, got {value!r}")
    return value


def config_from_dict(doc: Any, base_dir: str = ".") -> ServeConfig:
    """A ServeConfig from the parsed JSON document; relative paths are taken from base_dir.

    Raises ValueError naming the JSON path of a bad value (e.g. "limits.max_instances: ...").
    """
    if not isinstance(doc, dict):
        raise ValueError("config: expected a JSON object")
    unknown = sorted(set(doc) - _KEYS)
    if unknown:
        raise ValueError(f"{unknown[0]}: unknown key (known: {', '.join(sorted(_KEYS))})")
    c = ServeConfig()
    if "data_dir" in doc:
        if not isinstance(doc["data_dir"], str) or not doc["data_dir"]:
            raise ValueError("data_dir: expected a non-empty string")
        c.data_dir = doc["data_dir"]
    c.data_dir = os.path.abspath(os.path.join(base_dir, c.data_dir))
    if doc.get("database") is not None:
        if not isinstance(doc["database"], str) or not doc["database"]:
            raise ValueError("database: expected a non-empty string")
        c.database = os.path.abspath(os.path.join(base_dir, doc["database"]))
    tokens = doc.get("tokens", {})
    if not isinstance(tokens, dict):
        raise ValueError("tokens: expected an object {token: {name, max_jobs}}")
    for tok, info in tokens.items():
        if len(tok) < 8:
            raise ValueError(f"tokens.{tok[:2]}...: a token must have at least 8 characters")
        if not isinstance(info, dict) or not isinstance(info.get("name"), str) or not info["name"]:
            raise ValueError(f"tokens.{tok[:4]}...: expected {{\"name\": \"...\", \"max_jobs\": N}}")
        bad = sorted(set(info) - {"name", "max_jobs"})
        if bad:
            raise ValueError(f"tokens.{tok[:4]}....{bad[0]}: unknown key (known: name, max_jobs)")
        mj = info.get("max_jobs")
        c.tokens[tok] = TokenInfo(info["name"], None if mj is None else _int(mj, f"tokens.{tok[:4]}....max_jobs", 1))
    c.limits = _section(doc.get("limits", {}), "limits", Limits, _limit)
    c.connections = _section(doc.get("connections", {}), "connections", Connections, _connection)
    c.validation = _section(doc.get("validation", {}), "validation", Validation, _validation)
    if "workers" in doc:
        c.workers = _int(doc["workers"], "workers")
    if doc.get("ray_address") is not None:
        if not isinstance(doc["ray_address"], str):
            raise ValueError("ray_address: expected a string such as \"ray://head:10001\" or \"auto\"")
        c.ray_address = doc["ray_address"]
    if "host" in doc:
        if not isinstance(doc["host"], str) or not doc["host"]:
            raise ValueError("host: expected a non-empty string")
        c.host = doc["host"]
    if "port" in doc:
        c.port = _int(doc["port"], "port")
        if c.port > 65535:
            raise ValueError(f"port: expected 0 .. 65535, got {c.port}")
    if doc.get("simphant") is not None:
        if not isinstance(doc["simphant"], str):
            raise ValueError("simphant: expected the path of the simphant executable")
        c.simphant = os.path.abspath(os.path.join(base_dir, doc["simphant"]))
    if "checkpoint_every" in doc:
        v = doc["checkpoint_every"]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0:
            raise ValueError(f"checkpoint_every: expected seconds >= 0, got {v!r}")
        c.checkpoint_every = float(v)
    if "threads" in doc:
        c.threads = _int(doc["threads"], "threads")
    if "report" in doc:
        if not isinstance(doc["report"], bool):
            raise ValueError("report: expected true or false")
        c.report = doc["report"]
    if "max_attempts" in doc:
        c.max_attempts = _int(doc["max_attempts"], "max_attempts", 1)
    return c


def load_config(path: str) -> ServeConfig:
    """Reads the JSON config file (OSError when unreadable, ValueError naming the key when invalid)."""
    with open(path, "rb") as f:
        raw = f.read()
    try:
        doc = json.loads(raw)
    except ValueError as e:
        raise ValueError(f"{path}: not JSON ({e})") from None
    try:
        return config_from_dict(doc, os.path.dirname(os.path.abspath(path)))
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
