// dealerassist dashboard: live panels over Server-Sent Events and actions posted as JSON.
// No polling: a panel is re-fetched only when the event stream brings a record.
"use strict";

(function () {
  const csrf = () => document.querySelector('meta[name="csrf-token"]').content;
  const errorBox = () => document.getElementById("action-error");

  function showError(text) {
    const box = errorBox();
    if (!box) return;
    box.textContent = text;
    box.hidden = !text;
  }

  function formBody(form) {
    const body = {};
    for (const [name, value] of new FormData(form).entries()) {
      if (name === "csrf_token") continue;
      if (typeof value === "string" && value.trim() === "") continue;
      body[name] = value;
    }
    return body;
  }

  // A field is known by its form (see keyOf) and its name.
  function fieldKey(el) {
    return `${el.form ? keyOf(el.form) : ""}|${el.name}`;
  }

  function inputsOf(root) {
    return root.querySelectorAll("input:not([type=hidden]), select");
  }

  // --- live panels are patched in place ------------------------------------------------------
  // A re-fetched panel is parsed off-screen and merged into the live one node by node: an element
  // keeps its identity (and with it focus, caret, typed text, an open <details>, a button being
  // pressed) as long as the server still draws it; only what changed is touched.

  // The attribute a person changes by using the page, never taken from the server's copy.
  const USER_STATE = { DETAILS: ["open"] };

  // Elements are matched by id, data-key or a form's target and hidden fields; the rest in order.
  function keyOf(node) {
    if (node.nodeType !== Node.ELEMENT_NODE) return null;
    if (node.id) return `#${node.id}`;
    if (node.dataset.key) return `k:${node.dataset.key}`;
    if (node.tagName === "FORM") {
      const hidden = [...node.querySelectorAll("input[type=hidden]")]
        .filter((h) => h.name !== "csrf_token")
        .map((h) => `${h.name}=${h.getAttribute("value")}`)
        .join("&");
      return `form:${node.getAttribute("action")}|${hidden}`;
    }
    return null;
  }

  function sameKind(a, b) {
    return a.nodeType === b.nodeType && a.nodeName === b.nodeName;
  }

  function morphAttributes(live, drawn) {
    const kept = USER_STATE[live.tagName] || [];
    // A form waiting for the server keeps its buttons disabled until the answer comes.
    const busy = live.closest && live.closest("form[data-busy]");
    const skip = (name) => kept.includes(name) || (busy && name === "disabled") || name === "data-busy";
    for (const attr of [...live.attributes]) {
      if (!skip(attr.name) && !drawn.hasAttribute(attr.name)) live.removeAttribute(attr.name);
    }
    for (const attr of drawn.attributes) {
      if (!skip(attr.name) && live.getAttribute(attr.name) !== attr.value) live.setAttribute(attr.name, attr.value);
    }
  }

  function morphNode(live, drawn) {
    if (live.nodeType !== Node.ELEMENT_NODE) {
      if (live.nodeValue !== drawn.nodeValue) live.nodeValue = drawn.nodeValue;
      return;
    }
    if (live.isEqualNode(drawn)) return;
    morphAttributes(live, drawn);
    // A field's value property is what the person typed; its attribute (the server's default) is
    // all that is merged, so typing is never overwritten.
    if (live.tagName === "TEXTAREA") return;
    morphChildren(live, drawn);
  }

  // A list marked data-arrivals (what waits for the supervisor) never moves a row under a finger:
  // a new row joins at the end, and a row that is gone leaves its space empty while rows after it
  // are still there, until nobody has pressed anything for a few seconds. The list's box has a
  // fixed height, so nothing below it moves either.
  const SETTLE_MS = 5000;
  let lastPress = -SETTLE_MS;

  function dropTrailingGone(list) {
    while (list.lastElementChild && list.lastElementChild.classList.contains("gone")) {
      list.lastElementChild.remove();
    }
  }

  function morphArrivals(live, drawn) {
    const rows = new Map([...live.children].map((node) => [keyOf(node), node]));
    const drawnRows = [...drawn.children];
    const wanted = new Set(drawnRows.map(keyOf));
    const settled = performance.now() - lastPress >= SETTLE_MS;
    for (const [key, node] of rows) {
      if (wanted.has(key)) continue;
      if (settled) {
        node.remove();
      } else {
        node.classList.add("gone");
        node.inert = true;
      }
    }
    dropTrailingGone(live);
    for (const row of drawnRows) {
      const old = rows.get(keyOf(row));
      if (old && old.isConnected) {
        morphNode(old, row);
        old.inert = false;
      } else {
        live.appendChild(row);
      }
    }
  }

  function sweepGone() {
    if (pressed || performance.now() - lastPress < SETTLE_MS) return;
    document.querySelectorAll("[data-arrivals] > .gone").forEach((node) => node.remove());
  }

  // The matched nodes that can stay where they are: the longest run already in the drawn order.
  function staying(olds, matches) {
    const at = new Map(olds.map((node, i) => [node, i]));
    const tails = [];
    const tailAt = [];
    const before = [];
    matches.forEach((node, i) => {
      const value = at.get(node);
      let lo = 0;
      let hi = tails.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (tails[mid] < value) lo = mid + 1;
        else hi = mid;
      }
      tails[lo] = value;
      tailAt[lo] = i;
      before[i] = lo > 0 ? tailAt[lo - 1] : -1;
    });
    const keep = new Set();
    for (let i = tails.length ? tailAt[tails.length - 1] : -1; i >= 0; i = before[i]) keep.add(matches[i]);
    return keep;
  }

  function morphChildren(live, drawn) {
    if (live.hasAttribute && live.hasAttribute("data-arrivals")) {
      morphArrivals(live, drawn);
      return;
    }
    // Elements are reused (by key, else in order by tag); text is cheap and simply redrawn.
    const olds = [...live.childNodes].filter((node) => node.nodeType === Node.ELEMENT_NODE);
    const byKey = new Map();
    const unkeyed = [];
    for (const node of olds) {
      const key = keyOf(node);
      if (key !== null && !byKey.has(key)) byKey.set(key, node);
      else unkeyed.push(node);
    }
    const used = new Set();
    const wanted = [...drawn.childNodes].map((node) => {
      if (node.nodeType !== Node.ELEMENT_NODE) return [null, node];
      const key = keyOf(node);
      let match = key !== null ? byKey.get(key) : undefined;
      if (match === undefined && key === null) {
        match = unkeyed.find((old) => !used.has(old) && sameKind(old, node));
      }
      if (match !== undefined && sameKind(match, node) && !used.has(match)) {
        used.add(match);
        return [match, node];
      }
      return [null, node];
    });
    for (const node of [...live.childNodes]) if (!used.has(node)) node.remove();
    // Nodes kept in place are never moved (moving one would blur a field inside it); the others
    // are put in around them, from the end.
    const keep = staying(olds, wanted.filter(([match]) => match).map(([match]) => match));
    let next = null;
    for (let i = wanted.length - 1; i >= 0; i--) {
      const [match, node] = wanted[i];
      const target = match || node;
      if (!keep.has(target) && (target.parentNode !== live || target.nextSibling !== next)) {
        live.insertBefore(target, next);
      }
      if (match) morphNode(match, node);
      next = target;
    }
  }

  function patchPanel(panel, html) {
    const drawn = document.createElement("template");
    drawn.innerHTML = html;
    morphChildren(panel, drawn.content);
    panel.dataset.refreshed = String(Date.now());
  }

  // While a finger or the mouse is down nothing moves: a row removed above the button being
  // pressed would slide another under it, and the release would land elsewhere. Updates that
  // arrive meanwhile are drawn just after the release (and its click) went through.
  let pressed = false;
  const held = new Map();

  function drawHeld() {
    if (pressed) return;
    for (const [panel, html] of held) patchPanel(panel, html);
    held.clear();
  }

  function release() {
    pressed = false;
    lastPress = performance.now();
    setTimeout(drawHeld, 50);
    setTimeout(sweepGone, SETTLE_MS + 50);
  }

  document.addEventListener("pointerdown", () => { pressed = true; lastPress = performance.now(); }, true);
  document.addEventListener("pointerup", release, true);
  document.addEventListener("pointercancel", release, true);
  window.addEventListener("blur", release);

  function draw(panel, html) {
    if (pressed) held.set(panel, html);
    else patchPanel(panel, html);
  }

  // After a successful action its fields are done with: clear them wherever the form now lives.
  function clearFields(keys) {
    for (const panel of document.querySelectorAll("[data-live-src]")) {
      for (const el of inputsOf(panel)) {
        if (!keys.has(fieldKey(el))) continue;
        if (el.tagName === "SELECT") {
          const first = [...el.options].find((o) => o.defaultSelected) || el.options[0];
          el.value = first.value;
        } else {
          el.value = el.defaultValue;
        }
      }
    }
  }

  async function submitAction(form) {
    if (form.dataset.busy) return; // one answer at a time per form: a double tap is not two actions
    const question = form.dataset.confirm;
    if (question && !window.confirm(question)) return;
    const keys = new Set([...inputsOf(form)].map(fieldKey));
    const buttons = form.querySelectorAll("button");
    form.dataset.busy = "1";
    buttons.forEach((b) => (b.disabled = true));
    try {
      // getAttribute: a field named "action" (a decision's) would shadow form.action
      const response = await fetch(form.getAttribute("action"), {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf(), Accept: "application/json" },
        body: JSON.stringify(formBody(form)),
      });
      let reply = {};
      try { reply = await response.json(); } catch (e) { reply = { message: response.statusText }; }
      if (!response.ok) {
        showError(`${reply.field ? reply.field + ": " : ""}${reply.message || response.statusText}`);
      } else {
        showError("");
        clearFields(keys);
        document.body.dataset.lastSeq = reply.last_seq;
        refreshPanels();
      }
    } catch (e) {
      showError(`no answer from the server: ${e}`);
    } finally {
      delete form.dataset.busy;
      buttons.forEach((b) => (b.disabled = false));
    }
  }

  // Records come in bursts: one re-fetch follows a burst, and a panel that costs the server more
  // (the supervisor's, every table) asks to be fetched at most every data-live-gap ms.
  const BURST_MS = 15;
  let refreshTimer = null;
  let refreshing = false;
  let again = false;
  let lastStart = 0;

  async function refreshNow() {
    if (refreshing) { again = true; return; }
    refreshing = true;
    lastStart = performance.now();
    try {
      for (const panel of document.querySelectorAll("[data-live-src]")) {
        const response = await fetch(panel.dataset.liveSrc, { credentials: "same-origin" });
        if (response.status === 401 || response.redirected) { window.location.reload(); return; }
        if (response.ok) draw(panel, await response.text());
      }
    } finally {
      refreshing = false;
      document.body.dataset.refreshCount = String(Number(document.body.dataset.refreshCount || 0) + 1);
      if (again) { again = false; refreshPanels(); }
    }
  }

  function refreshPanels() {
    if (refreshTimer !== null) return;
    const panel = document.querySelector("[data-live-gap]");
    const gap = panel ? Number(panel.dataset.liveGap) : 0;
    const delay = Math.max(BURST_MS, lastStart + gap - performance.now());
    refreshTimer = setTimeout(() => { refreshTimer = null; refreshNow(); }, delay);
  }

  function connect(url) {
    const live = document.getElementById("live");
    if (live) live.classList.add("streaming"); // only live pages show the dot: green connected, red not
    const source = new EventSource(url, { withCredentials: true });
    source.addEventListener("open", () => live && live.classList.add("on"));
    source.addEventListener("error", () => live && live.classList.remove("on"));
    source.addEventListener("record", (message) => {
      document.body.dataset.lastSeq = message.lastEventId;
      refreshPanels();
    });
    source.addEventListener("overflow", () => {
      // The server dropped us for falling behind: reconnect; Last-Event-ID replays what we missed.
      source.close();
      setTimeout(() => connect(url), 500);
    });
    return source;
  }

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (form instanceof HTMLFormElement && form.classList.contains("act")) {
      event.preventDefault();
      submitAction(form);
    }
  });

  document.addEventListener("DOMContentLoaded", () => {
    const streamed = document.querySelector("[data-stream]");
    if (streamed) connect(streamed.dataset.stream);
  });
})();
