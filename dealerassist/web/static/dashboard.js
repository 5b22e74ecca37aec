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

  // A field is known across re-renders by its form's target, the form's hidden fields and its name.
  function fieldKey(el) {
    const form = el.form;
    if (!form) return `|${el.name}`;
    const hidden = [...form.querySelectorAll("input[type=hidden]")]
      .filter((h) => h.name !== "csrf_token")
      .map((h) => `${h.name}=${h.value}`)
      .join("&");
    return `${form.getAttribute("action")}|${hidden}|${el.name}`;
  }

  function edited(el) {
    if (el.tagName === "SELECT") return [...el.options].some((o) => o.selected !== o.defaultSelected);
    return el.value !== el.defaultValue;
  }

  function inputsOf(root) {
    return root.querySelectorAll("input:not([type=hidden]), select");
  }

  // What a person is typing survives a live re-render: values, focus and caret are put back.
  function saveTyping(panel) {
    const values = new Map();
    let focus = null;
    for (const el of inputsOf(panel)) {
      if (edited(el)) values.set(fieldKey(el), el.value);
      if (el === document.activeElement) {
        focus = { key: fieldKey(el), start: el.selectionStart, end: el.selectionEnd };
      }
    }
    return { values, focus };
  }

  function restoreTyping(panel, typing) {
    for (const el of inputsOf(panel)) {
      const key = fieldKey(el);
      if (typing.values.has(key)) el.value = typing.values.get(key);
      if (typing.focus && typing.focus.key === key) {
        el.focus();
        try { el.setSelectionRange(typing.focus.start, typing.focus.end); } catch (e) { /* selects */ }
      }
    }
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
    const question = form.dataset.confirm;
    if (question && !window.confirm(question)) return;
    const keys = new Set([...inputsOf(form)].map(fieldKey));
    const buttons = form.querySelectorAll("button");
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
      buttons.forEach((b) => (b.disabled = false));
    }
  }

  let refreshTimer = null;
  let refreshing = false;
  let again = false;

  async function refreshNow() {
    if (refreshing) { again = true; return; }
    refreshing = true;
    try {
      for (const panel of document.querySelectorAll("[data-live-src]")) {
        const response = await fetch(panel.dataset.liveSrc, { credentials: "same-origin" });
        if (response.status === 401 || response.redirected) { window.location.reload(); return; }
        if (response.ok) {
          const html = await response.text();
          const typing = saveTyping(panel);
          panel.innerHTML = html;
          restoreTyping(panel, typing);
          panel.dataset.refreshed = String(Date.now());
        }
      }
    } finally {
      refreshing = false;
      document.body.dataset.refreshCount = String(Number(document.body.dataset.refreshCount || 0) + 1);
      if (again) { again = false; refreshPanels(); }
    }
  }

  function refreshPanels() {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(refreshNow, 40);
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
