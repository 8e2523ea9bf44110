"""The validation of submitted scenes, bounded (docs/service.md, "Validation"): each runs
as `simphant check --json` in a process of its own (at a lower CPU priority), at most
`validation.workers` at once and at most `validation.per_owner` of one owner at once;
a submission waits for its places at most `validation.timeout_s`, and a check running
longer is killed. The service's event loop and its threads never run a validation, so
a flood of large scenes from one owner delays neither another owner's submissions
beyond their turn nor anyone's reads."""
from __future__ import annotations

import asyncio
import json
import os
import signal
from collections import Counter
from typing import Any, Callable, Dict, Optional

from .config import Validation
from .errors import ApiError


class Validations:
    """The bounded validations of one service (its event loop)."""

    def __init__(self, cli: str, bounds: Validation) -> None:
        self.cli, self.bounds = cli, bounds
        self._slots = asyncio.Semaphore(bounds.workers)
        self._shares: Dict[str, asyncio.Semaphore] = {}
        self._users: Counter = Counter()  # per owner: validations waiting or running

    async def check(self, owner: str, scene_path: str, ready: Optional[Callable[[], None]] = None) -> Dict[str, Any]:
        """`simphant check --json` of scene_path for `owner`: the object it prints
        (job/check_scene.hpp: name, dt, t_end, instances, assembly_ok, ...). It waits for
        one of the owner's validation.per_owner places and then for one of the
        validation.workers slots, both together at most validation.timeout_s; `ready`,
        when given, is called once they are held, before the check starts (a cheap check
        of the request that may raise, e.g. the owner's unfinished jobs).

        Raises ApiError 503 (Retry-After) when no place frees in time or the process
        cannot start for want of resources, 403 when the check itself runs past
        timeout_s; ValueError with the check's message when the scene is invalid or its
        base model does not assemble.
        """
        b = self.bounds
        share = self._shares.setdefault(owner, asyncio.Semaphore(b.per_owner))
        self._users[owner] += 1
        try:
            try:
                await asyncio.wait_for(self._acquire(share), b.timeout_s)
            except asyncio.TimeoutError:
                raise ApiError(503, f"the scene could not be validated within {b.timeout_s:g} s: validations of "
                               f"this owner (validation.per_owner {b.per_owner}) or of all (validation.workers "
                               f"{b.workers}) held every place; retry later", headers={"Retry-After": "5"}) from None
            try:
                if ready is not None:
                    ready()
                return await self._run(scene_path)
            finally:
                self._slots.release()
                share.release()
        finally:
            self._users[owner] -= 1
            if self._users[owner] <= 0:
                del self._users[owner]
                del self._shares[owner]

    async def _acquire(self, share: asyncio.Semaphore) -> None:
        """The owner's place, then a slot; neither is kept when the wait is cancelled."""
        await share.acquire()
        try:
            await self._slots.acquire()
        except BaseException:
            share.release()
            raise

    async def _run(self, scene_path: str) -> Dict[str, Any]:
        b = self.bounds
        try:
            proc = await asyncio.create_subprocess_exec(
                self.cli, "check", os.path.basename(scene_path), "--json", cwd=os.path.dirname(scene_path),
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                start_new_session=True)
        except OSError as e:
            raise ApiError(503, f"the scene cannot be validated now ({e.strerror}); retry later",
                           headers={"Retry-After": "5"}) from None
        try:  # below the service and the jobs (no preexec_fn: the service has threads)
            os.setpriority(os.PRIO_PROCESS, proc.pid, 10)
        except OSError:
            pass
        try:
            out, err = await asyncio.wait_for(proc.communicate(), b.timeout_s)
        except asyncio.TimeoutError:
            raise ApiError(403, f"validating the scene took longer than {b.timeout_s:g} s (validation.timeout_s); "
                           "`simphant check` shows what makes it large") from None
        finally:
            if proc.returncode is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                await proc.wait()
        if proc.returncode != 0:
            lines = [ln for ln in err.decode(errors="replace").splitlines() if ln.startswith("error: ")]
            message = lines[-1].removeprefix("error: ") if lines else f"simphant check exited {proc.returncode}"
            raise ValueError(message.removeprefix("check: "))
        report = json.loads(out)
        if not report.get("assembly_ok", True):
            raise ValueError(f"the base model does not assemble (max |Phi| = {report.get('assembly_residual')}); "
                             "`simphant check` shows the constraint analysis")
        return report
