// The page: upload a clip, pick a method, poll the job (frames done), then show source, edit and
// the detected UI (when asked) side by side.
// Requests carry the HttpOnly session cookie set at sign-in; no token lives in this script.
"use strict";
const $ = (id) => document.getElementById(id);
const jobs = new Map();

async function api(path, options = {}) {
  const resp = await fetch(path, {credentials: "same-origin", ...options});
  const body = resp.headers.get("content-type")?.includes("json") ? await resp.json() : null;
  if (!resp.ok) throw new Error((body && body.message) || resp.statusText);
  return body;
}

async function loadMethods() {
  const {methods, detector} = await api("/v1/methods");
  $("detect-label").hidden = !detector;
  $("detect").checked = detector;
  for (const m of methods.filter((m) => m.available)) {
    const opt = document.createElement("option");
    opt.value = m.name;
    opt.textContent = m.name + (m.gpu ? " (GPU)" : "");
    opt.title = "options: " + JSON.stringify(m.options);
    $("method").append(opt);
  }
}

function render(job) {
  let row = document.querySelector(`tr[data-id="${job.id}"]`);
  if (!row) {
    row = document.createElement("tr");
    row.dataset.id = job.id;
    row.innerHTML = "<td class=id></td><td class=clip></td><td class=method></td><td class=state></td>" +
      "<td><progress max=1 value=0></progress> <span class=frames></span></td><td class=act></td>";
    $("jobs").querySelector("tbody").prepend(row);
  }
  row.querySelector(".id").textContent = job.id.slice(4, 12);
  row.querySelector(".clip").textContent = job.input || "";
  row.querySelector(".method").textContent = job.method;
  const state = row.querySelector(".state");
  state.textContent = job.state + (job.reason ? ` (${job.reason})` : "");
  state.className = "state state-" + job.state;
  const {frames_done: done, frames_total: total} = job.progress;
  const bar = row.querySelector("progress");
  bar.max = total || 1;
  bar.value = job.state === "succeeded" ? bar.max : done;
  row.querySelector(".frames").textContent = `${done}/${total}`;
  const act = row.querySelector(".act");
  act.replaceChildren();
  if (job.state === "succeeded") {
    const view = document.createElement("button");
    view.textContent = "View";
    view.onclick = () => show(job);
    act.append(view);
  } else if (job.state === "queued" || job.state === "running") {
    const cancel = document.createElement("button");
    cancel.textContent = "Cancel";
    cancel.onclick = () => api(`/v1/removals/${job.id}`, {method: "DELETE"}).then(render);
    act.append(cancel);
  }
}

function show(job) {
  $("viewer").hidden = false;
  $("viewer-title").textContent = `${job.input} — ${job.method}`;
  $("source").src = `/v1/removals/${job.id}/source`;
  $("edited").src = job.results["edited.mp4"];
  const mask = job.results["mask.mkv"];
  $("mask-pane").hidden = !mask;
  if (mask) {
    $("mask-link").href = mask;
    $("mask-preview").src = job.results["preview.png"];
  }
  $("downloads").replaceChildren(...Object.entries(job.results).map(([name, url]) => {
    const a = document.createElement("a");
    a.href = url; a.download = name; a.textContent = "Download " + name + " ";
    return a;
  }));
}

async function poll() {
  for (const [id, job] of jobs) {
    if (["succeeded", "failed", "canceled"].includes(job.state)) continue;
    try {
      const fresh = await api(`/v1/removals/${id}`);
      jobs.set(id, fresh);
      render(fresh);
      if (fresh.state === "succeeded" && $("viewer").hidden) show(fresh);
    } catch (err) { $("message").textContent = err.message; }
  }
}

$("submit").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData();
  form.append("file", $("file").files[0]);
  form.append("method", $("method").value);
  if ($("options").value.trim()) form.append("options", $("options").value.trim());
  form.append("detect", $("detect").checked ? "true" : "false");
  $("message").textContent = "Uploading…";
  try {
    const job = await api("/v1/removals", {method: "POST", body: form});
    jobs.set(job.id, job);
    render(job);
    $("message").textContent = `Queued job ${job.id}.`;
  } catch (err) { $("message").textContent = "Refused: " + err.message; }
});

// After a reload the owner's recent jobs come back from the service, newest on top.
async function loadJobs() {
  const {items} = await api("/v1/removals?limit=50");
  for (const job of items.reverse()) {
    jobs.set(job.id, job);
    render(job);
  }
}

loadMethods().catch((err) => { $("message").textContent = err.message; });
loadJobs().catch((err) => { $("message").textContent = err.message; });
setInterval(poll, 700);

$("logout").addEventListener("click", async () => {
  await fetch("/v1/session", {method: "DELETE", credentials: "same-origin"});
  location.reload();
});
