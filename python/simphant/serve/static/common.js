// Shared by the service's pages: the bearer token and calls of the job API.
// The token is kept in localStorage and in the cookie simphant_token (auth.current_token
// accepts either the Authorization header or that cookie), so that <img> and EventSource
// requests of the same origin carry it too.
"use strict";

const SimphantApi = {
  token() { return localStorage.getItem("simphant_token") || ""; },
  setToken(t) {
    localStorage.setItem("simphant_token", t);
    document.cookie = "simphant_token=" + encodeURIComponent(t) + "; path=/; SameSite=Strict";
  },
  // fetch with the token; resolves to the parsed JSON, or rejects with {status, detail, path}
  async call(path, opts) {
    opts = opts || {};
    const headers = Object.assign({}, opts.headers || {});
    if (this.token()) headers["Authorization"] = "Bearer " + this.token();
    const r = await fetch(path, Object.assign({}, opts, {headers, credentials: "same-origin"}));
    let body = null;
    try { body = await r.json(); } catch (e) { body = null; }
    if (!r.ok) {
      const detail = body && body.detail !== undefined
        ? (typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail)) : r.statusText;
      throw {status: r.status, detail, path: body && body.path, errors: body && body.errors};
    }
    return body;
  },
};

function tokenBox(onChange) {
  // the token field in the header: shows whether a token is set, stores a new one
  const input = document.getElementById("token");
  const btn = document.getElementById("token-save");
  input.value = SimphantApi.token();
  btn.onclick = () => { SimphantApi.setToken(input.value.trim()); if (onChange) onChange(); };
  input.onkeydown = (e) => { if (e.key === "Enter") btn.onclick(); };
  if (SimphantApi.token()) SimphantApi.setToken(SimphantApi.token());  // refresh the cookie
}

function fmtSeconds(s) {
  if (s === null || s === undefined || !isFinite(s)) return "";
  if (s < 60) return s.toFixed(0) + " s";
  if (s < 3600) return (s / 60).toFixed(1) + " min";
  return (s / 3600).toFixed(1) + " h";
}

// A progress bar at pct %; busy: a stage without a measure of its progress (striped).
function progressBar(pct, busy) {
  const outer = document.createElement("span");
  outer.className = "progress" + (busy ? " progress-busy" : "");
  const inner = document.createElement("div");
  inner.style.width = (busy ? 100 : Math.max(0, Math.min(100, pct))) + "%";
  outer.appendChild(inner);
  return outer;
}
