// The 3D replay of one instance of a SimPhant run (docs/service.md, "Web page and replay").
// Needs three.js r111+ (THREE global), OrbitControls and STLLoader from libjs-three.
// Data: GET <url>?instance=k | ?pick=peak&load=key (replay.py): frame times, poses as base64
// float32 [frame][body][x y z qx qy qz qw] (world frame, z up), body shapes in the body
// frame (centre of mass), joint anchors in the frame of the body they ride on.
// State for tests and scripts: window.replayState (frame, time, playing, speed, instance,
// frames, bodyPositions: rendered world positions of the body frames, markerPositions,
// bodiesVisible, jointsVisible, reactionsAvailable, reactionsVisible, reactionArrows:
// per joint {origin, vector (the drawn arrow, world frame [m]), force [N]} or null,
// reactionScale [m/N], arrowLength (that of the reference force [m]; arrows are capped at
// twice it), jointNames (the joints in the order of markerPositions and
// reactionArrows), fileFrame (the file's frame index of the frame shown), pick, ready,
// error, webgl, contactsAvailable, contactsVisible, collisionShapes: the number of collision
// shapes drawn, contactPoints: per contact of the frame shown {pair, point, normal, force,
// vector (the drawn arrow, world frame [m])}, contactScale [m/N]).
// Reaction arrows: the force each joint applies to its body_j (/reactions, world frame),
// from the joint's marker, |f| / f95 x 30 % of the scene size long (f95: the 95th
// percentile of |f| over the frames and joints shown), at most twice that (capped: true).
// Contacts (the "contacts" checkbox, when the scene has contact pairs): the collision
// shapes, translucent, and at each contact point a dot and its normal force along the
// normal (from shape A to B), scaled like the reaction arrows by the contacts' own f95.
"use strict";

