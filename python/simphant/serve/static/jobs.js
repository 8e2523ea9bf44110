// The job list (polled every second) and the submit form of /web/.
"use strict";

const jobsBody = document.querySelector("#jobs tbody");
const jobsError = document.getElementById("jobs-error");

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
  st.textContent = j.status + (j.stage ? " (" + j.stage + ")" : "") +
    (j.message && j.status === "failed" ? ": " + j.message : "");
  cells.push(st);
  const pr = document.createElement("span");
  pr.appendChild(progressBar(j.progress, j.stage === "report"));
  pr.appendChild(document.createTextNode(j.stage === "report" ? " report" : " " + j.progress + " %"));
  cells.push(pr);
  cells.push(document.createTextNode(j.stage === "simulation" ? fmtSeconds(j.eta_s) : ""));
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

// ---- the run options: one control per JobOptions field (GET /web/job-options.json) ----
let optionControls = [];
const optionsForm = document.getElementById("options-form");

function buildOptionsForm(controls) {
  optionControls = controls;
  optionsForm.innerHTML = "";
  for (const c of controls) {
    const label = document.createElement(c.kind === "multi" ? "span" : "label");  // multi: a label per box
    label.className = "option";
    label.title = c.help;
    label.dataset.option = c.name;
    label.appendChild(document.createTextNode(c.label + " "));
    let input;
    switch (c.kind) {
      case "choice":
      case "boolean": {
        input = document.createElement("select");
        const values = c.kind === "boolean" ? ["true", "false"] : c.choices;
        if (c.nullable) input.appendChild(new Option("(scene)", ""));
        for (const v of values) input.appendChild(new Option(v, v));
        input.value = c.default === null || c.default === undefined ? "" : String(c.default);
        break;
      }
      case "integer":
      case "number":
        input = document.createElement("input");
        input.type = "number";
        input.step = c.kind === "integer" ? "1" : "any";
        if (c.minimum !== undefined) input.min = String(c.minimum);
        if (c.exclusiveMinimum !== undefined) input.min = String(c.exclusiveMinimum);
        if (c.maximum !== undefined) input.max = String(c.maximum);
        input.size = 8;
        break;
      case "multi":
        input = document.createElement("span");
        for (const v of c.choices) {
          const box = document.createElement("input");
          box.type = "checkbox";
          box.value = v;
          box.id = "opt-" + c.name + "-" + v;
          const l = document.createElement("label");
          l.appendChild(box);
          l.appendChild(document.createTextNode(" " + v));
          input.appendChild(l);
        }
        break;
      case "names":
        input = document.createElement("input");
        input.type = "text";
        input.size = 20;
        input.placeholder = c.choices.join(" | ") + " | name,name,...";
        break;
      default:
        throw new Error("no form control for option " + c.name + " of kind " + c.kind);
    }
    input.id = "opt-" + c.name;
    input.dataset.kind = c.kind;
    label.appendChild(input);
    optionsForm.appendChild(label);
  }
  optionsForm.dataset.ready = "true";
}

// The options object of the form; big integers (a seed up to 2^64 - 1) as BigInt.
function options() {
  const o = {};
  for (const c of optionControls) {
    const input = document.getElementById("opt-" + c.name);
    if (c.kind === "multi") {
      const on = [...input.querySelectorAll("input:checked")].map((b) => b.value);
      if (on.length) o[c.name] = on;
      continue;
    }
    const v = input.value.trim();
    if (v === "") continue;
    if (c.kind === "choice") o[c.name] = v;
    else if (c.kind === "boolean") o[c.name] = v === "true";
    else if (c.kind === "integer") o[c.name] = /^-?\d+$/.test(v) && !Number.isSafeInteger(Number(v)) ? BigInt(v) : Number(v);
    else if (c.kind === "number") o[c.name] = Number(v);
    else if (c.kind === "names") o[c.name] = c.choices.includes(v) ? v : v.split(",").map((x) => x.trim()).filter((x) => x);
  }
  return o;
}

// JSON text of a value that may hold BigInt (written as plain integers).
function toJson(value) {
  return JSON.stringify(value, (k, v) => (typeof v === "bigint" ? "@@bigint:" + v + "@@" : v))
    .replace(/"@@bigint:(-?\d+)@@"/g, "$1");
}

async function loadOptionsForm() {
  try {
    const r = await fetch("/web/job-options.json");
    buildOptionsForm((await r.json()).controls);
  } catch (e) {
    optionsError.textContent = "the run options could not be loaded: " + e;
  }
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
    fd.append("options", toJson(options()));
    for (const f of files) fd.append(f.name.toLowerCase().endsWith(".zip") ? "bundle" : "files", f, f.name);
    req = {method: "POST", body: fd};
  } else {
    let scene = sceneArea.value;
    try { scene = JSON.parse(scene); } catch (e) { /* sent as text: the service names the JSON error */ }
    req = {method: "POST", headers: {"Content-Type": "application/json"}, body: toJson({scene, options: options()})};
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
loadOptionsForm();
refresh();
setInterval(refresh, 1000);
