"""Offscreen rendering of simphant.gym envs: a small NumPy software rasteriser and a video writer.

The mechanism is drawn as a stick figure seen by a fixed orthographic camera: every body
as capsules from its centre of mass to its joint anchors (scenes of bodies and joints),
or every robot link as a capsule from its parent link's frame origin to its own (robot
scenes, docs/robots.md "Link frames"; a fixed base at W's origin), and every joint as a
dark dot. No shading model,
no textures, no shapes from the scene's visuals: a picture to watch a policy, not a
renderer.
"""
from __future__ import annotations

import importlib.util
import pathlib
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from .._joint_anchors import anchor_in, rotation_matrix
from ..simulator import Simulator

_PALETTE = np.array([[0.20, 0.45, 0.80], [0.90, 0.50, 0.10], [0.25, 0.65, 0.30], [0.80, 0.25, 0.30],
                     [0.55, 0.40, 0.75], [0.55, 0.35, 0.25], [0.85, 0.45, 0.70], [0.45, 0.45, 0.45],
                     [0.70, 0.70, 0.15], [0.10, 0.70, 0.75]])
_BACKGROUND = np.array([0.96, 0.96, 0.94])
_JOINT = np.array([0.12, 0.12, 0.12])
_GROUND = np.array([0.55, 0.55, 0.55])