(function () {
  // base64 little-endian float32 of n numbers per frame and item
  function decodeFloats(b64, nFrames, nItems, n) {
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; ++i) bytes[i] = bin.charCodeAt(i);
    const a = new Float32Array(bytes.buffer);
    if (a.length !== nFrames * nItems * n) throw new Error("frame data of the wrong length");
    return a;
  }

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // A shape's object in its own frame (cylinders and capsules along z, as in URDF).
  function shapeObject(s, material, loadMesh) {
    const T = THREE;
    let obj;
    if (s.type === "box") {
      obj = new T.Mesh(new T.BoxBufferGeometry(s.size[0], s.size[1], s.size[2]), material);
    } else if (s.type === "sphere") {
      obj = new T.Mesh(new T.SphereBufferGeometry(s.radius, 24, 16), material);
    } else if (s.type === "ellipsoid") {
      const rmax = Math.max(s.radii[0], s.radii[1], s.radii[2], 1e-9);
      obj = new T.Mesh(new T.SphereBufferGeometry(1, 24, 16), material);
      // a thin rod has a zero semi-axis: keep it visible at 2 % of the largest one
      obj.scale.set(Math.max(s.radii[0], 0.02 * rmax), Math.max(s.radii[1], 0.02 * rmax),
                    Math.max(s.radii[2], 0.02 * rmax));
    } else if (s.type === "cylinder") {
      const g = new T.CylinderBufferGeometry(s.radius, s.radius, s.length, 24);
      g.rotateX(Math.PI / 2);  // three.js cylinders lie along y; ours along z
      obj = new T.Mesh(g, material);
    } else if (s.type === "capsule") {
      obj = new T.Group();
      const g = new T.CylinderBufferGeometry(s.radius, s.radius, s.length, 24, 1, true);
      g.rotateX(Math.PI / 2);
      obj.add(new T.Mesh(g, material));
      for (const sign of [-1, 1]) {
        const cap = new T.Mesh(new T.SphereBufferGeometry(s.radius, 24, 12), material);
        cap.position.set(0, 0, sign * s.length / 2);
        obj.add(cap);
      }
    } else if (s.type === "plane") {  // the half-space's surface: a square of side s.extent about its origin
      obj = new T.Mesh(new T.PlaneBufferGeometry(s.extent, s.extent), material);
    } else if (s.type === "mesh") {
      obj = new T.Group();
      obj.scale.set(s.scale[0], s.scale[1], s.scale[2]);
      loadMesh(s.mesh, (geometry) => { obj.add(new T.Mesh(geometry, material)); });
    } else {
      obj = new T.Group();
    }
    const o = s.origin || {};
    const p = o.position || [0, 0, 0], q = o.orientation || [1, 0, 0, 0];
    const holder = new T.Group();
    holder.position.set(p[0], p[1], p[2]);
    holder.quaternion.set(q[1], q[2], q[3], q[0]);  // [w, x, y, z] -> three.js (x, y, z, w)
    holder.add(obj);
    return holder;
  }

  function SimphantReplay(opts) {
    const root = opts.container;
    const url = opts.url;
    const meshUrl = opts.meshUrl || ((k) => url + "/mesh/" + k);
    const self = this;
    const state = {frame: 0, time: 0, playing: false, speed: 1, instance: null, frames: 0, ready: false,
                   bodiesVisible: true, jointsVisible: true, reactionsAvailable: false, reactionsVisible: false,
                   reactionArrows: [], reactionScale: 0, arrowLength: 0, jointNames: [], fileFrame: 0,
                   bodyPositions: [], markerPositions: [], pick: null, error: null, webgl: false, loads: 0,
                   contactsAvailable: false, contactsVisible: false, collisionShapes: 0, contactPoints: [],
                   contactScale: 0};
    window.replayState = state;

    root.innerHTML = "";
    const bar = el("div", {class: "replay-controls"});
    const playBtn = el("button", {id: "replay-play", type: "button"}, "Play");
    const scrub = el("input", {id: "replay-scrub", type: "range", min: "0", max: "0", value: "0", step: "1"});
    const timeLbl = el("span", {id: "replay-time", class: "replay-time"}, "t = 0 s");
    const speedSel = el("select", {id: "replay-speed", title: "playback speed (simulated s per wall s)"});
    for (const s of [0.1, 0.25, 0.5, 1, 2, 4, 10]) {
      const o = el("option", {value: String(s)}, s + "x");
      if (s === 1) o.selected = true;
      speedSel.appendChild(o);
    }
    const instInput = el("input", {id: "replay-instance", type: "number", min: "0", value: "0", title: "instance index"});
    const instBtn = el("button", {id: "replay-show-instance", type: "button"}, "Show instance");
    const peakSel = el("select", {id: "replay-load", title: "peak load to pick the instance by"});
    peakSel.appendChild(el("option", {value: ""}, "largest force (default)"));
    const peakBtn = el("button", {id: "replay-show-peak", type: "button"}, "Largest peak load");
    const bodiesChk = el("input", {id: "replay-bodies", type: "checkbox", checked: "checked"});
    const jointsChk = el("input", {id: "replay-joints", type: "checkbox", checked: "checked"});
    const lb = el("label", {}, " bodies"); lb.prepend(bodiesChk);
    const lj = el("label", {}, " joints"); lj.prepend(jointsChk);
    const reactionsChk = el("input", {id: "replay-reactions", type: "checkbox"});
    const lr = el("label", {title: "arrows: the force each joint applies to its body_j (/reactions)"}, " reaction forces");
    lr.prepend(reactionsChk);
    const contactsChk = el("input", {id: "replay-contacts", type: "checkbox"});
    const lc = el("label", {title: "collision shapes, contact points and their normal forces"}, " contacts");
    lc.prepend(contactsChk);
    for (const x of [playBtn, scrub, timeLbl, speedSel, instInput, instBtn, peakSel, peakBtn, lb, lj, lr, lc]) {
      bar.appendChild(x);
    }
    const info = el("div", {id: "replay-info", class: "replay-info"}, "loading ...");
    const view = el("div", {id: "replay-view", class: "replay-view"});
    root.appendChild(bar);
    root.appendChild(view);
    root.appendChild(info);

    const T = window.THREE;
    if (!T) {
      state.error = "three.js did not load (apt-get install libjs-three)";
      info.textContent = state.error;
      return;
    }
    const scene = new T.Scene();
    scene.background = new T.Color(0xf4f5f7);
    const camera = new T.PerspectiveCamera(45, 1.6, 0.001, 1000);
    camera.up.set(0, 0, 1);
    scene.add(new T.AmbientLight(0xffffff, 0.55));
    const sun = new T.DirectionalLight(0xffffff, 0.75);
    sun.position.set(1, -2, 3);
    scene.add(sun);
    let renderer = null;
    try {
      renderer = new T.WebGLRenderer({antialias: true, preserveDrawingBuffer: true});
      renderer.setPixelRatio(window.devicePixelRatio || 1);
      view.appendChild(renderer.domElement);
      state.webgl = true;
    } catch (e) {
      state.error = "WebGL is not available in this browser: " + e.message;
      view.textContent = state.error;
    }
    const controls = renderer && T.OrbitControls ? new T.OrbitControls(camera, renderer.domElement) : null;
    const world = new T.Group();
    scene.add(world);
    const stl = T.STLLoader ? new T.STLLoader() : null;

    let data = null, poses = null, forces = null, bodyGroups = [], markers = [], arrows = [], simTime = 0, lastWall = null;
    let arrowLength = 0;
    let extraObjects = [];
    let contactPoints = null, collisionGroups = [], contactDots = [], contactArrows = [];

    function resize() {
      if (!renderer) return;
      const w = Math.max(200, view.clientWidth), h = Math.max(200, Math.round(w * 0.56));
      renderer.setSize(w, h);
      camera.aspect = w / h;
      camera.updateProjectionMatrix();
    }
    window.addEventListener("resize", resize);

    function clear() {
      for (const o of [...bodyGroups, ...extraObjects, ...arrows, ...contactDots, ...contactArrows]) world.remove(o);
      bodyGroups = []; markers = []; extraObjects = []; arrows = [];
      collisionGroups = []; contactDots = []; contactArrows = [];
    }

    function build() {
      clear();
      const n = data.n_bodies;
      // scene size from the CoM positions over all frames
      const box = new T.Box3();
      for (let f = 0; f < data.time.length; ++f) {
        for (let b = 0; b < n; ++b) {
          const o = (f * n + b) * 7;
          box.expandByPoint(new T.Vector3(poses[o], poses[o + 1], poses[o + 2]));
        }
      }
      let shapeSize = 0;
      for (const b of data.bodies) for (const s of b.shapes) {
        const r = s.radii ? Math.max(...s.radii) : s.size ? Math.max(...s.size) / 2 : (s.radius || 0) + (s.length || 0) / 2;
        shapeSize = Math.max(shapeSize, r + Math.hypot(...(s.origin ? s.origin.position : [0, 0, 0])));
      }
      for (const s of data.ground || []) box.expandByPoint(new T.Vector3(...s.origin.position));
      box.expandByScalar(shapeSize);
      const size = Math.max(box.getSize(new T.Vector3()).length(), 1e-3);
      const centre = box.getCenter(new T.Vector3());
      const loadMesh = (k, done) => {
        if (!stl) return;
        stl.load(meshUrl(k), (g) => { g.computeVertexNormals(); done(g); state.loads++; },
                 undefined, () => { info.textContent += " (mesh " + k + " failed to load)"; });
      };
      data.bodies.forEach((b, k) => {
        const g = new T.Group();
        g.name = b.name;
        g.userData.shapes = new T.Group();
        for (const s of b.shapes) {
          // an inertia ellipsoid is translucent and does not hide what lies behind it
          const opacity = s.opacity !== undefined ? s.opacity : (s.type === "ellipsoid" ? 0.85 : 1);
          const m = new T.MeshLambertMaterial({color: new T.Color(s.color || "#8c9bb0"), transparent: opacity < 1,
                                              opacity, depthWrite: opacity >= 1});
          g.userData.shapes.add(shapeObject(s, m, loadMesh));
        }
        if (!b.shapes.length) g.userData.shapes.add(new T.Mesh(new T.SphereBufferGeometry(0.01 * size, 12, 8),
                                                              new T.MeshLambertMaterial({color: 0x888888})));
        g.add(g.userData.shapes);
        g.add(new T.AxesHelper(0.04 * size));
        world.add(g);
        bodyGroups.push(g);
      });
      // joint markers are drawn over the shapes (no depth test), so a joint inside a body shows
      if (data.ground && data.ground.length) {  // fixed in the world frame (a robot's base)
        const g = new T.Group();
        g.name = "ground";
        for (const s of data.ground) {
          g.add(shapeObject(s, new T.MeshLambertMaterial({color: new T.Color(s.color || "#8c9bb0")}), loadMesh));
        }
        world.add(g);
        extraObjects.push(g);
      }
      const markerMat = new T.MeshBasicMaterial({color: 0xd03030, depthTest: false, transparent: true});
      for (const j of data.joints) {
        const m = new T.Group();
        m.name = "joint:" + j.name;
        const dot = new T.Mesh(new T.SphereBufferGeometry(0.012 * size, 16, 10), markerMat);
        dot.renderOrder = 10;
        m.add(dot);
        const axis = new T.Vector3(j.axis[0], j.axis[1], j.axis[2]).normalize();
        const arrow = new T.ArrowHelper(axis, new T.Vector3(0, 0, 0), 0.05 * size, 0xd03030);
        m.add(arrow);
        m.position.set(j.anchor[0], j.anchor[1], j.anchor[2]);
        bodyGroups[j.body].add(m);
        markers.push(m);
      }
      // reaction arrows (world frame): placed and sized per frame in showFrame
      arrowLength = 0.3 * size;
      state.arrowLength = arrowLength;
      state.reactionsAvailable = !!forces;
      const ref = forces ? (data.reactions.p95 > 0 ? data.reactions.p95 : data.reactions.max) : 0;
      state.reactionScale = ref > 0 ? arrowLength / ref : 0;
      reactionsChk.disabled = !forces;
      lr.title = forces ? "arrows: the force each joint applies to its body_j (/reactions, world frame); " +
        ref.toPrecision(4) + " " + data.reactions.units + " is " + arrowLength.toPrecision(3) + " m long (at most " +
        (2 * arrowLength).toPrecision(3) + " m; the largest force is " + data.reactions.max.toPrecision(4) + " " +
        data.reactions.units + ")" : "the file has no /reactions";
      if (forces) {
        for (const j of data.joints) {
          const a = new T.ArrowHelper(new T.Vector3(1, 0, 0), new T.Vector3(), arrowLength, 0x1f8a3c);
          a.name = "reaction:" + j.name;
          a.renderOrder = 11;
          a.line.material.depthTest = false;
          a.cone.material.depthTest = false;
          world.add(a);
          arrows.push(a);
        }
      }
      buildContacts(size);
      const grid = new T.GridHelper(2 * size, 20, 0xb0b4ba, 0xd8dbe0);
      grid.rotation.x = Math.PI / 2;  // the x-y plane (z up)
      grid.position.set(centre.x, centre.y, box.min.z);
      world.add(grid);
      extraObjects.push(grid);
      const axes = new T.AxesHelper(0.15 * size);
      world.add(axes);
      extraObjects.push(axes);
      camera.near = size * 1e-3; camera.far = size * 100;
      camera.position.set(centre.x + 0.2 * size, centre.y - 1.3 * size, centre.z + 0.5 * size);
      camera.lookAt(centre);
      if (controls) { controls.target.copy(centre); controls.update(); }
      camera.updateProjectionMatrix();
      bodiesChk.onchange();
      jointsChk.onchange();
      state.reactionsVisible = reactionsChk.checked && !!forces;  // drawn by the showFrame that follows
      state.contactsVisible = contactsChk.checked && !!contactPoints;
      for (const g of collisionGroups) g.visible = state.contactsVisible;
    }

    // Collision shapes (in their body's group, or the world's for the ground) and one dot and
    // arrow per contact slot, placed per frame by showContacts.
    function buildContacts(size) {
      const c = data.contacts;
      state.contactsAvailable = !!contactPoints;
      contactsChk.disabled = !contactPoints;
      state.collisionShapes = 0;
      if (!contactPoints) {
        lc.title = "no contact pairs to draw (none in the scene, or a note says why)";
        return;
      }
      for (const item of c.shapes) {
        const s = Object.assign({extent: 2 * size}, item.shape);
        const m = new T.MeshLambertMaterial({color: new T.Color(s.color), transparent: true, opacity: s.opacity,
                                            depthWrite: false, side: T.DoubleSide});
        const g = new T.Group();
        g.name = "collision";
        g.add(shapeObject(s, m, () => {}));
        (item.body >= 0 ? bodyGroups[item.body] : world).add(g);
        if (item.body < 0) extraObjects.push(g);
        collisionGroups.push(g);
        state.collisionShapes++;
      }
      const ref = c.p95 > 0 ? c.p95 : c.max;
      state.contactScale = ref > 0 ? arrowLength / ref : 0;
      lc.title = "collision shapes, contact points and their normal forces; " + ref.toPrecision(4) + " " + c.units +
        " is " + arrowLength.toPrecision(3) + " m long (at most " + (2 * arrowLength).toPrecision(3) + " m)";
      const dotMat = new T.MeshBasicMaterial({color: 0xe07b00, depthTest: false, transparent: true});
      for (let k = 0; k < 4 * c.pairs.length; ++k) {
        const d = new T.Mesh(new T.SphereBufferGeometry(0.008 * size, 12, 8), dotMat);
        d.renderOrder = 12;
        d.visible = false;
        world.add(d);
        contactDots.push(d);
        const a = new T.ArrowHelper(new T.Vector3(0, 0, 1), new T.Vector3(), arrowLength, 0xe07b00);
        a.name = "contact:" + c.pairs[k >> 2] + ":" + (k & 3);
        a.renderOrder = 12;
        a.line.material.depthTest = false;
        a.cone.material.depthTest = false;
        a.visible = false;
        world.add(a);
        contactArrows.push(a);
      }
    }

    function showFrame(f) {
      if (!data) return;
      f = Math.max(0, Math.min(data.time.length - 1, f | 0));
      const n = data.n_bodies;
      for (let b = 0; b < n; ++b) {
        const o = (f * n + b) * 7;
        bodyGroups[b].position.set(poses[o], poses[o + 1], poses[o + 2]);
        bodyGroups[b].quaternion.set(poses[o + 3], poses[o + 4], poses[o + 5], poses[o + 6]);
      }
      world.updateMatrixWorld(true);
      state.frame = f;
      state.fileFrame = data.frame_index[f];
      state.jointNames = data.joints.map((j) => j.name);
      state.time = data.time[f];
      state.bodyPositions = bodyGroups.map((g) => g.getWorldPosition(new T.Vector3()).toArray());
      state.markerPositions = markers.map((m) => m.getWorldPosition(new T.Vector3()).toArray());
      showReactions(f);
      showContacts(f);
      scrub.value = String(f);
      timeLbl.textContent = "t = " + data.time[f].toFixed(4) + " s  (frame " + f + " / " + (data.time.length - 1) + ")";
    }

    function showReactions(f) {
      state.reactionArrows = [];
      if (!forces) return;
      const nj = data.joints.length;
      for (let k = 0; k < nj; ++k) {
        const o = (f * nj + k) * 3;
        const fv = new T.Vector3(forces[o], forces[o + 1], forces[o + 2]);
        const full = fv.length() * state.reactionScale;
        const len = Math.min(full, 2 * arrowLength);
        const a = arrows[k];
        if (!isFinite(len) || len <= 1e-6 * arrowLength) {  // no force, or none recorded (NaN)
          a.visible = false;
          state.reactionArrows.push(null);
          continue;
        }
        const origin = new T.Vector3(...state.markerPositions[k]);
        const dir = fv.clone().normalize();
        a.position.copy(origin);
        a.setDirection(dir);
        const head = Math.min(0.2 * len, 0.04 * arrowLength / 0.3);
        a.setLength(len, head, 0.5 * head);
        a.visible = state.reactionsVisible;
        state.reactionArrows.push({origin: origin.toArray(), vector: dir.multiplyScalar(len).toArray(),
                                   force: fv.toArray(), capped: full > len});
      }
    }

    function showContacts(f) {
      state.contactPoints = [];
      if (!contactPoints) return;
      const slots = 4 * data.contacts.pairs.length;
      for (let k = 0; k < slots; ++k) {
        const o = (f * slots + k) * 7;
        const fn = contactPoints[o + 6];
        const d = contactDots[k], a = contactArrows[k];
        if (!isFinite(fn)) {  // a slot past the pair's contacts
          d.visible = a.visible = false;
          continue;
        }
        const p = new T.Vector3(contactPoints[o], contactPoints[o + 1], contactPoints[o + 2]);
        const n = new T.Vector3(contactPoints[o + 3], contactPoints[o + 4], contactPoints[o + 5]).normalize();
        const len = Math.min(fn * state.contactScale, 2 * arrowLength);
        d.position.copy(p);
        d.visible = state.contactsVisible;
        a.position.copy(p);
        a.setDirection(n);
        const head = Math.min(0.2 * len, 0.04 * arrowLength / 0.3);
        if (len > 1e-6 * arrowLength) a.setLength(len, head, 0.5 * head);
        a.visible = state.contactsVisible && len > 1e-6 * arrowLength;
        state.contactPoints.push({pair: data.contacts.pairs[k >> 2], point: p.toArray(), normal: n.toArray(),
                                  force: fn, vector: n.clone().multiplyScalar(len).toArray()});
      }
    }

    function frameAt(t) {  // the last frame at or before t
      const a = data.time;
      let lo = 0, hi = a.length - 1;
      while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (a[mid] <= t) lo = mid; else hi = mid - 1; }
      return lo;
    }

    function tick(now) {
      requestAnimationFrame(tick);
      if (data && state.playing) {
        const dtWall = lastWall === null ? 0 : (now - lastWall) / 1000;
        simTime += Math.min(dtWall, 0.25) * state.speed;
        const t0 = data.time[0], t1 = data.time[data.time.length - 1];
        if (simTime > t1) simTime = t0 + (t1 > t0 ? (simTime - t0) % (t1 - t0) : 0);  // loop
        showFrame(frameAt(simTime));
      }
      lastWall = now;
      if (controls) controls.update();
      if (renderer) renderer.render(scene, camera);
    }

    self.play = function () { if (data) { state.playing = true; playBtn.textContent = "Pause"; } };
    self.pause = function () { state.playing = false; playBtn.textContent = "Play"; };
    self.seek = function (f) { if (data) { showFrame(f); simTime = data.time[state.frame]; } };
    self.setSpeed = function (s) { state.speed = +s; speedSel.value = String(s); };
    playBtn.onclick = () => (state.playing ? self.pause() : self.play());
    scrub.oninput = () => { self.pause(); self.seek(+scrub.value); };
    speedSel.onchange = () => { state.speed = +speedSel.value; };
    bodiesChk.onchange = () => {
      for (const g of bodyGroups) g.userData.shapes.visible = bodiesChk.checked;
      state.bodiesVisible = bodiesChk.checked;
    };
    jointsChk.onchange = () => {
      for (const m of markers) m.visible = jointsChk.checked;
      state.jointsVisible = jointsChk.checked;
    };
    reactionsChk.onchange = () => {
      state.reactionsVisible = reactionsChk.checked && !!forces;
      if (data) showReactions(state.frame);
    };
    contactsChk.onchange = () => {
      state.contactsVisible = contactsChk.checked && !!contactPoints;
      for (const g of collisionGroups) g.visible = state.contactsVisible;
      if (data) showContacts(state.frame);
    };

    self.load = async function (query) {
      state.ready = false;
      info.textContent = "loading ...";
      const r = await fetch(url + "?" + new URLSearchParams(query), {credentials: "same-origin"});
      let body;
      try { body = await r.json(); } catch (e) { body = {detail: r.statusText}; }
      if (!r.ok) {
        state.error = typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail);
        info.textContent = "replay: " + state.error;
        return false;
      }
      data = body;
      poses = decodeFloats(data.poses, data.time.length, data.n_bodies, 7);
      forces = data.reactions ? decodeFloats(data.reactions.forces, data.time.length, data.joints.length, 3) : null;
      contactPoints = data.contacts
        ? decodeFloats(data.contacts.points, data.time.length, 4 * data.contacts.pairs.length, 7) : null;
      state.error = null;
      state.instance = data.instance;
      state.frames = data.time.length;
      state.pick = data.pick;
      instInput.max = String(data.instances - 1);
      instInput.value = String(data.instance);
      if (data.loads && data.loads.length) {
        const keep = peakSel.value;
        peakSel.innerHTML = "";
        for (const l of data.loads) {
          peakSel.appendChild(el("option", {value: l.key}, l.key + " (" + l.value.toPrecision(4) + " " + l.units + ", instance " + l.instance + ")"));
        }
        peakSel.value = data.pick.load || keep;
      }
      scrub.max = String(data.time.length - 1);
      build();
      resize();
      simTime = data.time[0];
      showFrame(0);
      const picked = data.pick.mode === "peak"
        ? "largest " + data.pick.load + " = " + data.pick.value.toPrecision(4) + " " + data.pick.units
        : "by index";
      const statusWord = ["ok", "assembly failed", "diverged"][data.status] || String(data.status);
      info.textContent = data.file + ": instance " + data.instance + " of " + data.instances + " (" + picked + "), " +
        statusWord + "; " + data.time.length + " frames" +
        (data.frame_stride > 1 ? " (every " + data.frame_stride + "th of " + data.frames_recorded + " recorded)" : "") +
        "; shapes: " + data.bodies.map((b) => b.name + " " + b.source).join(", ") +
        (forces ? "; reaction arrows: " + (state.reactionScale > 0 ? (arrowLength / state.reactionScale).toPrecision(4) : "0") +
                  " " + data.reactions.units + " = " + arrowLength.toPrecision(3) + " m" : "") +
        (contactPoints ? "; " + data.contacts.pairs.length + " contact pairs, " + state.collisionShapes +
                         " collision shapes" : "");
      if (data.notes.length) {  // what could not be drawn as asked, folded
        const det = el("details", {id: "replay-notes"});
        det.appendChild(el("summary", {}, data.notes.length + " note" + (data.notes.length > 1 ? "s" : "")));
        for (const n of data.notes) det.appendChild(el("div", {}, n));
        info.appendChild(det);
      }
      state.ready = true;
      return true;
    };
    // keys (outside text fields): space plays / pauses, left / right step one frame
    document.addEventListener("keydown", (e) => {
      if (!data || /^(INPUT|TEXTAREA|SELECT)$/.test((e.target && e.target.tagName) || "")) return;
      if (e.key === " ") {
        if (e.target && e.target.tagName === "BUTTON") return;  // a focused button clicks itself
        e.preventDefault();
        playBtn.onclick();
      }
      else if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
        self.pause();
        self.seek(state.frame + (e.key === "ArrowRight" ? 1 : -1));
      }
    });
    instBtn.onclick = () => self.load({instance: instInput.value});
    peakBtn.onclick = () => self.load(peakSel.value ? {pick: "peak", load: peakSel.value} : {pick: "peak"});

    requestAnimationFrame(tick);
    self.load(opts.query || {});
  }

  window.SimphantReplay = SimphantReplay;
})();
