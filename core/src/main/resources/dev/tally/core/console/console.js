// The Tally console: a person's own pending actions (confirm / cancel), their recent actions
// with timelines, and for the operator the executions whose outcome is unknown. The credential
// lives only in this script's memory and is sent as a bearer token to this origin's /v1 API;
// every value is written with textContent (never as HTML).
"use strict";
(function () {
  let credential = null;
  let operator = false;
  const $ = (id) => document.getElementById(id);
  // Where the console is mounted: "" on the sidecar's admin port, the admin servlet's path in a
  // servlet-filter deployment (its page links this script under that path).
  const script = document.currentScript;
  const base = script ? new URL(script.src).pathname.replace(/\/console\/console\.js$/, "") : "";
  const focusId =
    (location.pathname.slice(base.length).match(/^\/console\/actions\/(act_[0-9A-Za-z]+)$/) || [])[1];

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }

  function say(text) { $("message").textContent = text; }

  async function api(method, path, body) {
    const init = { method, headers: { Authorization: "Bearer " + credential }, credentials: "omit" };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const r = await fetch(base + path, init);
    let json = {};
    try { json = await r.json(); } catch (e) { json = {}; }
    return { status: r.status, json };
  }

  function left(seconds) {
    const m = Math.floor(seconds / 60);
    return m >= 1 ? "expires in " + m + " min" : "expires in " + seconds + " s";
  }

  function timeline(rec) {
    const t = rec.timeline || {};
    return Object.keys(t).map((k) => k.replace(/_at$/, "") + " " + t[k]).join("  →  ");
  }

  function actionItem(a, withButtons) {
    const li = el("li");
    li.dataset.action = a.actionId || a.executionId;
    li.appendChild(el("strong", a.tool));
    li.appendChild(el("span", " " + (a.actionId || a.executionId) + " "));
    li.appendChild(el("span", a.state, "state"));
    if (a.preview) {
      if (a.preview.irreversible) li.appendChild(el("div", "cannot be undone", "irreversible"));
      li.appendChild(el("pre", JSON.stringify(a.preview.arguments, null, 2)));
    }
    if (a.expiresInSeconds !== undefined) li.appendChild(el("div", left(a.expiresInSeconds), "left"));
    if (withButtons && a.state === "pending_confirmation") {
      const ok = el("button", "Confirm", "confirm");
      const no = el("button", "Cancel", "cancel");
      ok.addEventListener("click", () => decide(a.actionId, "confirm"));
      no.addEventListener("click", () => decide(a.actionId, "cancel"));
      li.appendChild(ok);
      li.appendChild(no);
    } else {
      li.appendChild(el("div", timeline(a), "timeline"));
    }
    return li;
  }

  async function decide(id, what) {
    say(what === "confirm" ? "Running…" : "Cancelling…");
    const r = await api("POST", "/v1/actions/" + id + "/" + what, {});
    if (r.status === 200) {
      say(what === "confirm"
        ? "Confirmed: the action ran and is " + r.json.state + "."
        : "Cancelled: the action will never run.");
    } else {
      say((r.json.error && r.json.error.message) || ("refused (HTTP " + r.status + ")"));
    }
    await refresh();
  }

  async function refresh() {
    if (operator) return refreshOperator();
    if (focusId) {
      const f = await api("GET", "/v1/actions/" + focusId);
      const body = $("focus-body");
      body.replaceChildren();
      $("focus").hidden = false;
      if (f.status === 200) body.appendChild(actionItem(f.json, true));
      else body.appendChild(el("p", (f.json.error && f.json.error.message) || "not found", "neutral"));
    }
    const p = await api("GET", "/v1/actions");
    const list = $("pending-list");
    list.replaceChildren();
    (p.json.items || []).filter((a) => a.actionId !== focusId)
      .forEach((a) => list.appendChild(actionItem(a, true)));
    $("pending-empty").hidden = (p.json.items || []).length > 0;
    $("pending").hidden = false;
    const r = await api("GET", "/v1/actions?recent=true");
    const rl = $("recent-list");
    rl.replaceChildren();
    (r.json.items || []).forEach((a) => rl.appendChild(actionItem(a, false)));
    $("recent").hidden = false;
  }

  async function refreshOperator() {
    const r = await api("GET", "/v1/executions?state=outcome_unknown");
    if (r.status !== 200) { say((r.json.error && r.json.error.message) || "refused"); return; }
    const list = $("unknown-list");
    list.replaceChildren();
    (r.json.items || []).forEach((e) => {
      const li = actionItem(e, false);
      const failed = el("button", "Nothing happened (failed)", "resolve-failed");
      failed.addEventListener("click", async () => {
        const a = await api("POST", "/v1/executions/" + e.executionId + "/resolve", { outcome: "failed" });
        say(a.status === 200 ? "Resolved as failed." : (a.json.error && a.json.error.message) || "refused");
        await refreshOperator();
      });
      const text = el("input");
      text.placeholder = "what the tool did (becomes its result)";
      text.className = "resolve-text";
      const done = el("button", "It happened (completed)", "resolve-completed");
      done.addEventListener("click", async () => {
        const a = await api("POST", "/v1/executions/" + e.executionId + "/resolve", {
          outcome: "completed", result: { content: [{ type: "text", text: text.value || "done" }] } });
        say(a.status === 200 ? "Resolved as completed." : (a.json.error && a.json.error.message) || "refused");
        await refreshOperator();
      });
      li.append(failed, text, done);
      list.appendChild(li);
    });
    $("unknown-empty").hidden = (r.json.items || []).length > 0;
    $("operator-view").hidden = false;
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("signin-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      credential = $("credential").value;
      operator = $("operator").checked;
      $("credential").value = "";
      $("signin").hidden = true;
      $("signout").hidden = false;
      $("who").textContent = operator ? "operator" : "signed in";
      await refresh();
    });
    $("signout").addEventListener("click", () => { credential = null; location.reload(); });
  });
})();