@dataclass
class Camera:
    """A fixed orthographic camera.

    azimuth, elevation: the viewing direction in degrees, as matplotlib's view_init: the
    camera sits at (cos(el) cos(az), cos(el) sin(az), sin(el)) from the centre, world z
    up. The default (-90, 15) looks along +y from the -y side, x to the right.
    center: the world point at the middle of the image [m]; half_extent: half the width
    of the smaller image side [m]. None fits them to the mechanism at the first frame.
    """

    azimuth: float = -90.0
    elevation: float = 15.0
    center: Optional[Sequence[float]] = None
    half_extent: Optional[float] = None

    def basis(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(right, up, forward) unit vectors in W; forward points away from the camera."""
        az, el = np.radians(self.azimuth), np.radians(self.elevation)
        forward = -np.array([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)])
        right = np.cross(forward, [0.0, 0.0, 1.0])
        if np.linalg.norm(right) < 1e-9:  # looking straight down or up
            right = np.array([1.0, 0.0, 0.0])
        right /= np.linalg.norm(right)
        return right, np.cross(right, forward), forward


def _host(x: Any) -> np.ndarray:
    """A NumPy copy of an array, including a DLPack device array (through torch)."""
    if isinstance(x, np.ndarray):
        return x
    try:
        return np.from_dlpack(x)
    except Exception:  # a device array: NumPy cannot read it
        import torch

        return torch.from_dlpack(x).double().cpu().numpy()


class _Skeleton:
    """What to draw of a simulator, in world coordinates per instance.

    points(sim, ids) -> (k, P, 3) [m]; segments: (S, 2) point indices and (S,) colour
    indices; dots: point indices drawn as joints.
    """

    def __init__(self, sim: Simulator) -> None:
        self.robot = sim._sim.n_link_frames > 0
        if self.robot:
            self._init_robot(sim)
        else:
            self._init_bodies(sim)

    # --- robot scenes: link frame origins, parent to child -------------------------------
    def _init_robot(self, sim: Simulator) -> None:
        self.links, parents, floating = sim.link_tree()
        segs = []
        for i, parent in enumerate(parents):
            # point 0 is the fixed root (W's origin), link i is point i + 1; a floating
            # base is not tied to W (its own frame is drawn as a dot)
            segs.append((i + 1 if floating and parent < 0 else parent + 1, i + 1))
        self.segments = np.array(segs, np.int64).reshape(-1, 2)
        self.colours = np.arange(len(self.links), dtype=np.int64)
        self.dots = np.arange(1, len(self.links) + 1)
        self.fixed = np.array([], np.int64) if floating else np.array([0])

    # --- scenes of bodies and joints: CoM to joint anchors -------------------------------
    def _init_bodies(self, sim: Simulator) -> None:
        doc = sim.scene.to_dict()
        names = list(sim.body_names)
        bodies = {b["name"]: b for b in doc.get("bodies", [])}
        # anchors: (body index, local offset in B [m]); ground anchors: (-1, W position)
        self._anchors: List[Tuple[int, np.ndarray]] = []
        segs, colours, dots, fixed = [], [], [], []
        for joint in doc.get("joints", []):
            ends = []
            for side in ("i", "j"):
                body = joint.get(f"body_{side}")
                if body != "ground" and body not in names:
                    continue
                try:
                    u, _ = anchor_in(joint, side, bodies)
                except (KeyError, TypeError, ValueError):
                    continue
                ends.append((-1 if body == "ground" else names.index(body), u))
            for b, u in ends:
                k = len(self._anchors)
                self._anchors.append((b, u))
                if b >= 0:
                    segs.append((b, len(names) + k))
                    colours.append(b)
                else:
                    fixed.append(len(names) + k)
            if ends:
                dots.append(len(names) + len(self._anchors) - 1)
        self._n_bodies = len(names)
        self.segments = np.array(segs, np.int64).reshape(-1, 2)
        self.colours = np.array(colours, np.int64)
        # a body without anchors is drawn as a disc at its CoM
        lonely = sorted(set(range(len(names))) - set(self.segments[:, 0].tolist()))
        if lonely:
            self.segments = np.concatenate([self.segments, np.array([(b, b) for b in lonely])])
            self.colours = np.concatenate([self.colours, np.array(lonely)])
        self.dots = np.array(dots, np.int64)
        self.fixed = np.array(fixed, np.int64)

    def points(self, sim: Simulator, ids: np.ndarray) -> np.ndarray:
        if self.robot:
            frames = _host(sim.link_frames(self.links))[ids, :, 0:3]
            root = np.zeros((len(ids), 1, 3))
            return np.concatenate([root, frames], axis=1)
        x = sim.states()[ids]
        r, R = x[:, :, 0:3], rotation_matrix(x[:, :, 3:7])
        pts = [r]
        for b, u in self._anchors:
            if b >= 0:
                pts.append((r[:, b] + R[:, b] @ u)[:, None])
            else:
                pts.append(np.broadcast_to(u, (len(ids), 1, 3)))
        return np.concatenate(pts, axis=1)


class Renderer:
    """Draws instances of a simulator as RGB images.

    height, width: the image size [pixels]; camera: a Camera (fitted to the first frame's
    instance where its center / half_extent are None).
    """

    def __init__(self, height: int = 240, width: int = 320, camera: Optional[Camera] = None) -> None:
        if height < 8 or width < 8:
            raise ValueError(f"render size: at least 8 x 8 pixels (got {height} x {width})")
        self.height, self.width = int(height), int(width)
        self.camera = camera if camera is not None else Camera()
        self._skeleton: Optional[_Skeleton] = None
        self._sim_id: Optional[int] = None

    def render(self, sim: Simulator, ids: Iterable[int]) -> List[np.ndarray]:
        """One (height, width, 3) uint8 RGB image per instance id, at the current state."""
        ids = np.asarray(list(ids), np.int64)
        if self._skeleton is None or self._sim_id != id(sim):
            self._skeleton, self._sim_id = _Skeleton(sim), id(sim)
        pts = self._skeleton.points(sim, ids)
        cam = self.camera
        right, up, forward = cam.basis()
        if cam.center is None or cam.half_extent is None:
            p = pts[0][np.all(np.isfinite(pts[0]), axis=1)]
            lo, hi = (p.min(axis=0), p.max(axis=0)) if len(p) else (np.zeros(3), np.zeros(3))
            center = (lo + hi) / 2 if cam.center is None else np.asarray(cam.center, np.float64)
            half = 0.7 * float(np.max(hi - lo)) + 0.05 if cam.half_extent is None else cam.half_extent
            self.camera = cam = Camera(cam.azimuth, cam.elevation, center, half)
        scale = min(self.height, self.width) / (2.0 * float(cam.half_extent))
        rel = pts - np.asarray(cam.center, np.float64)
        uv = np.stack([self.width / 2 + rel @ right * scale, self.height / 2 - rel @ up * scale], axis=-1)
        depth = rel @ forward
        return [self._draw(uv[k], depth[k], cam, right, up, scale) for k in range(len(ids))]

    def _draw(self, uv: np.ndarray, depth: np.ndarray, cam: Camera, right: np.ndarray, up: np.ndarray,
              scale: float) -> np.ndarray:
        img = np.empty((self.height, self.width, 3))
        img[:] = _BACKGROUND
        s = min(self.height, self.width)
        # the ground line z = 0 through the camera's centre, when it is in view
        c = np.asarray(cam.center, np.float64)
        g = np.array([c - 4 * cam.half_extent * right, c + 4 * cam.half_extent * right])
        g[:, 2] = 0.0
        g_uv = np.stack([self.width / 2 + (g - c) @ right * scale, self.height / 2 - (g - c) @ up * scale], -1)
        _capsule(img, g_uv[0], g_uv[1], max(1.0, 0.004 * s), _GROUND, shade=False)
        sk = self._skeleton
        order = np.argsort(-depth[sk.segments].mean(axis=1), kind="stable") if len(sk.segments) else []
        for k in order:
            a, b = sk.segments[k]
            _capsule(img, uv[a], uv[b], max(2.0, 0.022 * s), _PALETTE[sk.colours[k] % len(_PALETTE)])
        for p in sk.fixed:
            _capsule(img, uv[p], uv[p], max(2.0, 0.03 * s), _GROUND)
        for p in sk.dots:
            _capsule(img, uv[p], uv[p], max(1.5, 0.014 * s), _JOINT)
        return np.clip(img * 255.0 + 0.5, 0, 255).astype(np.uint8)


def _capsule(img: np.ndarray, a: np.ndarray, b: np.ndarray, radius: float, colour: np.ndarray,
             shade: bool = True) -> None:
    """Paints the pixels within radius of the segment a-b (pixel coordinates: x right, y
    down), antialiased over one pixel; a = b paints a disc."""
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return
    h, w = img.shape[:2]
    x0, x1 = int(max(0, np.floor(min(a[0], b[0]) - radius - 1))), int(min(w, np.ceil(max(a[0], b[0]) + radius + 1)))
    y0, y1 = int(max(0, np.floor(min(a[1], b[1]) - radius - 1))), int(min(h, np.ceil(max(a[1], b[1]) + radius + 1)))
    if x0 >= x1 or y0 >= y1:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1] + 0.5
    ab = b - a
    l2 = float(ab @ ab)
    t = np.clip(((xs - a[0]) * ab[0] + (ys - a[1]) * ab[1]) / l2, 0.0, 1.0) if l2 > 0 else 0.0
    d = np.hypot(xs - (a[0] + t * ab[0]), ys - (a[1] + t * ab[1]))
    cover = np.clip(radius + 0.5 - d, 0.0, 1.0)[..., None]
    c = colour * (1.0 - 0.35 * np.clip(d / radius, 0.0, 1.0) ** 2)[..., None] if shade else colour
    region = img[y0:y1, x0:x1]
    region[:] = region * (1.0 - cover) + c * cover


class VideoWriter:
    """Writes RGB frames to a video file.

    path: ".gif" is written with Pillow (an animated GIF that loops; every frame is kept
    in memory until close()); other suffixes (".mp4", ".webm", ...) with imageio and its
    ffmpeg plugin (pip install imageio[ffmpeg]). fps: frames per second. A GIF stores
    delays in hundredths of a second, and Pillow merges identical consecutive frames into
    one longer frame.

    Use as a context manager, or call append(frame) for each (H, W, 3) uint8 frame and
    then close(). Raises ValueError for a frame of another shape or dtype than the first,
    ImportError when Pillow (".gif", in the extra `rl`) or imageio (other suffixes) is not
    installed.
    """

    def __init__(self, path: Any, fps: float = 30.0) -> None:
        if fps <= 0:
            raise ValueError(f"fps: must be > 0 (got {fps})")
        self.path, self.fps = pathlib.Path(path), float(fps)
        self.frames_written = 0
        self._frames: List[np.ndarray] = []
        self._shape: Optional[Tuple[int, ...]] = None
        self._writer: Any = None
        if self.path.suffix.lower() == ".gif":
            if importlib.util.find_spec("PIL") is None:
                raise ImportError(f"{self.path}: writing a GIF needs Pillow: pip install 'simphant[rl]'")
        else:
            try:
                import imageio.v2 as imageio
            except ImportError as e:
                raise ImportError(f"{self.path}: writing '{self.path.suffix}' needs imageio (pip install "
                                  "imageio[ffmpeg]); '.gif' works with Pillow alone") from e
            self._writer = imageio.get_writer(str(self.path), fps=self.fps)

    def append(self, frame: Any) -> None:
        """Adds one (H, W, 3) uint8 RGB frame."""
        f = np.asarray(frame)
        if f.dtype != np.uint8 or f.ndim != 3 or f.shape[2] != 3 or (self._shape and f.shape != self._shape):
            raise ValueError(f"frame: must be (H, W, 3) uint8{' ' + str(self._shape) if self._shape else ''} "
                             f"(got {f.shape} {f.dtype})")
        self._shape = f.shape
        if self._writer is not None:
            self._writer.append_data(f)
        else:
            self._frames.append(f.copy())
        self.frames_written += 1

    def close(self) -> None:
        """Finishes the file (nothing is written for a GIF without frames)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        elif self._frames:
            from PIL import Image

            images = [Image.fromarray(f) for f in self._frames]
            images[0].save(self.path, save_all=True, append_images=images[1:], loop=0,
                           duration=max(10, int(round(1000.0 / self.fps))), optimize=False)
            self._frames = []

    def __enter__(self) -> "VideoWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def write_video(path: Any, frames: Iterable[Any], fps: float = 30.0) -> int:
    """Writes the (H, W, 3) uint8 frames to path (see VideoWriter); returns how many."""
    with VideoWriter(path, fps) as w:
        for f in frames:
            w.append(f)
    return w.frames_written
