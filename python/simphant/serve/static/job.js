// A job's page /web/jobs/<id>: its state and progress (server-sent events of
// GET /jobs/<id>/events), then its result files, the report's figures and the 3D replay.
"use strict";

const jobId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const $ = (id) => document.getElementById(id);
let finished = false, events = null;

function showStatus(j) {
  $("job-title").textContent = "Job " + j.jobID + ((j.options && j.options.scene_name) ? ": " + j.options.scene_name : "");
  $("job-state").textContent = j.status;
  $("job-state").className = "state state-" + j.status;
  document.body.dataset.status = j.status;
  document.body.dataset.stage = j.stage || "";
  const steps = j.steps_done + " of " + (j.steps_total || "?") + " steps";
  $("job-progress").innerHTML = "";
  $("job-progress").appendChild(progressBar(j.progress, j.stage === "report"));
  // the report stage: the simulation is done and the report's length unknown, so no ETA
  $("job-progress").appendChild(document.createTextNode(j.stage === "report"
    ? " simulation done (" + steps + "); writing the report"
    : " " + j.progress + " % (" + steps + ")"));
  $("job-stage").textContent = j.stage ? "stage: " + j.stage : "";
  $("job-eta").textContent = j.stage === "simulation" && j.eta_s !== null && j.eta_s !== undefined
    ? "ETA " + fmtSeconds(j.eta_s) : "";
  $("job-message").textContent = j.message || "";
  $("job-cancel").hidden = !(j.status === "queued" || j.status === "running");
  if (j.summary) { $("summary").hidden = false; $("summary").textContent = JSON.stringify(j.summary, null, 1); }
  if (["successful", "failed", "dismissed"].includes(j.status) && !finished) {
    finished = true;
    if (events) events.close();
    showResults();
  }
}

async function showResults() {
  let res;
  try { res = await SimphantApi.call("/jobs/" + jobId + "/results"); } catch (e) { $("job-error").textContent = e.detail; return; }
  const ul = $("results");
  ul.innerHTML = "";
  const names = res.links.map((l) => l.title);
  for (const l of res.links) {
    if (l.title.startsWith("report/") && l.title !== "report/report.html") continue;
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = l.href;
    a.textContent = l.title + " (" + l.length + " bytes)";
    li.appendChild(a);
    ul.appendChild(li);
  }
  $("results-section").hidden = false;
  if (names.includes("out.h5")) {
    $("replay-section").hidden = false;
    window.replay = new SimphantReplay({container: $("replay"), url: "/jobs/" + jobId + "/replay"});
  }
  if (names.includes("report/report.json")) {
    try {
      const rep = await SimphantApi.call("/jobs/" + jobId + "/results/report/report.json");
      const div = $("figures");
      for (const f of rep.figures || []) {
        const fig = document.createElement("figure");
        const img = document.createElement("img");
        img.src = "/jobs/" + jobId + "/results/report/" + encodeURIComponent(f.file);
        img.alt = f.title;
        const cap = document.createElement("figcaption");
        cap.textContent = f.title;
        fig.appendChild(img);
        fig.appendChild(cap);
        div.appendChild(fig);
      }
      $("figures-section").hidden = !(rep.figures || []).length;
    } catch (e) { $("job-error").textContent = "report: " + e.detail; }
  }
}

async function start() {
  $("job-error").textContent = "";
  try {
    showStatus(await SimphantApi.call("/jobs/" + jobId));
  } catch (e) {
    $("job-error").textContent = e.status === 401 ? "enter your token (top right)" : e.status + " " + e.detail;
    return;
  }
  if (finished) return;
  // EventSource sends the cookie simphant_token (it cannot send headers)
  events = new EventSource("/jobs/" + jobId + "/events");
  events.addEventListener("status", (ev) => showStatus(JSON.parse(ev.data)));
  events.addEventListener("deleted", () => { $("job-error").textContent = "the job was deleted"; events.close(); });
  events.onerror = () => {  // the stream ended or broke: fall back to polling until final
    events.close();
    if (!finished) setTimeout(start, 1000);
  };
}

$("job-cancel").onclick = async () => {
  try { showStatus(await SimphantApi.call("/jobs/" + jobId, {method: "DELETE"})); } catch (e) { $("job-error").textContent = e.detail; }
};
tokenBox(start);
start();
