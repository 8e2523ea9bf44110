// The job list (polled every second) and the submit form of /web/.
"use strict";

const jobsBody = document.querySelector("#jobs tbody");
const jobsError = document.getElementById("jobs-error");

function progressBar(pct) {
  const outer = document.createElement("span");
  outer.className = "progress";
  const inner = document.createElement("div");
  inner.style.width = Math.max(0, Math.min(100, pct)) + "%";
  outer.appendChild(inner);
  return outer;
}

function jobRow(j) {
  const tr = document.createElement("tr");
  tr.id = "job-" + j.jobID;
  tr.dataset.status = j.status;
  const cells = [];
  const a = document.createElement("a");
  a.href = "/web/jobs/" + j.jobID;
  a.textContent = j.jobID.slice(0, 8);
  cells.push(a);
  cells.push(document.createTextNode((j.options && j.options.scene_name) || ""));
  const st = document.createElement("span");
  st.className = "state state-" + j.status;
  st.textContent = j.status + (j.message && j.status === "failed" ? ": " + j.message : "");
  cells.push(st);
  const pr = document.createElement("span");
  pr.appendChild(progressBar(j.progress));
  pr.appendChild(document.createTextNode(" " + j.progress + " %"));
  cells.push(pr);
  cells.push(document.createTextNode(fmtSeconds(j.eta_s)));
  cells.push(document.createTextNode(j.created ? j.created.replace("T", " ").slice(0, 19) : ""));
  const act = document.createElement("span");
  if (j.status === "queued" || j.status === "running") {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = "Cancel";
    b.onclick = async () => { try { await SimphantApi.call("/jobs/" + j.jobID, {method: "DELETE"}); refresh(); } catch (e) { jobsError.textContent = e.detail; } };
    act.appendChild(b);
  }
  cells.push(act);
  for (const c of cells) { const td = document.createElement("td"); td.appendChild(c); tr.appendChild(td); }
  return tr;
}

async function refresh() {
  if (!SimphantApi.token()) { jobsError.textContent = "enter a token (top right) to see your jobs"; return; }
  try {
    const r = await SimphantApi.call("/jobs");
    jobsError.textContent = "";
    jobsBody.innerHTML = "";
    for (const j of r.jobs) jobsBody.appendChild(jobRow(j));
  } catch (e) {
    jobsError.textContent = "GET /jobs: " + e.status + " " + e.detail;
  }
}

// ---- submit --------------------------------------------------------------------------
const sceneArea = document.getElementById("scene");
const sceneError = document.getElementById("scene-error");
const optionsError = document.getElementById("options-error");
const submitResult = document.getElementById("submit-result");

document.getElementById("scene-file").onchange = async (ev) => {
  const f = ev.target.files[0];
  if (f) sceneArea.value = await f.text();
};

function options() {
  const o = {};
  for (const k of ["instances", "t_end", "dt"]) {
    const v = document.getElementById("opt-" + k).value;
    if (v !== "") o[k] = Number(v);
  }
  o.backend = document.getElementById("opt-backend").value;
  return o;
}

function showError(e) {
  // the validator's message beside the field it names: the scene's JSON path, or a run option
  const where = e.path || "";
  const text = (e.path ? e.path + "\n" : "") + e.detail;
  if (where.startsWith("/options")) optionsError.textContent = text;
  else sceneError.textContent = text;
}

document.getElementById("submit-form").onsubmit = async (ev) => {
  ev.preventDefault();
  sceneError.textContent = optionsError.textContent = submitResult.textContent = "";
  const files = document.getElementById("bundle-files").files;
  let req;
  if (files.length) {
    const fd = new FormData();
    fd.append("scene", new Blob([sceneArea.value], {type: "application/json"}), "scene.json");
    fd.append("options", JSON.stringify(options()));
    for (const f of files) fd.append(f.name.toLowerCase().endsWith(".zip") ? "bundle" : "files", f, f.name);
    req = {method: "POST", body: fd};
  } else {
    let scene = sceneArea.value;
    try { scene = JSON.parse(scene); } catch (e) { /* sent as text: the service names the JSON error */ }
    req = {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({scene, options: options()})};
  }
  try {
    const j = await SimphantApi.call("/jobs", req);
    submitResult.innerHTML = "";
    const a = document.createElement("a");
    a.href = "/web/jobs/" + j.jobID;
    a.id = "submitted-job";
    a.textContent = "job " + j.jobID + " " + j.status;
    submitResult.appendChild(a);
    refresh();
  } catch (e) {
    showError(e);
  }
};

tokenBox(refresh);
refresh();
setInterval(refresh, 1000);
